package sweep

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// erlangCWait is the mean queue wait (ms) of M/M/c with arrival rate lambda
// (/s) and service rate mu (/s), from the Erlang C formula:
// C(c, a) = [a^c/c! · c/(c−a)] / [Σ_{k<c} a^k/k! + a^c/c! · c/(c−a)],
// Wq = C(c, a) / (cμ − λ); infinite when the set cannot keep up.
func erlangCWait(c int, lambda, mu float64) float64 {
	a := lambda / mu
	if float64(c) <= a {
		return math.Inf(1)
	}
	var sum, term float64 = 0, 1
	for k := 0; k < c; k++ {
		sum += term
		term *= a / float64(k+1)
	}
	last := term * float64(c) / (float64(c) - a)
	return last / (sum + last) / (float64(c)*mu - lambda) * 1000
}

// mssqScenario is one MSSQ set per service (RQADDR shared by MIN
// instances), Poisson arrivals and exponential service times: M/M/c queues.
func mssqScenario(t *testing.T, durationMS int, services ...mssqService) *scenario.Scenario {
	t.Helper()
	var ubb, groups, svcs, streams strings.Builder
	ubb.WriteString("*RESOURCES\nIPCKEY 123457\nMASTER SITE1\nMODEL SHM\nLDBAL Y\n\n*MACHINES\n\"host\" LMID=SITE1 APPDIR=\"/app\" TUXCONFIG=\"/app/tuxconfig\" TUXDIR=\"/opt/tuxedo\"\n\n*GROUPS\n")
	for i, s := range services {
		fmt.Fprintf(&groups, "G%d LMID=SITE1 GRPNO=%d\n", i+1, i+1)
		fmt.Fprintf(&svcs, "%s SRVGRP=G%d SRVID=%d MIN=1 MAX=10 RQADDR=\"Q%d\" REPLYQ=Y CLOPT=\"-s %s --\"\n", s.server, i+1, 10*(i+1), i+1, s.name)
		if i > 0 {
			streams.WriteString(", ")
		}
		fmt.Fprintf(&streams, `{"service": %q, "arrivals": "poisson", "rate_per_s": %v}`, s.name, s.lambda)
	}
	ubb.WriteString(groups.String() + "\n*SERVERS\n" + svcs.String())
	var times []string
	for _, s := range services {
		times = append(times, fmt.Sprintf(`%q: {"service_time": {"dist": "exp", "mean_ms": %v}}`, s.name, 1000/s.mu))
	}
	text := fmt.Sprintf(`{"name": "M/M/c", "ubbconfig": %q, "services": {%s}, "seed": 11,
		"workload": {"generate": {"duration_ms": %d, "streams": [%s]}}}`, ubb.String(), strings.Join(times, ", "), durationMS, streams.String())
	sc, err := core.ParseScenario([]byte(text))
	if err != nil {
		t.Fatalf("fixture: %v\n%s", err, text)
	}
	return sc
}

type mssqService struct {
	name, server string
	lambda, mu   float64
}

func optimize(t *testing.T, sc *scenario.Scenario, spec OptimizeSpec) *Optimization {
	t.Helper()
	o, err := CompileOptimize(sc, spec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := o.Run(Sequential(func(p, r int) ([]float64, error) { return o.Evaluate(p, r, core.RunOptions{}) }))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestOptimizeMMcErlangC: one M/M/c set, λ = 170/s, μ = 50/s (a = 3.4
// erlangs); the cheapest c whose Erlang C mean wait is at most 10 ms is
// computed here from the formula (c = 4 waits 23 ms, c = 5 4.3 ms), and
// optimize, whose default cost is the instances booted (MIN), picks it,
// rejecting every smaller c by the wait objective.
func TestOptimizeMMcErlangC(t *testing.T) {
	const lambda, mu, limit = 170.0, 50.0, 10.0
	want := 0
	for c := 1; want == 0; c++ {
		if erlangCWait(c, lambda, mu) <= limit {
			want = c
		}
	}
	if w := erlangCWait(want, lambda, mu); w > limit/2 || erlangCWait(want-1, lambda, mu) < 2*limit {
		t.Fatalf("fixture: c=%d waits %v ms, c=%d %v ms: not clearly apart from %v", want, w, want-1, erlangCWait(want-1, lambda, mu), limit)
	}
	sc := mssqScenario(t, 30000, mssqService{"PAY", "paysrv", lambda, mu})
	res := optimize(t, sc, OptimizeSpec{Vary: []string{"SERVERS.paysrv.MIN=2..7/1"},
		Objectives: []string{fmt.Sprintf("wait_mean_ms<=%v", limit)}})
	if res.Chosen == nil {
		t.Fatalf("nothing chosen:\n%s", EncodeOptimizationText(res))
	}
	if got := res.Chosen.Values["SERVERS.paysrv.MIN"]; fmt.Sprint(got) != fmt.Sprint(want) || res.Chosen.Cost != float64(want) {
		t.Fatalf("chose MIN=%v at cost %v, want %d (Erlang C):\n%s", got, res.Chosen.Cost, want, EncodeOptimizationText(res))
	}
	if len(res.Rejected) != want-2 {
		t.Errorf("%d rejected, want every MIN from 2 to %d", len(res.Rejected), want-1)
	}
	for _, r := range res.Rejected {
		if r.Missed == nil || r.Missed.Mean <= limit {
			t.Errorf("rejected %v without a wait over the limit: %+v", r.Values, r.Missed)
		}
	}
	if e := res.Chosen.Objectives[0]; e.Mean+e.CI95 > limit || e.Decision != Feasible {
		t.Errorf("chosen estimate %+v: want feasible, its interval under %v", e, limit)
	}
	diff := strings.Join(res.Chosen.UBBConfigDiff, "\n")
	if !strings.Contains(diff, "-14: paysrv SRVGRP=G1 SRVID=10 MIN=1 ") || !strings.Contains(diff, fmt.Sprintf("+14: paysrv SRVGRP=G1 SRVID=10 MIN=%d ", want)) {
		t.Errorf("UBBCONFIG diff:\n%s", diff)
	}
	t.Logf("\n%s", EncodeOptimizationText(res))
	if res.Replications.Spent >= res.Replications.FullGrid {
		t.Errorf("spent %d, the full grid %d", res.Replications.Spent, res.Replications.FullGrid)
	}
}

// TestOptimizeCostWeights: two MSSQ sets A and B with one objective on the
// whole run's mean wait, λ-weighted over the two Erlang C waits (computed
// here). Which configuration is cheapest depends on the weights: with A's
// servers cheap (1 against 3) one more A server beats one more B server, and
// the other way round with the weights swapped; optimize follows each.
func TestOptimizeCostWeights(t *testing.T) {
	const la, lb, mu, limit = 170.0, 90.0, 50.0, 2.6
	as, bs := []int{5, 6, 7}, []int{3, 4}
	wait := func(a, b int) float64 {
		return (la*erlangCWait(a, la, mu) + lb*erlangCWait(b, lb, mu)) / (la + lb)
	}
	cheapest := func(wa, wb float64) (int, int) {
		best, ba, bb := math.Inf(1), 0, 0
		for _, b := range bs { // grid order: A fastest
			for _, a := range as {
				if w := wait(a, b); w <= limit && wa*float64(a)+wb*float64(b) < best {
					best, ba, bb = wa*float64(a)+wb*float64(b), a, b
				}
				if w := wait(a, b); math.Abs(w-limit) < 0.08*limit {
					t.Fatalf("fixture: A=%d B=%d waits %v ms, too near %v", a, b, w, limit)
				}
			}
		}
		return ba, bb
	}
	sc := mssqScenario(t, 30000, mssqService{"SA", "asrv", la, mu}, mssqService{"SB", "bsrv", lb, mu})
	var picks []string
	for _, w := range [][2]float64{{1, 3}, {3, 1}} {
		wa, wb := cheapest(w[0], w[1])
		res := optimize(t, sc, OptimizeSpec{Vary: []string{"SERVERS.asrv.MIN=5,6,7", "SERVERS.bsrv@G2.MIN=3,4"},
			Objectives: []string{fmt.Sprintf("wait_mean_ms<=%v", limit)},
			Costs:      []string{fmt.Sprintf("SERVERS.asrv.MIN=%v", w[0]), fmt.Sprintf("SERVERS.bsrv@G2.MIN=%v", w[1])}})
		if res.Chosen == nil {
			t.Fatalf("weights %v: nothing chosen:\n%s", w, EncodeOptimizationText(res))
		}
		got := fmt.Sprintf("A=%v B=%v", res.Chosen.Values["SERVERS.asrv.MIN"], res.Chosen.Values["SERVERS.bsrv@G2.MIN"])
		if want := fmt.Sprintf("A=%d B=%d", wa, wb); got != want {
			t.Errorf("weights %v: chose %s, want %s:\n%s", w, got, want, EncodeOptimizationText(res))
		}
		if c := w[0]*float64(wa) + w[1]*float64(wb); res.Chosen.Cost != c {
			t.Errorf("weights %v: cost %v, want %v", w, res.Chosen.Cost, c)
		}
		picks = append(picks, got)
	}
	if picks[0] == picks[1] {
		t.Errorf("both weightings chose %s: the fixture does not test the weights", picks[0])
	}
}

// TestOptimizeInfeasible: with at most 4 servers the set waits 23 ms
// (Erlang C) against an objective of 10: nothing meets, the report says so
// and names the closest, the largest set.
func TestOptimizeInfeasible(t *testing.T) {
	sc := mssqScenario(t, 20000, mssqService{"PAY", "paysrv", 170, 50})
	res := optimize(t, sc, OptimizeSpec{Vary: []string{"SERVERS.paysrv.MIN=2,3,4"}, Objectives: []string{"wait_mean_ms<=10"}})
	if res.Feasible || res.Chosen != nil {
		t.Fatalf("a choice in an infeasible problem:\n%s", EncodeOptimizationText(res))
	}
	if len(res.Rejected) != 3 || res.Closest == nil || fmt.Sprint(res.Closest.Values["SERVERS.paysrv.MIN"]) != "4" {
		t.Fatalf("want 3 rejected and MIN=4 closest:\n%s", EncodeOptimizationText(res))
	}
	text := string(EncodeOptimizationText(res))
	for _, want := range []string{"no configuration of the grid meets every objective", "closest (smallest worst relative violation",
		"no configuration of the grid meets every objective by more than ε"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// TestOptimizeBadInput names what is wrong.
func TestOptimizeBadInput(t *testing.T) {
	sc := mssqScenario(t, 1000, mssqService{"PAY", "paysrv", 170, 50})
	for _, c := range []struct {
		spec OptimizeSpec
		want string
	}{
		{OptimizeSpec{Vary: []string{"SERVERS.paysrv.MIN=2,3"}}, "at least one objective"},
		{OptimizeSpec{Vary: []string{"SERVERS.paysrv.MIN=2,3"}, Objectives: []string{"wait_mean_ms<=0"}}, "limit of 0"},
		{OptimizeSpec{Vary: []string{"SERVERS.paysrv.MIN=2,3"}, Objectives: []string{"wait_mean_ms[NOPE]<=3"}}, "NOPE"},
		{OptimizeSpec{Vary: []string{"SERVERS.paysrv.MIN=2,3"}, Objectives: []string{"wait_mean_ms<=3"}, Costs: []string{"rate_scale=2"}}, "rate_scale is not a varied key"},
		{OptimizeSpec{Vary: []string{"SERVERS.paysrv.MIN=2,3"}, Objectives: []string{"wait_mean_ms<=3"}, Costs: []string{"SERVERS.paysrv.MIN=x"}}, "want KEY=WEIGHT"},
		{OptimizeSpec{Vary: []string{"SERVERS.paysrv.MIN=2,3"}, Objectives: []string{"wait_mean_ms<=3"}, PCS: 1}, "pcs"},
		// 1e308 × 2 is past float64: no cost to compare
		{OptimizeSpec{Vary: []string{"SERVERS.paysrv.MIN=2,3"}, Objectives: []string{"wait_mean_ms<=3"}, Costs: []string{"SERVERS.paysrv.MIN=1e308"}},
			"costs: the cost of SERVERS.paysrv.MIN=2 is too large to compare (1e308 × SERVERS.paysrv.MIN)"},
	} {
		_, err := CompileOptimize(sc, c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one naming %q", c.spec, err, c.want)
		}
	}
}

func TestLineDiff(t *testing.T) {
	got := strings.Join(lineDiff("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n"), "|")
	if want := "-2: b|+2: B|+5: e"; got != want {
		t.Errorf("diff %q, want %q", got, want)
	}
}
