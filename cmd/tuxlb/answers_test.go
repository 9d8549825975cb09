package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/sweep"
)

// TestSweepOwnFiles: sweep takes --ubbconfig and --trace like run, and its
// per-service objective's figure is a column of the result.
func TestSweepOwnFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{"U.ubb": ownUBB, "log.csv": ownTrace})
	code, out, errb := cli(t, "sweep", "--ubbconfig", filepath.Join(dir, "U.ubb"), "--trace", filepath.Join(dir, "log.csv"),
		"--trace-map", "time=timestamp,service=svc,service_ms=exec_time_ms",
		"--vary", "SERVERS.bankserv@G1.MIN=1,2", "--objective", "response_p99_ms[BALANCE]<=100", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var res sweep.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.ObjectiveFigure != "response_p99_ms[BALANCE]" || len(res.Points) != 2 {
		t.Fatalf("objective figure %q, %d points", res.ObjectiveFigure, len(res.Points))
	}
	for _, p := range res.Points {
		if _, ok := p.Figures["response_p99_ms[BALANCE]"]; !ok {
			t.Errorf("point %d lacks the objective's figure: %v", p.Index, p.Figures)
		}
		if p.Figures["issued"].Mean != 4 {
			t.Errorf("point %d: issued %v, want the trace's 4 requests", p.Index, p.Figures["issued"].Mean)
		}
	}
	code, out, _ = cli(t, "sweep", "--ubbconfig", filepath.Join(dir, "U.ubb"), "--trace", filepath.Join(dir, "log.csv"),
		"--trace-map", "time=timestamp,service=svc,service_ms=exec_time_ms",
		"--vary", "SERVERS.bankserv@G1.MIN=1,2", "--objective", "response_p99_ms[BALANCE]<=100")
	if code != 0 || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "response_p99_ms[BALANCE]") {
		t.Errorf("table: exit %d, the objective's figure is not a column:\n%s", code, out)
	}
	for _, c := range []struct{ objective, msg string }{
		{"response_p99_ms[NOSUCH]<=100", `no service "NOSUCH" in the UBBCONFIG`},
		{"utilization_max[machine:SITE9]<=0.7", `no machine "SITE9"`},
		{"response_p100_ms<=100", `unknown figure "response_p100_ms"`},
	} {
		code, _, errb := cli(t, "sweep", "--ubbconfig", filepath.Join(dir, "U.ubb"), "--vary", "rate_scale=1,2", "--objective", c.objective)
		if code == 0 || !strings.Contains(errb, c.msg) {
			t.Errorf("%s: exit %d, %s (want %q)", c.objective, code, errb, c.msg)
		}
	}
}

// TestCompareOwnFiles: compare takes --ubbconfig like run.
func TestCompareOwnFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{"U.ubb": ownUBB})
	code, out, errb := cli(t, "compare", "--ubbconfig", filepath.Join(dir, "U.ubb"), "--variant", "ldbal=N")
	if code != 0 || !strings.Contains(out, "ldbal=N") {
		t.Fatalf("exit %d: %s\n%s", code, errb, out)
	}
	code, _, errb = cli(t, "compare", "--ubbconfig", "-", "--trace", "-", "--variant", "ldbal=N")
	if code != 2 || !strings.Contains(errb, "standard input") {
		t.Errorf("two stdins: exit %d, %s", code, errb)
	}
}

// TestSweepPrecisionJobs: a sweep to a precision gives the same bytes for
// --jobs 1 and 4, and reports each point's replications.
func TestSweepPrecisionJobs(t *testing.T) {
	var outs [2]string
	for i, jobs := range []string{"1", "4"} {
		code, out, errb := cli(t, "sweep", "../../examples/mp-netload.json", "--vary", "rate_scale=0.5,1.4",
			"--replications", "2", "--precision", "0.05", "--max-replications", "8", "--format", "json", "--jobs", jobs)
		if code != 0 {
			t.Fatalf("--jobs %s: exit %d: %s", jobs, code, errb)
		}
		outs[i] = out
	}
	if outs[0] != outs[1] {
		t.Errorf("--jobs 1 and 4 differ:\n%s\n---\n%s", outs[0], outs[1])
	}
	var res sweep.Result
	if err := json.Unmarshal([]byte(outs[0]), &res); err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Points {
		if p.Replications < 2 || p.Replications > 8 || p.Replications%2 != 0 {
			t.Errorf("point %d: %d replications", p.Index, p.Replications)
		}
	}
	code, _, errb := cli(t, "sweep", "../../examples/mp-netload.json", "--vary", "rate_scale=1", "--precision", "-0.1")
	if code != 1 || !strings.Contains(errb, "precision: want a number > 0") {
		t.Errorf("bad precision: exit %d, %s", code, errb)
	}
	// 0 written is no precision at all: refused, not taken as absent
	for _, cmd := range [][]string{{"sweep", "../../examples/mp-netload.json", "--vary", "rate_scale=1", "--precision", "0"},
		{"compare", "../../examples/mp-netload.json", "--variant", "policy=jsq", "--precision", "0"}} {
		code, _, errb = cli(t, cmd...)
		if code != 2 || !strings.Contains(errb, "--precision: want a number > 0") || !strings.Contains(errb, "got 0") {
			t.Errorf("%s --precision 0: exit %d, %s", cmd[0], code, errb)
		}
	}
}

// TestCompareReplications: compare --replications gives the same bytes for
// --jobs 1 and 4 in every format, marks the test it uses, and --json is
// --format json.
func TestCompareReplications(t *testing.T) {
	for _, format := range []string{"table", "csv", "json"} {
		var outs [2]string
		for i, jobs := range []string{"1", "4"} {
			code, out, errb := cli(t, "compare", "../../examples/mp-netload.json", "--variant", "policy=jsq",
				"--replications", "3", "--format", format, "--jobs", jobs)
			if code != 0 {
				t.Fatalf("%s --jobs %s: exit %d: %s", format, jobs, code, errb)
			}
			outs[i] = out
		}
		if outs[0] != outs[1] {
			t.Errorf("%s: --jobs 1 and 4 differ", format)
		}
		if format == "json" {
			var c sweep.ReplicatedComparison
			if err := json.Unmarshal([]byte(outs[0]), &c); err != nil {
				t.Fatal(err)
			}
			if len(c.Variants) != 2 || c.Variants[1].Replications != 3 || c.Variants[1].Diff["response_mean_ms"].Significant == nil {
				t.Errorf("json: %+v", c)
			}
		}
	}
	_, a, _ := cli(t, "compare", "../../examples/mp-netload.json", "--variant", "policy=jsq", "--json")
	_, b, _ := cli(t, "compare", "../../examples/mp-netload.json", "--variant", "policy=jsq", "--format", "json")
	if a != b || !strings.Contains(a, `"headline"`) {
		t.Errorf("--json and --format json differ")
	}
	code, _, errb := cli(t, "compare", "../../examples/mp-netload.json", "--variant", "policy=jsq", "--format", "xml")
	if code != 2 || !strings.Contains(errb, `--format: "xml"`) {
		t.Errorf("bad format: exit %d, %s", code, errb)
	}
	code, out, errb := cli(t, "compare", "../../examples/mp-netload.json", "--variant", "policy=jsq", "--precision", "0.2",
		"--replications", "2", "--max-replications", "6")
	if code != 0 || !strings.Contains(out, "Welch") {
		t.Errorf("precision: exit %d, %s\n%s", code, errb, out)
	}
}
