package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/admission"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/tmadmin"
	"github.com/tuxlb/tuxlb/pool"
)

func init() {
	commands["run"] = command{summary: "run a scenario and print the result JSON", run: runCmd}
}

// runFlags are the flags of `tuxlb run`.
type runFlags struct {
	dispatch    string
	policy      string
	seed        string
	explain     string
	explainJSON bool
	format      string
	formatGiven bool // --format was given, not its default
	jobs        int
	maxRunTime  time.Duration
	seqs        map[int64]bool // parsed --explain: issue numbers
	ids         []string       // parsed --explain: request ids, as the dispatch log shows them
	file        string         // the scenario's name in error messages
	files       fileFlags
	noProgress  bool
	series      string
	budget      *int64
	valid       validationFlags
}

func runCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f runFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.dispatch, "dispatch", "", "write the dispatch log (CSV) to `FILE`")
	fs.StringVar(&f.policy, "policy", "", "override the scenario's policy: "+strings.Join(core.Vocabulary()["policy"], ", "))
	fs.StringVar(&f.seed, "seed", "", "override the scenario's seed")
	fs.StringVar(&f.explain, "explain", "", "explain the dispatch of requests `N[,N..]` (issue numbers, ranges N-M, or ids as the dispatch log shows them: 2008.1, TELLER:3:12) instead of printing the result")
	fs.BoolVar(&f.explainJSON, "explain-json", false, "with --explain, print the explanations as JSON")
	fs.StringVar(&f.format, "format", "json", "output: json, summary (for a terminal), psr (tmadmin printserver) or psc (printservice)")
	fs.IntVar(&f.jobs, "jobs", 0, "replications run at once (default the number of CPUs)")
	fs.DurationVar(&f.maxRunTime, "max-run-time", 0, "stop the run after this long, e.g. 30s (0: no limit; Ctrl-C stops it too)")
	f.files.flags(fs)
	fs.BoolVar(&f.noProgress, "no-progress", false, "no progress bar on standard error")
	fs.StringVar(&f.series, "series", "summary", "time series: summary (past 64 lines of a kind, the 64 busiest and one of the others) or all")
	var budgetErr error
	f.budget, budgetErr = budgetFlag(fs)
	f.valid.flags(fs, 0)
	f.files.adjust = f.valid.apply
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tuxlb run [flags] SCENARIO.json|UBBCONFIG   (- reads standard input; a UBBCONFIG runs as --ubbconfig FILE)")
		fmt.Fprintln(stderr, "       tuxlb run --ubbconfig FILE [--dmconfig FILE] [--trace FILE [--trace-map MAP]] [SCENARIO.json]")
		fmt.Fprintln(stderr, "       (- for one of the files or the scenario reads it from standard input)")
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if budgetErr != nil {
		fmt.Fprintf(stderr, "tuxlb run: %v\n", budgetErr)
		return 2
	}
	if len(pos) > 1 || len(pos) == 0 && f.files.ubbconfig == "" {
		fmt.Fprintln(stderr, "tuxlb run: want one scenario file (or -), or --ubbconfig FILE")
		fs.Usage()
		return 2
	}
	fs.Visit(func(fl *flag.Flag) { f.formatGiven = f.formatGiven || fl.Name == "format" })
	opt, err := f.options()
	if err == nil {
		err = f.files.check(strings.Join(pos, ""))
	}
	if err == nil {
		err = notAnInput("--dispatch", f.dispatch, append(f.files.inputs(), input{"scenario", strings.Join(pos, "")})...)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb run: %v\n", err)
		return 2
	}
	f.files.showsModel = f.explain == "" && (f.format == "summary" || f.format == "psr" || f.format == "psc")
	sc, pr, code := loadWithFiles("run", pos, &f.files, *f.budget, stdin, stderr)
	if sc == nil {
		return code
	}
	if len(pos) == 1 {
		f.file = displayName(pos[0])
	}
	var explained []admission.CostTerm
	if f.explain != "" { // held at once, and their JSON
		explained = append(explained, admission.ExplainCost(pr.Model(), int64(len(f.seqs)+len(f.ids)), "--explain"))
	}
	inFlight, err := admitRun(sc, pr.Model(), *f.budget, min(max(sc.Replications, 1), pool.Workers(f.jobs)), "replications", opt.AllSeries, explained...)
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb run: %s\n", fileError(err, &f.files, f.file))
		return 1
	}
	opt.MaxInFlight = inFlight
	ctx, stop := runContext(f.maxRunTime)
	defer stop()
	opt.Context = ctx
	if f.explain != "" {
		return runExplain(pr, opt, f, stdout, stderr)
	}
	return runScenario(pr, opt, f, stdout, stderr)
}

// zeroGiven reports whether the flag name was given, as 0 (v): a number
// whose 0 means "absent" when left out, and is invalid when written.
func zeroGiven(fs *flag.FlagSet, name string, v float64) bool {
	return flagGiven(fs, name) && v == 0
}

// flagGiven reports whether the flag name was given on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// parseInterspersed parses flags anywhere among the arguments, each flag
// of one value once (onceEach).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	if err := onceEach(fs, args); err != nil {
		fmt.Fprintf(fs.Output(), "tuxlb %s: %v\n", fs.Name(), err)
		return nil, err
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// options checks the flags and turns them into RunOptions.
func (f *runFlags) options() (core.RunOptions, error) {
	opt := core.RunOptions{Policy: f.policy}
	if f.maxRunTime < 0 {
		return opt, fmt.Errorf("--max-run-time: %s is negative", f.maxRunTime)
	}
	if f.seed != "" {
		n, err := plan.ParseSeed("--seed", f.seed)
		if err != nil {
			return opt, err
		}
		opt.Seed = &n
	}
	switch f.format {
	case "json", "psr", "psc", "summary":
	default:
		return opt, fmt.Errorf("--format: %q is not json, summary, psr or psc", f.format)
	}
	switch f.series {
	case "summary":
	case "all":
		opt.AllSeries = true
	default:
		return opt, fmt.Errorf("--series: %q is not summary or all", f.series)
	}
	if f.jobs < 0 {
		return opt, fmt.Errorf("--jobs: want a number >= 1 (0 or none: the number of CPUs), got %d", f.jobs)
	}
	if f.dispatch == "-" {
		return opt, fmt.Errorf("--dispatch: - would write the dispatch log to standard output, where run prints its result: give a FILE")
	}
	if err := f.valid.apply(&scenario.Scenario{}); err != nil { // the flags' syntax, before anything is read
		return opt, err
	}
	if f.explainJSON && f.explain == "" {
		return opt, fmt.Errorf("--explain-json prints the explanations --explain N asks for: give --explain, or leave --explain-json out")
	}
	if f.explain != "" {
		if f.dispatch != "" {
			return opt, fmt.Errorf("--explain and --dispatch cannot be combined")
		}
		if f.formatGiven {
			return opt, fmt.Errorf("--explain prints explanations, not the result: --format %s does not apply (--explain-json prints them as JSON)", f.format)
		}
		seqs, ids, err := parseSeqs(f.explain)
		if err != nil {
			return opt, fmt.Errorf("--explain: %w", err)
		}
		f.seqs, f.ids = seqs, ids
	}
	return opt, nil
}

// runScenario compiles the prepared scenario once and runs it, its
// replications on --jobs workers.
func runScenario(pr *core.Prepared, opt core.RunOptions, f runFlags, stdout, stderr io.Writer) int {
	var file *outputFile
	if f.dispatch != "" {
		var err error
		if file, err = createOutput(f.dispatch); err != nil {
			fmt.Fprintf(stderr, "tuxlb run: --dispatch: %v\n", err)
			return 1
		}
		opt.Dispatch = file
	}
	bar := newProgressBar(stderr, !f.noProgress)
	opt.Progress = bar.update
	var res *result.Result
	p, err := pr.Compile(opt)
	switch {
	case err != nil:
	case p.Replications() > 1:
		res, err = pool.Replications(opt.Context, p, opt, f.jobs) // replication 0 draws the bar
	default:
		res, err = p.Run(opt)
	}
	bar.done()
	err = runStopped(opt.Context, f.maxRunTime, err)
	if file != nil {
		if err != nil {
			file.discard()
		} else if cerr := file.commit(); cerr != nil {
			err = fmt.Errorf("--dispatch: %w", cerr)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb run: %s\n", fileError(err, &f.files, f.file))
		return 1
	}
	if f.valid.given() && res.Validation == nil {
		fmt.Fprintln(stderr, "tuxlb run: warning: --tolerance and --validate-after judge a replay of a log with observed responses; this run has none")
	}
	switch f.format {
	case "psr", "psc":
		for _, w := range res.Warnings {
			fmt.Fprintln(stderr, warningLine(w))
		}
		if f.format == "psr" {
			err = tmadmin.PrintServer(stdout, res)
		} else {
			err = tmadmin.PrintService(stdout, res)
		}
	case "summary":
		err = writeSummary(stdout, res)
	default:
		_, err = stdout.Write(result.Encode(res))
	}
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb run: %v\n", err)
		return 1
	}
	return 0
}

// runExplain prints the explanations of the requests --explain names.
func runExplain(pr *core.Prepared, opt core.RunOptions, f runFlags, stdout, stderr io.Writer) int {
	seqs := f.seqs
	var out []result.Explanation
	plan, err := pr.Compile(opt) // once: each range is a run of the same plan
	if err = runStopped(opt.Context, f.maxRunTime, err); err != nil {
		fmt.Fprintf(stderr, "tuxlb run: %s\n", fileError(err, &f.files, f.file))
		return 1
	}
	for _, rg := range groupRanges(seqs) {
		exs, err := plan.Explain(opt, rg[0], rg[1]-rg[0]+1)
		if err = runStopped(opt.Context, f.maxRunTime, err); err != nil {
			fmt.Fprintf(stderr, "tuxlb run: %s\n", fileError(err, &f.files, f.file))
			return 1
		}
		for _, ex := range exs {
			if seqs[ex.Seq] {
				out = append(out, ex)
			}
		}
	}
	for _, id := range f.ids {
		exs, err := plan.ExplainID(opt, id)
		if err = runStopped(opt.Context, f.maxRunTime, err); err != nil {
			fmt.Fprintf(stderr, "tuxlb run: %s\n", fileError(err, &f.files, f.file))
			return 1
		}
		out = append(out, exs...)
	}
	if f.explainJSON {
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintf(stdout, "%s\n", b)
		return 0
	}
	for i, ex := range out {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		writeExplanation(stdout, ex)
	}
	return 0
}

// parseSeqs reads "N[,N..]" with "N-M" ranges into a set of issue
// numbers; a part that is not a number or a range of numbers is a request
// id as the dispatch log shows it (2008.1, TELLER:3:12), kept in order.
func parseSeqs(s string) (map[int64]bool, []string, error) {
	set := map[int64]bool{}
	var ids []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseInt(lo, 10, 64)
		b := a
		if err == nil && isRange {
			b, err = strconv.ParseInt(hi, 10, 64)
		}
		if errors.Is(err, strconv.ErrRange) { // digits past int64: a number, never an id
			return nil, nil, fmt.Errorf("%q: request number too large (a run issues far fewer)", part)
		}
		if err != nil && part != "" && !strings.HasPrefix(part, "-") {
			if !slices.Contains(ids, part) {
				ids = append(ids, part)
			}
			continue
		}
		if err == nil && a >= 1 && b-a >= core.MaxExplain {
			return nil, nil, fmt.Errorf("%q: too many requests (at most %d in a range N-M)", part, core.MaxExplain)
		}
		if err != nil || a < 1 || b < a {
			return nil, nil, fmt.Errorf("%q: want request numbers from 1, like 5 or 3,7 or 10-20, or request ids as the dispatch log shows them, like 2008.1 or TELLER:3:12", part)
		}
		for n := a; n <= b; n++ {
			set[n] = true
		}
	}
	return set, ids, nil
}

// groupRanges covers the wanted numbers with as few Explain calls as the
// per-call limit allows.
func groupRanges(set map[int64]bool) [][2]int64 {
	var seqs []int64
	for n := range set {
		seqs = append(seqs, n)
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	var out [][2]int64
	for _, n := range seqs {
		if k := len(out) - 1; k >= 0 && n-out[k][0] < core.MaxExplain {
			out[k][1] = n
			continue
		}
		out = append(out, [2]int64{n, n})
	}
	return out
}

// explainWidth is the width the text of an explanation is wrapped to.
const explainWidth = 100

// wrapWords breaks text into lines of at most width bytes at spaces; a word
// longer than width gets a line of its own.
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// writeExplanation prints one explanation: a heading, the reasoning wrapped
// to explainWidth, and the table of candidates.
func writeExplanation(w io.Writer, ex result.Explanation) {
	fmt.Fprintf(w, "Request %s (#%d): %s from %s at %s ms, policy %s (%s)\n", ex.ID, ex.Seq, ex.Service, ex.Origin,
		strconv.FormatFloat(float64(ex.IssueUS)/1000, 'f', -1, 64), ex.Policy, ex.Algorithm)
	for _, line := range wrapWords(ex.Text, explainWidth-2) {
		fmt.Fprintf(w, "  %s\n", line)
	}
	for _, line := range wrapWords(ex.Failure, explainWidth-2) {
		fmt.Fprintf(w, "  %s\n", line)
	}
	if len(ex.Candidates) == 0 {
		return
	}
	fmt.Fprintf(w, "  %-3s %-14s %-12s %-8s %-5s %-5s %3s %7s %7s %5s %7s  %-28s %s\n",
		"", "server", "queue", "lmid", "local", "idle", "n", "waiting", "W|C", "load", "netload", "cost", "note")
	for _, c := range ex.Candidates {
		mark := ""
		if c.Chosen {
			mark = "->"
		}
		note := c.Note
		if c.State != "" && c.State != "up" {
			note = strings.TrimSpace("[" + c.State + "] " + note)
		}
		fmt.Fprintf(w, "  %-3s %-14s %-12s %-8s %-5t %-5t %3d %7d %7d %5d %7d  %-28s %s\n", mark, c.Server, c.Queue,
			c.LMID, c.Local, c.Idle, c.Servers, c.Waiting, c.Work+c.Counter, c.Load, c.NetLoad, c.Cost, note)
	}
}
