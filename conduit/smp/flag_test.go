package smp_test

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/conduit/smp/smptest"
)

// TestFlaggedGet: a PE polling a flagged get's flag word finds the data in
// place when it sees the flag, and the completion follows; a get that
// fails leaves the flag alone.
func TestFlaggedGet(t *testing.T) {
	const n, flagValue = 1000, 0xf1a9
	var b smptest.Barrier
	b.N = 2
	smptest.RunJob(t, jobConfig(2), func(ep conduit.Endpoint) error {
		var gen int64
		if !assert.True(t, ep.Caps().FlaggedGet) {
			return nil
		}
		seg := ep.Segment()
		if ep.Rank() == 1 {
			for i := range n {
				seg[4096+i] = byte(i*7 + 1)
			}
		}
		if err := b.Wait(ep, &gen); err != nil || ep.Rank() == 1 {
			return err
		}
		local, flag := seg[8192:8192+n], seg[16384:16392]
		d := getDesc(ep, 1, 4096, local)
		d.Flag = &conduit.FlagWord{Word: flag, Value: flagValue}
		if err := ep.Post(d); err != nil {
			return err
		}
		err := ep.WaitFor("the flag", smptest.WaitFunc(func() (bool, error) { return conduit.LoadFlag(flag) == flagValue, nil }))
		if err != nil {
			return err
		}
		for i := range n {
			if local[i] != byte(i*7+1) {
				return fmt.Errorf("flag seen, but byte %d of the get is %d, want %d", i, local[i], byte(i*7+1))
			}
		}
		ev, err := nextEvent(ep)
		if err != nil {
			return err
		}
		assert.Same(t, d, ev.Desc)
		assert.NoError(t, ev.Err())

		// Beyond the target's registration: an error, and no flag.
		conduit.StoreFlag(flag, 0)
		bad := getDesc(ep, 1, 1<<16, local[:8])
		bad.Remote.Bytes = 1 << 20
		bad.Flag = &conduit.FlagWord{Word: flag, Value: flagValue}
		if err := ep.Post(bad); err != nil {
			return err
		}
		ev, err = nextEvent(ep)
		if err != nil {
			return err
		}
		assert.Equal(t, conduit.StatusError, ev.Status)
		assert.Zero(t, conduit.LoadFlag(flag), "a failed get writes no flag")
		return nil
	})
}

// TestFlaggedGetRegistered: when local memory must be registered, so must
// the flag word.
func TestFlaggedGetRegistered(t *testing.T) {
	cfg := jobConfig(2)
	cfg.RequireRegisteredLocal = true
	smptest.RunJob(t, cfg, func(ep conduit.Endpoint) error {
		if ep.Rank() != 0 {
			return nil
		}
		seg := ep.Segment()
		d := getDesc(ep, 1, 0, seg[:64])
		d.LocalMem = ep.SegmentHandle(0)
		d.Flag = &conduit.FlagWord{Word: unsafeWord(), Value: 1}
		err := ep.Post(d)
		if assert.Error(t, err) {
			assert.Contains(t, err.Error(), "flag word of 8 bytes is not inside registration 0")
		}
		d.Flag.Word, d.Flag.Mem = seg[64:72], ep.SegmentHandle(0)
		if err := post(ep, d); err != nil {
			return err
		}
		assert.Equal(t, uint64(1), conduit.LoadFlag(seg[64:72]))
		return nil
	})
}

// unsafeWord is an aligned 8-byte word outside any registration.
func unsafeWord() []byte {
	w := make([]uint64, 1)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), 8)
}
