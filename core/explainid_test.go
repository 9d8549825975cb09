package core

import (
	"bytes"
	"encoding/csv"
	"os"
	"strconv"
	"testing"

	"github.com/tuxlb/tuxlb/core/scenario"
)

// dispatchRows runs sc with a dispatch log and returns its rows by id.
func dispatchRows(t *testing.T, sc *scenario.Scenario) map[string][]string {
	t.Helper()
	var b bytes.Buffer
	if _, err := Run(sc, RunOptions{Dispatch: &b}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, r := range rows[1:] { // id,service,origin,issue_us,server,queue,...
		out[r[0]] = r
	}
	return out
}

// TestExplainID: a request is explained by its id as the dispatch log shows
// it: a client's (tellers:62:0), a nested call's (tellers:62:0.1), and a
// nested call of a generated request, whose id is its caller's issue number and the call's (7.1);
// each explanation is of the request the log's row describes (its service,
// issue time and server). An id no request has is ENOTFOUND naming it.
func TestExplainID(t *testing.T) {
	read := func(name string) *scenario.Scenario {
		data, err := os.ReadFile("../examples/" + name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		sc, err := ParseScenario(data)
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	sc := read("bankapp-transfer")
	gen := read("self-call-deadlock") // ORDER calls PRICE: generated, without clients
	g := *gen.Workload.Generate
	g.Clients = nil
	g.Streams = []scenario.Stream{{Service: "ORDER", Arrivals: "poisson", RatePerS: 5}}
	gen.Workload.Generate = &g
	for _, c := range []struct {
		sc  *scenario.Scenario
		ids []string
	}{{sc, []string{"tellers:62:0", "tellers:62:0.1", "tellers:62:0.2"}}, {gen, []string{"7", "7.1"}}} {
		rows := dispatchRows(t, c.sc)
		for _, id := range c.ids {
			row, ok := rows[id]
			if !ok {
				t.Fatalf("the dispatch log has no id %s", id)
			}
			exs, err := ExplainID(c.sc, RunOptions{}, id)
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			ex := exs[0]
			got := ex.ID
			if got == "" {
				got = strconv.FormatInt(ex.Seq, 10)
			}
			if len(exs) != 1 || got != id || ex.Service != row[1] || strconv.FormatInt(ex.IssueUS, 10) != row[3] || ex.Winner != row[5] {
				t.Errorf("%s: explained %s %s at %d to %s; the log's row is %v", id, got, ex.Service, ex.IssueUS, ex.Winner, row)
			}
		}
	}
	if _, err := ExplainID(gen, RunOptions{}, "7.9"); err == nil || !bytes.Contains([]byte(err.Error()), []byte(`no request has the id "7.9"`)) {
		t.Errorf("an unknown id: %v", err)
	}
}
