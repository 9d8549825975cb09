package main

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestRunScalesTheScenario(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-n", "2000", "-runs", "1", "../scenarios/mp-standard.json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	m := regexp.MustCompile(`wasmbench: mp-standard.json requests=(\d+) requests/s=\d+\n`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("got output %q, want a mp-standard.json line", out.String())
	}
	// Poisson arrivals: 2000 expected, sd about 45.
	if n, _ := strconv.Atoi(m[1]); n < 1800 || n > 2200 {
		t.Errorf("got %d requests, want about 2000", n)
	}
}

func TestRunBare(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-n", "2000", "-runs", "2", "-bare", "../scenarios/mp-standard.json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if !regexp.MustCompile(`^wasmbench: bare-loop requests=2000 requests/s=\d+\nwasmbench: mp-standard.json `).MatchString(out.String()) {
		t.Errorf("got output %q, want the bare loop's line first, then the scenario's", out.String())
	}
}

func TestRunRejects(t *testing.T) {
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{nil, 2, "usage"},
		{[]string{"-n", "0", "x.json"}, 2, "usage"},
		{[]string{"missing.json"}, 1, "missing.json"},
		{[]string{"../../examples"}, 1, "examples"},
	} {
		var out, errb bytes.Buffer
		if got := run(c.args, &out, &errb); got != c.code || !strings.Contains(errb.String(), c.stderr) {
			t.Errorf("run(%q) = %d, stderr %q; want %d and %q", c.args, got, errb.String(), c.code, c.stderr)
		}
	}
}
