package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/sweep"
)

func sweepArgs(extra ...string) []string {
	return append([]string{"sweep", "../../examples/mp-netload.json", "--vary", "rate_scale=0.5..1/0.25",
		"--vary", "policy=tuxedo,jsq", "--replications", "3", "--objective", "response_p99_ms<=100"}, extra...)
}

// TestSweepJobsSameBytes: the output does not depend on the number of workers.
func TestSweepJobsSameBytes(t *testing.T) {
	for _, format := range []string{"json", "csv", "table"} {
		var outs [2]bytes.Buffer
		for i, jobs := range []string{"1", "4"} {
			var errb bytes.Buffer
			if code := Main(sweepArgs("--format", format, "--jobs", jobs), nil, &outs[i], &errb); code != 0 {
				t.Fatalf("%s --jobs %s: exit %d: %s", format, jobs, code, errb.String())
			}
		}
		if !bytes.Equal(outs[0].Bytes(), outs[1].Bytes()) {
			t.Errorf("%s: --jobs 1 and --jobs 4 differ:\n%s\n---\n%s", format, outs[0].String(), outs[1].String())
		}
		if outs[0].Len() == 0 {
			t.Errorf("%s: no output", format)
		}
	}
}

func TestSweepCommandJSON(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main(sweepArgs("--format", "json"), nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res sweep.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 6 || res.Total != 6 || res.Replications != 3 || len(res.Seeds) != 3 || len(res.Lines) != 2 {
		t.Fatalf("got %d of %d points, %d replications, %d seeds, %d lines; want 6, 6, 3, 3, 2",
			len(res.Points), res.Total, res.Replications, len(res.Seeds), len(res.Lines))
	}
	for _, p := range res.Points {
		for _, f := range []string{"response_mean_ms", "response_p99_ms", "wait_mean_ms", "utilization_max",
			"throughput_per_s", "failed", "network_sent", "utilization_mean[machine:SITE1]", "utilization_mean[machine:SITE2]"} {
			if _, ok := p.Figures[f]; !ok {
				t.Errorf("point %d: no figure %s", p.Index, f)
			}
		}
		if p.Meets == nil {
			t.Errorf("point %d: no meets", p.Index)
		}
	}
}

func TestSweepCommandErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sweep", "../../examples/mp-netload.json"}, 2, "want at least one --vary"},
		{[]string{"sweep", "--vary", "rate_scale=1"}, 2, "usage: tuxlb sweep"},
		{[]string{"sweep", "../../examples/mp-netload.json", "--vary", "rate_scale=1", "--format", "xml"}, 2, `--format: "xml"`},
		{[]string{"sweep", "../../examples/mp-netload.json", "--vary", "rate_scale=1", "--jobs", "-1"}, 2, "--jobs"},
		{[]string{"sweep", "../../examples/mp-netload.json", "--vary", "rate_sclae=1"}, 1, "vary rate_sclae: unknown key"},
		{[]string{"sweep", "../../examples/mp-netload.json", "--vary", "machines.SITE2.speed=0,1"}, 1, "vary machines.SITE2.speed: value 0 must be > 0"},
		{[]string{"sweep", "../../examples/mp-netload.json", "--vary", "rate_scale=1..2"}, 1, "vary rate_scale: range"},
		{[]string{"sweep", "../../examples/mp-netload.json", "--vary", "rate_scale=1", "--objective", "p99<1"}, 2, "--objective"},
	} {
		var out, errb bytes.Buffer
		code := Main(tt.args, nil, &out, &errb)
		if code != tt.code || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tt.args[1:], code, errb.String(), tt.code, tt.want)
		}
	}
}

// TestSweepInterrupted: a sweep stopped before it ends prints what is done
// and exits 130.
func TestSweepInterrupted(t *testing.T) {
	old := sweepSignals
	defer func() { sweepSignals = old }()
	sweepSignals = func(ctx context.Context) (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		return ctx, cancel
	}
	var out, errb bytes.Buffer
	code := Main(sweepArgs("--format", "json"), nil, &out, &errb)
	if code != 130 || !strings.Contains(errb.String(), "interrupted: 0 of 6 points done") {
		t.Fatalf("exit %d, stderr %q; want 130 and the points done", code, errb.String())
	}
	var res sweep.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Total != 6 || len(res.Points) != 0 {
		t.Errorf("partial result: %v, %+v", err, res)
	}
}

func TestCompareJobsSameBytes(t *testing.T) {
	var outs [2]bytes.Buffer
	for i, jobs := range []string{"1", "3"} {
		var errb bytes.Buffer
		args := []string{"compare", "../../examples/mp-netload.json", "--json", "--jobs", jobs,
			"--variant", "policy=jsq", "--variant", "rate_scale=0.5", "--variant", "network.latency_ms=3"}
		if code := Main(args, nil, &outs[i], &errb); code != 0 {
			t.Fatalf("--jobs %s: exit %d: %s", jobs, code, errb.String())
		}
	}
	if !bytes.Equal(outs[0].Bytes(), outs[1].Bytes()) {
		t.Errorf("compare --jobs 1 and --jobs 3 differ")
	}
}

// TestSweepShardFlags: bad --shard values and --format with --shard are
// refused with exit 2; merge refuses a file that is not a partial, naming it.
func TestSweepShardFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{sweepArgs("--shard", "4/3"), "--shard"},
		{sweepArgs("--shard", "1/3", "--format", "csv"), "give --format to 'tuxlb sweep merge'"},
		{sweepArgs("--shard", "1/3", "--precision", "0.05"), "a precision sweep decides each point's next batch from the batches done"},
		{[]string{"sweep", "merge"}, "usage: tuxlb sweep merge"},
		{[]string{"sweep", "merge", "--format", "xml", "a.json"}, `"xml" is not table, csv or json`},
	} {
		var out, errb bytes.Buffer
		if code := Main(tt.args, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, errb.String(), tt.want)
		}
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"sweep", "merge", "../../examples/mp-netload.json"}, nil, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "../../examples/mp-netload.json: not a sweep partial") {
		t.Errorf("merge of a scenario: exit %d, stderr %q", code, errb.String())
	}
}

// TestSweepMergeDashReadsStandardInput: `-` among the partials reads one
// of them from standard input, as `-` does for every other file; two `-`
// are a usage error.
func TestSweepMergeDashReadsStandardInput(t *testing.T) {
	var parts [2]string
	for i := range parts {
		var out, errb bytes.Buffer
		args := []string{"sweep", "../../examples/mp-netload.json", "--vary", "rate_scale=0.5,1", "--replications", "2", "--shard", []string{"1/2", "2/2"}[i]}
		if code := Main(args, nil, &out, &errb); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i+1, code, errb.String())
		}
		parts[i] = writeFile(t, []string{"p1.json", "p2.json"}[i], out.String())
	}
	merge := func(stdin string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(append([]string{"sweep", "merge"}, args...), strings.NewReader(stdin), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, want, errs := merge("", parts[0], parts[1])
	if code != 0 || want == "" {
		t.Fatalf("merge of the files: exit %d, %s", code, errs)
	}
	p2, _ := os.ReadFile(parts[1])
	if code, got, errs := merge(string(p2), parts[0], "-"); code != 0 || got != want {
		t.Errorf("merge FILE -: exit %d, stderr %q; stdout the same as the files': %v", code, errs, got == want)
	}
	if code, out, errs := merge(string(p2), "-", "-"); code != 2 || out != "" || !strings.Contains(errs, "partial 1 and partial 2 would each read standard input") {
		t.Errorf("merge - -: exit %d, stdout %.80q, stderr %q; want 2 saying standard input is read once", code, out, errs)
	}
	if code, _, errs := merge("nope", parts[0], "-"); code != 1 || !strings.Contains(errs, "tuxlb sweep merge: <stdin>: not a sweep partial") {
		t.Errorf("merge of a bad partial on standard input: exit %d, stderr %q; want 1 naming <stdin>", code, errs)
	}
}
