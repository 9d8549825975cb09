package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/starter"
	"github.com/tuxlb/tuxlb/core/trace"
	"github.com/tuxlb/tuxlb/pool"
)

func init() {
	commands["calibrate"] = command{
		summary: "fit a scenario from ULOG files or a log, then replay a production export against it and judge it",
		run:     runCalibrate,
	}
}

// calibrateAnswer is what calibrate prints with --format json.
type calibrateAnswer struct {
	Out              string             `json:"out"`
	FitWarnings      []string           `json:"fit_warnings,omitempty"`
	ScenarioWarnings []string           `json:"scenario_warnings,omitempty"`
	ReplayWarnings   []string           `json:"replay_warnings,omitempty"`
	Validation       *result.Validation `json:"validation,omitempty"`
}

// runCalibrate is `tuxlb calibrate --ubbconfig U [--dmconfig D] (--ulog
// F... | --trace EXPORT) [--trace EXPORT [--trace-map M]] --out FILE
// [--replications N] [--tolerance T] [--validate-after T] [--format
// table|json]`: fits (as tuxlb fit --out does), writes the scenario, and
// with a --trace replays it against the scenario and prints the verdicts.
// Exit 0 when every service passes (or nothing was replayed), 3 when one
// fails, 4 when none fails and one is inconclusive, 1 on errors, 2 on bad
// flags.
func runCalibrate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var ff fileFlags
	var ulogs ulogFlag
	var vf validationFlags
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&ff.ubbconfig, "ubbconfig", "", "UBBCONFIG `FILE` (required)")
	fs.StringVar(&ff.dmconfig, "dmconfig", "", "DMCONFIG `FILE`")
	fs.Var(&ulogs, "ulog", "ULOG `FILE` with TMTRACE lines to fit from (repeat for several machines or days)")
	pscPath := pscFlag(fs, &ff)
	fs.StringVar(&ff.trace, "trace", "", "production export `FILE` (CSV) with an observed response column: fitted from when no --ulog is given; replayed (every service time drawn from the fit) and judged")
	fs.StringVar(&ff.traceMap, "trace-map", "", "how to read the export's columns: `time=COL,service=COL,observed=COL,...`")
	ff.skipFlag(fs)
	ulogTZ := fs.String("ulog-tz", "", "`ZONE` of the --ulog files' stamps (their machines' local time: Europe/Paris, +01:00), where --validate-after places the export's first row (default: the export's own zone, --trace-map tz=)")
	out := fs.String("out", "", "write the fitted scenario to `FILE` (required; - for standard output when nothing else is printed there: --format table without a --trace)")
	vf.flags(fs, 10)
	format := fs.String("format", "table", "output: table (for a terminal) or json")
	jobs := fs.Int("jobs", 0, "replications run at once (default the number of CPUs)")
	maxRunTime := fs.Duration("max-run-time", 0, "stop the replay after this long, e.g. 5m (0: no limit; Ctrl-C stops it too)")
	budget, budgetErr := budgetFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tuxlb calibrate --ubbconfig FILE [--dmconfig FILE] [--psc FILE] (--ulog FILE... | --trace EXPORT) [--trace EXPORT [--trace-map MAP]]")
		fmt.Fprintln(stderr, "                       --out SCENARIO.json [--replications N] [--tolerance 10%] [--validate-after T [--ulog-tz ZONE]] [--jobs N] [--format table|json]")
		fmt.Fprintln(stderr, "       fits the scenario (docs/fit.md), writes it, replays the export against it and judges it")
		fmt.Fprintln(stderr, "       exit 0: every service passes; 3: one fails; 4: none fails, one is inconclusive; 1: an error; 2: bad flags")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "tuxlb calibrate: "+format+"\n", a...)
		fs.Usage()
		return 2
	}
	if budgetErr != nil {
		fmt.Fprintf(stderr, "tuxlb calibrate: %v\n", budgetErr)
		return 2
	}
	switch {
	case fs.NArg() > 0:
		return usage("unexpected argument %q", fs.Arg(0))
	case ff.ubbconfig == "":
		return usage("want --ubbconfig FILE (the scenario is made for a configuration)")
	case ff.trace == "" && len(ulogs) == 0:
		return usage("want --ulog FILE... or --trace EXPORT to fit from")
	case *out == "":
		return usage("want --out FILE: where to write the fitted scenario")
	case *out == "-" && *format == "json":
		return usage("--out: - would write the scenario to standard output, where --format json prints calibrate's answer: give a FILE")
	case *out == "-" && ff.trace != "":
		return usage("--out: - would write the scenario to standard output, where calibrate prints the replay's verdicts: give a FILE")
	case (ff.traceMap != "" || ff.skipBad) && ff.trace == "":
		return usage("--trace-map and --trace-skip-bad read a --trace")
	case *format != "table" && *format != "json":
		return usage("--format: %q is not table or json", *format)
	case *jobs < 0:
		return usage("--jobs: want a number >= 1 (0 or none: the number of CPUs), got %d", *jobs)
	case *maxRunTime < 0:
		return usage("--max-run-time: %s is negative", *maxRunTime)
	case *ulogTZ != "" && (len(ulogs) == 0 || ff.trace == ""):
		return usage("--ulog-tz places the --trace export beside the --ulog files: give both")
	}
	var ulogZone *trace.Zone
	if *ulogTZ != "" {
		z, err := starter.LoadULOGZone("--ulog-tz", *ulogTZ)
		if err != nil {
			return usage("%v", err)
		}
		ulogZone = z
	}
	if err := vf.apply(&scenario.Scenario{}); err != nil {
		return usage("%v", err)
	}
	if err := ff.checkInputs(ulogs, *out); err != nil {
		return usage("%v", err)
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "tuxlb calibrate: "+format+"\n", a...)
		return 1
	}
	files, err := ff.read(stdin)
	if err == nil {
		files.PSC, err = readText(*pscPath, "--psc", stdin)
		files.PSCPath = displayName(*pscPath)
	}
	if err != nil {
		return fail("%v", err)
	}
	if err := admitTrace(files.Trace, files.Columns, ff.trace, *budget); err != nil {
		return fail("%v", err)
	}
	if files.Trace != nil && !starter.Observes(*files.Trace, files.Columns) {
		return fail("%s has no observed responses (an observed_ms column, or observed=COL in --trace-map): nothing to judge the scenario by", ff.trace)
	}
	ulogFiles, err := readULOGs(ulogs, stdin, *budget)
	if err != nil {
		return fail("%v", err)
	}
	// fit: from the ULOG files when given (the export is then only
	// replayed), else from the export
	var beforeUS int64
	if vf.validateAfter != "" {
		// the hold-out window: fit from the log's first part, judge on the rest
		ms, err := parseAfter(vf.validateAfter)
		if err != nil {
			return usage("--validate-after: %v", err)
		}
		beforeUS = int64(math.Round(ms * 1000))
	}
	src := fitSources(files, ulogFiles, *budget)
	src.ULOGZone = ulogZone
	src, err = starter.ForCalibration(src, beforeUS)
	if err != nil {
		return fail("%s", fileError(err, &ff, ""))
	}
	rep, err := starter.Fit(src)
	if err != nil {
		return fail("%s", fitError(err, &ff))
	}
	sc, warn, err := starter.FromFit(files, rep)
	if err != nil {
		return fail("%s", fitError(err, &ff))
	}
	if timedCount(sc, rep) == 0 && len(sc.Services) > 0 {
		warn = append(warn, "no service time was measured: the scenario keeps the starter's guesses, so the verdicts judge guesses, not a calibration")
	}
	ans := calibrateAnswer{Out: *out, FitWarnings: rep.Warnings, ScenarioWarnings: warn}
	if err := vf.apply(sc); err != nil {
		return fail("%v", err)
	}
	written := *sc
	written.Replications = 0 // the replications are the replay's; the scenario runs once
	data, err := encodeJSON(&written)
	dest := *out
	switch {
	case err != nil:
	case *out == "-": // nothing else is printed there (checked above)
		dest = "the scenario on standard output"
		_, err = stdout.Write(data)
	default:
		err = os.WriteFile(*out, data, 0o644)
	}
	if err != nil {
		return fail("--out: %v", err)
	}
	if *format == "table" {
		for _, w := range append(append([]string{}, rep.Warnings...), warn...) {
			fmt.Fprintf(stderr, "tuxlb calibrate: warning: %s\n", w)
		}
		fmt.Fprintf(stderr, "tuxlb calibrate: wrote %s (%s, %s)\n", dest, timedFrom(sc, rep), count(len(sc.Workload.Generate.Streams), "stream", "streams"))
	}
	if files.Trace == nil {
		return writeCalibrate(stdout, stderr, *format, ans)
	}
	// replay the export against the fitted scenario
	replay, err := starter.ForReplay(sc, files)
	if err != nil {
		return fail("%s", fileError(err, &ff, ""))
	}
	res, code := calibrateReplay(replay, &ff, *budget, *jobs, *maxRunTime, stderr)
	if res == nil {
		return code
	}
	if res.Validation == nil {
		return fail("%s has no observed responses (an observed_ms column, or observed=COL in --trace-map): nothing to judge the scenario by", ff.trace)
	}
	ans.ReplayWarnings, ans.Validation = res.Warnings, res.Validation
	if code := writeCalibrate(stdout, stderr, *format, ans); code != 0 {
		return code
	}
	return verdictStatus(res.Validation)
}

// calibrateReplay runs the replay scenario with its replications; nil and
// the exit status after printing the problem.
func calibrateReplay(sc *scenario.Scenario, ff *fileFlags, budget int64, jobs int, limit time.Duration, stderr io.Writer) (*result.Result, int) {
	ubbName, dmName := ff.configNames()
	opt := core.RunOptions{UBBName: ubbName, DMName: dmName}
	pr, err := core.Prepare(sc, opt)
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb calibrate: replay: %s\n", fileError(err, ff, ""))
		return nil, 1
	}
	inFlight, err := admitRun(sc, pr.Model(), budget, min(max(sc.Replications, 1), pool.Workers(jobs)), "replications", false)
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb calibrate: replay: %s\n", fileError(err, ff, ""))
		return nil, 1
	}
	ctx, stop := runContext(limit)
	defer stop()
	opt.Context, opt.MaxInFlight = ctx, inFlight
	var res *result.Result
	p, err := pr.Compile(opt)
	switch {
	case err != nil:
	case p.Replications() > 1:
		res, err = pool.Replications(ctx, p, opt, jobs)
	default:
		res, err = p.Run(opt)
	}
	if err = runStopped(ctx, limit, err); err != nil {
		fmt.Fprintf(stderr, "tuxlb calibrate: replay: %s\n", fileError(err, ff, ""))
		return nil, 1
	}
	return res, 0
}

// writeCalibrate prints the answer: JSON, or the validation's table.
func writeCalibrate(stdout, stderr io.Writer, format string, ans calibrateAnswer) int {
	var err error
	switch {
	case format == "json":
		var data []byte
		if data, err = encodeJSON(ans); err == nil {
			_, err = stdout.Write(data)
		}
	case ans.Validation != nil:
		for _, w := range ans.ReplayWarnings {
			fmt.Fprintf(stderr, "tuxlb calibrate: replay: warning: %s\n", w)
		}
		err = writeValidation(stdout, ans.Validation)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb calibrate: %v\n", err)
		return 1
	}
	return 0
}
