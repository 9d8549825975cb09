package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// `tuxlb help` lists every command with its summary, the summaries in one
// column whatever the longest name (completion is ten letters).
func TestUsageAligned(t *testing.T) {
	code, out, _ := cli(t, "help")
	if code != 0 {
		t.Fatalf("tuxlb help: exit %d", code)
	}
	col := -1
	for name, c := range commands {
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "  "+name+" ") {
				line = l
			}
		}
		at := strings.Index(line, c.summary)
		if at < 0 {
			t.Fatalf("no line for %s in\n%s", name, out)
		}
		if col >= 0 && at != col {
			t.Errorf("%s's summary starts at column %d, another's at %d:\n%s", name, at, col, out)
		}
		col = at
	}
}

// Every command's --help, -h and `tuxlb help CMD` print that command's
// usage and flags on standard output and exit 0.
func TestCommandHelp(t *testing.T) {
	if len(commands) < 7 {
		t.Fatalf("only %d commands registered", len(commands))
	}
	for name := range commands {
		var first string
		for _, args := range [][]string{{name, "--help"}, {name, "-h"}, {"help", name}, {name, "x.json", "--help"}} {
			code, out, errs := cli(t, args...)
			if code != 0 || errs != "" {
				t.Errorf("%v: exit %d, stderr %q; want 0 and nothing", args, code, errs)
			}
			noFlags := name == "version" || name == "completion"
			if name != "version" && !strings.Contains(out, "usage: tuxlb "+name) || !noFlags && !strings.Contains(out, "  -") {
				t.Errorf("%v: stdout %q, want the command's usage and flags", args, out)
			}
			if first == "" {
				first = out
			} else if out != first {
				t.Errorf("%v: printed\n%s\nwant the same as %s --help:\n%s", args, out, name, first)
			}
		}
	}
	if code, out, _ := cli(t, "help"); code != 0 || !strings.Contains(out, "commands:") {
		t.Errorf("help: exit %d stdout %q, want 0 and the command list", code, out)
	}
	if code, _, errs := cli(t, "help", "nope"); code != 2 || !strings.Contains(errs, `unknown command "nope"`) {
		t.Errorf("help nope: exit %d stderr %q, want 2 naming it", code, errs)
	}
	// A subcommand's help is its own: sweep merge's, not sweep's.
	for _, args := range [][]string{{"sweep", "merge", "--help"}, {"sweep", "merge", "a.json", "-h"}} {
		code, out, errs := cli(t, args...)
		if code != 0 || errs != "" || !strings.HasPrefix(out, "usage: tuxlb sweep merge") || strings.Contains(out, "-vary") {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want 0 and sweep merge's usage and flags alone", args, code, errs, out)
		}
	}
	// After "--" a -h is an argument, not a request for help.
	if code, _, _ := cli(t, "run", "--", "-h"); code == 0 {
		t.Errorf("run -- -h: exit 0, want the file -h to be missing")
	}
}

func TestVersionText(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/tuxlb/tuxlb", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-12-01T20:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	got := versionText(bi)
	for _, want := range []string{"module: github.com/tuxlb/tuxlb v1.2.3\n", "revision: 0123abcd (2026-12-01T20:00:00Z), modified\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("versionText: %q, want %q in it", got, want)
		}
	}
	bi.Settings[2].Value = "false"
	if got := versionText(bi); !strings.Contains(got, ", clean\n") {
		t.Errorf("versionText of a clean tree: %q", got)
	}
	bi.Settings = nil
	if got := versionText(bi); !strings.Contains(got, "revision: unknown") {
		t.Errorf("versionText without VCS: %q", got)
	}
	if got := versionText(nil); !strings.Contains(got, "module: unknown") {
		t.Errorf("versionText(nil): %q", got)
	}
	// The binary under test has build information: the module line.
	if code, out, _ := cli(t, "version"); code != 0 || !strings.Contains(out, "module: ") || !strings.Contains(out, "revision: ") {
		t.Errorf("version: exit %d, stdout %q", code, out)
	}
}

// /dev/null is a character device but not a terminal: no progress bar.
func TestDevNullIsNotATerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Errorf("isTerminal(%s) = true", os.DevNull)
	}
	if newProgressBar(f, true).on || newSweepBar(f).on {
		t.Errorf("a progress bar draws on %s", os.DevNull)
	}
}

// "-" reads one of --ubbconfig, --dmconfig, --trace from standard input;
// two "-" (or one and the scenario) are a usage error.
func TestDashReadsStandardInput(t *testing.T) {
	dir := writeFiles(t, map[string]string{"ubb.cfg": ownUBB, "trace.csv": ownTrace})
	ubbPath, tracePath := filepath.Join(dir, "ubb.cfg"), filepath.Join(dir, "trace.csv")
	run := func(stdin string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(args, strings.NewReader(stdin), &out, &errb)
		return code, out.String(), errb.String()
	}

	code, want, errs := run("", "validate", "--ubbconfig", ubbPath)
	if code != 0 {
		t.Fatalf("validate --ubbconfig FILE: exit %d, %s", code, errs)
	}
	// The model names its file: <stdin> here.
	if code, got, errs := run(ownUBB, "validate", "--ubbconfig", "-"); code != 0 || strings.ReplaceAll(got, `\u003cstdin\u003e`, ubbPath) != want {
		t.Errorf("validate --ubbconfig -: exit %d, stderr %q; stdout equal to the file's: %v", code, errs, got == want)
	}

	code, want, errs = run("", "run", "--ubbconfig", ubbPath, "--trace", tracePath)
	if code != 0 {
		t.Fatalf("run with files: exit %d, %s", code, errs)
	}
	// The scenario's name names the log: stdin here.
	if code, got, errs := run(ownTrace, "run", "--ubbconfig", ubbPath, "--trace", "-"); code != 0 || strings.Replace(got, "replaying stdin", "replaying trace.csv", 1) != want {
		t.Errorf("run --trace -: exit %d, stderr %q; stdout equal to the file's: %v", code, errs, got == want)
	}
	if code, _, errs := run(ownUBB, "init", "--ubbconfig", "-", "--trace", tracePath); code != 0 {
		t.Errorf("init --ubbconfig -: exit %d, stderr %q", code, errs)
	}

	for _, args := range [][]string{
		{"run", "--ubbconfig", "-", "--trace", "-"},
		{"run", "--ubbconfig", ubbPath, "--dmconfig", "-", "--trace", "-"},
		{"run", "--trace", "-", "-"},
		{"init", "--ubbconfig", "-", "--dmconfig", "-"},
		{"validate", "--ubbconfig", "-", "--dmconfig", "-"},
	} {
		code, out, errs := run(ownUBB, args...)
		if code != 2 || out != "" || !strings.Contains(errs, "standard input") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 saying standard input is read once", args, code, out, errs)
		}
	}
}

// The completion scripts parse, and list the commands and their flags.
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh"} {
		code, out, errs := cli(t, "completion", shell)
		if code != 0 || errs != "" {
			t.Fatalf("completion %s: exit %d, %s", shell, code, errs)
		}
		for _, want := range []string{"run", "serve", "--ubbconfig", "--max-run-time", "--sweep-lease", "--variant"} {
			if !strings.Contains(out, want) {
				t.Errorf("completion %s: no %s in\n%s", shell, want, out)
			}
		}
		if path, err := exec.LookPath(shell); err == nil {
			cmd := exec.Command(path, "-n")
			cmd.Stdin = strings.NewReader(out)
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v\n%s", shell, err, msg)
			}
		}
	}
	if code, _, _ := cli(t, "completion", "fish"); code != 2 {
		t.Errorf("completion fish: exit %d, want 2", code)
	}
}

// TestBashCompletesSubcommands: bash completes a subcommand after its
// command (sweep me → merge), and then the subcommand's own flags.
func TestBashCompletesSubcommands(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	_, script, _ := cli(t, "completion", "bash")
	for _, c := range []struct {
		words, want string
	}{
		{"tuxlb sweep me", "merge"},
		{"tuxlb sweep merge --f", "--format"},
		{"tuxlb sweep --va", "--vary"},
		{"tuxlb run --max-run", "--max-run-time"},
	} {
		words := strings.Fields(c.words)
		in := script + fmt.Sprintf("\nCOMP_WORDS=(%s); COMP_CWORD=%d; _tuxlb; echo \"${COMPREPLY[*]}\"\n", strings.Join(words, " "), len(words)-1)
		cmd := exec.Command(bash, "--norc", "--noprofile")
		cmd.Dir = t.TempDir() // no file there to complete
		cmd.Stdin = strings.NewReader(in)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", c.words, err, out)
		}
		if got := strings.TrimSpace(string(out)); got != c.want {
			t.Errorf("%q completes to %q, want %q", c.words, got, c.want)
		}
	}
}

// "-" for an output file is standard output where the command prints
// nothing else there (init --out -, calibrate --out - fitting without a
// --trace in a table); where it prints its result there already (run
// --dispatch -, fit --out -, calibrate with a --trace or --format json) it
// is a usage error saying so. No file named "-" is ever made.
func TestDashForOutputFiles(t *testing.T) {
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	bankUBB, node1 := abs(bankULOG+"ubbconfig"), abs(bankULOG+"node1/ULOG.120126")
	scenarioFile := abs("../../examples/mp-netload.json")
	dir := t.TempDir()
	t.Chdir(dir)

	code, want, errs := cli(t, "init", "--ubbconfig", bankUBB)
	if code != 0 {
		t.Fatalf("init: exit %d, %s", code, errs)
	}
	if code, got, errs := cli(t, "init", "--ubbconfig", bankUBB, "--out", "-"); code != 0 || got != want {
		t.Errorf("init --out -: exit %d, stderr %q; stdout the same as without --out: %v", code, errs, got == want)
	}

	calib := []string{"calibrate", "--ubbconfig", bankUBB, "--ulog", node1}
	if code, _, errs := cli(t, append(calib, "--out", "fitted.json")...); code != 0 {
		t.Fatalf("calibrate --out FILE: exit %d, %s", code, errs)
	}
	want2, _ := os.ReadFile("fitted.json")
	if code, got, errs := cli(t, append(calib, "--out", "-")...); code != 0 || got != string(want2) || !strings.Contains(errs, "wrote the scenario on standard output") {
		t.Errorf("calibrate --out -: exit %d, stderr %q; stdout the same as the file's: %v", code, errs, got == string(want2))
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--dispatch", "-", scenarioFile}, "tuxlb run: --dispatch: - would write the dispatch log to standard output, where run prints its result"},
		{[]string{"fit", "--ulog", node1, "--ubbconfig", bankUBB, "--out", "-"}, "tuxlb fit: --out: - would write the scenario to standard output, where fit prints its report"},
		{append(calib, "--out", "-", "--format", "json"), "tuxlb calibrate: --out: - would write the scenario to standard output, where --format json prints"},
		{append(calib, "--out", "-", "--trace", "export.csv"), "tuxlb calibrate: --out: - would write the scenario to standard output, where calibrate prints the replay's verdicts"},
	} {
		if code, out, errs := cli(t, tc.args...); code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stdout %.80q, stderr %q; want 2 and %q", tc.args, code, out, firstLine(errs), tc.want)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "-")); !os.IsNotExist(err) {
		t.Errorf("a file named - was made (stat: %v)", err)
	}
}

// An output file that is one of the command's inputs, by whatever path (a
// symbolic link too), is a usage error naming both: writing it would
// replace the production log or the configuration the command reads. The
// input is left as it was.
func TestOutputIsNotAnInput(t *testing.T) {
	dir := t.TempDir()
	copyIn := func(src, name string) string {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ubbFile := copyIn(bankULOG+"ubbconfig", "ubbconfig")
	ulogFile := copyIn(bankULOG+"node1/ULOG.120126", "ULOG.120126")
	scenarioFile := copyIn("../../examples/mp-netload.json", "sc.json")
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("ULOG.120126", link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"fit", "--ulog", ulogFile, "--ubbconfig", ubbFile, "--out", ulogFile}, "tuxlb fit: --out: " + ulogFile + " is the --ulog file: writing it would replace that file"},
		{[]string{"fit", "--ulog", ulogFile, "--ubbconfig", ubbFile, "--out", link}, "tuxlb fit: --out: " + link + " is the --ulog file " + ulogFile + ": writing it would replace that file"},
		{[]string{"init", "--ubbconfig", ubbFile, "--out", ubbFile}, "tuxlb init: --out: " + ubbFile + " is the --ubbconfig file"},
		{[]string{"init", "--ubbconfig", ubbFile, "--ulog", ulogFile, "--out", ulogFile}, "tuxlb init: --out: " + ulogFile + " is the --ulog file"},
		{[]string{"calibrate", "--ubbconfig", ubbFile, "--ulog", ulogFile, "--out", ubbFile}, "tuxlb calibrate: --out: " + ubbFile + " is the --ubbconfig file"},
		{[]string{"run", "--dispatch", scenarioFile, scenarioFile}, "tuxlb run: --dispatch: " + scenarioFile + " is the scenario file"},
		{[]string{"run", "--ubbconfig", ubbFile, "--dispatch", ubbFile}, "tuxlb run: --dispatch: " + ubbFile + " is the --ubbconfig file"},
	} {
		if code, out, errs := cli(t, tc.args...); code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stdout %.80q, stderr %q; want 2 and %q", tc.args, code, out, firstLine(errs), tc.want)
		}
	}
	for src, path := range map[string]string{bankULOG + "ubbconfig": ubbFile, bankULOG + "node1/ULOG.120126": ulogFile, "../../examples/mp-netload.json": scenarioFile} {
		want, _ := os.ReadFile(src)
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s was changed (%v)", path, err)
		}
	}
	// an output beside the inputs is written as before
	out := filepath.Join(dir, "fitted.json")
	if code, _, errs := cli(t, "fit", "--ulog", ulogFile, "--ubbconfig", ubbFile, "--out", out); code != 0 {
		t.Errorf("fit --out a new file: exit %d, %s", code, errs)
	}
}

// A flag that takes one value, given twice with different values, is a
// usage error naming it and both values, in every command (the flag
// package kept the last: --trace-map time=when --trace-map service=op
// read the log without its time mapping). Flags of lists repeat, and the
// same value twice contradicts nothing.
func TestFlagGivenTwice(t *testing.T) {
	dir := writeFiles(t, map[string]string{"ubb.cfg": ownUBB, "log.csv": "when;op\n2026-11-29 10:00:00;BALANCE\n"})
	ubbFile, logFile := filepath.Join(dir, "ubb.cfg"), filepath.Join(dir, "log.csv")
	scenarioFile := "../../examples/admin-guide.json"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--seed", "1", "--seed", "2", scenarioFile}, `tuxlb run: --seed given twice, as "1" and as "2": give it once`},
		{[]string{"run", scenarioFile, "--policy", "jsq", "--policy=p2c"}, `tuxlb run: --policy given twice, as "jsq" and as "p2c"`},
		{[]string{"run", "--ubbconfig", ubbFile, "--trace", logFile, "--trace-map", "time=when", "--trace-map", "service=op"}, `tuxlb run: --trace-map given twice, as "time=when" and as "service=op"`},
		{[]string{"run", "--trace-skip-bad=false", "--trace-skip-bad", scenarioFile}, `tuxlb run: --trace-skip-bad given twice, as "false" and as "true"`},
		{[]string{"validate", "--ubbconfig", ubbFile, "--ubbconfig", scenarioFile}, `tuxlb validate: --ubbconfig given twice`},
		{[]string{"init", "--ubbconfig", ubbFile, "--load", "0.5", "--load", "0.7"}, `tuxlb init: --load given twice, as "0.5" and as "0.7"`},
		{[]string{"fit", "--trace", logFile, "--trace", scenarioFile}, `tuxlb fit: --trace given twice`},
		{[]string{"sweep", scenarioFile, "--vary", "rate_scale=1", "--format", "csv", "--format", "json"}, `tuxlb sweep: --format given twice, as "csv" and as "json"`},
		{[]string{"sweep", "merge", "--format", "csv", "--format", "json", "a.json"}, `tuxlb sweep merge: --format given twice`},
		{[]string{"compare", scenarioFile, "--variant", "policy=jsq", "--jobs", "1", "--jobs", "2"}, `tuxlb compare: --jobs given twice`},
		{[]string{"optimize", scenarioFile, "--pcs", "0.9", "--pcs", "0.95"}, `tuxlb optimize: --pcs given twice`},
		{[]string{"calibrate", "--out", "a.json", "--out", "b.json"}, `tuxlb calibrate: --out given twice`},
		// --max-conns 0 ends serve at its check of the settings, should the flags pass
		{[]string{"serve", "--max-runs", "2", "--max-runs", "3", "--max-conns", "0"}, `tuxlb serve: --max-runs given twice, as "2" and as "3"`},
	} {
		if code, out, errs := cli(t, tc.args...); code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stdout %.80q, stderr %q; want 2 and %q", tc.args, code, out, firstLine(errs), tc.want)
		}
	}
	// list flags repeat; one value twice is taken
	if code, _, errs := cli(t, "compare", scenarioFile, "--variant", "policy=jsq", "--variant", "ldbal=N", "--seed", "3"); code != 2 || !strings.Contains(errs, "flag provided but not defined: -seed") {
		t.Errorf("compare with two --variant: exit %d, stderr %q; want only --seed refused, as unknown", code, firstLine(errs))
	}
	if code, _, errs := cli(t, "run", "--seed", "1", "--seed=1", "--format", "summary", scenarioFile); code != 0 {
		t.Errorf("--seed 1 --seed=1: exit %d, %s", code, errs)
	}
}

// TestUsageListsTheFlags: the usage lines of the commands that list their
// flags (what --help prints before them; run and serve say [flags]) name every flag of the command but
// the habits every command shares, as docs/sweeps.md's synopses do, so
// that they cannot fall behind the flags again.
func TestUsageListsTheFlags(t *testing.T) {
	shared := map[string]bool{"max-run-time": true, "memory-budget": true, "trace-skip-bad": true, "json": true} // json: compare's old spelling of --format json
	for _, cmd := range []string{"sweep", "compare", "optimize", "fit", "init", "calibrate", "validate"} {
		code, out, errs := runMain(cmd, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d", cmd, code)
		}
		help := out + errs
		usage, defaults, ok := strings.Cut(help, "\n  -")
		if !ok {
			t.Fatalf("%s --help: no flag listed:\n%s", cmd, help)
		}
		n := 0
		for _, line := range strings.Split("  -"+defaults, "\n") {
			if !strings.HasPrefix(line, "  -") {
				continue
			}
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "  -"), " ")
			n++
			if !shared[name] && !strings.Contains(usage, "--"+name+" ") && !strings.Contains(usage, "--"+name+"]") {
				t.Errorf("%s: the usage lines do not name --%s:\n%s", cmd, name, usage)
			}
		}
		if n < 3 {
			t.Errorf("%s: only %d flags read from --help", cmd, n)
		}
	}
}
