package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/sweep"
	"github.com/tuxlb/tuxlb/pool"
)

// sweepBody is a POST /sweeps body over the test scenario.
func sweepBody(t *testing.T, vary []string, reps int, objective string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"scenario": json.RawMessage(scenarioJSON(t)), "vary": vary,
		"replications": reps, "objective": objective})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sweepJob is the body of GET /sweeps/{id}.
type sweepJob struct {
	ID        string           `json:"id"`
	Status    string           `json:"status"`
	Done      int              `json:"done"`
	Total     int              `json:"total"`
	RunsDone  int              `json:"runs_done"`
	RunsTotal int              `json:"runs_total"`
	Error     string           `json:"error"`
	Workers   map[string]int   `json:"workers"`
	Result    *json.RawMessage `json:"result"`
}

func (h *harness) postSweep(body string) string {
	h.t.Helper()
	rec := h.do(http.MethodPost, "/api/v1/sweeps", "application/json", body)
	if rec.Code != http.StatusAccepted {
		h.t.Fatalf("POST /api/v1/sweeps: status %d, want 202; body %s", rec.Code, rec.Body.String())
	}
	var out struct{ ID, URL string }
	decode(h.t, rec, &out)
	if !validID().MatchString(out.ID) || out.URL != "/api/v1/sweeps/"+out.ID || rec.Header().Get("Location") != out.URL {
		h.t.Fatalf("got id %q url %q Location %q", out.ID, out.URL, rec.Header().Get("Location"))
	}
	return out.ID
}

func (h *harness) getSweep(id string) sweepJob {
	h.t.Helper()
	rec := h.do(http.MethodGet, "/api/v1/sweeps/"+id, "", "")
	if rec.Code != http.StatusOK {
		h.t.Fatalf("GET sweep: status %d; body %s", rec.Code, rec.Body.String())
	}
	var j sweepJob
	decode(h.t, rec, &j)
	return j
}

// waitSweep polls until the job's status is one of want.
func (h *harness) waitSweep(id string, want ...string) sweepJob {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		j := h.getSweep(id)
		for _, w := range want {
			if j.Status == w {
				return j
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.t.Fatalf("sweep %s never reached %v", id, want)
	return sweepJob{}
}

// expectedSweep is what `tuxlb sweep --format json` prints for the test
// scenario and this spec.
func expectedSweep(t *testing.T, spec sweep.Spec) []byte {
	t.Helper()
	sc, err := core.ParseScenario([]byte(scenarioJSON(t)))
	if err != nil {
		t.Fatal(err)
	}
	sw, err := sweep.Compile(sc, spec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pool.Sweep(context.Background(), sw, pool.SweepOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return sweep.Encode(res)
}

// startSweeps runs the harness's sweep worker until the test ends.
func (h *harness) startSweeps() context.CancelFunc {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.srv.RunSweeps(ctx); close(done) }()
	h.t.Cleanup(func() { cancel(); <-done })
	return func() { cancel(); <-done }
}

func TestSweepJobLifeCycle(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.SweepWorkers = 2 })
	vary := []string{"rate_scale=0.5,1", "policy=tuxedo,jsq"}
	id := h.postSweep(sweepBody(t, vary, 2, "response_p99_ms<=40"))
	j := h.getSweep(id)
	if j.Status != sweep.Queued || j.Done != 0 || j.Total != 4 || j.RunsTotal != 8 || j.Result == nil {
		t.Fatalf("new job: %+v, want queued 0 of 4 points, 8 runs, an empty result", j)
	}
	h.startSweeps()
	j = h.waitSweep(id, sweep.Done, sweep.Failed)
	if j.Status != sweep.Done || j.Done != 4 || j.RunsDone != 8 {
		t.Fatalf("finished job: %+v", j)
	}
	want := expectedSweep(t, sweep.Spec{Vary: vary, Replications: 2, Objective: "response_p99_ms<=40"})
	got, _ := json.Marshal(j.Result)
	var a, b bytes.Buffer
	json.Compact(&a, got)
	json.Compact(&b, want)
	if a.String() != b.String() {
		t.Errorf("result:\n%s\nwant (tuxlb sweep --format json):\n%s", got, want)
	}
	// A finished job cannot be canceled.
	rec := h.do(http.MethodDelete, "/api/v1/sweeps/"+id, "", "")
	wantProblem(t, rec, "/api/v1/sweeps/"+id, http.StatusConflict, "conflict")
}

// waitWorking polls until this server's sweep worker is working job id (or,
// with want false, is not).
func (h *harness) waitWorking(id string, want bool) {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		h.srv.mu.Lock()
		_, working := h.srv.active[id]
		h.srv.mu.Unlock()
		if working == want {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("sweep %s: working %v, want %v after 60 s", id, working, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSweepJobCancel(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.SweepWorkers = 1 })
	// Canceled while queued: the worker never runs it.
	id := h.postSweep(sweepBody(t, []string{"rate_scale=0.5,1"}, 1, ""))
	rec := h.do(http.MethodDelete, "/api/v1/sweeps/"+id, "", "")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"status":"canceled"`) {
		t.Fatalf("DELETE: %d %s", rec.Code, rec.Body.String())
	}
	// Canceled while running: a long sweep stops, keeping its points so far.
	long := h.postSweep(sweepBody(t, []string{"rate_scale=0.1..3/0.1"}, 20, ""))
	h.startSweeps()
	h.waitSweep(long, sweep.Running)
	h.waitWorking(long, true)
	rec = h.do(http.MethodDelete, "/api/v1/sweeps/"+long, "", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("DELETE running: %d %s", rec.Code, rec.Body.String())
	}
	h.waitWorking(long, false) // the worker has stopped and let the job go
	j := h.getSweep(long)
	if j.Status != sweep.Canceled || j.Done >= j.Total {
		t.Errorf("canceled job: %+v, want canceled before the end", j)
	}
	if j := h.getSweep(id); j.Status != sweep.Canceled || j.RunsDone != 0 {
		t.Errorf("job canceled while queued: %+v, want canceled with nothing run", j)
	}
	// Canceling again is fine.
	if rec := h.do(http.MethodDelete, "/api/v1/sweeps/"+long, "", ""); rec.Code != http.StatusOK {
		t.Errorf("second DELETE: %d", rec.Code)
	}
}

// TestSweepJobRestart: a server that stops mid-job gives the job up; the
// next server on the same database resumes it from its stored points and
// finishes with the same bytes as a sweep run straight through.
func TestSweepJobRestart(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.SweepWorkers = 1 })
	// 40 points: stopped once the first is done, the server must not have
	// finished them all meanwhile (10 points did, once, on a loaded machine)
	vary := []string{"rate_scale=0.1..4/0.1"}
	id := h.postSweep(sweepBody(t, vary, 3, ""))
	stop := h.startSweeps()
	deadline := time.Now().Add(30 * time.Second)
	for h.getSweep(id).Done == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	j := h.getSweep(id)
	if j.Status != sweep.Running || j.Done == 0 || j.Done == j.Total {
		t.Fatalf("stopped server left %+v, want running with some of the points", j)
	}
	// A restarted server (a new Server on the same database).
	h2 := &harness{t: t, db: h.db, logs: h.logs, srv: New(Config{Store: h.db, Assets: testAssets, SweepWorkers: 2, AllowedHosts: []string{"example.com"}})}
	h2.startSweeps()
	j = h2.waitSweep(id, sweep.Done, sweep.Failed)
	want := expectedSweep(t, sweep.Spec{Vary: vary, Replications: 3})
	got, _ := json.Marshal(j.Result)
	var a, b bytes.Buffer
	json.Compact(&a, got)
	json.Compact(&b, want)
	if j.Status != sweep.Done || a.String() != b.String() {
		t.Errorf("resumed job %s: result differs from a sweep straight through", j.Status)
	}
}

func TestSweepJobBadInput(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxSweepPoints = 5; c.MaxSweepRequests = 10_000; c.MaxRequests = 3000 })
	sc := scenarioJSON(t)
	for _, tt := range []struct {
		name, body string
		status     int
		slug, want string
	}{
		{"malformed", `{"scenario":`, 400, "malformed-json", ""},
		{"unknown field", `{"scenario":` + sc + `,"vary":["rate_scale=1"],"jobs":2}`, 422, "invalid", "jobs: unknown field (want scenario, vary, replications"},
		{"no scenario", `{"vary":["rate_scale=1"]}`, 422, "invalid", "scenario: missing"},
		{"bad key", sweepBody(t, []string{"rate_scael=1"}, 1, ""), 422, "invalid", "vary rate_scael: unknown key"},
		{"bad value", sweepBody(t, []string{"SERVERS.simpserv.MIN=a"}, 1, ""), 422, "invalid", `vary SERVERS.simpserv.MIN: value "a" is not a whole number`},
		{"bad objective", sweepBody(t, []string{"rate_scale=1"}, 1, "p99<=1"), 422, "invalid", `unknown figure "p99"`},
		{"too many points", sweepBody(t, []string{"rate_scale=1..6/1"}, 1, ""), 422, "too-many-points", "--max-sweep-points"},
		{"run too large", sweepBody(t, []string{"rate_scale=1,20"}, 1, ""), 413, "too-large", "--max-requests"},
		{"sweep too large", sweepBody(t, []string{"rate_scale=1,2"}, 10, ""), 413, "too-large", "--max-sweep-requests"},
		// 0 is no precision at all: invalid as -1 is, not taken as absent
		{"precision 0", `{"scenario":` + sc + `,"vary":["rate_scale=1"],"replications":2,"precision":0}`, 422, "invalid", "precision: want a number > 0"},
		{"precision -1", `{"scenario":` + sc + `,"vary":["rate_scale=1"],"replications":2,"precision":-1}`, 422, "invalid", "precision: want a number > 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := h.do(http.MethodPost, "/api/v1/sweeps", "application/json", tt.body)
			p := wantProblem(t, rec, "/api/v1/sweeps", tt.status, tt.slug)
			if !strings.Contains(p.Detail, tt.want) {
				t.Errorf("detail %q, want it to contain %q", p.Detail, tt.want)
			}
			if tt.status == 413 && p.Limit == nil {
				t.Errorf("413 without the limit")
			}
		})
	}
	rec := h.do(http.MethodGet, "/api/v1/sweeps/AAAAAAAAAAAAAAAAAAAAAA", "", "")
	wantProblem(t, rec, "/api/v1/sweeps/AAAAAAAAAAAAAAAAAAAAAA", http.StatusNotFound, "not-found")
	rec = h.do(http.MethodDelete, "/api/v1/sweeps/nope", "", "")
	wantProblem(t, rec, "/api/v1/sweeps/nope", http.StatusBadRequest, "malformed-id")
}

func TestCompareVariants(t *testing.T) {
	h := newHarness(t, nil)
	run := h.postRun("", scenarioJSON(t))
	rec := h.do(http.MethodGet, "/api/v1/compare?runs="+run.ID+"&variant=policy=jsq&variant=rate_scale=0.5", "", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	var cmp comparison
	decode(t, rec, &cmp)
	if len(cmp.Runs) != 3 || cmp.Runs[0].ID != run.ID || cmp.Runs[1].Name != "policy=jsq" || cmp.Runs[2].Name != "rate_scale=0.5" ||
		cmp.Runs[1].ID != "" {
		t.Fatalf("runs: %+v", cmp.Runs)
	}
	// Half the offered load issues about half the requests.
	base, half := cmp.Runs[0].Headline.Issued, cmp.Runs[2].Headline.Issued
	if r := float64(half) / float64(base); r < 0.45 || r > 0.55 {
		t.Errorf("rate_scale=0.5 issued %d against %d, want about half", half, base)
	}
	// The variant's figures are those of the scenario run with the variant applied.
	sc, _ := core.ParseScenario([]byte(scenarioJSON(t)))
	v, _ := sweep.ParseVariant("policy=jsq")
	vsc, _ := sweep.ApplyVariant(sc, v)
	res, err := core.Run(vsc, core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cmp.Runs[1].Headline, result.HeadlineOf(res); got != want {
		t.Errorf("policy=jsq headline %+v, want %+v", got, want)
	}
	for _, tt := range []struct{ query, field string }{
		{"?runs=" + run.ID + "," + run.ID + "&variant=policy=jsq", "runs"},
		{"?runs=" + run.ID + "&varaint=policy=jsq", "varaint"},
		{"?runs=" + run.ID + "," + run.ID + "&format=csv", "format"},
	} {
		rec := h.do(http.MethodGet, "/api/v1/compare"+tt.query, "", "")
		p := wantProblem(t, rec, "/api/v1/compare", http.StatusBadRequest, "malformed-query")
		if len(p.Errors) == 0 || p.Errors[0].Field != tt.field {
			t.Errorf("%s: errors %+v, want the field %s", tt.query, p.Errors, tt.field)
		}
	}
	rec = h.do(http.MethodGet, "/api/v1/compare?runs="+run.ID+"&variant=SERVERS.simpserv.MIN=x", "", "")
	p := wantProblem(t, rec, "/api/v1/compare", http.StatusUnprocessableEntity, "invalid")
	if !strings.Contains(p.Detail, "SERVERS.simpserv.MIN") {
		t.Errorf("detail %q does not name the key", p.Detail)
	}
}

// A variant whose scenario or run is refused is named in the problem, as
// tuxlb compare names it: which of the variants was at fault.
func TestCompareVariantErrorNamesIt(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxRequests = 3000 })
	run := h.postRun("", scenarioJSON(t))
	for _, tc := range []struct {
		variant, slug, rest string
		status              int
	}{
		{"rate_scale=1e308", "invalid", "workload.generate.streams[0].rate_per_s: must be between 0 and 1e+09, got +Inf", 422},
		{"rate_scale=100", "too-large", "", 413},
	} {
		rec := h.do(http.MethodGet, "/api/v1/compare?runs="+run.ID+"&variant=policy=jsq&variant="+tc.variant, "", "")
		p := wantProblem(t, rec, "/api/v1/compare", tc.status, tc.slug)
		want := `variant "` + tc.variant + `": ` + tc.rest
		if !strings.HasPrefix(p.Detail, want) {
			t.Errorf("%s: detail %q, want it to start with %q", tc.variant, p.Detail, want)
		}
		if tc.status == 422 && (len(p.Errors) != 1 || p.Errors[0].Message != p.Detail || p.Errors[0].Field != "workload.generate.streams[0].rate_per_s") {
			t.Errorf("%s: errors %+v, want the field and the variant named", tc.variant, p.Errors)
		}
	}
}

// TestSweepJobTwoServersShare: two servers (replicas "one" and "two") on one
// database work one sweep together, point by point: both report points in
// workers, the counts add up to the grid, and the result is the bytes of
// the sweep run straight through.
func TestSweepJobTwoServersShare(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.SweepWorkers, c.ReplicaID = 1, "one" })
	vary := []string{"rate_scale=0.2..4/0.2"}
	id := h.postSweep(sweepBody(t, vary, 5, ""))
	h2 := &harness{t: t, db: h.db, logs: h.logs, srv: New(Config{Store: h.db, Assets: testAssets, SweepWorkers: 1,
		ReplicaID: "two", AllowedHosts: []string{"example.com"}})}
	h.startSweeps()
	h2.startSweeps()
	j := h2.waitSweep(id, sweep.Done, sweep.Failed)
	if j.Status != sweep.Done || j.Workers["one"] == 0 || j.Workers["two"] == 0 || len(j.Workers) != 2 ||
		j.Workers["one"]+j.Workers["two"] != j.Total || j.Total != 20 {
		t.Fatalf("job: %s, %d points, workers %v; want done, 20 points shared by one and two", j.Status, j.Total, j.Workers)
	}
	want := expectedSweep(t, sweep.Spec{Vary: vary, Replications: 5})
	got, _ := json.Marshal(j.Result)
	var a, b bytes.Buffer
	json.Compact(&a, got)
	json.Compact(&b, want)
	if a.String() != b.String() {
		t.Errorf("shared job's result differs from a sweep straight through")
	}
}

// A claim's points run as batches of their own, each on its share of the
// free workers, so that a worker whose point ends is free again at once.
func TestPointBatches(t *testing.T) {
	for _, tc := range []struct {
		points  []int
		n, reps int
		want    []pointBatch
	}{
		{[]int{3, 5}, 2, 1, []pointBatch{{[]int{3}, 1}, {[]int{5}, 1}}},       // one worker a point
		{[]int{7}, 4, 10, []pointBatch{{[]int{7}, 4}}},                        // more runs than workers: all of them
		{[]int{1, 2}, 5, 2, []pointBatch{{[]int{1}, 2}, {[]int{2}, 2}}},       // 2 x 2 runs, one worker left to the caller
		{[]int{1, 2, 3}, 2, 1, []pointBatch{{[]int{1}, 1}, {[]int{2, 3}, 1}}}, // more points than workers
	} {
		if got := pointBatches(tc.points, tc.n, tc.reps); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("pointBatches(%v, %d, %d) = %v, want %v", tc.points, tc.n, tc.reps, got, tc.want)
		}
	}
}

// TestClaimErrorsLogged: claims that fail a second apart while the database
// is down log the first, then one a minute with the count, and the first
// that works again; a claim that finds nothing to do works.
func TestClaimErrorsLogged(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	var c claimErrors
	c.worked(log) // nothing failed: nothing to say
	start := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	down := errors.New("connection refused")
	for i := range 150 { // two and a half minutes, a claim a second
		c.failed(log, down, start.Add(time.Duration(i)*time.Second))
	}
	c.worked(log)
	c.worked(log)
	c.failed(log, down, start.Add(200*time.Second)) // down again: said at once
	want := `level=ERROR msg="sweeps: claim" err="connection refused" failed_in_a_row=1
level=ERROR msg="sweeps: claim" err="connection refused" failed_in_a_row=61
level=ERROR msg="sweeps: claim" err="connection refused" failed_in_a_row=121
level=INFO msg="sweeps: claims work again" failed_in_a_row=150
level=ERROR msg="sweeps: claim" err="connection refused" failed_in_a_row=1
`
	if buf.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", buf.String(), want)
	}
}
