package simtest

import (
	"testing"

	"github.com/gopgas/gopgas/internal/integrity"
	"github.com/gopgas/gopgas/pgas"
)

// FaultRun is what a run of the integrity program on a job with links
// failing gave: the program's result and the job's report.
type FaultRun struct {
	Result integrity.Result
	Report pgas.Report
}

// FaultsSameForAnyWorkers runs the integrity program p on cfg (whose
// options fail links in the run) on one kernel and on each of workers
// (the workers option), fails t if a run fails, if a run did not check
// every byte, or if two numbers of workers give different results or
// reports, and returns one kernel's run and the partitioned runs'.
func FaultsSameForAnyWorkers(t testing.TB, cfg pgas.Config, p integrity.Params, workers ...int) (one, part FaultRun) {
	t.Helper()
	run := func(w int) (FaultRun, error) {
		c := cfg
		c.Options = withWorkers(cfg.Options, w)
		res, rep, err := integrity.Job(c, p)
		if err == nil && res.BytesChecked != p.Bytes(res.PEs) {
			t.Errorf("%d workers: %d bytes checked, want %d", w, res.BytesChecked, p.Bytes(res.PEs))
		}
		return FaultRun{res, rep}, err
	}
	return sameForAnyWorkers(t, run, workers)
}
