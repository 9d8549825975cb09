package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/ubb"
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
		if out.Columns, err = core.ParseTraceMap(f.traceMap); err != nil {
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
	s, err := readBounded(fh, path, maxScenarioBytes)
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
	if _, err := core.LoadModel(ubb.Input{UBBName: ubbName, UBBConfig: sc.UBBConfig, DMName: dmName, DMConfig: sc.DMConfig, Advertise: sc.Advertise}); err != nil {
		fmt.Fprintf(stderr, "tuxlb %s: the configuration has errors:\n", cmd)
		printDiagnostics(stderr, err)
		return false
	}
	return true
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
