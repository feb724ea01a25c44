package fabric_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/memreg"
	"github.com/gopgas/gopgas/internal/simnet"
)

// regConfig is the ring's configuration with a translation table of limit
// pages per node.
func regConfig(limit int64) fabric.Config {
	p := ringParams
	p.RegisterPages = limit
	w := &ring{failFrom: -1}
	return fabric.Config{
		Name: ringName, Params: p, Sizes: ringSizes, Options: fabric.DefaultOptions(p), PEsPerNode: 2,
		Caps:     conduit.Caps{AMOOps: conduit.NewAMOSet(conduit.AMOAdd)},
		Build:    w.build,
		NewHost:  func(int) fabric.Host { return &flatHost{} },
		Location: func(*simnet.Job, int) int { return 0 },
		Counters: func(s fabric.Stats) map[string]int64 { return s.Counters() },
	}
}

var regJob = conduit.JobConfig{PEs: 4, PEsPerNode: 2, SegmentBytes: 64 << 10, Ordering: conduit.OrderRelaxed, MailboxSlots: 4, PeerBurst: 4}

// A node's translation table holds RegisterPages pages, its PEs' segments
// first: a registration beyond what is free fails (after the driver's
// fixed call time) with an error naming the PE and the bytes, and a
// deregistration gives its pages back.
func TestRegistrationLimit(t *testing.T) {
	const limit = 100 // pages; the two segments of node 0 take 2 x 16
	j, err := fabric.Open(regConfig(limit), regJob)
	require.NoError(t, err)
	m := j.Net.(*fabric.Machine)
	var failCost fabric.Time
	var failErr error
	err = j.Run(func(c conduit.Endpoint) error {
		ep := c.(*simnet.Endpoint)
		if ep.Rank() != 1 {
			return nil
		}
		big, err := ep.Register(make([]byte, 60*4096)) // 92 of 100 in use
		if err != nil {
			return err
		}
		t0 := ep.Proc().Clock()
		_, failErr = ep.Register(make([]byte, 9*4096))
		failCost = ep.Proc().Clock() - t0
		if _, err := ep.Register(make([]byte, 8*4096)); err != nil { // 100 of 100
			return err
		}
		if _, err := ep.Register(make([]byte, 1)); err == nil {
			return errors.New("a registration of a full table succeeded")
		}
		if err := ep.Deregister(big); err != nil {
			return err
		}
		_, err = ep.Register(make([]byte, 9*4096))
		return err
	})
	require.NoError(t, err)
	require.ErrorIs(t, failErr, memreg.ErrTableFull)
	assert.Contains(t, failErr.Error(), "PE 1: Register of 36864 bytes")
	assert.Contains(t, failErr.Error(), "8 of its 100 pages free (32768 bytes)")
	assert.Equal(t, ringParams.RegisterCall, failCost, "a refused registration holds the driver for its fixed part")
	s := m.Stats()
	assert.Equal(t, int64(2), s.RegFailures)
	assert.Equal(t, int64(limit), s.RegPeak)
	assert.Equal(t, int64(2), m.Counters()["reg_failures"])
	// Held: 60, 8, 60 (deregistered) and 9 pages, and two refusals.
	assert.Equal(t, 4*ringParams.RegisterCall+137*ringParams.RegisterPerPage+2*ringParams.RegisterCall, s.RegBusy)
}

// Without a limit (RegisterPages 0) any registration succeeds.
func TestRegistrationNoLimit(t *testing.T) {
	j, err := fabric.Open(regConfig(0), regJob)
	require.NoError(t, err)
	err = j.Run(func(c conduit.Endpoint) error {
		_, err := c.Register(make([]byte, 1<<20))
		return err
	})
	require.NoError(t, err)
}

// A job whose segments alone need more pages than a node's table is
// refused at start, and its plan too.
func TestSegmentsBeyondLimitRefused(t *testing.T) {
	_, err := fabric.Open(regConfig(31), regJob) // 2 segments of 16 pages
	require.ErrorIs(t, err, memreg.ErrTableFull)
	assert.Contains(t, err.Error(), "node 0")
	assert.Contains(t, err.Error(), "needs 32 pages")
	_, err = fabric.Plan(regConfig(31), regJob, 0)
	require.ErrorIs(t, err, memreg.ErrTableFull)
	_, err = fabric.Open(regConfig(32), regJob)
	require.NoError(t, err)
}

// On a NIC with a table of its own for the segments' pages
// (SegmentEntries), the segments take none of the registrations' table:
// every one of its pages is left to registrations, and a job whose
// segments do not fit their own table is refused, naming it.
func TestSegmentTableApart(t *testing.T) {
	const limit = 100
	cfg := regConfig(limit)
	cfg.Params.SegmentEntries = 32 // the two segments of a node: 2 x 16
	j, err := fabric.Open(cfg, regJob)
	require.NoError(t, err)
	m := j.Net.(*fabric.Machine)
	err = j.Run(func(c conduit.Endpoint) error {
		ep := c.(*simnet.Endpoint)
		if ep.Rank() != 1 {
			return nil
		}
		if _, err := ep.Register(make([]byte, limit*4096)); err != nil { // all of it
			return err
		}
		_, err := ep.Register(make([]byte, 1))
		if !errors.Is(err, memreg.ErrTableFull) {
			return fmt.Errorf("a registration of a full table: %v", err)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, int64(limit), m.Stats().RegPeak, "the registrations' table alone")

	cfg.Params.SegmentEntries = 31
	_, err = fabric.Open(cfg, regJob)
	require.ErrorIs(t, err, memreg.ErrTableFull)
	assert.Contains(t, err.Error(), "needs 32 pages")
	assert.Contains(t, err.Error(), "the 31 of the table of segment pages")
	_, err = fabric.Plan(cfg, regJob, 0)
	require.ErrorIs(t, err, memreg.ErrTableFull)

	cfg.Params.SegmentEntries = -1
	_, err = fabric.Open(cfg, regJob)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a segment table of -1 entries")
}
