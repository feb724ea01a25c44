package gemini

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
)

// hostOp is one request to a host interface: a posted write or a read.
type hostOp struct {
	t          Time
	write      bool
	n, cnt, at int
}

// hostResult is what the host answered: for a write when the link took it
// and when it became visible, for a read its snapshot and completion.
type hostResult struct{ a, b Time }

func runHost(ops []hostOp, order conduit.OrderingMode) (out []hostResult, switches int64) {
	h := &host{}
	for _, o := range ops {
		var r hostResult
		if o.write {
			r.a, r.b = h.Write(o.t, o.n, o.cnt, o.at, order)
		} else {
			r.a, r.b = h.Read(o.t, o.cnt, o.at, order)
		}
		out = append(out, r)
	}
	return out, h.dieSwitch
}

// hostTraffic is a random mix of packet writes and reads over the dies,
// arriving at the rate of a busy HT link.
func hostTraffic(seed uint64, n int) []hostOp {
	r := rand.New(rand.NewPCG(seed, 1))
	var ops []hostOp
	var t Time
	for range n {
		t += Time(r.IntN(int(12 * ns)))
		o := hostOp{t: t, write: r.IntN(3) > 0, cnt: 1, at: r.IntN(Dies)}
		if o.write {
			o.n = 64
			if r.IntN(8) == 0 {
				o.n = CQEntryBytes // a completion-queue entry
			}
		}
		ops = append(ops, o)
	}
	return ops
}

// Each mode only drops a constraint of the stricter one: given the same
// requests at the same times, no write is visible and no read completes
// later under default ordering than under strict, nor under relaxed than
// under default; default reads pass writes, and default writes pass reads
// (strict ones wait for the reads of other dies before them).
func TestHostOrderingModesOnlyRelax(t *testing.T) {
	for seed := range uint64(20) {
		ops := hostTraffic(seed, 2000)
		strict, sw := runHost(ops, conduit.OrderStrict)
		def, dw := runHost(ops, conduit.OrderDefault)
		relaxed, rw := runHost(ops, conduit.OrderRelaxed)
		assert.Positive(t, dw, "seed %d: default writes wait for die switches", seed)
		assert.Zero(t, rw, "seed %d: relaxed writes wait for no die switch", seed)
		require.Positive(t, sw, "seed %d: the traffic switches dies", seed)
		earlier, writesEarlier := 0, 0
		for i, o := range ops {
			if o.write {
				require.LessOrEqual(t, def[i].a, strict[i].a, "seed %d op %d: default write taken", seed, i)
				require.LessOrEqual(t, def[i].b, strict[i].b, "seed %d op %d: default write visible", seed, i)
				if def[i].b < strict[i].b {
					writesEarlier++
				}
			} else {
				require.LessOrEqual(t, def[i].b, strict[i].b, "seed %d op %d: default read done", seed, i)
				if def[i].b < strict[i].b {
					earlier++
				}
			}
			require.LessOrEqual(t, relaxed[i].a, def[i].a, "seed %d op %d", seed, i)
			require.LessOrEqual(t, relaxed[i].b, def[i].b, "seed %d op %d: relaxed visible/done", seed, i)
		}
		assert.Positive(t, earlier, "seed %d: default reads pass writes", seed)
		assert.Positive(t, writesEarlier, "seed %d: default writes pass reads", seed)
	}
}

// The host-to-NIC direction: the CPU's store asked for while a read's data
// is booked ahead uses the idle link before that data (it would otherwise
// queue behind it), and a stream keeps its order.
func TestHostToNICStoreBeforeBookedData(t *testing.T) {
	h := &host{}
	// A read's data: 1 KiB booked at 10 us for when memory returns it.
	data := h.ToNIC(10*us, 1024)
	assert.Equal(t, 10*us+htTime(1024)+HTLatency, data)
	// A 64-byte descriptor stored at 1 us goes at once.
	assert.Equal(t, 1*us+htTime(64)+HTLatency, h.ToNIC(1*us, 64))
	// A store too large for the gap before the data goes after it.
	assert.Equal(t, data+htTime(96<<10), h.ToNIC(2*us, 96<<10))
	// The next store of the stream follows the large one, though it would
	// fit in the gap.
	assert.Equal(t, data+htTime(96<<10)+htTime(64), h.ToNIC(2*us, 64))
}

// A strict read is issued only once every earlier write is acknowledged,
// one to its own die included (it travels HT's non-posted channel and could
// otherwise overtake the write on the way); a default read passes the
// writes, and one to another die waits for them as one to its own does.
func TestHostStrictReadWaitsForEveryWrite(t *testing.T) {
	for _, die := range []int{NICDie, 2} {
		h := &host{}
		_, visible := h.Write(0, 64, 1, die, conduit.OrderStrict)
		_, done := h.Read(1*ns, 1, die, conduit.OrderStrict)
		assert.Equal(t, visible+readLatency(die), done, "die %d: strict read after its own die's write", die)

		h = &host{}
		h.Write(0, 64, 1, die, conduit.OrderDefault)
		_, done = h.Read(1*ns, 1, die, conduit.OrderDefault)
		assert.Equal(t, 1*ns+htTime(HTOverheadBytes)+HTLatency+readLatency(die), done, "die %d: default read passes the write", die)
	}
	// Two writes to two dies: the read waits for the later acknowledgement,
	// whichever die it reads.
	h := &host{}
	_, v1 := h.Write(0, 64, 1, 1, conduit.OrderStrict)
	_, v2 := h.Write(0, 64, 1, NICDie, conduit.OrderStrict)
	require.Greater(t, v2, v1, "the second write waited for the die switch")
	_, done := h.Read(1*ns, 1, 1, conduit.OrderStrict)
	assert.Equal(t, v2+readLatency(1), done)
}

// A strict write does not pass an earlier read: one to another die than
// the read's is issued only once the read has read memory; one to the
// read's own die, and a default write to any die, do not wait for it.
func TestHostStrictWriteWaitsForReadOfAnotherDie(t *testing.T) {
	const readDie = 2
	// Without waiting: the write follows the read's request (12 bytes) on
	// the link, crosses it and the bridge, and is acknowledged.
	issued := max(1*ns, htTime(HTOverheadBytes)) + htTime(64+HTOverheadBytes) + HTLatency
	for _, c := range []struct {
		die   int
		order conduit.OrderingMode
		waits bool
	}{
		{NICDie, conduit.OrderStrict, true},
		{1, conduit.OrderStrict, true},
		{readDie, conduit.OrderStrict, false},
		{NICDie, conduit.OrderDefault, false},
		{1, conduit.OrderRelaxed, false},
	} {
		h := &host{}
		snap, _ := h.Read(0, 1, readDie, conduit.OrderStrict)
		_, v := h.Write(1*ns, 64, 1, c.die, c.order)
		if c.waits {
			require.Greater(t, snap, issued, "the read reads memory after the write reaches the bridge")
			assert.Equal(t, snap+writeLatency(c.die), v, "strict write to die %d after a read of die %d", c.die, readDie)
		} else {
			assert.Equal(t, issued+writeLatency(c.die), v, "%v write to die %d after a read of die %d", c.order, c.die, readDie)
		}
	}
}
