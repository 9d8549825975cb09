package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/admission"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/ubb"
)

func init() {
	commands["validate"] = command{
		summary: "parse a UBBCONFIG (and DMCONFIG) and print the model as JSON",
		run:     runValidate,
	}
}

// maxConfigBytes bounds a UBBCONFIG or DMCONFIG file read by the CLI (a
// variable, for tests): a real one is some kilobytes, and a text of this
// size already makes a model at the engine's limits.
var maxConfigBytes int64 = 16 << 20

// runValidate is `tuxlb validate [--ubbconfig] FILE [--dmconfig FILE]`: the
// model on stdout, warnings and errors on stderr as FILE:LINE:COL: message.
// Exit 1 for a bad or unreadable file, 2 for bad flags.
func runValidate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ubbPath := fs.String("ubbconfig", "", "UBBCONFIG `FILE` to read (required, or the one argument; - reads standard input)")
	dmPath := fs.String("dmconfig", "", "DMCONFIG `FILE` to read (optional; - reads standard input)")
	budget, budgetErr := budgetFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tuxlb validate [--ubbconfig] FILE [--dmconfig FILE]")
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *ubbPath == "" && len(pos) > 0 {
		*ubbPath, pos = pos[0], pos[1:] // tuxlb validate FILE
	}
	if budgetErr != nil {
		fmt.Fprintf(stderr, "tuxlb validate: %v\n", budgetErr)
		return 2
	}
	if *ubbPath == "" || len(pos) > 0 {
		if *ubbPath == "" {
			fmt.Fprintln(stderr, "tuxlb validate: want the UBBCONFIG (tuxlb validate FILE, or --ubbconfig FILE)")
		} else {
			fmt.Fprintf(stderr, "tuxlb validate: unexpected argument %q\n", pos[0])
		}
		fs.Usage()
		return 2
	}
	if err := stdinOnce([]string{*ubbPath, *dmPath}, []string{"--ubbconfig", "--dmconfig"}); err != nil {
		fmt.Fprintf(stderr, "tuxlb validate: %v\n", err)
		return 2
	}
	ubbText, err := readConfig(*ubbPath, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb validate: cannot read UBBCONFIG: %v\n", err)
		return 1
	}
	var dm string
	if *dmPath != "" {
		if dm, err = readConfig(*dmPath, stdin); err != nil {
			fmt.Fprintf(stderr, "tuxlb validate: cannot read DMCONFIG: %v\n", err)
			return 1
		}
	}
	m, err := core.LoadModel(ubb.Input{UBBConfig: ubbText, UBBName: displayName(*ubbPath),
		DMConfig: dm, DMName: displayName(*dmPath)})
	if err != nil {
		printDiagnostics(stderr, err)
		return 1
	}
	if d := admission.Decide(admission.ModelCost(m), *budget); !d.Fits {
		fmt.Fprintf(stderr, "tuxlb validate: %v\n", overBudget(d, "model as JSON"))
		return 1
	}
	for _, w := range m.Warnings {
		fmt.Fprintln(stderr, w.String())
	}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb validate: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", out)
	return 0
}

// readConfig reads a configuration file; "-" reads standard input.
func readConfig(path string, stdin io.Reader) (string, error) {
	if path == "-" {
		return readBounded(stdin, displayName(path), maxConfigBytes)
	}
	return readFileBounded(path, maxConfigBytes)
}

// printDiagnostics writes each diagnostic of err on its own line.
func printDiagnostics(w io.Writer, err error) {
	var e *diag.Error
	if errors.As(err, &e) && len(e.Diagnostics) > 0 {
		for _, d := range e.Diagnostics {
			fmt.Fprintln(w, d.String())
		}
		return
	}
	fmt.Fprintf(w, "tuxlb validate: %v\n", err)
}
