package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/sweep"
)

// TestSweepSeveralObjectives: three --objective flags are all kept and
// held at once: each point has a verdict on each (yes when its 95% interval
// lies within the limit, no when beyond, unsure otherwise) and meets only
// when all three say yes; --figure is a column of the table too.
func TestSweepSeveralObjectives(t *testing.T) {
	objs := []string{"response_p99_ms<=100", "utilization_max<=0.6", "response_p99_ms[BALANCE]<=150"}
	args := []string{"sweep", "../../examples/mp-netload.json", "--vary", "rate_scale=0.5,1", "--replications", "3",
		"--objective", objs[0], "--objective", objs[1], "--objective", objs[2], "--figure", "wait_p95_ms[BALANCE]"}
	code, out, errb := cli(t, append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var res sweep.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Objectives) != 3 || res.Objective != "" || res.JudgedOn != "interval" {
		t.Fatalf("objectives %+v, objective %q, judged on %q: want the three", res.Objectives, res.Objective, res.JudgedOn)
	}
	limits := []float64{100, 0.6, 150}
	for _, p := range res.Points {
		all := true
		for i, o := range res.Objectives {
			if o.Text != objs[i] {
				t.Errorf("objective %d: %q, want %q", i, o.Text, objs[i])
			}
			f := p.Figures[o.Figure]
			want := "unsure"
			switch {
			case f.Mean+f.HalfWidth <= limits[i]:
				want = "yes"
			case f.Mean-f.HalfWidth > limits[i]:
				want = "no"
			}
			all = all && want == "yes"
			if p.Verdicts[i] != want {
				t.Errorf("point %d, %s: %v gives %s, the result says %s", p.Index, o.Text, f, want, p.Verdicts[i])
			}
		}
		if *p.Meets != all {
			t.Errorf("point %d: meets %v with verdicts %v", p.Index, *p.Meets, p.Verdicts)
		}
	}
	code, out, _ = cli(t, args...)
	head := strings.SplitN(out, "\n", 2)[0]
	for _, col := range append(objs, "wait_p95_ms[BALANCE]", "response_p99_ms[BALANCE]", "meets") {
		if code != 0 || !strings.Contains(head, col) {
			t.Errorf("table: exit %d, no column %q in %q", code, col, head)
		}
	}
	if !strings.Contains(out, "that meets all 3 objectives") && !strings.Contains(out, "no value of rate_scale meets all 3 objectives") {
		t.Errorf("table does not name the best along rate_scale:\n%s", out)
	}
	// An unknown service in any of them is a usage error naming it.
	code, _, errb = cli(t, "sweep", "../../examples/mp-netload.json", "--vary", "rate_scale=1", "--objective", objs[0],
		"--objective", "response_p99_ms[PAYMENT]<=80")
	if code != 2 || !strings.Contains(errb, `--objective: "response_p99_ms[PAYMENT]<=80"`) || !strings.Contains(errb, `no service "PAYMENT"`) {
		t.Errorf("exit %d, %s: want 2 naming the objective and PAYMENT", code, errb)
	}
}

// TestCompareObjectives: compare --objective (repeatable) gives each
// variant a verdict on each objective, in the table and the CSV.
func TestCompareObjectives(t *testing.T) {
	code, out, errb := cli(t, "compare", "../../examples/mp-netload.json", "--variant", "policy=jsq", "--replications", "3",
		"--objective", "response_p99_ms<=100", "--objective", "utilization_max<=0.9", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var c sweep.ReplicatedComparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Objectives) != 2 || len(c.Variants) != 2 || len(c.Variants[1].Verdicts) != 2 || c.Variants[1].Meets == nil {
		t.Fatalf("objectives %v, variants %+v", c.Objectives, c.Variants)
	}
	code, out, _ = cli(t, "compare", "../../examples/mp-netload.json", "--variant", "policy=jsq", "--replications", "3",
		"--objective", "response_p99_ms<=100", "--objective", "utilization_max<=0.9")
	// The baseline's p99 interval (about 1317 ± 133) is beyond 100, jsq's (about 62 ± 6) within it.
	rows := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 3 || len(f) == 4 && f[0] == "meets" {
			rows[strings.Join(f[:len(f)-2], " ")] = strings.Join(f[len(f)-2:], " ")
		}
	}
	if code != 0 || rows["response_p99_ms<=100"] != "no yes" || rows["utilization_max<=0.9"] != "yes yes" || rows["meets all"] != "no yes" {
		t.Errorf("table: exit %d, verdict rows %v\n%s", code, rows, out)
	}
}
