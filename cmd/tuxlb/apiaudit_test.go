package main

import (
	"bytes"
	"strings"
	"testing"
)

// A UBBCONFIG on standard input is read as a scenario (only a file
// argument is sniffed); its JSON error then says how to give it. Hand-worked:
// the first byte, '*', is no JSON value, so the reader stops at line 1 col 1,
// and the text's first line that is not blank or a comment starts with '*':
// it reads as a UBBCONFIG, so the message adds "--ubbconfig -". Exit 1, the
// input's error, as for a bad scenario file.
func TestStdinUBBConfigSaysHowToGiveIt(t *testing.T) {
	for _, cmd := range []string{"run", "sweep"} {
		args := []string{cmd, "-"}
		if cmd == "sweep" {
			args = append(args, "--vary", "rate_scale=1,2")
		}
		var out, errb bytes.Buffer
		code := Main(args, strings.NewReader(goodUBB), &out, &errb)
		want := "tuxlb " + cmd + ": <stdin>: scenario: line 1 col 1: invalid character '*' looking for beginning of value; " +
			"it reads as a UBBCONFIG: give it as --ubbconfig - (tuxlb " + cmd + " --ubbconfig - ...)\n"
		if code != 1 || errb.String() != want {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", cmd, code, errb.String(), want)
		}
		// given that way, it runs
		var out2, errb2 bytes.Buffer
		args[1] = "--ubbconfig"
		args = append(args[:2], append([]string{"-"}, args[2:]...)...)
		if code := Main(args, strings.NewReader(goodUBB), &out2, &errb2); code != 0 {
			t.Errorf("%s: exit %d (%s), want 0", strings.Join(args, " "), code, errb2.String())
		}
	}
	// a JSON error of a document that is no UBBCONFIG has no such hint
	var out, errb bytes.Buffer
	if code := Main([]string{"run", "-"}, strings.NewReader(`{"a":`), &out, &errb); code != 1 || strings.Contains(errb.String(), "UBBCONFIG") {
		t.Errorf("truncated JSON: exit %d, stderr %q; want 1 and no UBBCONFIG hint", code, errb.String())
	}
}

// A command whose arguments are wrong says what is wrong before its usage,
// never the usage alone.
func TestUsageErrorsSayWhy(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "a.json", "b.json", "--variant", "policy=jsq"}, "tuxlb compare: want one scenario file (or -), or --ubbconfig FILE\n"},
		{[]string{"compare", "--variant", "policy=jsq"}, "tuxlb compare: want one scenario file (or -), or --ubbconfig FILE\n"},
		{[]string{"compare", "a.json", "--no-baseline"}, "tuxlb compare: --no-baseline leaves nothing to run without a --variant K=V\n"},
		{[]string{"sweep", "merge"}, "tuxlb sweep merge: want the partials to merge: PARTIAL.json... (- reads one from standard input)\n"},
	} {
		code, _, stderr := runMain(tc.args...)
		if code != 2 || !strings.HasPrefix(stderr, tc.want+"usage: ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q then the usage", tc.args, code, stderr, tc.want)
		}
	}
}
