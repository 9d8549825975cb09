package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core/sweep"
	"github.com/tuxlb/tuxlb/server"
	"github.com/tuxlb/tuxlb/storage"
)

func optimizeArgs(extra ...string) []string {
	return append([]string{"optimize", "../../examples/mssq-set.json", "--vary", "SERVERS.quotesrv.MIN=1..4/1",
		"--objective", "wait_mean_ms<=50", "--objective", "response_p99_ms[QUOTE]<=400"}, extra...)
}

// TestOptimizeJobsSameBytes: the report does not depend on the number of
// workers, in either format.
func TestOptimizeJobsSameBytes(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		var outs [2]bytes.Buffer
		for i, jobs := range []string{"1", "3"} {
			var errb bytes.Buffer
			if code := Main(optimizeArgs("--format", format, "--jobs", jobs), nil, &outs[i], &errb); code != 0 {
				t.Fatalf("%s --jobs %s: exit %d: %s", format, jobs, code, errb.String())
			}
		}
		if !bytes.Equal(outs[0].Bytes(), outs[1].Bytes()) {
			t.Errorf("%s: --jobs 1 and --jobs 3 differ:\n%s\n---\n%s", format, outs[0].String(), outs[1].String())
		}
	}
}

// TestOptimizeCommand: the JSON names the choice (the four-server set: one
// to three servers cannot keep up with 170 requests/s of 20 ms each), the
// cheaper ones rejected with their interval, and the guarantee.
func TestOptimizeCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main(optimizeArgs("--format", "json", "--epsilon", "10%"), nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res sweep.Optimization
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.Chosen == nil || res.Chosen.Values["SERVERS.quotesrv.MIN"] != json.Number("4") && res.Chosen.Values["SERVERS.quotesrv.MIN"] != 4.0 {
		t.Fatalf("chosen %+v, want MIN=4", res.Chosen)
	}
	if len(res.Rejected) != 3 || res.Rejected[0].Missed == nil || res.Rejected[0].Missed.CI95 <= 0 {
		t.Errorf("rejected %+v: want MIN=1..3 each with its missed objective's interval", res.Rejected)
	}
	if res.Objectives[1].Epsilon != 40 || res.Method.EpsilonRel != 0.1 {
		t.Errorf("ε %v (rel %v), want 40 (10%% of 400)", res.Objectives[1].Epsilon, res.Method.EpsilonRel)
	}
	if !strings.Contains(res.Guarantee, "no configuration cheaper than SERVERS.quotesrv.MIN=4 meets every objective by more than ε") {
		t.Errorf("guarantee %q", res.Guarantee)
	}
	if !strings.Contains(out.String(), `"objective": "wait_mean_ms<=50"`) {
		t.Errorf("the objective is not written as given:\n%s", out.String())
	}
}

func TestOptimizeFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"optimize", "../../examples/mssq-set.json", "--vary", "SERVERS.quotesrv.MIN=1,2"}, "want at least one --objective"},
		{optimizeArgs("--epsilon", "150%"), "--epsilon"},
		{optimizeArgs("--format", "csv"), "--format"},
		{optimizeArgs("--cost", "SERVERS.nosuch.MIN=2"), "not a varied key"},
		{optimizeArgs("--objective", "wait_mean_ms[NOSUCH]<=3"), "NOSUCH"},
	} {
		var out, errb bytes.Buffer
		if code := Main(c.args, nil, &out, &errb); code == 0 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error naming %q", c.args, code, errb.String(), c.want)
		}
	}
	// out of the documented ranges: a usage error naming the flag, before
	// anything is read (0 is not the default when it is written)
	for _, c := range []struct {
		args []string
		want string
	}{
		{optimizeArgs("--pcs", "0"), "--pcs: want a probability between 0.5 and 1, both excluded (e.g. 0.95), got 0"},
		{optimizeArgs("--pcs", "0.5"), "--pcs: want a probability between 0.5 and 1, both excluded (e.g. 0.95), got 0.5"},
		{optimizeArgs("--pcs", "1"), "--pcs: want a probability between 0.5 and 1, both excluded (e.g. 0.95), got 1"},
		{optimizeArgs("--pcs", "NaN"), "--pcs: want a probability between 0.5 and 1, both excluded (e.g. 0.95), got NaN"},
		{optimizeArgs("--first-stage", "0"), "--first-stage: want 2..100 replications, got 0"},
		{optimizeArgs("--first-stage", "1"), "--first-stage: want 2..100 replications, got 1"},
		{optimizeArgs("--max-replications", "0"), "--max-replications: want --first-stage (10)..100 replications, got 0"},
		{optimizeArgs("--max-replications", "101"), "--max-replications: want --first-stage (10)..100 replications, got 101"},
	} {
		c.args[1] = "/nonexistent/scenario.json"
		var out, errb bytes.Buffer
		if code := Main(c.args, nil, &out, &errb); code != 2 || out.Len() != 0 || errb.String() != "tuxlb optimize: "+c.want+"\n" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args[2:], code, errb.String(), c.want)
		}
	}
	// a --cost the optimizer cannot weigh: a usage error naming the flag
	for _, cost := range []string{"SERVERS.quotesrv.MIN=1e308", "SERVERS.quotesrv.MIN=-1", "rate_scale=2"} {
		var out, errb bytes.Buffer
		if code := Main(optimizeArgs("--cost", cost), nil, &out, &errb); code != 2 || !strings.HasPrefix(errb.String(), "tuxlb optimize: --cost: ") {
			t.Errorf("--cost %s: exit %d, stderr %q; want 2 naming --cost", cost, code, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"help", "optimize"}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "--objective") {
		t.Errorf("help optimize: exit %d:\n%s", code, out.String())
	}
	out.Reset()
	Main([]string{"completion", "bash"}, nil, &out, &errb)
	if !strings.Contains(out.String(), "optimize") || !strings.Contains(out.String(), "--pcs") {
		t.Errorf("the bash completion lacks optimize or its --pcs")
	}
}

// TestOptimizeAPIMatchesTheCLI: POST /api/v1/optimize with what the
// command line gives ends, once the server's workers have run it, with the
// bytes `tuxlb optimize --format json` prints as its result.
func TestOptimizeAPIMatchesTheCLI(t *testing.T) {
	var cli, errb bytes.Buffer
	if code := Main(optimizeArgs("--format", "json", "--epsilon", "10%", "--cost", "SERVERS.quotesrv.MIN=2.5", "--pcs", "0.9"), nil, &cli, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	sc, err := os.ReadFile("../../examples/mssq-set.json")
	if err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(filepath.Join(t.TempDir(), "tuxlb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv := server.New(server.Config{Store: db, SweepWorkers: 2, AllowedHosts: []string{"example.com"}})
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { srv.RunSweeps(ctx); close(stopped) }()
	defer func() { cancel(); <-stopped }()
	body, _ := json.Marshal(map[string]any{"scenario": json.RawMessage(sc), "vary": []string{"SERVERS.quotesrv.MIN=1..4/1"},
		"objectives": []string{"wait_mean_ms<=50", "response_p99_ms[QUOTE]<=400"}, "epsilon": "10%",
		"costs": []string{"SERVERS.quotesrv.MIN=2.5"}, "pcs": 0.9})
	do := func(method, target string, body []byte) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, target, bytes.NewReader(body))
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec
	}
	rec := do(http.MethodPost, "/api/v1/optimize", body)
	var created struct{ URL string }
	if rec.Code != http.StatusAccepted || json.Unmarshal(rec.Body.Bytes(), &created) != nil {
		t.Fatalf("POST: %d %s", rec.Code, rec.Body.String())
	}
	var job struct {
		Status string
		Result json.RawMessage
	}
	for deadline := time.Now().Add(2 * time.Minute); job.Status != sweep.Done && job.Status != sweep.Failed; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the optimization did not end: %+v", job)
		}
		if err := json.Unmarshal(do(http.MethodGet, created.URL, nil).Body.Bytes(), &job); err != nil {
			t.Fatal(err)
		}
	}
	if got := string(job.Result) + "\n"; got != cli.String() {
		t.Errorf("the API's result:\n%s\nthe CLI's:\n%s", got, cli.String())
	}
}

// No configuration meets the objectives (a mean wait of at most 0.001 ms
// with one to two servers, far past ε): the report is printed, and the exit
// status is 3, as a calibration that fails.
func TestOptimizeNoneFeasibleExits3(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"optimize", "../../examples/mssq-set.json", "--vary", "SERVERS.quotesrv.MIN=1..2/1", "--objective", "wait_mean_ms<=0.001", "--format", "json"}
	code := Main(args, nil, &out, &errb)
	var res struct {
		Chosen *json.RawMessage `json:"chosen"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || code != 3 || res.Chosen != nil {
		t.Errorf("exit %d, chosen %v (%v), stderr %q; want exit 3 and no configuration chosen", code, res.Chosen, err, errb.String())
	}
}
