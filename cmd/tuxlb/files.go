package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tuxlb/tuxlb/core"
)

// fileFlags are an administrator's own files, given by flag to run and init.
type fileFlags struct {
	ubbconfig string
	dmconfig  string
	trace     string
	traceMap  string
}

// given says whether any file flag was given.
func (f *fileFlags) given() bool {
	return f.ubbconfig != "" || f.dmconfig != "" || f.trace != "" || f.traceMap != ""
}

// read reads the files the flags name into core.Files.
func (f *fileFlags) read() (core.Files, error) {
	var out core.Files
	var err error
	if out.UBBConfig, err = readText(f.ubbconfig, "--ubbconfig"); err != nil {
		return out, err
	}
	if out.DMConfig, err = readText(f.dmconfig, "--dmconfig"); err != nil {
		return out, err
	}
	if out.Trace, err = readText(f.trace, "--trace"); err != nil {
		return out, err
	}
	if f.traceMap != "" {
		if out.Columns, err = parseTraceMap(f.traceMap); err != nil {
			return out, fmt.Errorf("--trace-map: %w", err)
		}
	}
	out.UBBName, out.TraceName = filepath.Base(f.ubbconfig), filepath.Base(f.trace)
	return out, nil
}

// readText reads a text file of at most maxScenarioBytes; "" is not given.
func readText(path, flag string) (*string, error) {
	if path == "" {
		return nil, nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxScenarioBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", flag, path, err)
	}
	if len(data) > maxScenarioBytes {
		return nil, fmt.Errorf("%s: %s: larger than %d MiB", flag, path, maxScenarioBytes>>20)
	}
	s := string(data)
	return &s, nil
}

// parseTraceMap reads `key=value[,key=value...]` into a column mapping; the
// keys are the fields of the scenario's workload.columns.
func parseTraceMap(text string) (*core.TraceMap, error) {
	var m core.TraceMap
	fields := map[string]*string{
		"time": &m.Time, "time_unit": &m.TimeUnit, "service": &m.Service, "origin": &m.Origin,
		"service_ms": &m.ServiceMS, "service_unit": &m.ServiceUnit, "prio": &m.Prio, "id": &m.ID,
		"delimiter": &m.Delimiter,
	}
	for _, part := range strings.Split(text, ",") {
		key, val, ok := strings.Cut(part, "=")
		key = strings.TrimSpace(key)
		p, known := fields[key]
		switch {
		case !ok || key == "":
			return nil, fmt.Errorf("%q: want key=COLUMN, e.g. time=ts,service=svc", part)
		case !known:
			return nil, fmt.Errorf("%q: unknown key %q (want time, time_unit, service, origin, service_ms, service_unit, prio, id or delimiter)", part, key)
		}
		if key == "delimiter" && (val == "tab" || val == `\t`) {
			val = "\t"
		} else if key != "delimiter" {
			val = strings.TrimSpace(val)
		}
		*p = val
	}
	return &m, nil
}

// fileError names the file a scenario error comes from: the trace file for
// trace rows and columns, the UBBCONFIG file for ubbconfig:LINE:COL
// diagnostics, else the scenario.
func fileError(err error, ff *fileFlags, scenario string) string {
	msg := err.Error()
	switch {
	case ff.trace != "" && (strings.HasPrefix(msg, "trace row") || strings.HasPrefix(msg, "trace_csv") || strings.HasPrefix(msg, "trace:")):
		return ff.trace + ": " + msg
	case scenario != "":
		return scenario + ": " + msg
	case ff.ubbconfig != "":
		return ff.ubbconfig + ": " + msg
	}
	return msg
}

// checkModelFiles loads the model with the files' own names, so that a bad
// UBBCONFIG or DMCONFIG is reported as FILE:LINE:COL like validate does.
func checkModelFiles(sc *core.Scenario, ff *fileFlags, stderr io.Writer, cmd string) bool {
	if ff.ubbconfig == "" && ff.dmconfig == "" {
		return true
	}
	ubbName, dmName := "ubbconfig", "dmconfig"
	if ff.ubbconfig != "" {
		ubbName = ff.ubbconfig
	}
	if ff.dmconfig != "" {
		dmName = ff.dmconfig
	}
	if _, err := core.LoadModel(ubbName, sc.UBBConfig, dmName, sc.DMConfig, sc.Advertise); err != nil {
		fmt.Fprintf(stderr, "tuxlb %s: the configuration has errors:\n", cmd)
		printDiagnostics(stderr, err)
		return false
	}
	return true
}
