package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/starter"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// fileFlags are an administrator's own files, given by flag to run and init.
type fileFlags struct {
	ubbconfig string
	dmconfig  string
	trace     string
	traceMap  string
	skipBad   bool   // --trace-skip-bad
	psc       string // --psc (init and fit): a tmadmin printservice listing
	// adjust, when set, changes the scenario read before it is checked
	// (run's --replications, --tolerance, --validate-after).
	adjust func(*scenario.Scenario) error
	// traceLimit bounds the log's size (the memory budget of run, sweep
	// and compare, which then hold the text and not its rows); 0 is
	// maxScenarioBytes.
	traceLimit int64
	// showsModel says the command prints the run's warnings itself (run's
	// summary, psr and psc): the starter's warnings of reading the
	// configuration, the same diagnostics, are then not printed twice.
	showsModel bool
}

// given says whether any file flag was given.
func (f *fileFlags) given() bool {
	return f.ubbconfig != "" || f.dmconfig != "" || f.trace != "" || f.traceMap != "" || f.skipBad
}

// stdinOnce checks that at most one of paths is "-" (standard input, which
// can be read once); the names are the flags or arguments, for the message.
func stdinOnce(paths, names []string) error {
	var from []string
	for i, p := range paths {
		if p == "-" {
			from = append(from, names[i])
		}
	}
	if len(from) > 1 {
		return fmt.Errorf("%s would each read standard input (-): give - to one of them at most", strings.Join(from, " and "))
	}
	return nil
}

// check checks the flags before anything is read; scenario is the
// scenario argument ("" for none).
func (f *fileFlags) check(scenario string) error {
	return stdinOnce([]string{scenario, f.ubbconfig, f.dmconfig, f.trace},
		[]string{"the scenario", "--ubbconfig", "--dmconfig", "--trace"})
}

// read reads the files the flags name into starter.Files; "-" reads stdin.
func (f *fileFlags) read(stdin io.Reader) (starter.Files, error) {
	var out starter.Files
	var err error
	if err = f.check(""); err != nil {
		return out, err
	}
	if out.UBBConfig, err = readText(f.ubbconfig, "--ubbconfig", stdin); err != nil {
		return out, err
	}
	if out.DMConfig, err = readText(f.dmconfig, "--dmconfig", stdin); err != nil {
		return out, err
	}
	traceLimit := int64(maxScenarioBytes)
	if f.traceLimit > 0 {
		traceLimit = f.traceLimit
	}
	if out.Trace, err = readTextLimit(f.trace, "--trace", stdin, traceLimit); err != nil {
		return out, err
	}
	if f.traceMap != "" {
		if out.Columns, err = starter.ParseTraceMap(f.traceMap); err != nil {
			return out, fmt.Errorf("--trace-map: %w", err)
		}
	}
	out.UBBName, out.TraceName, out.SkipBad = baseName(f.ubbconfig), baseName(f.trace), f.skipBad
	out.UBBPath, out.DMPath = f.configNames()
	return out, nil
}

// flags declares the file flags on a command's flag set.
func (f *fileFlags) flags(fs *flag.FlagSet) {
	fs.StringVar(&f.ubbconfig, "ubbconfig", "", "UBBCONFIG `FILE`: replaces the scenario's (with no scenario, makes one with defaults)")
	fs.StringVar(&f.dmconfig, "dmconfig", "", "DMCONFIG `FILE`: replaces the scenario's")
	fs.StringVar(&f.trace, "trace", "", "request log `FILE` (CSV): replaces the scenario's workload")
	fs.StringVar(&f.traceMap, "trace-map", "", "how to read the log's columns: `time=COL,service=COL,...` (workload.columns fields)")
	f.skipFlag(fs)
}

// skipFlag declares --trace-skip-bad.
func (f *fileFlags) skipFlag(fs *flag.FlagSet) {
	counted := "counted in a warning" // init, calibrate
	switch fs.Name() {
	case "run":
		counted = "counted in the result's trace block"
	case "fit":
		counted = "counted in the report's trace block"
	case "sweep", "compare", "optimize":
		counted = "not counted here: tuxlb run with the same files counts them"
	}
	fs.BoolVar(&f.skipBad, "trace-skip-bad", false, "skip the log's rows that cannot be read ("+counted+") instead of stopping at the first")
}

// loadWithFiles reads the scenario of run, sweep and compare: the scenario
// file pos[0] (if any) with the files the flags name spliced in, or, with no
// scenario, one made from the files. It is decoded, then checked and its
// configuration read once (core.Prepare, with the files' own names, so a
// bad UBBCONFIG is reported as FILE:LINE:COL like validate does). On an
// error it prints it and returns nil and the exit status. The files' check
// (at most one standard input) must have been made.
func loadWithFiles(cmd string, pos []string, ff *fileFlags, budget int64, stdin io.Reader, stderr io.Writer) (*scenario.Scenario, *core.Prepared, int) {
	var files starter.Files
	var err error
	useBudget(budget)
	if len(pos) == 1 && ff.ubbconfig == "" && isUBBConfigFile(pos[0]) {
		// `tuxlb run ubb.cfg`: the one argument is a UBBCONFIG, not a
		// scenario; it runs as `tuxlb run --ubbconfig ubb.cfg` does
		ff.ubbconfig, pos = pos[0], nil
	}
	if ff.given() {
		ff.traceLimit = budget // the run holds the log's text, not its rows
		if files, err = ff.read(stdin); err != nil {
			fmt.Fprintf(stderr, "tuxlb %s: %v\n", cmd, err)
			return nil, nil, 1
		}
		// A log's text is held whole (its observed responses besides):
		// both must fit the budget before it is read further.
		if err := admitTrace(files.Trace, files.Columns, ff.trace, budget); err != nil {
			fmt.Fprintf(stderr, "tuxlb %s: %v\n", cmd, err)
			return nil, nil, 1
		}
	}
	var sc *scenario.Scenario
	var starterWarns []string
	file := ""
	if len(pos) == 1 {
		file = displayName(pos[0])
		var data []byte
		if data, err = readScenarioData(pos[0], stdin); err != nil {
			fmt.Fprintf(stderr, "tuxlb %s: %v\n", cmd, err)
			return nil, nil, 1
		}
		if sc, err = core.DecodeScenario(data); err == nil {
			sc, err = starter.WithFiles(sc, files)
		} else if pos[0] == "-" && ubb.LooksLike(data) {
			// a file argument is sniffed (isUBBConfigFile), standard input is read as a scenario
			err = fmt.Errorf("%w; it reads as a UBBCONFIG: give it as --ubbconfig - (tuxlb %s --ubbconfig - ...)", err, cmd)
		}
	} else {
		sc, starterWarns, err = starter.WithFilesWarn(nil, files) // the starter reads the configuration, by its files' names
	}
	if err == nil && ff.adjust != nil {
		if err = ff.adjust(sc); err != nil {
			fmt.Fprintf(stderr, "tuxlb %s: %v\n", cmd, err)
			return nil, nil, 2
		}
	}
	var pr *core.Prepared
	if err == nil {
		ubbName, dmName := ff.configNames()
		pr, err = core.Prepare(sc, core.RunOptions{UBBName: ubbName, DMName: dmName})
	}
	if err == nil && ff.showsModel {
		starterWarns = slices.DeleteFunc(starterWarns, func(w string) bool { return modelWarning(pr.Model(), w) })
	}
	for _, w := range starterWarns { // before an error too: an ignored section can leave nothing to run
		fmt.Fprintf(stderr, "tuxlb %s: warning: %s\n", cmd, w)
	}
	if err != nil {
		if ff.ubbconfig+ff.dmconfig != "" && (fromSource(err, ubb.SourceUBBConfig) || fromSource(err, ubb.SourceDMConfig)) {
			printConfigErrors(stderr, cmd, err)
		} else {
			fmt.Fprintf(stderr, "tuxlb %s: %s\n", cmd, fileError(err, ff, file))
		}
		return nil, nil, 1
	}
	return sc, pr, 0
}

// modelWarning says whether w, a warning of the starter, is one of the
// warnings of reading m's configuration (FILE:LINE:COL: message), which the
// run's result lists too.
func modelWarning(m *core.Model, w string) bool {
	for _, d := range m.Warnings {
		d.Severity = ""
		if d.String() == w {
			return true
		}
	}
	return false
}

// baseName is a file's name without its directory; standard input is
// "stdin".
func baseName(path string) string {
	if path == "-" {
		return "stdin"
	}
	return filepath.Base(path)
}

// readText reads a text file of at most maxScenarioBytes; "" is not given,
// "-" is standard input.
func readText(path, flag string, stdin io.Reader) (*string, error) {
	return readTextLimit(path, flag, stdin, maxScenarioBytes)
}

// readTextLimit is readText of a file of at most limit bytes.
func readTextLimit(path, flag string, stdin io.Reader, limit int64) (*string, error) {
	if path == "" {
		return nil, nil
	}
	if path == "-" {
		s, err := readBounded(stdin, displayName(path), limit)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		return &s, nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	defer fh.Close()
	s, err := readBounded(fh, path, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return &s, nil
}

// fileError names the file a scenario error comes from: the trace file for
// trace rows and columns, the UBBCONFIG file for ubbconfig:LINE:COL
// diagnostics, else the scenario.
func fileError(err error, ff *fileFlags, scenario string) string {
	msg := err.Error()
	switch {
	case ff.trace != "" && fromTrace(err):
		if !ff.skipBad && rowProblem.MatchString(msg) {
			msg += " (--trace-skip-bad skips the rows that cannot be read, and counts them)"
		}
		return displayName(ff.trace) + ": " + msg
	case fromSource(err, diag.SourceULOG): // the message names the ULOG files
		return msg
	case scenario != "":
		return displayName(scenario) + ": " + msg
	case ff.ubbconfig != "":
		return displayName(ff.ubbconfig) + ": " + msg
	}
	return msg
}

// rowProblem finds a row's problem in a trace error ("trace row 17:
// timestamp: ...", "row 7000: ..."), which --trace-skip-bad can skip; not
// the log's as a whole ("no row has a day above 12 to decide").
var rowProblem = regexp.MustCompile(`\brow \d+:`)

// fromTrace says whether err is about the trace (its diagnostics' source).
func fromTrace(err error) bool { return fromSource(err, ubb.SourceTrace) }

// fromSource says whether err is about the input source (ubb.SourceTrace...).
func fromSource(err error, source string) bool {
	var ce *diag.Error
	if errors.As(err, &ce) {
		for _, d := range ce.Diagnostics {
			if d.Source == source {
				return true
			}
		}
	}
	return false
}

// configNames are the names the configuration's diagnostics give its
// files: as the flags gave them, else the scenario's fields, "ubbconfig"
// and "dmconfig".
func (f *fileFlags) configNames() (ubbName, dmName string) {
	ubbName, dmName = "ubbconfig", "dmconfig"
	if f.ubbconfig != "" {
		ubbName = displayName(f.ubbconfig)
	}
	if f.dmconfig != "" {
		dmName = displayName(f.dmconfig)
	}
	return ubbName, dmName
}

// checkModelFiles loads the model of the files alone, before init makes a
// scenario from them, so that a bad UBBCONFIG or DMCONFIG is reported by its
// file's name.
func checkModelFiles(sc *scenario.Scenario, ff *fileFlags, stderr io.Writer, cmd string) bool {
	ubbName, dmName := ff.configNames()
	if _, err := core.LoadModel(ubb.Input{UBBName: ubbName, UBBConfig: sc.UBBConfig, DMName: dmName, DMConfig: sc.DMConfig, Advertise: sc.Advertise}); err != nil {
		printConfigErrors(stderr, cmd, err)
		return false
	}
	return true
}

// printConfigErrors prints a configuration's diagnostics, one FILE:LINE:COL
// line each, as validate does.
func printConfigErrors(stderr io.Writer, cmd string, err error) {
	fmt.Fprintf(stderr, "tuxlb %s: the configuration has errors:\n", cmd)
	printDiagnostics(stderr, err)
}

// isUBBConfigFile says whether the file at path (not standard input) reads
// as a UBBCONFIG rather than a scenario's JSON: its first line that is not
// blank or a '#' comment starts a section, '*' (`*RESOURCES`). A file that
// cannot be read is not one: the reader of the scenario reports it.
func isUBBConfigFile(path string) bool {
	if path == "-" {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	return ubb.LooksLike(head[:n])
}
