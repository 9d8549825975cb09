package server

import (
	"fmt"
	"net/http"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/admission"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/sweep"
	"github.com/tuxlb/tuxlb/core/ubb"
	"github.com/tuxlb/tuxlb/pool"
)

// The memory budget (--memory-budget) is split into equal shares: one for
// each of the --max-runs runs (and compares and validations) executing at
// once, one for each of the --sweep-workers runs of the sweep job this
// server works, and one for that job's compiled points. A request is
// admitted only when the estimate of what it will hold (core.Cost) fits its
// share, checked before anything of it is built; what is left of a run's
// share bounds the requests it may hold at once.

// share is the bytes of one share of the budget.
func (s *Server) share() int64 {
	return s.cfg.MemoryBudget / int64(s.cfg.MaxRuns+pool.Workers(s.cfg.SweepWorkers)+1)
}

// dispatchReserve is what a run with a dispatch log reserves for it, and
// the most its compressed log may grow to: --max-stored, but at most half
// a run's share, so that with many runs at once (--max-runs 64 makes
// shares of 30 MiB of the default budget, less than the default
// --max-stored of 64 MiB) a run with a log still fits its share, its log
// stopped where the share ends.
func (s *Server) dispatchReserve() int64 {
	return min(s.cfg.MaxStoredBytes, s.share()/2)
}

// loadModel reads sc's configuration, as each point's compilation will, to
// estimate a sweep's cost.
func loadModel(sc *scenario.Scenario) (*core.Model, error) {
	return core.LoadModel(ubb.Input{UBBConfig: sc.UBBConfig, UBBName: "ubbconfig",
		DMConfig: sc.DMConfig, DMName: "dmconfig", Advertise: sc.Advertise})
}

// admitRun checks the estimate of a run of sc on its configuration m
// against its share and returns the requests it may hold at once with what
// is left. keep reserves room for a compressed dispatch log (at most
// --max-stored), allSeries for every line of the series; the extra terms
// are added as they are (explanations).
func (s *Server) admitRun(sc *scenario.Scenario, m *core.Model, keep, allSeries bool, extra ...admission.CostTerm) (int64, error) {
	cost := admission.RunCost(sc, m)
	if allSeries {
		cost.Terms = append(cost.Terms, admission.AllSeriesCost(sc, m))
	}
	cost.Terms = append(cost.Terms, extra...)
	if keep {
		cost.Terms = append(cost.Terms, admission.CostTerm{Field: "dispatch", What: "the compressed dispatch log (at most --max-stored, and half the share)",
			Bytes: s.dispatchReserve()})
	}
	d := admission.Decide(cost, s.share())
	if !d.Fits {
		return 0, s.overBudget(d, "run")
	}
	return d.InFlight(admission.InFlightBytes(sc, m), 1), nil
}

// overBudget is the 413 problem of a request whose estimate did not fit
// the shares it may use (d), naming its largest term and the field behind
// it.
func (s *Server) overBudget(d admission.Decision, what string) *Problem {
	largest := d.Cost.Largest()
	limit := fmt.Sprintf("the %s it may (the memory budget, flag --memory-budget, env TUXLB_MEMORY_BUDGET, %s, "+
		"is shared by --max-runs %d runs, --sweep-workers %d runs of a sweep and a sweep's compiled points)",
		admission.SizeText(d.Budget), admission.SizeText(s.cfg.MemoryBudget), s.cfg.MaxRuns, pool.Workers(s.cfg.SweepWorkers))
	p := problemf(http.StatusRequestEntityTooLarge, "over-budget", "Over the memory budget",
		"%s; make it smaller or run it with the CLI", d.Refusal(what, limit, false))
	p.Errors = []ProblemItem{{Field: largest.Field, Message: fmt.Sprintf("%s: about %s", largest.What, admission.SizeText(largest.Bytes))}}
	p.Limit = d.Budget
	return p
}

// admitSweep checks a sweep's estimate against the shares its job uses:
// one for its compiled points, one for each of its runs at once.
func (s *Server) admitSweep(sc *scenario.Scenario, spec sweep.Spec) error {
	m, err := loadModel(sc)
	if err != nil {
		return err
	}
	workers := pool.Workers(s.cfg.SweepWorkers)
	cost, err := sweep.Cost(sc, m, spec, workers)
	if err != nil {
		return nil // sweep.Compile says what is wrong, in its words
	}
	if d := admission.Decide(cost, s.share()*int64(workers+1)); !d.Fits {
		return s.overBudget(d, "sweep")
	}
	return nil
}
