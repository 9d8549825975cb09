package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/sweep"
	"github.com/tuxlb/tuxlb/pool"
)

func init() {
	commands["optimize"] = command{
		summary: "find the cheapest configuration of a grid that meets every objective, with a stated probability",
		run:     runOptimizeCmd,
	}
}

func runOptimizeCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("optimize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var vary, objectives, costs variantFlags
	fs.Var(&vary, "vary", "a decision variable `KEY=VALUES` (one or two, as tuxlb sweep's), e.g. SERVERS.PAYSRV.MIN=1..6/1")
	fs.Var(&objectives, "objective", "an objective `FIGURE<=X` or FIGURE>=X every chosen configuration must meet (repeatable), e.g. response_p99_ms[PAYMENT]<=80")
	fs.Var(&costs, "cost", "a cost weight `KEY=WEIGHT` on a --vary key (repeatable): cost = Σ WEIGHT × value (default: the server instances booted)")
	pcs := fs.Float64("pcs", sweep.DefaultPCS, "the probability of a correct selection asked for, between 0.5 and 1 (both excluded)")
	epsilon := fs.String("epsilon", "5%", "the indifference zone, a `FRACTION` of each objective's limit: 5% or 0.05")
	n0 := fs.Int("first-stage", sweep.DefaultFirstStage, fmt.Sprintf("replications of each configuration before its first decision (n0), 2..%d", core.MaxReplications))
	maxReps := fs.Int("max-replications", sweep.DefaultSelectMax, fmt.Sprintf("the most replications of one configuration, --first-stage..%d", core.MaxReplications))
	jobs := fs.Int("jobs", 0, "runs at once (default the number of CPUs)")
	format := fs.String("format", "text", "output: text or json")
	seed := fs.String("seed", "", "override the scenario's seed (replication r of every configuration runs with seed r's derivation of it)")
	budget, budgetErr := budgetFlag(fs)
	runTime := fs.Duration("max-run-time", 0, "stop when one run takes longer than this, e.g. 30s (0: no limit)")
	var ff fileFlags
	ff.flags(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tuxlb optimize SCENARIO.json|UBBCONFIG --vary KEY=VALUES [--vary KEY=VALUES] --objective EXPR [--objective EXPR...]")
		fmt.Fprintln(stderr, "                      [--cost KEY=WEIGHT...] [--pcs 0.95] [--epsilon 5%] [--first-stage 10]")
		fmt.Fprintln(stderr, "                      [--max-replications 100] [--seed N] [--jobs N] [--format text|json]")
		fmt.Fprintln(stderr, "       tuxlb optimize --ubbconfig FILE [--dmconfig FILE] [--trace FILE [--trace-map MAP]] [SCENARIO.json] --vary ... --objective ...")
		fmt.Fprintln(stderr, "The cheapest configuration of the grid that meets every objective (docs/sweeps.md, \"Choosing the cheapest configuration\").")
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "tuxlb optimize: "+format+"\n", a...)
		return 2
	}
	eps, epsErr := parseFraction(*epsilon)
	switch {
	case budgetErr != nil:
		return bad("%v", budgetErr)
	case len(pos) > 1 || len(pos) == 0 && ff.ubbconfig == "":
		fmt.Fprintln(stderr, "tuxlb optimize: want one scenario file (or -), or --ubbconfig FILE")
		fs.Usage()
		return 2
	case len(vary) == 0:
		return bad("want at least one --vary KEY=VALUES")
	case len(objectives) == 0:
		return bad("want at least one --objective FIGURE<=X or FIGURE>=X")
	case *jobs < 0:
		return bad("--jobs: want a number >= 1, got %d", *jobs)
	case *runTime < 0:
		return bad("--max-run-time: %s is negative", *runTime)
	case epsErr != nil:
		return bad("--epsilon: %v", epsErr)
	case !(*pcs > 0.5 && *pcs < 1):
		return bad("--pcs: want a probability between 0.5 and 1, both excluded (e.g. 0.95), got %v", *pcs)
	case *n0 < 2 || *n0 > core.MaxReplications:
		return bad("--first-stage: want 2..%d replications, got %d", core.MaxReplications, *n0)
	case *maxReps < *n0 || *maxReps > core.MaxReplications:
		return bad("--max-replications: want --first-stage (%d)..%d replications, got %d", *n0, core.MaxReplications, *maxReps)
	case *format != "text" && *format != "json":
		return bad("--format: %q is not text or json", *format)
	}
	if err := ff.check(strings.Join(pos, "")); err != nil {
		return bad("%v", err)
	}
	seedOverride, err := parseSeedFlag(*seed)
	if err != nil {
		return bad("%v", err)
	}
	sc, pr, code := loadWithFiles("optimize", pos, &ff, *budget, stdin, stderr)
	if sc == nil {
		return code
	}
	if seedOverride != nil {
		sc.Seed = seedOverride
	}
	if _, code := objectiveSpec("optimize", pr.Model(), objectives, stderr); code != 0 {
		return code
	}
	if err := admitSweep(sc, pr.Model(), sweep.Spec{Vary: vary}, *budget, pool.Workers(*jobs)); err != nil {
		fmt.Fprintf(stderr, "tuxlb optimize: %v\n", err)
		return 1
	}
	opt, err := sweep.CompileOptimize(sc, sweep.OptimizeSpec{Vary: vary, Objectives: objectives, Costs: costs,
		PCS: *pcs, Epsilon: eps, FirstStage: *n0, MaxReplications: *maxReps})
	var de *diag.Error
	if errors.As(err, &de) && len(de.Diagnostics) == 1 && strings.HasPrefix(de.Diagnostics[0].Field, "costs") {
		// a --cost the optimizer cannot weigh (its API name is costs[i]): a bad flag
		return bad("--cost: %s", de.Diagnostics[0].Message)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb optimize: %v\n", err)
		return 1
	}
	ctx, stop := sweepSignals(context.Background())
	defer stop()
	bar := &runCounter{w: stderr, on: isTerminal(stderr)}
	res, err := pool.Optimize(ctx, opt, pool.SweepOptions{Workers: *jobs, Progress: bar.update, MaxRunTime: *runTime})
	bar.finish()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "tuxlb optimize: interrupted")
			return 130
		}
		fmt.Fprintf(stderr, "tuxlb optimize: %v\n", err)
		return 1
	}
	out := sweep.EncodeOptimizationText(res)
	if *format == "json" {
		out = sweep.EncodeOptimization(res)
	}
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintf(stderr, "tuxlb optimize: %v\n", err)
		return 1
	}
	if res.Chosen == nil {
		return 3 // no configuration meets every objective (as a calibration that fails)
	}
	return 0
}

// parseFraction reads "5%" or "0.05".
func parseFraction(text string) (float64, error) {
	t := strings.TrimSpace(text)
	scale := 1.0
	if s, ok := strings.CutSuffix(t, "%"); ok {
		t, scale = strings.TrimSpace(s), 0.01
	}
	x, err := strconv.ParseFloat(t, 64)
	if err != nil || !(x*scale > 0 && x*scale < 1) {
		return 0, fmt.Errorf("want a fraction of each limit between 0 and 1, as 5%% or 0.05, got %q", text)
	}
	return x * scale, nil
}

// runCounter draws `123 runs` on a terminal's standard error, at most ten
// times a second (the search does not know beforehand how many it needs).
type runCounter struct {
	w    io.Writer
	on   bool
	last time.Time
}

func (c *runCounter) update(done, _ int) {
	if !c.on || time.Since(c.last) < 100*time.Millisecond {
		return
	}
	c.last = time.Now()
	fmt.Fprintf(c.w, "\r%d runs", done)
}

func (c *runCounter) finish() {
	if c.on && !c.last.IsZero() {
		fmt.Fprint(c.w, "\r\033[K")
	}
}
