package core_test

import (
	"testing"

	"github.com/tuxlb/tuxlb/core"
)

// TestExplainTransactions: explaining a run with transactions names the
// TPETRAN child's rule and winner-less failure, and passes over the TMS
// requests (which no rule chose) without failing.
func TestExplainTransactions(t *testing.T) {
	sc := readScenario(t, "../testdata/spec/193-tpetran-group-without-tmsname")
	ex, err := core.Explain(sc, core.RunOptions{}, 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]string{}
	for _, x := range ex {
		rules[x.ID] = x.Rule + " " + x.Winner
	}
	if rules["1"] != "idle G1/1" || rules["1.1"] != "TPETRAN " || rules["4"] != "least-load G2/2" {
		t.Errorf("explanations: %v, want 1 idle on G1/1, 1.1 TPETRAN without a winner, 4 least-load on G2/2", rules)
	}
	if _, ok := rules["1!abort@G1"]; ok {
		t.Errorf("the TMS request was explained as a choice: %v", rules)
	}
}

// TestExplainEveryTransactionCase: every hand-worked transaction case can
// be explained whole (TMS requests, TPETIME owners, aborts, hand-overs).
func TestExplainEveryTransactionCase(t *testing.T) {
	for _, dir := range []string{"189-one-phase-commit", "190-two-phase-two-machines", "191-trantime-timeout-while-waiting",
		"192-tpforward-hands-over-commit", "194-noreply-child-not-in-transaction", "195-client-tpetime-row-retries",
		"196-forward-tpetran-client-retries", "197-failed-abort-later-step"} {
		sc := readScenario(t, "../testdata/spec/"+dir)
		ex, err := core.Explain(sc, core.RunOptions{}, 1, 20)
		if err != nil || len(ex) == 0 {
			t.Errorf("%s: %d explanations, %v", dir, len(ex), err)
		}
		for _, x := range ex {
			if x.Text == "" {
				t.Errorf("%s: request %s explained without a text", dir, x.ID)
			}
		}
	}
}
