package core

import (
	"cmp"
	"strconv"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
	"github.com/tuxlb/tuxlb/core/warmup"
	"github.com/tuxlb/tuxlb/core/workload"
)

// Plan is a scenario compiled for running: the scenario checked, its
// configuration loaded into a Model, its options resolved, its samplers built
// and its workload read, checked and sorted, each once. Running a plan reads
// no scenario text: replications, and the variants and points of compare and
// sweeps, run a plan reseeded (Reseed), which costs nothing but the copy of
// a few fields. Running does not change a plan, so one plan may run on
// several goroutines at once.
type Plan struct {
	name         string
	replications int
	setup        *plan.Setup // setup.Seed is the plan's seed
	binUS        int64       // bin_ms in µs, 0: chosen from the run's span
	genUS        int64       // workload.generate.duration_ms in µs, 0: no generation
}

// Compile checks sc against its configuration and compiles it into a Plan:
// [Prepare] then [Prepared.Compile]. opt.Policy and opt.Seed, when set,
// override the scenario's, and opt.UBBName and opt.DMName name the
// configuration's files in its diagnostics; the rest of opt is for running
// (only opt.Context is looked at here, between steps). Errors are EINVALID
// and name the scenario field, the trace row, or the UBBCONFIG line and
// column.
func Compile(sc *scenario.Scenario, opt RunOptions) (*Plan, error) {
	pr, err := Prepare(sc, opt)
	if err != nil {
		return nil, err
	}
	return pr.Compile(opt)
}

// Prepared is the first half of compiling a scenario: the scenario checked
// without its configuration, and its configuration read into a Model. A
// caller that needs the Model before anything else of the run is built (a
// memory estimate, which must refuse a run before its trace is read) takes
// it from here, and the configuration is read once. Compile finishes the
// plan. A Prepared holds the scenario it was made from, which must not
// change until the plan is compiled.
type Prepared struct {
	sc *scenario.Scenario
	ck *plan.Checked // what checking sc built (its samplers), resolved as it is
	m  *Model
}

// Prepare checks sc ([Check]) and reads its configuration ([LoadModel],
// with the file names opt.UBBName and opt.DMName): each of sc's checks that
// needs no more than the scenario and its configuration runs here, once.
func Prepare(sc *scenario.Scenario, opt RunOptions) (*Prepared, error) {
	if sc == nil {
		return nil, diag.Errorf(diag.EINVALID, "no scenario")
	}
	ck, err := plan.CheckScenario(sc)
	if err != nil {
		return nil, err
	}
	m, err := LoadModel(ubb.Input{UBBConfig: sc.UBBConfig, UBBName: cmp.Or(opt.UBBName, "ubbconfig"),
		DMConfig: sc.DMConfig, DMName: cmp.Or(opt.DMName, "dmconfig"), Advertise: sc.Advertise})
	if err != nil {
		return nil, diag.InSource(err, ubb.SourceScenario)
	}
	// the scenario's /Q queues; with AUTOTRAN somewhere or a TMQFORWARD,
	// the TMS servers and their queues are played
	m = m.WithQueues(plan.MsgQueues(sc)).WithTMS()
	return &Prepared{sc: sc, ck: ck, m: m}, nil
}

// Model returns the scenario's configuration. It is the plan's: callers
// only read it.
func (pr *Prepared) Model() *Model { return pr.m }

// Compile resolves the prepared scenario against its Model into a Plan: opt's
// policy and seed applied, every default filled in, the samplers built, the
// workload read, checked and sorted. The scenario is not checked again.
func (pr *Prepared) Compile(opt RunOptions) (*Plan, error) {
	p, err := pr.compile(opt)
	if err != nil {
		return nil, diag.InSource(err, ubb.SourceScenario)
	}
	return p, nil
}

func (pr *Prepared) compile(opt RunOptions) (*Plan, error) {
	sc := pr.sc
	if err := stopped(opt, "reading the configuration"); err != nil {
		return nil, err
	}
	setup, err := plan.ResolveChecked(pr.m, pr.ck, plan.Options{Policy: opt.Policy, Seed: opt.Seed})
	if err != nil {
		return nil, err
	}
	if err := stopped(opt, "setting up"); err != nil {
		return nil, err
	}
	p := &Plan{name: sc.Name, replications: max(sc.Replications, 1), setup: setup}
	if sc.BinMS != nil && *sc.BinMS > 0 {
		p.binUS = max(usec.Round(*sc.BinMS*1000), 1)
	}
	if g := sc.Workload.Generate; g != nil {
		p.genUS = usec.Round(g.DurationMS * 1000)
	}
	return p, nil
}

// Model returns the configuration the plan runs on.
func (p *Plan) Model() *Model { return p.setup.Model }

// Seed returns the seed the plan runs with (replication 0's).
func (p *Plan) Seed() uint64 { return p.setup.Seed }

// Replications returns how many runs Run makes (the scenario's
// replications, at least 1).
func (p *Plan) Replications() int { return p.replications }

// Warnings returns the plan's warnings: the configuration's, and how a
// request log given as trace_csv was read.
func (p *Plan) Warnings() []string { return p.setup.Warnings }

// Requests returns the expected number of requests of one run: the trace's
// rows and the expected number of generated requests.
func (p *Plan) Requests() float64 {
	return float64(p.setup.Work.TraceRows()) + p.setup.Work.Expected
}

// GeneratedRequests returns the expected number of requests of one run's
// generated streams (the trace's rows not counted).
func (p *Plan) GeneratedRequests() float64 { return p.setup.Work.Expected }

// ReplicationSeed returns the seed of replication i (0-based): the plan's
// own for replication 0, for the others a SplitMix64 step of the plan's seed
// plus i, so that their streams are unrelated.
func (p *Plan) ReplicationSeed(i int) uint64 { return plan.ReplicationSeed(p.setup.Seed, i) }

// Reseed returns a copy of the plan that runs with seed instead: the same
// configuration, samplers and workload (shared, not copied), other random
// draws.
func (p *Plan) Reseed(seed uint64) *Plan {
	q := *p
	st := *p.setup
	st.Seed = seed
	st.App = st.App.Reseeded(seed) // the client populations draw from the seed too
	q.setup = &st
	return &q
}

// Run runs the plan: once, or with Replications() = k > 1, k times with
// seeds derived from the plan's ([Plan.ReplicationSeed]), returning the
// first run's result with the mean and 95% confidence interval of the
// headline figures ([result.CombineReplications]). opt.Policy and opt.Seed are
// [Compile]'s and are ignored here.
func (p *Plan) Run(opt RunOptions) (*result.Result, error) {
	if p.replications <= 1 {
		return p.run(opt)
	}
	results := make([]*result.Result, p.replications)
	for i := range results {
		res, err := p.RunReplication(i, opt)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			res = result.ReplicationSummary(res) // the figures are all CombineReplications reads of it
		}
		results[i] = res
	}
	return result.CombineReplications(results), nil
}

// RunReplication runs replication i (0-based) of the plan: one run with the
// seed [Plan.ReplicationSeed](i). Only replication 0 writes the dispatch
// log. Runners that spread replications over workers call it once per
// replication and hand the results, in replication order, to
// [result.CombineReplications].
func (p *Plan) RunReplication(i int, opt RunOptions) (*result.Result, error) {
	if i > 0 {
		opt.Dispatch = nil
	}
	return p.Reseed(p.ReplicationSeed(i)).run(opt)
}

// run is one run of the plan with its seed. With warmup_ms "auto", a first
// pass finds the warm-up (MSER-5, [Plan.autoWarmupUS]) and the run is made
// with it.
func (p *Plan) run(opt RunOptions) (*result.Result, error) {
	if p.setup.WarmupAuto {
		us, err := p.autoWarmupUS(opt)
		if err != nil {
			return nil, err
		}
		q := *p
		st := *p.setup
		st.WarmupUS, st.WarmupAuto = us, false
		q.setup = &st
		res, err := q.run(opt)
		if err != nil {
			return nil, err
		}
		res.WarmupDetected = true
		res.Warnings = append(res.Warnings, sprintf("warmup_ms \"auto\": MSER-5 on the response series (batch means of %d) found a transient of %s ms; the statistics leave out the requests issued before it",
			warmup.Batch, strconv.FormatFloat(res.WarmupMS, 'f', -1, 64)))
		return res, nil
	}
	reqs, sopt, err := p.open(opt)
	if err != nil {
		return nil, err
	}
	res, err := simulate(p.setup, reqs, sopt)
	if err != nil {
		return nil, err
	}
	res.Name = p.name
	return res, nil
}

// autoWarmupUS runs a first pass of the plan with no warm-up and its
// dispatch log read by an MSER-5 collector, and returns the warm-up found
// ([warmup.Collector.WarmupUS]).
func (p *Plan) autoWarmupUS(opt RunOptions) (int64, error) {
	q := *p
	st := *p.setup
	st.WarmupUS, st.WarmupAuto = 0, false
	q.setup = &st
	c := &warmup.Collector{}
	opt.Dispatch = c
	if _, err := q.run(opt); err != nil {
		return 0, err
	}
	return c.WarmupUS(), nil
}

// open starts the plan's workload with its seed, looking ahead to learn the
// workload's horizon (for the width of the series bins).
func (p *Plan) open(opt RunOptions) (workload.Stream, simOptions, error) {
	sopt := simOptions{RunOptions: opt, BinUS: p.binUS}
	mg, err := p.setup.Work.Open(p.setup.Seed, opt.MaxRequests)
	if err != nil {
		return nil, sopt, err
	}
	sopt.HorizonUS = mg.LookAhead(p.genUS)
	if err := stopped(opt, "reading the workload"); err != nil {
		return nil, sopt, err
	}
	return mg, sopt, nil
}

// ExplainID returns the explanation of the request whose id is id, as the
// dispatch log shows it (2008.1, TELLER:3:12; a request without an id has
// its issue number), in the plan's run (replication 0). It stops the run
// after it; a run that never issues it is ENOTFOUND.
func (p *Plan) ExplainID(opt RunOptions, id string) ([]result.Explanation, error) {
	if err := checkExplainID(id); err != nil {
		return nil, err
	}
	reqs, sopt, err := p.open(opt)
	if err != nil {
		return nil, err
	}
	return explainWith(p.setup, reqs, sopt, &explainer{id: id})
}

// Explain returns the explanations of requests first..first+count-1
// (1-based issue order) of the plan's run (replication 0). It stops the run
// after the last one.
func (p *Plan) Explain(opt RunOptions, first, count int64) ([]result.Explanation, error) {
	if err := checkExplainRange(first, count); err != nil {
		return nil, err
	}
	reqs, sopt, err := p.open(opt)
	if err != nil {
		return nil, err
	}
	return explainRun(p.setup, reqs, sopt, first, count)
}
