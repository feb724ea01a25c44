package pgas_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/gopgas/gopgas/pgas"
)

// Tests of the MCS global lock of lock.go.

// locktSetups are the configurations the lock runs under: those of
// pathSetups, and direct load/store in strict mode.
var locktSetups = append(pathSetups[:len(pathSetups):len(pathSetups)], pathSetup{"strict", func(n int) pgas.Config {
	return pgas.Config{PEs: n, SegmentBytes: pgas.MinSegmentBytes, Direct: pgas.On, Access: pgas.Strict}
}})

// locktSpin does local work depending on (a, b), so that PEs hold the lock
// and contend for it in varying patterns.
func locktSpin(a, b int) {
	x := uint64(a)*0x9E3779B97F4A7C15 ^ uint64(b+1)*0xC2B2AE3D27D4EB4F
	x ^= x >> 31
	s := 0
	for i := range int(x % 500) {
		s += i
	}
	// Published, so that the compiler cannot drop the work.
	locktSink.Add(int64(s))
}

var locktSink atomic.Int64

// locktAcquire takes the lock with Lock or, when try is set, with TryLock
// if that succeeds within a few attempts (TryLock only wins when nobody
// queues, so spinning on it alone can starve), else with Lock.
func locktAcquire(pe *pgas.PE, l *pgas.Lock, try bool) error {
	for range 4 {
		if !try {
			break
		}
		ok, err := l.TryLock()
		if err != nil || ok {
			return err
		}
		if err := pe.Poll(); err != nil {
			return err
		}
	}
	return l.Lock()
}

// TestLockMutualExclusion has every PE increment a counter on PE 0 with a
// non-atomic read-modify-write (Get, then Put) inside the critical
// section, many times: the final count must be exact. An owner word,
// swapped on entry and exit, catches two holders at once directly.
func TestLockMutualExclusion(t *testing.T) {
	for _, s := range locktSetups {
		for n := 1; n <= 6; n++ {
			if (s.name == "post+reg" || s.name == "strict") && n%2 == 1 {
				continue
			}
			t.Run(fmt.Sprintf("%s/PEs=%d", s.name, n), func(t *testing.T) {
				const iters = 150
				err := pgas.Run(s.cfg(n), func(pe *pgas.PE) error {
					me := pe.Rank()
					l, err := pgas.NewLock(pe)
					if err != nil {
						return err
					}
					shared, err := pgas.NewArray[int64](pe, 2) // counter, owner
					if err != nil {
						return err
					}
					owner := shared.At(0, 1)
					for it := range iters {
						// Every third acquisition of odd PEs tries TryLock
						// first, so the queue sees both kinds of holder.
						if err := locktAcquire(pe, l, me%2 == 1 && it%3 == 0); err != nil {
							return err
						}
						prev, err := pgas.FetchAtomic(pe, pgas.AtomicSwap, owner, int64(me+1))
						if err != nil {
							return err
						}
						if prev != 0 {
							return fmt.Errorf("iteration %d: PE %d got the lock while PE %d held it", it, me, prev-1)
						}
						var c [1]int64
						if err := shared.Get(0, 0, c[:]); err != nil {
							return err
						}
						locktSpin(it, me)
						c[0]++
						if err := shared.Put(0, 0, c[:]); err != nil {
							return err
						}
						prev, err = pgas.FetchAtomic(pe, pgas.AtomicSwap, owner, 0)
						if err != nil {
							return err
						}
						if prev != int64(me+1) {
							return fmt.Errorf("iteration %d: PE %d's critical section ended with owner %d", it, me, prev)
						}
						if err := l.Unlock(); err != nil {
							return err
						}
						locktSpin(me, it)
					}
					if err := pe.Barrier(); err != nil {
						return err
					}
					var c [1]int64
					if err := shared.Get(0, 0, c[:]); err != nil {
						return err
					}
					if c[0] != int64(n*iters) {
						return fmt.Errorf("PE %d reads the counter as %d, want %d", me, c[0], n*iters)
					}
					if err := pe.Barrier(); err != nil {
						return err
					}
					if err := shared.Free(); err != nil {
						return err
					}
					return l.Free()
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestLockVisibility: the holder's writes, including implicit-handle puts
// it never waited for, must be complete when the next holder gets the
// lock. Each holder checks that a block of words, spread over two PEs and
// larger than one FMA transfer, all hold the count of earlier holds, and
// writes the next count into all of them.
func TestLockVisibility(t *testing.T) {
	for _, s := range locktSetups {
		for _, n := range []int{2, 3, 5} {
			if s.name == "strict" && n != 3 {
				continue
			}
			t.Run(fmt.Sprintf("%s/PEs=%d", s.name, n), func(t *testing.T) {
				const (
					iters = 40
					words = 700 // 5600 bytes: beyond the 4096-byte FMA cutover
				)
				err := pgas.Run(s.cfg(n), func(pe *pgas.PE) error {
					me := pe.Rank()
					l, err := pgas.NewLock(pe)
					if err != nil {
						return err
					}
					data, err := pgas.NewArray[int64](pe, words)
					if err != nil {
						return err
					}
					buf := make([]int64, words)
					far := n - 1 // the block's second home
					for it := range iters {
						if err := locktAcquire(pe, l, it%4 == me%4); err != nil {
							return err
						}
						want := int64(-1)
						for _, home := range []int{0, far} {
							if err := data.Get(home, 0, buf); err != nil {
								return err
							}
							for i, v := range buf {
								if want < 0 {
									want = v
								}
								if v != want {
									return fmt.Errorf("iteration %d: PE %d sees word %d on PE %d = %d, want %d: the previous holder's writes are incomplete", it, me, i, home, v, want)
								}
							}
						}
						for i := range buf {
							buf[i] = want + 1
						}
						// Implicit-handle puts: Unlock must complete them.
						if err := data.PutNBI(0, 0, buf[:words/2]); err != nil {
							return err
						}
						if err := data.PutNBI(0, words/2, buf[words/2:]); err != nil {
							return err
						}
						if err := data.PutNBI(far, 0, buf); err != nil {
							return err
						}
						if err := l.Unlock(); err != nil {
							return err
						}
					}
					if err := pe.Barrier(); err != nil {
						return err
					}
					if err := data.Get(far, 0, buf); err != nil {
						return err
					}
					for i, v := range buf {
						if v != int64(n*iters) {
							return fmt.Errorf("final word %d is %d, want %d", i, v, n*iters)
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestLockTryLock checks TryLock: it fails while another PE holds the lock
// (by Lock or by TryLock) and succeeds when it is free; of PEs trying at
// once, exactly one wins. Unlock of a free lock is an error.
func TestLockTryLock(t *testing.T) {
	for _, s := range locktSetups[:2] {
		for _, n := range []int{2, 3, 6} {
			t.Run(fmt.Sprintf("%s/PEs=%d", s.name, n), func(t *testing.T) {
				err := pgas.Run(s.cfg(n), func(pe *pgas.PE) error {
					me := pe.Rank()
					last := n - 1
					l, err := pgas.NewLock(pe)
					if err != nil {
						return err
					}
					// Whoever holds the lock, the others' TryLock fails.
					othersFail := func(holder int, what string) error {
						if me != holder {
							for range 3 {
								ok, err := l.TryLock()
								if err != nil {
									return err
								}
								if ok {
									return fmt.Errorf("%s: PE %d's TryLock succeeded while PE %d holds the lock", what, me, holder)
								}
							}
						}
						return pe.Barrier()
					}
					// 1. PE 0 holds it by Lock.
					if me == 0 {
						if err := l.Lock(); err != nil {
							return err
						}
					}
					if err := pe.Barrier(); err != nil {
						return err
					}
					if err := othersFail(0, "held by Lock"); err != nil {
						return err
					}
					if me == 0 {
						if err := l.Unlock(); err != nil {
							return err
						}
					}
					if err := pe.Barrier(); err != nil {
						return err
					}
					// 2. Free: the last PE's TryLock succeeds.
					if me == last {
						ok, err := l.TryLock()
						if err != nil {
							return err
						}
						if !ok {
							return errors.New("TryLock of a free lock failed")
						}
					}
					if err := pe.Barrier(); err != nil {
						return err
					}
					if err := othersFail(last, "held by TryLock"); err != nil {
						return err
					}
					// 3. PE 0 queues behind the TryLock holder with Lock and
					// gets the lock when it is released.
					if me == 0 {
						if err := l.Lock(); err != nil {
							return err
						}
					}
					if me == last {
						locktSpin(1, 2)
						if err := l.Unlock(); err != nil {
							return err
						}
					}
					if err := pe.Barrier(); err != nil {
						return err
					}
					if err := othersFail(0, "handed over"); err != nil {
						return err
					}
					if me == 0 {
						if err := l.Unlock(); err != nil {
							return err
						}
					}
					if err := pe.Barrier(); err != nil {
						return err
					}
					// 4. Everybody tries at once: exactly one wins.
					for round := range 20 {
						locktSpin(round, me)
						ok, err := l.TryLock()
						if err != nil {
							return err
						}
						won := []int32{0}
						if ok {
							won[0] = 1
						}
						if err := pgas.Allreduce(pe.World(), pgas.Sum, won, won); err != nil {
							return err
						}
						if won[0] != 1 {
							return fmt.Errorf("round %d: %d PEs won TryLock at once", round, won[0])
						}
						if ok {
							if err := l.Unlock(); err != nil {
								return err
							}
						}
						if err := pe.Barrier(); err != nil {
							return err
						}
					}
					// 5. Unlock of a free lock.
					if err := l.Unlock(); !errors.Is(err, pgas.ErrArgument) {
						return fmt.Errorf("Unlock of a free lock: %v, want ErrArgument", err)
					}
					if err := pe.Barrier(); err != nil {
						return err
					}
					// 6. The lock still works.
					if err := l.Lock(); err != nil {
						return err
					}
					return l.Unlock()
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestLockSeveral uses two locks at once, nested in a fixed order, each
// guarding its own counter on a different PE; then frees them and uses a
// lock allocated in their memory.
func TestLockSeveral(t *testing.T) {
	for _, s := range locktSetups[:2] {
		t.Run(s.name, func(t *testing.T) {
			const n, iters = 4, 80
			err := pgas.Run(s.cfg(n), func(pe *pgas.PE) error {
				me := pe.Rank()
				a, err := pgas.NewLock(pe)
				if err != nil {
					return err
				}
				b, err := pgas.NewLock(pe)
				if err != nil {
					return err
				}
				ctr, err := pgas.NewArray[int64](pe, 1)
				if err != nil {
					return err
				}
				incr := func(home int) error {
					v, err := ctr.GetValue(home, 0)
					if err != nil {
						return err
					}
					return ctr.PutValue(home, 0, v+1)
				}
				for it := range iters {
					if err := a.Lock(); err != nil {
						return err
					}
					if err := incr(1); err != nil {
						return err
					}
					if it%2 == me%2 {
						if err := b.Lock(); err != nil {
							return err
						}
						if err := incr(n - 1); err != nil {
							return err
						}
						if err := b.Unlock(); err != nil {
							return err
						}
					}
					if err := a.Unlock(); err != nil {
						return err
					}
					if err := b.Lock(); err != nil {
						return err
					}
					if err := incr(n - 1); err != nil {
						return err
					}
					if err := b.Unlock(); err != nil {
						return err
					}
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				x, err := ctr.GetValue(1, 0)
				if err != nil {
					return err
				}
				y, err := ctr.GetValue(n-1, 0)
				if err != nil {
					return err
				}
				if x != n*iters || y != n*iters+n*iters/2 {
					return fmt.Errorf("counters %d and %d, want %d and %d", x, y, n*iters, n*iters+n*iters/2)
				}
				// Free the locks and make new ones: the new lock's words
				// reuse the old memory, which held queue state.
				if err := b.Free(); err != nil {
					return err
				}
				if err := a.Free(); err != nil {
					return err
				}
				c, err := pgas.NewLock(pe)
				if err != nil {
					return err
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				for range 20 {
					if err := c.Lock(); err != nil {
						return err
					}
					if err := incr(0); err != nil {
						return err
					}
					if err := c.Unlock(); err != nil {
						return err
					}
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				if z, err := ctr.GetValue(0, 0); err != nil || z != n*20 {
					return fmt.Errorf("counter of the reused lock %d (%v), want %d", z, err, n*20)
				}
				return c.Free()
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
