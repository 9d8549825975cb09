package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/sweep"
	"github.com/tuxlb/tuxlb/pool"
)

func init() {
	commands["compare"] = command{
		summary: "run one scenario under several variants on the identical workload, side by side",
		run:     runCompare,
	}
}

// variantFlags collects repeated --variant flags.
type variantFlags []string

func (v *variantFlags) String() string     { return strings.Join(*v, " ") }
func (v *variantFlags) Set(s string) error { *v = append(*v, s); return nil }

func runCompare(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var variants variantFlags
	fs.Var(&variants, "variant", "a variant `key=value[,key=value]` (repeatable): ldbal=N, model=MP, policy=p2c, rate_scale=1.5, tuning.idle=queue, network.latency_ms=2, SERVERS.simpserv.MIN=3, ... (the keys of tuxlb sweep)")
	asJSON := fs.Bool("json", false, "print the comparison as JSON (--format json)")
	format := fs.String("format", "table", "output: table, csv or json")
	reps := fs.Int("replications", 0, "runs per variant, each with its own seed, the same in every variant (default 1: one run each)")
	precision := fs.Float64("precision", 0, "run replications in batches (of --replications, default 5) until the 95% half-width of every --objective's figure and every --figure (else response_mean_ms) is at most `REL` of its mean")
	maxReps := fs.Int("max-replications", 0, "with --precision, the most replications per variant (default 50)")
	var objectives variantFlags
	fs.Var(&objectives, "objective", "with replications, an objective `FIGURE<=X` or FIGURE>=X (repeatable): each variant's verdict on each, and its figure's precision asked")
	var figures variantFlags
	fs.Var(&figures, "figure", "with replications, report this `FIGURE` too (repeatable), e.g. response_p99_ms[INQUIRY]")
	noBase := fs.Bool("no-baseline", false, "do not run the scenario unchanged as the first column")
	jobs := fs.Int("jobs", 0, "variants run at once (default the number of CPUs)")
	budget, budgetErr := budgetFlag(fs)
	runTime := fs.Duration("max-run-time", 0, "stop a variant's run after this long, e.g. 30s (0: no limit; Ctrl-C stops them too)")
	var ff fileFlags
	ff.flags(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tuxlb compare SCENARIO.json|UBBCONFIG --variant K=V [--variant K=V ...] [--replications N | --precision REL [--replications BATCH]")
		fmt.Fprintln(stderr, "                     [--max-replications N]] [--objective EXPR ...] [--figure FIGURE ...] [--no-baseline] [--jobs N] [--format table|csv|json]")
		fmt.Fprintln(stderr, "       tuxlb compare --ubbconfig FILE [--dmconfig FILE] [--trace FILE [--trace-map MAP]] [SCENARIO.json] --variant ...")
		fs.PrintDefaults()
	}
	args = interspersed(fs, args)
	if err := parseFlags(fs, args); err != nil {
		return 2
	}
	if budgetErr != nil {
		fmt.Fprintf(stderr, "tuxlb compare: %v\n", budgetErr)
		return 2
	}
	switch {
	case fs.NArg() > 1 || fs.NArg() == 0 && ff.ubbconfig == "":
		fmt.Fprintln(stderr, "tuxlb compare: want one scenario file (or -), or --ubbconfig FILE")
		fs.Usage()
		return 2
	case len(variants) == 0 && *noBase:
		fmt.Fprintln(stderr, "tuxlb compare: --no-baseline leaves nothing to run without a --variant K=V")
		fs.Usage()
		return 2
	}
	if zeroGiven(fs, "precision", *precision) {
		fmt.Fprintln(stderr, "tuxlb compare: --precision: want a number > 0 (e.g. 0.05 for a half-width of 5% of the mean), got 0; leave it out for a fixed number of replications")
		return 2
	}
	if err := ff.check(strings.Join(fs.Args(), "")); err != nil {
		fmt.Fprintf(stderr, "tuxlb compare: %v\n", err)
		return 2
	}
	sc, pr, code := loadWithFiles("compare", fs.Args(), &ff, *budget, stdin, stderr)
	if sc == nil {
		return code
	}
	var vs []sweep.Variant
	if !*noBase {
		vs = append(vs, sweep.Variant{Name: "baseline"})
	}
	for _, text := range variants {
		v, err := sweep.ParseVariant(text)
		if err != nil {
			fmt.Fprintf(stderr, "tuxlb compare: %v\n", err)
			return 2
		}
		vs = append(vs, v)
	}
	if *jobs < 0 {
		fmt.Fprintf(stderr, "tuxlb compare: --jobs: want a number >= 1, got %d\n", *jobs)
		return 2
	}
	if *asJSON {
		given := false
		fs.Visit(func(f *flag.Flag) { given = given || f.Name == "format" })
		if given && *format != "json" {
			fmt.Fprintf(stderr, "tuxlb compare: --json and --format %s contradict each other: give one of them\n", *format)
			return 2
		}
		*format = "json"
	}
	if *format != "table" && *format != "csv" && *format != "json" {
		fmt.Fprintf(stderr, "tuxlb compare: --format: %q is not table, csv or json\n", *format)
		return 2
	}
	if *reps < 0 {
		fmt.Fprintf(stderr, "tuxlb compare: --replications: want a number >= 1, got %d\n", *reps)
		return 2
	}
	if *runTime < 0 {
		fmt.Fprintf(stderr, "tuxlb compare: --max-run-time: %s is negative\n", *runTime)
		return 2
	}
	// Each variant's result is kept to compare them: the budget must hold
	// one run's worth per variant.
	inFlight, err := admitRun(sc, pr.Model(), *budget, len(vs), "variants", false)
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb compare: %v\n", err)
		return 1
	}
	if *reps > 1 || *precision != 0 || *maxReps != 0 || *format == "csv" || len(objectives) > 0 || len(figures) > 0 {
		spec, code := objectiveSpec("compare", pr.Model(), objectives, stderr)
		if code != 0 {
			return code
		}
		spec.Replications, spec.Precision, spec.MaxReplications, spec.Figures = max(*reps, 0), *precision, *maxReps, figures
		if spec.Replications == 0 && spec.Precision == 0 {
			spec.Replications = 1
		}
		return runReplicatedCompare(sc, vs, spec, *format, *jobs, *runTime, stdout, stderr)
	}
	ctx, stop := runContext(0)
	defer stop()
	cmp, _, err := pool.Compare(ctx, sc, vs, core.RunOptions{MaxInFlight: inFlight}, *jobs, *runTime)
	if de := (*diag.Error)(nil); errors.As(err, &de) && de.Limit == diag.LimitRunTime {
		err = fmt.Errorf("%w (--max-run-time)", err)
	}
	err = runStopped(ctx, 0, err)
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb compare: %v\n", err)
		return 1
	}
	if *format == "json" {
		out, _ := json.MarshalIndent(cmp, "", "  ")
		fmt.Fprintf(stdout, "%s\n", out)
		return 0
	}
	printComparison(stdout, cmp)
	return 0
}

// runReplicatedCompare runs every variant with replications (or to a
// precision) on the pool, as a sweep over the variants, and prints each
// figure's interval and whether it differs significantly from the first.
func runReplicatedCompare(sc *scenario.Scenario, vs []sweep.Variant, spec sweep.Spec, format string, jobs int,
	runTime time.Duration, stdout, stderr io.Writer) int {
	sw, err := sweep.CompileCompare(sc, vs, spec)
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb compare: %v\n", err)
		return 1
	}
	ctx, stop := runContext(0)
	defer stop()
	bar := newSweepBar(stderr)
	res, err := pool.Sweep(ctx, sw, pool.SweepOptions{Workers: jobs, Progress: bar.update, MaxRunTime: runTime})
	bar.finish()
	if err = runStopped(ctx, 0, err); err != nil {
		fmt.Fprintf(stderr, "tuxlb compare: %v\n", err)
		return 1
	}
	cmp := sweep.ReplicatedCompare(res)
	var out []byte
	switch format {
	case "json":
		out, _ = json.MarshalIndent(cmp, "", "  ")
		out = append(out, '\n')
	case "csv":
		out = sweep.EncodeComparisonCSV(cmp)
	default:
		out = sweep.EncodeComparisonTable(cmp)
	}
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintf(stderr, "tuxlb compare: %v\n", err)
		return 1
	}
	return 0
}

// printComparison writes the headline figures as a table, one column per
// variant, with each figure's change against the first column.
func printComparison(w io.Writer, cmp *sweep.Comparison) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "figure\t")
	for _, v := range cmp.Variants {
		fmt.Fprintf(tw, "%s\t", v.Name)
	}
	fmt.Fprintln(tw)
	figures := make([][]result.Figure, len(cmp.Variants))
	for j := range cmp.Variants {
		figures[j] = cmp.Variants[j].Headline.Figures()
	}
	for i, f := range figures[0] {
		fmt.Fprintf(tw, "%s\t", f.Name)
		for j, v := range cmp.Variants {
			cell := formatFigure(figures[j][i].Value)
			if d, ok := v.Diff[f.Name]; ok && d.Relative != nil && d.Abs != 0 {
				cell += fmt.Sprintf(" (%+.1f%%)", *d.Relative*100)
			}
			fmt.Fprintf(tw, "%s\t", cell)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nrequests per server:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "server\t")
	for _, v := range cmp.Variants {
		fmt.Fprintf(tw, "%s\t", v.Name)
	}
	fmt.Fprintln(tw)
	for _, s := range cmp.Servers {
		fmt.Fprintf(tw, "%s\t", s.ID)
		for _, n := range s.Requests {
			fmt.Fprintf(tw, "%d\t", n)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func formatFigure(x float64) string {
	if x == float64(int64(x)) {
		return fmt.Sprintf("%d", int64(x))
	}
	return fmt.Sprintf("%.3f", x)
}

// interspersed moves flags after positional arguments to the front, so
// `tuxlb compare scenario.json --variant ldbal=N` works like the usual order.
func interspersed(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") {
				if f := fs.Lookup(name); f != nil {
					if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !bf.IsBoolFlag() {
						if i+1 < len(args) {
							flags = append(flags, args[i+1])
							i++
						}
					}
				}
			}
			continue
		}
		pos = append(pos, a)
	}
	return append(flags, pos...)
}
