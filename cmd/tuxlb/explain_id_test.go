package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/result"
)

// TestRunExplainID: --explain takes request ids as the dispatch log shows
// them (a client's tellers:62:0, its nested call tellers:62:0.1) beside
// issue numbers; each explanation is the request of the log's row (its
// service, issue time and queue).
func TestRunExplainID(t *testing.T) {
	log := filepath.Join(t.TempDir(), "d.csv")
	if code, _, errb := cli(t, "run", "--dispatch", log, "../../examples/bankapp-transfer.json"); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, r := range all[1:] {
		rows[r[0]] = r
	}
	code, out, errb := cli(t, "run", "--explain", "tellers:62:0.1,3,tellers:62:0", "--explain-json", "../../examples/bankapp-transfer.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var exs []result.Explanation
	if err := json.Unmarshal([]byte(out), &exs); err != nil {
		t.Fatal(err)
	}
	if len(exs) != 3 || exs[0].Seq != 3 || exs[1].ID != "tellers:62:0.1" || exs[2].ID != "tellers:62:0" {
		t.Fatalf("explained %+v: want request 3, then the ids in the order given", exs)
	}
	for _, ex := range exs[1:] {
		row := rows[ex.ID]
		if row == nil || ex.Service != row[1] || ex.Winner != row[5] || jsonInt(ex.IssueUS) != row[3] {
			t.Errorf("%s: %s at %d to %s; the log's row %v", ex.ID, ex.Service, ex.IssueUS, ex.Winner, row)
		}
	}
	code, _, errb = cli(t, "run", "--explain", "tellers:999:9", "../../examples/bankapp-transfer.json")
	if code != 1 || !strings.Contains(errb, `no request has the id "tellers:999:9"`) {
		t.Errorf("an unknown id: exit %d, %s", code, errb)
	}
}

func jsonInt(x int64) string { b, _ := json.Marshal(x); return string(b) }
