package pgas

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/gopgas/gopgas/internal/sysmem"
)

// ceilingPeriod is how often the ceiling's keeper samples the memory Go
// does not manage.
const ceilingPeriod = 20 * time.Millisecond

// The process's memory ceiling (SetMemoryCeiling) and the goroutine that
// keeps Go's soft limit under it.
var ceiling struct {
	sync.Mutex
	bytes int64
	prior int64         // Go's limit before the first SetMemoryCeiling
	stop  chan struct{} // closes to end the keeper
	done  chan struct{} // closed when the keeper has ended
}

// SetMemoryCeiling holds the process's resident memory near bytes by way
// of Go's soft memory limit (debug.SetMemoryLimit). Go's limit counts only
// the memory Go manages; the pages of mapped segments a job touches (a
// benchmark's buffers, hundreds of MiB in a large point) are beside it. So
// the limit is set to bytes less that other resident memory, sampled from
// the system every 20 ms, and never below a quarter of bytes (below that
// the collector would run without end for a job that does not fit
// anyway). Where the system does not report resident memory, the limit is
// bytes. 0 or less ends the following and restores the limit there was
// before. The limit is soft: a job whose live memory exceeds it still
// runs, with the collector working harder.
func SetMemoryCeiling(bytes int64) {
	ceiling.Lock()
	defer ceiling.Unlock()
	if ceiling.stop != nil {
		close(ceiling.stop)
		<-ceiling.done
		ceiling.stop, ceiling.done = nil, nil
	}
	if bytes <= 0 {
		if ceiling.bytes > 0 {
			debug.SetMemoryLimit(ceiling.prior)
		}
		ceiling.bytes = 0
		return
	}
	if ceiling.bytes <= 0 {
		ceiling.prior = debug.SetMemoryLimit(-1)
	}
	ceiling.bytes = bytes
	if _, ok := sysmem.Resident(); !ok {
		debug.SetMemoryLimit(bytes)
		return
	}
	ceiling.stop, ceiling.done = make(chan struct{}), make(chan struct{})
	k := newCeilingKeeper(bytes)
	k.apply()
	go func(stop <-chan struct{}, done chan<- struct{}) {
		defer close(done)
		t := time.NewTicker(ceilingPeriod)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				k.apply()
			}
		}
	}(ceiling.stop, ceiling.done)
}

// MemoryCeiling is the ceiling SetMemoryCeiling set; 0 means none.
func MemoryCeiling() int64 {
	ceiling.Lock()
	defer ceiling.Unlock()
	return ceiling.bytes
}

// ceilingKeeper computes and sets Go's limit under a ceiling.
type ceilingKeeper struct {
	bytes   int64
	samples []metrics.Sample
	last    int64
}

func newCeilingKeeper(bytes int64) *ceilingKeeper {
	return &ceilingKeeper{bytes: bytes, samples: goHeldSamples()}
}

// memoryInUse is the memory the process's jobs are measured to hold: Go's
// live heap at the last collection and the resident memory outside Go
// (residentOutsideGo). It is 0 where the system does not report resident
// memory and no collection has run.
func memoryInUse() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()) + residentOutsideGo(goHeldSamples())
}

// residentOutsideGo is the process's resident memory less what Go has
// mapped and not released: the touched pages of mapped segments, the
// program text. samples are goHeldSamples, which it reads. It is 0 where
// the system does not say.
func residentOutsideGo(samples []metrics.Sample) int64 {
	rss, ok := sysmem.Resident()
	if !ok {
		return 0
	}
	metrics.Read(samples)
	goHeld := int64(samples[0].Value.Uint64()) - int64(samples[1].Value.Uint64())
	return max(rss-goHeld, 0)
}

// goHeldSamples are the metrics of the memory Go holds from the system.
func goHeldSamples() []metrics.Sample {
	return []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
}

// apply sets Go's limit to the ceiling less the resident memory Go does
// not manage: the process's resident memory less what Go has mapped and
// not released.
func (k *ceilingKeeper) apply() {
	limit := max(k.bytes-residentOutsideGo(k.samples), k.bytes/4)
	// A change under 1 MiB is not worth the collector's recomputation.
	if d := limit - k.last; d > -1<<20 && d < 1<<20 {
		return
	}
	k.last = limit
	debug.SetMemoryLimit(limit)
}
