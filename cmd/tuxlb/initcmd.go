package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/starter"
)

func init() {
	commands["init"] = command{
		summary: "write a complete scenario to start from, made from a UBBCONFIG (and DMCONFIG, and a log)",
		run:     runInit,
	}
}

// runInit is `tuxlb init [--ubbconfig] FILE [--dmconfig FILE] [--trace FILE]`:
// the starter scenario (starter.New) as JSON on standard output or
// in --out. Exit 1 for a bad file, 2 for bad flags.
func runInit(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var ff fileFlags
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&ff.ubbconfig, "ubbconfig", "", "UBBCONFIG `FILE` (required; or give it as the one argument: tuxlb init FILE)")
	fs.StringVar(&ff.dmconfig, "dmconfig", "", "DMCONFIG `FILE`")
	fs.StringVar(&ff.trace, "trace", "", "request log `FILE` (CSV): streams at its rates, service times from it")
	fs.StringVar(&ff.traceMap, "trace-map", "", "how to read the log's columns: `time=COL,service=COL,...`")
	ff.skipFlag(fs)
	load := fs.String("load", strconv.FormatFloat(starter.DefaultLoad, 'g', -1, 64), "without a log, how busy the streams keep each server (a `FRACTION`)")
	out := fs.String("out", "", "write the scenario to `FILE` instead of standard output (-: standard output)")
	fitLog := fs.Bool("fit", false, "fit service times from the --trace (as tuxlb fit does) instead of exponentials of its means")
	pscPath := pscFlag(fs, &ff)
	var ulogs ulogFlag
	fs.Var(&ulogs, "ulog", "ULOG `FILE` with TMTRACE lines to fit service times, calls and rates from (repeatable; implies --fit)")
	budget, budgetErr := budgetFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tuxlb init [--ubbconfig] FILE [--dmconfig FILE] [--trace FILE [--trace-map MAP] [--fit] | --ulog FILE... | --load FRACTION]")
		fmt.Fprintln(stderr, "                  [--psc FILE] [--out FILE]")
		fmt.Fprintln(stderr, "       (- for one of the files reads it from standard input)")
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if ff.ubbconfig == "" && len(pos) == 1 {
		ff.ubbconfig = pos[0] // tuxlb init FILE: the UBBCONFIG
		pos = nil
	}
	if err := ff.check(""); err != nil {
		fmt.Fprintf(stderr, "tuxlb init: %v\n", err)
		return 2
	}
	if budgetErr != nil {
		fmt.Fprintf(stderr, "tuxlb init: %v\n", budgetErr)
		return 2
	}
	useBudget(*budget)
	if ff.ubbconfig == "" || len(pos) > 0 {
		fmt.Fprintln(stderr, "tuxlb init: want the UBBCONFIG (tuxlb init FILE, or --ubbconfig FILE) and no other argument")
		fs.Usage()
		return 2
	}
	l, err := strconv.ParseFloat(*load, 64)
	if err != nil || !(l >= 0.01 && l <= 10) { // NaN too
		fmt.Fprintf(stderr, "tuxlb init: --load: %q is not a fraction between 0.01 and 10\n", *load)
		return 2
	}
	if err := ff.checkInputs(ulogs, *out); err != nil {
		fmt.Fprintf(stderr, "tuxlb init: %v\n", err)
		return 2
	}
	files, err := ff.read(stdin)
	if err == nil {
		files.PSC, err = readText(*pscPath, "--psc", stdin)
		files.PSCPath = displayName(*pscPath)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb init: %v\n", err)
		return 1
	}
	files.Load = l
	probe := &scenario.Scenario{UBBConfig: *files.UBBConfig}
	if files.DMConfig != nil {
		probe.DMConfig = *files.DMConfig
	}
	if !checkModelFiles(probe, &ff, stderr, "init") {
		return 1
	}
	if *fitLog && ff.trace == "" && len(ulogs) == 0 {
		fmt.Fprintln(stderr, "tuxlb init: --fit fits a --trace FILE or --ulog FILE")
		return 2
	}
	if (ff.trace != "" || len(ulogs) > 0) && flagGiven(fs, "load") {
		// the log's rates set the streams: a --load would be dropped unsaid
		fmt.Fprintln(stderr, "tuxlb init: --load sizes the streams of a configuration without a log; with --trace or --ulog the streams run at the log's rates: give one or the other")
		return 2
	}
	var sc *scenario.Scenario
	var rep *starter.FitReport
	if *fitLog || len(ulogs) > 0 {
		sc, rep, err = initFitted(files, ulogs, &ff, *budget, stdin, stderr)
		if sc == nil {
			return 1
		}
	} else {
		var warn []string
		sc, warn, err = starter.NewWithWarnings(files)
		for _, w := range warn { // before an error too: an ignored section can leave nothing to run
			fmt.Fprintf(stderr, "tuxlb init: warning: %s\n", w)
		}
		if err != nil {
			fmt.Fprintf(stderr, "tuxlb init: %s\n", cmp.Or(pscError(err, ff.psc), fileError(err, &ff, "")))
			return 1
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sc); err != nil {
		fmt.Fprintf(stderr, "tuxlb init: %v\n", err)
		return 1
	}
	if *out != "" && *out != "-" {
		if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
			fmt.Fprintf(stderr, "tuxlb init: --out: %v\n", err)
			return 1
		}
	} else if _, err := stdout.Write(buf.Bytes()); err != nil {
		return 1
	}
	if rep != nil {
		// fitted: the service times are measured, not to be set by hand
		guessed := 0
		for _, f := range rep.Figures {
			if f.Source == "guessed" {
				guessed++
			}
		}
		next := "run it, and judge it by an export of the observed responses (tuxlb calibrate, docs/fit.md)"
		if guessed > 0 {
			next = fmt.Sprintf("check the %s the log did not measure (tuxlb fit's report lists them: \"guessed\" in figures),\nthen %s", count(guessed, "figure", "figures"), next)
		}
		fmt.Fprintf(stderr, "tuxlb init: %s, %s, %s for servers without -s.\nNext: %s.\n",
			count(len(sc.Workload.Generate.Streams), "stream", "streams"), timedFrom(sc, rep), count(len(sc.Advertise), "advertise entry", "advertise entries"), next)
		return 0
	}
	fmt.Fprintf(stderr, "tuxlb init: %s, %s timed, %s for servers without -s.\n"+
		"Next: set each service's service_time to what you measure, trim each advertise list to what the\n"+
		"server really offers, then run it (docs/scenario.md, \"Starting from your own files\").\n",
		count(len(sc.Workload.Generate.Streams), "stream", "streams"), count(len(sc.Services), "service", "services"),
		count(len(sc.Advertise), "advertise entry", "advertise entries"))
	return 0
}
