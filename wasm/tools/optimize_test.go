package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/sweep"
	"github.com/tuxlb/tuxlb/pool"
)

// example is the text of examples/name.
func example(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// decodeError reads the {"error": {...}} answer the module gives JavaScript.
func decodeError(t *testing.T, answer string) diag.Error {
	t.Helper()
	var v struct {
		Error *diag.Error `json:"error"`
	}
	if err := json.Unmarshal([]byte(answer), &v); err != nil {
		t.Fatalf("answer %q is not JSON: %v", answer, err)
	}
	if v.Error == nil {
		t.Fatalf("answer %q has no error", answer)
	}
	return *v.Error
}

// TestOptimizeBridge: the bridge's optimize gives the bytes core's
// optimizer gives run on the pool (what `tuxlb optimize --format json`
// prints), reports its progress run by run up to the runs it spent, and
// names a bad objective's field.
func TestOptimizeBridge(t *testing.T) {
	data := example(t, "mssq-set.json")
	spec := sweep.OptimizeSpec{Vary: []string{"SERVERS.quotesrv.MIN=1..4/1"}, Objectives: []string{"wait_mean_ms<=50", "response_p99_ms[QUOTE]<=400"},
		Costs: []string{"SERVERS.quotesrv.MIN=2"}, Epsilon: 0.1, PCS: 0.9}
	specJSON, _ := json.Marshal(spec)
	calls, last := 0, int64(0)
	ans := optimize(data, string(specJSON), func(done, total int64) {
		calls++
		if done != last+1 || total != 4*100 {
			t.Errorf("progress %d of %d after %d", done, total, last)
		}
		last = done
	})
	var a optimizeAnswer
	if err := json.Unmarshal([]byte(ans), &a); err != nil || a.Result == "" {
		t.Fatalf("answer %.300s: %v", ans, err)
	}
	sc, _ := core.ParseScenario([]byte(data))
	opt, err := sweep.CompileOptimize(sc, spec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pool.Optimize(context.Background(), opt, pool.SweepOptions{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := string(sweep.EncodeOptimization(res)); a.Result != want {
		t.Errorf("bridge report differs from the pool's:\n%s\nwant\n%s", a.Result, want)
	}
	if calls != res.Replications.Spent || last != int64(res.Replications.Spent) {
		t.Errorf("progress called %d times up to %d, want once per run of the %d spent", calls, last, res.Replications.Spent)
	}
	bad := optimize(data, `{"vary":["SERVERS.quotesrv.MIN=1,2"],"objectives":["wait_mean_ms<=5","wait_mean_ms[NOSUCH]<=3"]}`, nil)
	if e := decodeError(t, bad); len(e.Diagnostics) != 1 || e.Diagnostics[0].Field != "objectives[1]" || !strings.Contains(e.Message, "NOSUCH") {
		t.Errorf("bad objective: %+v", e)
	}
	if e := decodeError(t, optimize(data, `{"vary":["SERVERS.quotesrv.MIN=1,2"],"objectives":["wait_mean_ms<=5"],"jobs":2}`, nil)); !strings.Contains(e.Message, `unknown field "jobs"`) {
		t.Errorf("unknown field: %+v", e)
	}
}
