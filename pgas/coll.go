package pgas

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/gopgas/gopgas/am"
	"github.com/gopgas/gopgas/internal/pad"
)

// Collectives other than the barrier move their data in Medium active
// messages, each tagged with the team, the collective's sequence number in
// the team and a tag for the phase; a contribution that arrives before its
// receiver reaches the collective waits in a buffer.

// hColl is the runtime's handler for collective data.
const hColl am.Index = 1

type collKey struct {
	team uint8
	seq  uint32
	tag  int32
	src  int32 // global rank
}

type collBuf struct {
	data []byte
	got  int64
}

type collState struct {
	bufs map[collKey]*collBuf
}

func (pe *PE) initCollectives() error {
	pe.coll.bufs = make(map[collKey]*collBuf)
	return pe.am.RegisterReserved(hColl, "pgas.collective", pe.onColl)
}

// onColl stores a chunk of a collective's contribution. Arguments: team,
// sequence, tag, offset (low, high), total (low, high).
func (pe *PE) onColl(m *am.Message) error {
	a := m.Args
	if len(a) != 7 {
		return fmt.Errorf("collective message with %d arguments", len(a))
	}
	k := collKey{team: uint8(a[0]), seq: uint32(a[1]), tag: a[2], src: int32(m.Source())}
	off := int64(uint32(a[3])) | int64(a[4])<<32
	total := int64(uint32(a[5])) | int64(a[6])<<32
	b := pe.coll.bufs[k]
	if b == nil {
		b = &collBuf{data: make([]byte, total)}
		pe.coll.bufs[k] = b
	}
	if int64(len(b.data)) != total || off < 0 || off+int64(len(m.Payload)) > total {
		return fmt.Errorf("collective chunk [%d,+%d) of %d bytes from PE %d does not fit its %d-byte contribution", off, len(m.Payload), total, m.Source(), len(b.data))
	}
	copy(b.data[off:], m.Payload)
	b.got += int64(len(m.Payload))
	return nil
}

// coll is one collective call in progress.
type coll struct {
	t    *Team
	name string
	seq  uint32
}

func (t *Team) begin(name string) (*coll, error) {
	if err := t.check(name); err != nil {
		return nil, err
	}
	t.seq++
	return &coll{t: t, name: name, seq: t.seq}, nil
}

// send sends data to a team rank under tag, in chunks of MaxMedium.
func (c *coll) send(to int, tag int32, data []byte) error {
	pe := c.t.pe
	g := c.t.global(to)
	total := int64(len(data))
	max := int64(pe.am.MaxMedium())
	for off := int64(0); off == 0 || off < total; {
		n := min(max, total-off)
		err := pe.am.RequestMedium(g, hColl, data[off:off+n],
			int32(c.t.id), int32(c.seq), tag, int32(uint32(off)), int32(off>>32), int32(uint32(total)), int32(total>>32))
		if err != nil {
			return pe.wrap(c.name, err)
		}
		off += n
		if total == 0 {
			break
		}
	}
	return nil
}

// recv waits for the whole contribution of team rank from under tag and
// copies it into dst, whose length it must have.
func (c *coll) recv(from int, tag int32, dst []byte) error {
	pe := c.t.pe
	k := collKey{team: uint8(c.t.id), seq: c.seq, tag: tag, src: int32(c.t.global(from))}
	var b *collBuf
	ready := func() bool {
		b = pe.coll.bufs[k]
		return b != nil && b.got == int64(len(b.data))
	}
	if err := pe.eng.WaitFunc(c.name, ready); err != nil {
		return pe.wrap(c.name, err)
	}
	delete(pe.coll.bufs, k)
	if len(b.data) != len(dst) {
		return pe.errf(c.name, ErrMismatch, "PE %d contributed %d bytes where %d were expected", c.t.global(from), len(b.data), len(dst))
	}
	copy(dst, b.data)
	return nil
}

// bcast sends buf from team rank root to all members down a binomial tree.
func (c *coll) bcast(root int, tag int32, buf []byte) error {
	n, vr := c.t.size, (c.t.rank-root+c.t.size)%c.t.size
	mask := 1
	for ; mask < n; mask <<= 1 {
		if vr&mask != 0 {
			if err := c.recv((vr-mask+root)%n, tag, buf); err != nil {
				return err
			}
			break
		}
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if vr+mask < n {
			if err := c.send((vr+mask+root)%n, tag, buf); err != nil {
				return err
			}
		}
	}
	return nil
}

// reduce combines every member's acc up a binomial tree into root's acc.
func (c *coll) reduce(root int, tag int32, acc []byte, combine func(dst, src []byte)) error {
	n, vr := c.t.size, (c.t.rank-root+c.t.size)%c.t.size
	tmp := make([]byte, len(acc))
	for mask := 1; mask < n; mask <<= 1 {
		if vr&mask != 0 {
			return c.send((vr-mask+root)%n, tag, acc)
		}
		if src := vr | mask; src < n {
			if err := c.recv((src+root)%n, tag, tmp); err != nil {
				return err
			}
			combine(acc, tmp)
		}
	}
	return nil
}

// gather collects equal blocks at root: out[r*len(in):] holds rank r's.
func (c *coll) gather(root int, tag int32, in, out []byte) error {
	t := c.t
	if t.rank != root {
		return c.send(root, tag, in)
	}
	b := len(in)
	copy(out[t.rank*b:], in)
	for r := range t.size {
		if r != root {
			if err := c.recv(r, tag, out[r*b:(r+1)*b]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *Team) checkRoot(name string, root int) error {
	if root < 0 || root >= t.size {
		return t.pe.errf(name, ErrBadPE, "root %d outside the team [0,%d)", root, t.size)
	}
	return nil
}

func (t *Team) allgatherBytes(name string, in, out []byte) error {
	c, err := t.begin(name)
	if err != nil {
		return err
	}
	return c.allgather(in, out)
}

// allgather gathers at rank 0 and broadcasts the result.
func (c *coll) allgather(in, out []byte) error {
	if err := c.gather(0, 1, in, out); err != nil {
		return err
	}
	return c.bcast(0, 2, out)
}

// asBytes views a slice of a pointer-free type as bytes.
func asBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// Every collective takes its sequence number before checking its
// arguments: a PE whose arguments are wrong returns an error, but its team
// mates' next collective still matches its own.

// Broadcast copies root's buf into every member's buf.
func Broadcast[T any](t *Team, root int, buf []T) error {
	c, err := t.begin("Broadcast")
	if err != nil {
		return err
	}
	if err := t.checkRoot("Broadcast", root); err != nil {
		return err
	}
	if err := checkPlain[T](t.pe, "Broadcast"); err != nil {
		return err
	}
	return c.bcast(root, 0, asBytes(buf))
}

// Gather collects every member's in at root: out, of len(in)*Size elements
// (only root's is used), holds rank r's block at r*len(in).
func Gather[T any](t *Team, root int, in, out []T) error {
	c, err := t.begin("Gather")
	if err != nil {
		return err
	}
	if err := t.checkRoot("Gather", root); err != nil {
		return err
	}
	if err := checkPlain[T](t.pe, "Gather"); err != nil {
		return err
	}
	if t.rank == root && len(out) != len(in)*t.size {
		return t.pe.errf("Gather", ErrArgument, "out has %d elements, want %d (%d per PE)", len(out), len(in)*t.size, len(in))
	}
	return c.gather(root, 0, asBytes(in), asBytes(out))
}

// Allgather gives every member every member's in: out holds rank r's block
// at r*len(in).
func Allgather[T any](t *Team, in, out []T) error {
	c, err := t.begin("Allgather")
	if err != nil {
		return err
	}
	if err := checkPlain[T](t.pe, "Allgather"); err != nil {
		return err
	}
	if len(out) != len(in)*t.size {
		return t.pe.errf("Allgather", ErrArgument, "out has %d elements, want %d (%d per PE)", len(out), len(in)*t.size, len(in))
	}
	return c.allgather(asBytes(in), asBytes(out))
}

// Alltoall sends block j of in to member j, which stores it as block i of
// its out, i being the sender's rank. in and out hold Size equal blocks.
func Alltoall[T any](t *Team, in, out []T) error {
	c, err := t.begin("Alltoall")
	if err != nil {
		return err
	}
	if err := checkPlain[T](t.pe, "Alltoall"); err != nil {
		return err
	}
	if len(in) != len(out) || len(in)%t.size != 0 {
		return t.pe.errf("Alltoall", ErrArgument, "in has %d and out %d elements; both must be the same multiple of the team size %d", len(in), len(out), t.size)
	}
	bi, bo := asBytes(in), asBytes(out)
	blk := len(bi) / t.size
	for k := 1; k < t.size; k++ {
		to := (t.rank + k) % t.size
		if err := c.send(to, 0, bi[to*blk:(to+1)*blk]); err != nil {
			return err
		}
	}
	copy(bo[t.rank*blk:], bi[t.rank*blk:(t.rank+1)*blk])
	for k := 1; k < t.size; k++ {
		from := (t.rank - k + t.size) % t.size
		if err := c.recv(from, 0, bo[from*blk:(from+1)*blk]); err != nil {
			return err
		}
	}
	return nil
}

// ReduceOp is a reduction operator.
type ReduceOp uint8

const (
	Sum ReduceOp = iota + 1
	Prod
	Min
	Max
	And // integer types only
	Or  // integer types only
	Xor // integer types only
)

var reduceNames = [...]string{"", "sum", "prod", "min", "max", "and", "or", "xor"}

// String returns the operator's name.
func (op ReduceOp) String() string {
	if op > 0 && int(op) < len(reduceNames) {
		return reduceNames[op]
	}
	return fmt.Sprintf("ReduceOp(%d)", uint8(op))
}

// Number is the element types reductions work on.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint | ~uintptr | ~float32 | ~float64
}

func isFloat[T Number]() bool {
	var one T = 1
	return one/2 != 0
}

// combiner returns the function that folds src into dst for op.
func combiner[T Number](pe *PE, name string, op ReduceOp) (func(dst, src []byte), error) {
	var f func(a, b T) T
	switch op {
	case Sum:
		f = func(a, b T) T { return a + b }
	case Prod:
		f = func(a, b T) T { return a * b }
	case Min:
		f = func(a, b T) T { return min(a, b) }
	case Max:
		f = func(a, b T) T { return max(a, b) }
	case And, Or, Xor:
		if isFloat[T]() {
			var zero T
			return nil, pe.errf(name, ErrArgument, "%v is not defined on %T", op, zero)
		}
		f = bitwise[T](op)
	default:
		return nil, pe.errf(name, ErrArgument, "unknown reduction %v", op)
	}
	return func(dst, src []byte) {
		n := len(dst) / int(unsafe.Sizeof(T(0)))
		d := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(dst))), n)
		s := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(src))), n)
		for i := range d {
			d[i] = f(d[i], s[i])
		}
	}, nil
}

// bitwise works on the bits of integer T.
func bitwise[T Number](op ReduceOp) func(a, b T) T {
	size := unsafe.Sizeof(T(0))
	bitsOf := func(v T) uint64 {
		var u uint64
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&u)), size), unsafe.Slice((*byte)(unsafe.Pointer(&v)), size))
		return u
	}
	fromBits := func(u uint64) T {
		var v T
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&v)), size), unsafe.Slice((*byte)(unsafe.Pointer(&u)), size))
		return v
	}
	return func(a, b T) T {
		x, y := bitsOf(a), bitsOf(b)
		switch op {
		case And:
			return fromBits(x & y)
		case Or:
			return fromBits(x | y)
		}
		return fromBits(x ^ y)
	}
}

// Reduce combines every member's in element-wise with op into root's out
// (len(out) == len(in) at root).
func Reduce[T Number](t *Team, root int, op ReduceOp, in, out []T) error {
	c, err := t.begin("Reduce")
	if err != nil {
		return err
	}
	if err := t.checkRoot("Reduce", root); err != nil {
		return err
	}
	f, err := combiner[T](t.pe, "Reduce", op)
	if err != nil {
		return err
	}
	if t.rank == root && len(out) != len(in) {
		return t.pe.errf("Reduce", ErrArgument, "out has %d elements, in %d", len(out), len(in))
	}
	acc := append([]byte(nil), asBytes(in)...)
	if err := c.reduce(root, 0, acc, f); err != nil {
		return err
	}
	if t.rank == root {
		copy(asBytes(out), acc)
	}
	return nil
}

// Allreduce combines every member's in element-wise with op into every
// member's out (len(out) == len(in)). in and out may be the same slice.
func Allreduce[T Number](t *Team, op ReduceOp, in, out []T) error {
	if err := t.check("Allreduce"); err != nil {
		return err
	}
	if len(in) == len(out) {
		if done, err := offloadAllreduce(t, op, in, out); done {
			return err
		}
	}
	if done, err := directAllreduce(t, op, in, out); done {
		return err
	}
	c, err := t.begin("Allreduce")
	if err != nil {
		return err
	}
	f, err := combiner[T](t.pe, "Allreduce", op)
	if err != nil {
		return err
	}
	if len(out) != len(in) {
		return t.pe.errf("Allreduce", ErrArgument, "out has %d elements, in %d", len(out), len(in))
	}
	acc := append([]byte(nil), asBytes(in)...)
	if err := c.reduce(0, 1, acc, f); err != nil {
		return err
	}
	if err := c.bcast(0, 2, acc); err != nil {
		return err
	}
	copy(asBytes(out), acc)
	return nil
}

// checkPlain rejects element types that hold pointers: their bytes mean
// nothing on another PE.
func checkPlain[T any](pe *PE, name string) error {
	var zero T
	if !pad.PointerFree(reflect.TypeOf(zero)) {
		return pe.errf(name, ErrArgument, "element type %T holds pointers or has no fixed size", zero)
	}
	return nil
}
