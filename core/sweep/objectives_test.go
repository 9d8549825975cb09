package sweep

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/result"
)

// TestVerdict: yes when the whole 95% interval meets the objective, no when
// none of it does, unsure when it holds the limit; one replication judges
// the value alone.
func TestVerdict(t *testing.T) {
	atMost, _ := ParseObjective("response_p99_ms[QUOTE]<=80")
	atLeast, _ := ParseObjective("throughput_per_s>=95")
	for _, c := range []struct {
		o          *Objective
		mean, half float64
		reps       int
		want       string
	}{
		{atMost, 78.9, 2.7, 5, Unsure}, // 76.2..81.6 holds 80: the mean alone said yes
		{atMost, 70, 5, 5, Yes},        // 65..75
		{atMost, 75, 5, 5, Yes},        // 70..80: 80 is within <= 80
		{atMost, 85, 5, 5, Unsure},     // 80..90: touches the limit
		{atMost, 90, 5, 5, No},         // 85..95
		{atMost, 78.9, 2.7, 1, Yes},    // one run: no interval, the value 78.9
		{atMost, 80.1, 0, 1, No},
		{atLeast, 100, 10, 3, Unsure}, // 90..110 holds 95
		{atLeast, 100, 4, 3, Yes},     // 96..104
		{atLeast, 80, 10, 3, No},      // 70..90
	} {
		if got := c.o.Verdict(result.MeanCI{Mean: c.mean, HalfWidth: c.half}, c.reps); got != c.want {
			t.Errorf("%s on %v ± %v over %d: %s, want %s", c.o.Text, c.mean, c.half, c.reps, got, c.want)
		}
	}
}

// feed runs a sweep's reducer on made-up samples: fig(point, rep) gives a
// sample's figures. It returns the result once the reducer asks for no more.
func feed(t *testing.T, sw *Sweep, fig func(p, rep int) map[string]float64) *Result {
	t.Helper()
	r := sw.NewReducer()
	for units := r.Pending(); len(units) > 0; units = r.Pending() {
		for _, u := range units {
			p, rep := sw.Unit(u)
			if _, err := r.Add(u, &Sample{Figures: fig(p, rep)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return r.Result()
}

// quoteSweep is SERVERS.quotesrv.MIN=1,2,3,4 on mssq-set with two
// objectives, two replications a point.
func quoteSweep(t *testing.T, spec Spec) *Sweep {
	t.Helper()
	sw, err := Compile(exampleScenario(t, "mssq-set"), spec)
	if err != nil {
		t.Fatal(err)
	}
	return sw
}

// TestSeveralObjectives: every objective is held at once; a point meets
// them when every verdict is yes; the line names the fewest MIN that meets
// (3, though 4 meets too and comes last in the order given) and why the
// next fewer misses. Two replications at m ± 0.1 give the 95% half-width
// t(1) × s/√2 = 12.706 × 0.1414.../1.414... = 1.2706.
func TestSeveralObjectives(t *testing.T) {
	sw := quoteSweep(t, Spec{Vary: []string{"SERVERS.quotesrv.MIN=1,2,3,4"}, Replications: 2,
		Objective: "response_p99_ms<=80", Objectives: []string{"throughput_per_s>=10"}})
	p99 := []float64{100, 79.9, 70, 60} // per MIN 1..4
	thr := []float64{50, 50, 50, 50}
	res := feed(t, sw, func(p, rep int) map[string]float64 {
		d := 0.1 * float64(2*rep-1)
		return map[string]float64{"response_p99_ms": p99[p] + d, "throughput_per_s": thr[p] + d}
	})
	want := [][]string{{No, Yes}, {Unsure, Yes}, {Yes, Yes}, {Yes, Yes}}
	for i, p := range res.Points {
		if !slices.Equal(p.Verdicts, want[i]) || *p.Meets != (i >= 2) {
			t.Errorf("MIN=%v: verdicts %v meets %v, want %v", p.Values["SERVERS.quotesrv.MIN"], p.Verdicts, *p.Meets, want[i])
		}
	}
	if res.Objective != "" || len(res.Objectives) != 2 || res.JudgedOn != JudgedOnInterval || res.Note != "" {
		t.Errorf("objective %q, objectives %v, judged on %q (%q)", res.Objective, res.Objectives, res.JudgedOn, res.Note)
	}
	l := res.Lines[0]
	if l.Best == nil || l.Best.Index != 2 || l.LastMeeting.Index != 3 || l.Rule != RuleSmallest {
		t.Fatalf("line %+v: want best MIN=3, last meeting in the order given MIN=4", l)
	}
	if m := l.Miss; m == nil || m.Index != 1 || m.Verdict != Unsure || m.Objective != "response_p99_ms<=80" ||
		m.Low != 78.6294 || m.High != 81.1706 {
		t.Errorf("miss %+v: want MIN=2, unsure on the p99, 79.9 ∓ 1.2706", l.Miss)
	}
	wantSummary := "fewest SERVERS.quotesrv.MIN that meets all 2 objectives: 3 (SERVERS.quotesrv.MIN=2 may miss response_p99_ms<=80: 95% interval 78.629–81.171)"
	if l.Summary != wantSummary {
		t.Errorf("summary\n%s\nwant\n%s", l.Summary, wantSummary)
	}
	table := string(EncodeTable(res))
	for _, s := range []string{"response_p99_ms<=80", "throughput_per_s>=10", "  " + wantSummary + "\n",
		"objectives, all held at once: response_p99_ms<=80, throughput_per_s>=10\nverdicts: yes when the 95% interval lies within the limit"} {
		if !strings.Contains(table, s) {
			t.Errorf("table lacks %q:\n%s", s, table)
		}
	}
	csv := strings.Split(string(EncodeCSV(res)), "\n")
	if !strings.HasSuffix(csv[0], ",meets,response_p99_ms<=80,throughput_per_s>=10") || !strings.HasSuffix(csv[2], ",false,unsure,yes") {
		t.Errorf("csv head %q, MIN=2 row %q", csv[0], csv[2])
	}
}

// TestBestByKeyRule: along a load the best is the largest value that meets
// (given in any order), and with the smallest value tried meeting, it says so.
func TestBestByKeyRule(t *testing.T) {
	sw := quoteSweep(t, Spec{Vary: []string{"rate_scale=1.5,0.5,1"}, Replications: 2, Objective: "response_p99_ms<=80"})
	p99 := map[string]float64{"0.5": 40, "1": 60, "1.5": 120}
	res := feed(t, sw, func(p, rep int) map[string]float64 {
		return map[string]float64{"response_p99_ms": p99[sw.Values[0][p]] + 0.1*float64(2*rep-1)}
	})
	l := res.Lines[0]
	if l.Rule != RuleLargest || l.Best == nil || fmt.Sprint(l.Best.Values["rate_scale"]) != "1" ||
		l.Miss == nil || fmt.Sprint(l.Miss.Values["rate_scale"]) != "1.5" || l.Miss.Verdict != No {
		t.Fatalf("line %+v: want the largest rate_scale meeting, 1, and 1.5 missing", l)
	}
	want := "largest rate_scale that meets the objective: 1 (rate_scale=1.5 misses response_p99_ms<=80: 95% interval 118.729–121.271)"
	if l.Summary != want {
		t.Errorf("summary %q, want %q", l.Summary, want)
	}
	if res.Objective != "response_p99_ms<=80" || res.ObjectiveFigure != "response_p99_ms" {
		t.Errorf("a single objective keeps objective and objective_figure: %q %q", res.Objective, res.ObjectiveFigure)
	}
	// Every MIN meets: the fewest tried.
	sw = quoteSweep(t, Spec{Vary: []string{"SERVERS.quotesrv.MIN=3,2"}, Replications: 2, Objective: "response_p99_ms<=80"})
	res = feed(t, sw, func(p, rep int) map[string]float64 { return map[string]float64{"response_p99_ms": 10} })
	if got := res.Lines[0].Summary; got != "fewest SERVERS.quotesrv.MIN that meets the objective: 2 (the smallest value tried)" {
		t.Errorf("summary %q", got)
	}
}

// TestOneReplicationJudgesTheValue: with one replication there is no
// interval: the result says it judged the value, and 79.9 meets <= 80.
func TestOneReplicationJudgesTheValue(t *testing.T) {
	sw := quoteSweep(t, Spec{Vary: []string{"SERVERS.quotesrv.MIN=2,3"}, Replications: 1, Objective: "response_p99_ms<=80"})
	res := feed(t, sw, func(p, rep int) map[string]float64 {
		return map[string]float64{"response_p99_ms": []float64{80.5, 79.9}[p]}
	})
	if res.JudgedOn != JudgedOnValue || !strings.Contains(res.Note, "no confidence interval") {
		t.Errorf("judged on %q, note %q", res.JudgedOn, res.Note)
	}
	if !slices.Equal(res.Points[0].Verdicts, []string{No}) || !slices.Equal(res.Points[1].Verdicts, []string{Yes}) {
		t.Errorf("verdicts %v %v, want no (80.5) and yes (79.9)", res.Points[0].Verdicts, res.Points[1].Verdicts)
	}
	want := "fewest SERVERS.quotesrv.MIN that meets the objective: 3 (SERVERS.quotesrv.MIN=2 misses response_p99_ms<=80: value 80.5)"
	if got := res.Lines[0].Summary; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if table := string(EncodeTable(res)); !strings.Contains(table, "verdicts judged on the value: one replication per point") {
		t.Errorf("table does not say it judged the value:\n%s", table)
	}
}

// TestPrecisionOnEveryTarget: the precision is asked of every objective's
// figure and every --figure: a batch whose objective figure is exact but
// whose --figure is spread opens the next batch.
func TestPrecisionOnEveryTarget(t *testing.T) {
	sw := quoteSweep(t, Spec{Vary: []string{"SERVERS.quotesrv.MIN=4"}, Replications: 2, Precision: 0.05,
		MaxReplications: 4, Objective: "response_p99_ms<=80", Figures: []string{"wait_p99_ms"}})
	if !slices.Equal(sw.Targets, []string{"response_p99_ms", "wait_p99_ms"}) {
		t.Fatalf("targets %v", sw.Targets)
	}
	r := sw.NewReducer()
	units := r.Pending()
	for _, u := range units { // p99 50, 50: precise; wait 10, 30: ± 127 of 20, not
		_, rep := sw.Unit(u)
		pt, err := r.Add(u, &Sample{Figures: map[string]float64{"response_p99_ms": 50, "wait_p99_ms": float64(10 + 20*rep)}})
		if err != nil || pt != nil {
			t.Fatalf("unit %d: point %v, %v: want the next batch", u, pt, err)
		}
	}
	if next := r.Pending(); !slices.Equal(next, []int{2, 3}) {
		t.Fatalf("pending %v, want replications 2 and 3", next)
	}
	for _, u := range []int{2, 3} {
		if _, err := r.Add(u, &Sample{Figures: map[string]float64{"response_p99_ms": 50, "wait_p99_ms": 20}}); err != nil {
			t.Fatal(err)
		}
	}
	res := r.Result()
	if res.Points[0].Replications != 4 || res.Target != "response_p99_ms" || !slices.Equal(res.Targets, sw.Targets) {
		t.Errorf("replications %d, target %q, targets %v", res.Points[0].Replications, res.Target, res.Targets)
	}
	if !strings.Contains(string(EncodeTable(res)), "half-width of each of response_p99_ms, wait_p99_ms is at most 0.05") {
		t.Errorf("table:\n%s", EncodeTable(res))
	}
}

// TestObjectiveErrors: an objective naming an unknown figure or service is
// refused naming the objective's field and what is unknown.
func TestObjectiveErrors(t *testing.T) {
	sc := exampleScenario(t, "mssq-set")
	for _, c := range []struct {
		spec         Spec
		field, where string
	}{
		{Spec{Vary: []string{"rate_scale=1"}, Objectives: []string{"response_p99_ms<=80", "response_p99_ms[NOSUCH]<=30"}}, "objectives[1]", `"NOSUCH"`},
		{Spec{Vary: []string{"rate_scale=1"}, Objective: "resp_p99<=80"}, "objective", "resp_p99"},
		{Spec{Vary: []string{"rate_scale=1"}, Objective: "response_p99_ms<=80", Objectives: []string{"nosuch_ms>=1"}}, "objectives[0]", "nosuch_ms"},
	} {
		_, err := Compile(sc, c.spec)
		var de *diag.Error
		b, _ := json.Marshal(err)
		if err == nil || !strings.HasPrefix(err.Error(), c.field+": ") || !strings.Contains(err.Error(), c.where) ||
			!asDiag(err, &de) || de.Code != diag.EINVALID || !strings.Contains(string(b), `"field":"`+c.field+`"`) {
			t.Errorf("%+v: %v (%s), want field %s naming %s", c.spec, err, b, c.field, c.where)
		}
	}
}

func asDiag(err error, out **diag.Error) bool {
	de, ok := err.(*diag.Error)
	*out = de
	return ok
}
