package aries

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
)

// hostOp is one request to the PCI-Express host interface: a posted write
// or a read, of memory on socket loc.
type hostOp struct {
	t           Time
	write       bool
	n, cnt, loc int
}

func runHost(ops []hostOp, order conduit.OrderingMode) [][2]Time {
	h := &host{}
	out := make([][2]Time, len(ops))
	for i, o := range ops {
		if o.write {
			out[i][0], out[i][1] = h.Write(o.t, o.n, o.cnt, o.loc, order)
		} else {
			out[i][0], out[i][1] = h.Read(o.t, o.cnt, o.loc, order)
		}
	}
	return out
}

// Each mode only drops a constraint of the stricter one: given the same
// writes and reads at the same times, no write is visible and no read
// completes later under default ordering than under strict, nor under
// relaxed than under default; default writes are strict ones, and some
// default reads pass writes.
func TestHostOrderingModesOnlyRelax(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 2))
		ops := make([]hostOp, 2000)
		var now Time
		for i := range ops {
			now += Time(r.IntN(int(8 * ns)))
			ops[i] = hostOp{t: now, write: r.IntN(3) > 0, n: 64, cnt: 1, loc: r.IntN(Sockets)}
		}
		strict := runHost(ops, conduit.OrderStrict)
		def := runHost(ops, conduit.OrderDefault)
		relaxed := runHost(ops, conduit.OrderRelaxed)
		passed := 0
		for i, o := range ops {
			if o.write {
				require.Equal(t, strict[i], def[i], "seed %d op %d: a default write as a strict one", seed, i)
			} else {
				require.LessOrEqual(t, def[i][1], strict[i][1], "seed %d op %d: default read done", seed, i)
				if def[i][1] < strict[i][1] {
					passed++
				}
			}
			require.LessOrEqual(t, relaxed[i][0], def[i][0], "seed %d op %d", seed, i)
			require.LessOrEqual(t, relaxed[i][1], def[i][1], "seed %d op %d: relaxed visible/done", seed, i)
		}
		assert.Positive(t, passed, "seed %d: default reads pass writes", seed)
	}
}

// The host-to-NIC direction: a descriptor the CPU stores while a read's
// data is booked ahead goes before that data.
func TestHostToNICStoreBeforeBookedData(t *testing.T) {
	h := &host{}
	data := h.ToNIC(10*us, 4096)
	assert.Equal(t, 10*us+pcieTime(4096)+PCIeLatency, data)
	assert.Equal(t, 1*us+pcieTime(88)+PCIeLatency, h.ToNIC(1*us, 88))
}

// Unlike Gemini's HT interface, a strict write here does not wait for an
// earlier read of the other socket: PCI-Express lets a posted write pass
// a read (the strict rule is for reads behind writes only; A-ORD).
func TestHostStrictWritePassesReads(t *testing.T) {
	for _, loc := range []int{0, 1} {
		h := &host{}
		snap, _ := h.Read(0, 1, 1-loc, conduit.OrderStrict)
		_, v := h.Write(1*ns, 64, 1, loc, conduit.OrderStrict)
		at := max(1*ns, pcieTime(PCIeOverheadBytes)) + pcieTime(64+PCIeOverheadBytes) + PCIeLatency
		require.Greater(t, snap, at, "socket %d: the read reads memory after the write reaches the host", loc)
		assert.Equal(t, at+memLatency(MemoryWriteLatency, loc), v, "socket %d: the strict write does not wait for the read", loc)
	}
}
