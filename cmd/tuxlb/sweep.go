package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/sweep"
	"github.com/tuxlb/tuxlb/pool"
)

func init() {
	commands["sweep"] = command{
		summary: "run one scenario over a grid of one or two varied keys, with replications and an objective",
		run:     runSweepCmd,
		sub:     []string{"merge"},
	}
}

// sweepSignals is where Ctrl-C comes from; tests replace it to interrupt a sweep.
var sweepSignals = func(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt)
}

func runSweepCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		return runSweepMerge(args[1:], stdin, stdout, stderr)
	}
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var vary variantFlags
	fs.Var(&vary, "vary", "a varied key `KEY=VALUES` (one or two): VALUES is a,b,c or start..end/step, e.g. rate_scale=0.5..1.5/0.25")
	reps := fs.Int("replications", 0, "replications per point, each with its own seed (default the scenario's, else 1)")
	var objectives variantFlags
	fs.Var(&objectives, "objective", "an objective `FIGURE<=X` or FIGURE>=X (repeatable: all are held at once), e.g. response_p99_ms[PAYMENT]<=80")
	jobs := fs.Int("jobs", 0, "runs at once (default the number of CPUs)")
	format := fs.String("format", "table", "output: table, csv or json")
	budget, budgetErr := budgetFlag(fs)
	runTime := fs.Duration("max-run-time", 0, "stop the sweep when one of its runs takes longer than this, e.g. 30s (0: no limit)")
	precision := fs.Float64("precision", 0, "run replications in batches (of --replications, default 5) until the 95% half-width of every objective's figure and every --figure (else response_mean_ms) is at most `REL` of its mean, e.g. 0.05")
	maxReps := fs.Int("max-replications", 0, "with --precision, the most replications per point (default 50)")
	var figures variantFlags
	fs.Var(&figures, "figure", "report this `FIGURE` too (repeatable), e.g. response_p99_ms[INQUIRY] or utilization_max[machine:SITE2]")
	shard := fs.String("shard", "", "compute only slice `i/N` of the grid's runs and print a partial result for 'tuxlb sweep merge'")
	seed := fs.String("seed", "", "override the scenario's seed (replication r of every point runs with seed r's derivation of it)")
	var ff fileFlags
	ff.flags(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tuxlb sweep SCENARIO.json|UBBCONFIG --vary KEY=VALUES [--vary KEY=VALUES] [--replications N]")
		fmt.Fprintln(stderr, "                   [--objective EXPR ...] [--figure FIGURE ...] [--precision REL [--max-replications N]]")
		fmt.Fprintln(stderr, "                   [--seed N] [--jobs N] [--format table|csv|json] [--shard i/N]")
		fmt.Fprintln(stderr, "       tuxlb sweep --ubbconfig FILE [--dmconfig FILE] [--trace FILE [--trace-map MAP]] [SCENARIO.json] --vary ...")
		fmt.Fprintln(stderr, "       tuxlb sweep merge [--format table|csv|json] PARTIAL.json...   (- reads one from standard input)")
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "tuxlb sweep: "+format+"\n", a...)
		return 2
	}
	switch {
	case budgetErr != nil:
		return bad("%v", budgetErr)
	case len(pos) > 1 || len(pos) == 0 && ff.ubbconfig == "":
		fmt.Fprintln(stderr, "tuxlb sweep: want one scenario file (or -), or --ubbconfig FILE")
		fs.Usage()
		return 2
	case len(vary) == 0:
		return bad("want at least one --vary KEY=VALUES")
	case zeroGiven(fs, "precision", *precision):
		return bad("--precision: want a number > 0 (e.g. 0.05 for a half-width of 5%% of the mean), got 0; leave it out for a fixed number of replications")
	case *jobs < 0:
		return bad("--jobs: want a number >= 1, got %d", *jobs)
	case *runTime < 0:
		return bad("--max-run-time: %s is negative", *runTime)
	case *reps < 0:
		return bad("--replications: want a number >= 1, got %d", *reps)
	case *format != "table" && *format != "csv" && *format != "json":
		return bad("--format: %q is not table, csv or json", *format)
	}
	shardI, shardN := 0, 0
	if *shard != "" {
		var err error
		if shardI, shardN, err = sweep.ParseShard(*shard); err != nil {
			return bad("--shard: %v", err)
		}
		if flagSet(fs, "format") {
			return bad("--shard prints a partial result: give --format to 'tuxlb sweep merge'")
		}
		if *precision > 0 {
			return bad("--shard with --precision: a precision sweep decides each point's next batch from the batches done, so it cannot be cut into slices beforehand; give --replications N")
		}
	}
	if err := ff.check(strings.Join(pos, "")); err != nil {
		return bad("%v", err)
	}
	seedOverride, err := parseSeedFlag(*seed)
	if err != nil {
		return bad("%v", err)
	}
	sc, pr, code := loadWithFiles("sweep", pos, &ff, *budget, stdin, stderr)
	if sc == nil {
		return code
	}
	if seedOverride != nil {
		sc.Seed = seedOverride
	}
	spec, code := objectiveSpec("sweep", pr.Model(), objectives, stderr)
	if code != 0 {
		return code
	}
	spec.Vary, spec.Replications, spec.Figures, spec.Precision, spec.MaxReplications = vary, *reps, figures, *precision, *maxReps
	if err := admitSweep(sc, pr.Model(), spec, *budget, pool.Workers(*jobs)); err != nil {
		fmt.Fprintf(stderr, "tuxlb sweep: %v\n", err)
		return 1
	}
	sw, err := sweep.Compile(sc, spec)
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb sweep: %v\n", err)
		return 1
	}
	ctx, stop := sweepSignals(context.Background())
	defer stop()
	bar := newSweepBar(stderr)
	if shardN > 0 {
		data, err := json.Marshal(sc) // the scenario with the files spliced in: what the merge rebuilds the sweep from
		if err != nil {
			fmt.Fprintf(stderr, "tuxlb sweep: %v\n", err)
			return 1
		}
		return runShard(ctx, sw, data, shardI, shardN, pool.SweepOptions{Workers: *jobs, Progress: bar.update, MaxRunTime: *runTime}, bar, stdout, stderr)
	}
	res, err := pool.Sweep(ctx, sw, pool.SweepOptions{Workers: *jobs, Progress: bar.update, MaxRunTime: *runTime})
	bar.finish()
	code = 0
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "tuxlb sweep: %v\n", err)
			return 1
		}
		fmt.Fprintf(stderr, "tuxlb sweep: interrupted: %d of %d points done\n", len(res.Points), res.Total)
		code = 130
	}
	if _, err := stdout.Write(encodeSweep(res, *format)); err != nil {
		fmt.Fprintf(stderr, "tuxlb sweep: %v\n", err)
		return 1
	}
	return code
}

// objectiveSpec checks --objective flags against the model (an unknown
// figure, service or machine is a usage error, exit 2) and puts them in a
// spec: one in Objective, as before there could be several, more in
// Objectives.
func objectiveSpec(cmd string, m *core.Model, objectives []string, stderr io.Writer) (sweep.Spec, int) {
	var spec sweep.Spec
	if _, err := sweep.ParseObjectives(m, objectives, func(int) string { return "--objective" }); err != nil {
		fmt.Fprintf(stderr, "tuxlb %s: %v\n", cmd, err)
		return spec, 2
	}
	if len(objectives) == 1 {
		spec.Objective = objectives[0]
	} else {
		spec.Objectives = objectives
	}
	return spec, 0
}

// sweepBar draws `[#####     ] 12/40 runs` on a terminal's standard
// error, at most ten times a second; it draws nothing elsewhere. Its calls
// come one at a time (the pool serializes them).
type sweepBar struct {
	w    io.Writer
	last time.Time
	on   bool
}

func newSweepBar(w io.Writer) *sweepBar { return &sweepBar{w: w, on: isTerminal(w)} }

func (b *sweepBar) update(done, total int) {
	if !b.on {
		return
	}
	now := time.Now()
	if done < total && now.Sub(b.last) < 100*time.Millisecond {
		return
	}
	b.last = now
	const width = 30
	n := width * done / max(total, 1)
	fmt.Fprintf(b.w, "\r[%s%s] %d/%d runs", strings.Repeat("#", n), strings.Repeat(" ", width-n), done, total)
}

func (b *sweepBar) finish() {
	if b.on && !b.last.IsZero() {
		fmt.Fprint(b.w, "\r\033[K")
	}
}

// parseSeedFlag reads --seed of sweep and optimize: nil when not given.
func parseSeedFlag(text string) (*uint64, error) {
	if text == "" {
		return nil, nil
	}
	n, err := plan.ParseSeed("--seed", text)
	if err != nil {
		return nil, err
	}
	return &n, nil
}
