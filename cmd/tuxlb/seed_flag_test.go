package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepOptimizeSeedFlag: --seed N on sweep and optimize gives the bytes
// of the scenario whose seed is N (so a study over many seeds needs no
// edited copies), a seed other than the scenario's gives other runs, and a
// seed that is not a whole number is a usage error naming the flag.
func TestSweepOptimizeSeedFlag(t *testing.T) {
	base, err := os.ReadFile("../../examples/mssq-set.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(base, []byte(`"seed": 7,`)) {
		t.Fatal(`fixture: examples/mssq-set.json no longer has "seed": 7`)
	}
	edited := filepath.Join(t.TempDir(), "seed-9.json")
	if err := os.WriteFile(edited, bytes.Replace(base, []byte(`"seed": 7,`), []byte(`"seed": 9,`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := Main(args, nil, &out, &errb); code != 0 && code != 3 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"sweep", []string{"--vary", "SERVERS.quotesrv.MIN=3,4", "--replications", "3", "--objective", "wait_mean_ms<=50", "--format", "json", "--jobs", "1"}},
		{"optimize", []string{"--vary", "SERVERS.quotesrv.MIN=3,4", "--objective", "wait_mean_ms<=50", "--first-stage", "3", "--format", "json", "--jobs", "1"}},
	} {
		flagged := run(append([]string{c.name, "../../examples/mssq-set.json", "--seed", "9"}, c.args...)...)
		want := run(append([]string{c.name, edited}, c.args...)...)
		if flagged != want {
			t.Errorf("%s --seed 9 differs from the scenario with seed 9:\n%s\n---\n%s", c.name, flagged, want)
		}
		if own := run(append([]string{c.name, "../../examples/mssq-set.json"}, c.args...)...); own == flagged {
			t.Errorf("%s: --seed 9 gives the bytes of the scenario's seed 7", c.name)
		}
		var out, errb bytes.Buffer
		code := Main(append([]string{c.name, "../../examples/mssq-set.json", "--seed", "-1"}, c.args...), nil, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), `--seed: want a whole number`) || !strings.Contains(errb.String(), `"-1"`) {
			t.Errorf("%s --seed -1: exit %d, %q; want 2 naming --seed and the value", c.name, code, errb.String())
		}
	}
}
