package integrity

import (
	"fmt"
	"slices"

	"github.com/gopgas/gopgas/pgas"
)

// Params say how much work a run does.
type Params struct {
	// MinBytes and MaxBytes bound the block sizes of the puts and gets:
	// MinBytes, MinBytes*Factor, ... up to MaxBytes (MaxBytes itself is
	// always one of them).
	MinBytes, MaxBytes, Factor int
	// Adds is the number of fetch-adds each PE makes to each PE's
	// counter in each round.
	Adds int
	// Rounds is how many times the whole is done.
	Rounds int
}

// Defaults are the example's defaults: blocks of 8 B to 256 KiB in steps
// of 8, 16 fetch-adds per PE and counter, one round.
func Defaults() Params {
	return Params{MinBytes: 8, MaxBytes: 256 << 10, Factor: 8, Adds: 16, Rounds: 1}
}

// Check reports what is wrong with p.
func (p Params) Check() error {
	switch {
	case p.MinBytes < 1:
		return fmt.Errorf("the smallest block, %d bytes: must be at least 1", p.MinBytes)
	case p.MaxBytes < p.MinBytes:
		return fmt.Errorf("the largest block, %d bytes: must be at least the smallest, %d", p.MaxBytes, p.MinBytes)
	case p.Factor < 2:
		return fmt.Errorf("the step between block sizes, %d: must be at least 2", p.Factor)
	case p.Adds < 0:
		return fmt.Errorf("%d fetch-adds: must not be negative", p.Adds)
	case p.Rounds < 1:
		return fmt.Errorf("%d rounds: must be at least 1", p.Rounds)
	}
	return nil
}

// Sizes are the block sizes of a round, in order.
func (p Params) Sizes() []int {
	if p.Factor < 2 || p.MinBytes < 1 || p.MaxBytes <= p.MinBytes {
		return []int{p.MaxBytes}
	}
	var s []int
	for b := p.MinBytes; b < p.MaxBytes; b *= p.Factor {
		s = append(s, b)
		if b > p.MaxBytes/p.Factor {
			break
		}
	}
	return append(s, p.MaxBytes)
}

// Result is what a run checked, over all PEs (every PE returns the same).
type Result struct {
	PEs int
	// BytesChecked are the bytes compared with what they must be: every
	// byte every put delivered and every get fetched.
	BytesChecked int64
	// Transfers are the puts and gets checked, AMOs the fetch-adds.
	Transfers, AMOs int64
	// Retries are the runtime's re-posts of timed-out transfers and AMOs
	// (pgas.Stats().Transport.Retries, summed).
	Retries int64
}

// pattern fills b with the bytes PE src puts to PE dst in a block of size
// bytes in round r: a xorshift sequence seeded by all four, so that a
// block delivered to the wrong place, a stale one or a torn one differs.
func pattern(b []byte, src, dst, size, r int) {
	x := uint64(src+1)*0x9e3779b97f4a7c15 ^ uint64(dst+1)*0xbf58476d1ce4e5b9 ^ uint64(size)*0x94d049bb133111eb ^ uint64(r+1)<<56
	for i := range b {
		if i%8 == 0 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
		b[i] = byte(x >> (8 * (i % 8)))
	}
}

// compare checks got against want, naming the block in the error.
func compare(got, want []byte, what string) error {
	if i := firstDiff(got, want); i >= 0 {
		return fmt.Errorf("%s: byte %d of %d is %#02x, want %#02x", what, i, len(want), got[i], want[i])
	}
	return nil
}

func firstDiff(a, b []byte) int {
	for i := range b {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// Run does the work on every PE of the job (it is collective) and checks
// it; it returns an error naming the first thing found wrong.
func Run(pe *pgas.PE, p Params) (Result, error) {
	if err := p.Check(); err != nil {
		return Result{}, err
	}
	n := pe.Size()
	sizes := p.Sizes()
	// dst holds what every PE puts here: PE src's block at src*size.
	dst, err := pe.Alloc(int64(n)*int64(p.MaxBytes), 8)
	if err != nil {
		return Result{}, fmt.Errorf("allocating %d bytes for the blocks: %w", int64(n)*int64(p.MaxBytes), err)
	}
	counters, err := pgas.NewArray[int64](pe, 1)
	if err != nil {
		return Result{}, fmt.Errorf("allocating the counter: %w", err)
	}
	out := make([]byte, n*p.MaxBytes) // the blocks this PE puts, by target
	in := make([]byte, n*p.MaxBytes)  // the blocks it gets back
	want := make([]byte, p.MaxBytes)
	var res Result
	for r := range p.Rounds {
		for _, size := range sizes {
			bytes, transfers, err := round(pe, dst, out, in, want, size, r)
			if err != nil {
				return Result{}, fmt.Errorf("round %d, blocks of %d bytes: %w", r, size, err)
			}
			res.BytesChecked += bytes
			res.Transfers += transfers
		}
		amos, err := count(pe, counters, p.Adds, r)
		if err != nil {
			return Result{}, fmt.Errorf("round %d, counters: %w", r, err)
		}
		res.AMOs += amos
	}
	sums := []int64{res.BytesChecked, res.Transfers, res.AMOs, pe.Stats().Transport.Retries}
	if err := pgas.Allreduce(pe.World(), pgas.Sum, sums, sums); err != nil {
		return Result{}, fmt.Errorf("summing the checks: %w", err)
	}
	return Result{PEs: n, BytesChecked: sums[0], Transfers: sums[1], AMOs: sums[2], Retries: sums[3]}, nil
}

// round puts this PE's block of size bytes to every PE, checks the blocks
// every PE put here, and gets back from every PE the block it put there
// and checks it. It returns the bytes and transfers it checked.
func round(pe *pgas.PE, dst int64, out, in, want []byte, size, r int) (int64, int64, error) {
	n, me := pe.Size(), pe.Rank()
	for q := range n {
		b := out[q*size : (q+1)*size]
		pattern(b, me, q, size, r)
		if err := pe.PutNBI(q, dst+int64(me*size), b); err != nil {
			return 0, 0, fmt.Errorf("put to PE %d: %w", q, err)
		}
	}
	if err := pe.Barrier(); err != nil { // completes the puts everywhere
		return 0, 0, fmt.Errorf("barrier after the puts: %w", err)
	}
	local, err := pe.Local(dst, int64(n*size))
	if err != nil {
		return 0, 0, err
	}
	var checked int64
	for src := range n {
		pattern(want[:size], src, me, size, r)
		if err := compare(local[src*size:(src+1)*size], want[:size], fmt.Sprintf("PE %d's put of %d bytes to PE %d", src, size, me)); err != nil {
			return 0, 0, err
		}
		checked += int64(size)
	}
	clear(in[:n*size])
	for q := range n {
		if err := pe.GetNBI(q, dst+int64(me*size), in[q*size:(q+1)*size]); err != nil {
			return 0, 0, fmt.Errorf("get from PE %d: %w", q, err)
		}
	}
	if err := pe.Quiet(); err != nil {
		return 0, 0, fmt.Errorf("completing the gets: %w", err)
	}
	for q := range n {
		if err := compare(in[q*size:(q+1)*size], out[q*size:(q+1)*size], fmt.Sprintf("PE %d's get of %d bytes from PE %d", me, size, q)); err != nil {
			return 0, 0, err
		}
		checked += int64(size)
	}
	// Nobody puts the next size's blocks before every PE's gets are done.
	if err := pe.Barrier(); err != nil {
		return 0, 0, fmt.Errorf("barrier after the gets: %w", err)
	}
	return checked, int64(2 * n), nil
}

// count makes adds fetch-adds of 1 to every PE's counter, interleaved over
// the PEs and all in flight at once, and sends each owner the values it
// fetched; every owner checks that its counter grew by adds per PE and
// that the values fetched from it are exactly its old value to its new
// one, each once: an AMO applied twice, or lost, shows. It returns the
// fetch-adds made.
func count(pe *pgas.PE, counters pgas.Array[int64], adds, r int) (int64, error) {
	n, me := pe.Size(), pe.Rank()
	base := int64(r) * int64(n) * int64(adds) // every counter's value before the round
	if got := counters.Local()[0]; got != base {
		return 0, fmt.Errorf("PE %d's counter is %d before the round, want %d", me, got, base)
	}
	// The barrier keeps the adds of the round from starting before every
	// owner has read its counter.
	if err := pe.Barrier(); err != nil {
		return 0, err
	}
	fetched := make([]int64, n*adds) // the values fetched from PE q at q*adds
	hs := make([]pgas.Handle, 0, n*adds)
	for k := range adds {
		for q := range n {
			q := (me + q) % n // start at different owners
			h, err := pgas.FetchAtomicNB(pe, pgas.AtomicAdd, counters.At(q, 0), 1, &fetched[q*adds+k])
			if err != nil {
				return 0, fmt.Errorf("fetch-add %d to PE %d: %w", k, q, err)
			}
			hs = append(hs, h)
		}
	}
	if err := pgas.WaitAll(hs...); err != nil {
		return 0, fmt.Errorf("completing the fetch-adds: %w", err)
	}
	got := make([]int64, n*adds) // the values fetched from this PE, by PE
	if err := pgas.Alltoall(pe.World(), fetched, got); err != nil {
		return 0, fmt.Errorf("sending the fetched values to their owners: %w", err)
	}
	if err := pe.Barrier(); err != nil { // every add is done everywhere
		return 0, err
	}
	total := int64(n) * int64(adds)
	if v := counters.Local()[0]; v != base+total {
		return 0, fmt.Errorf("PE %d's counter is %d after %d fetch-adds of 1 from each of %d PEs, want %d", me, v, adds, n, base+total)
	}
	slices.Sort(got)
	for i, v := range got {
		if v != base+int64(i) {
			return 0, fmt.Errorf("the values fetched from PE %d's counter are not %d to %d, each once: the %d-th smallest is %d", me, base, base+total-1, i, v)
		}
	}
	return int64(adds) * int64(n), nil
}

// Job runs the work as a job of cfg and returns what was checked and the
// backend's report of the job (cfg.Report is set to the latter).
func Job(cfg pgas.Config, p Params) (Result, pgas.Report, error) {
	var rep pgas.Report
	cfg.Report = &rep
	var res Result
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		r, err := Run(pe, p)
		if err == nil && pe.Rank() == 0 {
			res = r
		}
		return err
	})
	return res, rep, err
}

// Bytes is what a run of n PEs checks: every PE's block of each size to
// and from every PE, in every round.
func (p Params) Bytes(n int) int64 {
	var sum int64
	for _, s := range p.Sizes() {
		sum += int64(s)
	}
	return 2 * int64(n) * int64(n) * sum * int64(p.Rounds)
}

// FaultSummary says what a run on a simulated network whose links failed
// did and what it cost: the backend's fault counters, the runtime's
// retries, what was checked, and the job's end beside that of the same
// job without the failures (healthy).
func FaultSummary(res Result, rep, healthy pgas.Report) string {
	c := rep.Counters
	return fmt.Sprintf("%d link failures, %d lost packets, %d dropped, %d retries, %d reroutes (quiesced %d ns), %d message resends, %d AMO replays; %d bytes, %d transfers, %d AMOs checked; end %v, %v without the failures (+%v)",
		c["link_failures"], c["lost_packets"], c["dropped"], res.Retries, c["reroutes"], c["quiesce_ns"], c["msg_resends"], c["amo_replays"],
		res.BytesChecked, res.Transfers, res.AMOs, rep.End, healthy.End, rep.End-healthy.End)
}
