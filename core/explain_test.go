package core

import (
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/result"
)

func explainCase(t *testing.T, model string, tweak func(*plan.Setup), reqs string, first, count int64) []result.Explanation {
	t.Helper()
	m := engModel(t, model)
	setup := engSetup(m)
	if tweak != nil {
		tweak(setup)
	}
	out, err := explainRun(setup, engRequests(t, m, reqs), simOptions{}, first, count)
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	return out
}

// TestExplainMP: the third request of the MP counters case. site1's
// counters are G1/1 = 100 (after R1 idle, R2 least-load), G2/1 = 0.
// Costs: 100/1 + 50 + 0 = 150 and 0/1 + 50 + 100 = 150: a tie to G1/1,
// whose counter grows by L + N = 50 + 0 to 150.
func TestExplainMP(t *testing.T) {
	out := explainCase(t, twoMP, nil, "0 S site1 1000\n1 S site1 1000\n2 S site1 1000\n3 S site1 1000", 3, 1)
	if len(out) != 1 {
		t.Fatalf("got %d explanations, want 1", len(out))
	}
	ex := out[0]
	if ex.Seq != 3 || ex.Rule != "least-load" || ex.Winner != "G1/1" || ex.Algorithm != "MP round-robin" || ex.Server != "" {
		t.Errorf("got seq %d rule %q winner %q algorithm %q server %q", ex.Seq, ex.Rule, ex.Winner, ex.Algorithm, ex.Server)
	}
	want := []result.Candidate{
		{Server: "G1/1", Queue: "G1/1", LMID: "site1", Local: true, Servers: 1, Waiting: 1, Counter: 100, Load: 50,
			Cost: "100/1 + 50 + 0 = 150", Chosen: true, Note: "least cost"},
		{Server: "G2/1", Queue: "G2/1", LMID: "site2", Idle: true, Servers: 1, Load: 50, NetLoad: 100,
			Cost: "0/1 + 50 + 100 = 150", Note: "same cost, but ties go to the first"},
	}
	for i := range want {
		if ex.Candidates[i] != want[i] {
			t.Errorf("candidate %d:\n got %+v\nwant %+v", i, ex.Candidates[i], want[i])
		}
	}
	for _, s := range []string{"MP round-robin on site1", "G1/1 (local) costs 100/1 + 50 + 0 = 150",
		"G2/1 (site2) costs 0/1 + 50 + 100 = 150", "the tie goes to the first, G1/1", "Its counter becomes 150",
		"waits"} {
		if !strings.Contains(ex.Text, s) {
			t.Errorf("text %q: want it to contain %q", ex.Text, s)
		}
	}
}

func TestExplainSHMAndFirst(t *testing.T) {
	out := explainCase(t, twoSHM, nil, "0 S site1 10\n1 S site1 10\n2 S site1 10", 1, 3)
	if len(out) != 3 {
		t.Fatalf("got %d explanations, want 3", len(out))
	}
	if ex := out[1]; ex.Rule != "idle" || ex.Server != "G1/2" || ex.Candidates[0].Note != "busy" || !strings.Contains(ex.Text, "first idle") {
		t.Errorf("R2: got %+v", ex)
	}
	if ex := out[2]; ex.Rule != "least-load" || ex.Candidates[0].Cost != "0/1 + 50 = 50" || ex.Candidates[0].Work != 0 {
		t.Errorf("R3: got %+v", ex)
	}
	first := explainCase(t, strings.Replace(twoSHM, "ldbal Y", "ldbal N", 1), nil, "0 S site1 10\n1 S site1 10", 2, 1)
	if ex := first[0]; ex.Rule != "first" || ex.Algorithm != "LDBAL=N" || !strings.Contains(ex.Text, "LDBAL=N") || ex.Candidates[1].Note == "" {
		t.Errorf("LDBAL=N: got %+v", ex)
	}
}

func TestExplainErrors(t *testing.T) {
	m := engModel(t, twoSHM)
	if _, err := explainRun(engSetup(m), engRequests(t, m, "0 S site1 1"), simOptions{}, 5, 1); diag.ErrorCode(err) != diag.ENOTFOUND {
		t.Errorf("explain past the end: got %v, want a not_found error", err)
	}
}

func TestExplainOtherRules(t *testing.T) {
	cases := []struct {
		name, model string
		tweak       func(*plan.Setup)
		reqs        string
		seq         int64
		rule, text  string
	}{
		{"TPENOENT", queueCases[5].model, nil, "0 T site1 1", 1, "TPENOENT", "No server advertises T"},
		{"round_robin", twoSHM, func(s *plan.Setup) { s.Policy = plan.PolicyRoundRobin }, "0 S site1 1\n5 S site1 1", 2, "round_robin", "this turn falls to G1/2"},
		{"jsq", twoSHM, func(s *plan.Setup) { s.Policy = plan.PolicyJSQ }, "0 S site1 10\n1 S site1 10", 2, "jsq", "fewest requests waiting or in service"},
		{"latency", strings.Replace(twoMP, "ldbal Y", "ldbal N", 1) + "\n", func(s *plan.Setup) { s.LatencyUS = 1500 }, "0 S site2 1", 1, "first", "crosses the network to site1 and enters queue G1/1 at 1.5 ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ex := explainCase(t, c.model, c.tweak, c.reqs, c.seq, 1)[0]
			if ex.Rule != c.rule || !strings.Contains(ex.Text, c.text) {
				t.Errorf("got rule %q text %q, want rule %q and text containing %q", ex.Rule, ex.Text, c.rule, c.text)
			}
		})
	}
}

// TestExplainMSSQTaker: in an MSSQ set the idle rule picks the queue through
// its first idle server, and the server idle longest takes the request. R1
// (0-10 ms) starts on G1/1, R2 (1-2 ms) on G1/2; at 20 ms both are idle, G1/1
// first in scan order, G1/2 idle longer (since 2 ms), so G1/2 takes R3.
func TestExplainMSSQTaker(t *testing.T) {
	mssq := "model SHM ldbal Y\nmachine site1 netload 0\ngroup G1 site1\nserver G1 1 simpserv S rq=QA\nserver G1 2 simpserv S rq=QA"
	out := explainCase(t, mssq, nil, "0 S site1 10\n1 S site1 1\n20 S site1 1", 1, 3)
	if len(out) != 3 {
		t.Fatalf("got %d explanations, want 3", len(out))
	}
	ex := out[2]
	if ex.Winner != "QA" || ex.Server != "G1/2" || !ex.Candidates[0].Chosen {
		t.Fatalf("R3: got winner %q server %q, candidates %+v; want QA, G1/2, G1/1 picked", ex.Winner, ex.Server, ex.Candidates)
	}
	for _, s := range []string{
		"G1/1 is the first idle server advertising S, so its queue, QA (an MSSQ set of 2 servers), gets the request without any costing.",
		"Of the set's 2 idle servers, G1/2 has been idle longest (since 2 ms), so it takes it and starts at once.",
	} {
		if !strings.Contains(ex.Text, s) {
			t.Errorf("R3 text %q: want it to contain %q", ex.Text, s)
		}
	}
	if got, want := ex.Candidates[1].Note, "takes it: of the MSSQ set's idle servers, idle longest"; got != want {
		t.Errorf("G1/2's note: got %q, want %q", got, want)
	}
	if got, want := out[1].Text, "G1/2, the set's only idle server (idle since the run began), takes it and starts at once."; !strings.Contains(got, want) {
		t.Errorf("R2 text %q: want it to contain %q", got, want)
	}
	if got, want := out[0].Text, "(since the run began, first in scan order of those idle as long)"; !strings.Contains(got, want) {
		t.Errorf("R1 text %q: want it to contain %q", got, want)
	}
}
