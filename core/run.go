package core

import (
	"context"
	"io"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/workload"
)

// EngineVersion names the dispatch rules and statistics a result was made by.
// Bump it whenever the same scenario could give different bytes.
const EngineVersion = "0.7.10"

// BytesPerInFlight is about what one request held by a run costs in memory:
// its 184-byte record (kept in pages that never move), its entries in the
// free list and the dispatch log's reorder ring, rounded up. BenchmarkBacklog
// measures it with a backlog of a million requests: 202 bytes of live heap
// per request held, 211 with a dispatch log. A memory budget divided by it
// gives RunOptions.MaxInFlight.
const BytesPerInFlight = 250

// DefaultMaxRequests bounds the size of one run unless RunOptions says otherwise.
const DefaultMaxRequests = workload.DefaultMaxRequests

// MaxReplications bounds Scenario.Replications.
const MaxReplications = plan.MaxReplications

// RunOptions are the knobs of one run that are not part of the scenario.
type RunOptions struct {
	Policy string  // overrides Scenario.Policy when not empty
	Seed   *uint64 // overrides Scenario.Seed when not nil
	// UBBName and DMName are the names the configuration's diagnostics
	// give its files (FILE:LINE:COL): the paths the CLI read them from;
	// "" is the scenario's field, "ubbconfig" and "dmconfig".
	UBBName, DMName string
	Dispatch        io.Writer // receives the dispatch log (docs/engine.md) as the run goes; nil: none
	MaxRequests     int64     // 0: DefaultMaxRequests
	// MaxInFlight bounds the requests held at once (waiting, in service, or
	// done but not yet written to the dispatch log): the run's memory grows
	// with them, about BytesPerInFlight each. 0: no limit.
	MaxInFlight int64
	// Context stops the run early (the result is then an ECANCELED error).
	// Checked every few thousand requests; nil means never.
	Context context.Context
	// Progress, when set, is called every few thousand requests with the
	// number issued so far and the expected total (0 when unknown).
	Progress func(done, total int64)
	// AllSeries keeps every line of the result's time series; without it, a kind with more than 64
	// lines keeps the 64 busiest and one of the others (Series.Summarised).
	AllSeries bool
}

// Run compiles the scenario (Compile) and runs it (Plan.Run): the
// workload through the event loop, every statistic.
//
// With Scenario.Replications = k > 1 it runs k times with seeds derived from
// the scenario's (ReplicationSeed) and returns the first run's result with
// the mean and 95% confidence interval of the headline figures.
func Run(sc *scenario.Scenario, opt RunOptions) (*result.Result, error) {
	p, err := Compile(sc, opt)
	if err != nil {
		return nil, err
	}
	return p.Run(opt)
}

// stopped returns the ECANCELED error once opt's context is done: the steps
// before the event loop (setup, opening the workload) are bounded by their
// input, and the context is checked between them.
func stopped(opt RunOptions, while string) error {
	if ctx := opt.Context; ctx != nil {
		if err := ctx.Err(); err != nil {
			return diag.Errorf(diag.ECANCELED, "run canceled while %s: %v", while, err)
		}
	}
	return nil
}

// Explain returns the explanations of requests first..first+count-1 (1-based
// issue order) of the scenario's run: Compile, then Plan.Explain (which
// checks the range).
func Explain(sc *scenario.Scenario, opt RunOptions, first, count int64) ([]result.Explanation, error) {
	p, err := Compile(sc, opt)
	if err != nil {
		return nil, err
	}
	return p.Explain(opt, first, count)
}

// ExplainID returns the explanation of the request whose id is id, as the
// dispatch log shows it (a trace's id, a nested call's 2008.1, a client's
// TELLER:3:12, or the issue number of a request without an id): Compile,
// then Plan.ExplainID.
func ExplainID(sc *scenario.Scenario, opt RunOptions, id string) ([]result.Explanation, error) {
	p, err := Compile(sc, opt)
	if err != nil {
		return nil, err
	}
	return p.ExplainID(opt, id)
}

// checkExplainID checks the id an explanation asks for.
func checkExplainID(id string) error {
	if id == "" || len(id) > 1024 {
		return diag.FieldErrorf("explain", "want a request id of 1 to 1024 bytes, got %d", len(id))
	}
	return nil
}

// checkExplainRange checks the requests an explanation asks for.
func checkExplainRange(first, count int64) error {
	if first < 1 || count < 1 || count > MaxExplain {
		return diag.FieldErrorf("explain", "want request number >= 1 and 1..%d requests, got %d and %d", MaxExplain, first, count)
	}
	return nil
}

// MaxExplain bounds how many requests one Explain call describes.
const MaxExplain = 1000

// explainRun runs until request first+count-1 has been dispatched,
// capturing the explanations on the way.
func explainRun(setup *plan.Setup, reqs workload.Stream, sopt simOptions, first, count int64) ([]result.Explanation, error) {
	return explainWith(setup, reqs, sopt, &explainer{first: first, last: first + count - 1})
}

// explainWith runs with the explainer x until it has its explanations.
func explainWith(setup *plan.Setup, reqs workload.Stream, sopt simOptions, x *explainer) ([]result.Explanation, error) {
	sopt.explain = x
	sopt.Dispatch = nil
	e, err := newEngine(setup, reqs, sopt)
	if err != nil {
		return nil, err
	}
	if err := e.loop(); err != nil {
		return nil, err
	}
	if len(x.out) == 0 && x.id != "" {
		return nil, diag.Errorf(diag.ENOTFOUND, "explain: no request has the id %q (the run issued %d requests; ids are those of the dispatch log)", x.id, e.issued)
	}
	if len(x.out) == 0 {
		return nil, diag.Errorf(diag.ENOTFOUND, "explain: request %d does not exist (the workload has %d requests)", x.first, e.issued)
	}
	return x.out, nil
}
