package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/sweep"
	"github.com/tuxlb/tuxlb/pool"
)

// optimizeBody is a POST /optimize body over the test scenario (three
// simpserv instances at 300 requests/s of 8 ms) with extra fields.
func optimizeBody(t *testing.T, fields map[string]any) string {
	t.Helper()
	m := map[string]any{"scenario": json.RawMessage(scenarioJSON(t))}
	for k, v := range fields {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// optimizeJob is the body of GET /optimize/{id}.
type optimizeJob struct {
	ID        string             `json:"id"`
	Status    string             `json:"status"`
	RunsDone  int                `json:"runs_done"`
	RunsTotal int                `json:"runs_total"`
	Spec      sweep.OptimizeSpec `json:"spec"`
	Error     string             `json:"error"`
	Result    json.RawMessage    `json:"result"`
}

func (h *harness) postOptimize(body string) string {
	h.t.Helper()
	rec := h.do(http.MethodPost, "/api/v1/optimize", "application/json", body)
	if rec.Code != http.StatusAccepted {
		h.t.Fatalf("POST /api/v1/optimize: status %d, want 202; body %s", rec.Code, rec.Body.String())
	}
	var out struct{ ID, URL string }
	decode(h.t, rec, &out)
	if !validID().MatchString(out.ID) || out.URL != "/api/v1/optimize/"+out.ID || rec.Header().Get("Location") != out.URL {
		h.t.Fatalf("got id %q url %q Location %q", out.ID, out.URL, rec.Header().Get("Location"))
	}
	return out.ID
}

func (h *harness) getOptimize(id string) optimizeJob {
	h.t.Helper()
	rec := h.do(http.MethodGet, "/api/v1/optimize/"+id, "", "")
	if rec.Code != http.StatusOK {
		h.t.Fatalf("GET optimize: status %d; body %s", rec.Code, rec.Body.String())
	}
	var j optimizeJob
	decode(h.t, rec, &j)
	return j
}

// waitOptimize polls until the job's status is one of want (or, with
// running, until some replications are spent).
func (h *harness) waitOptimize(id string, want ...string) optimizeJob {
	h.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		j := h.getOptimize(id)
		for _, w := range want {
			if j.Status == w && (w != sweep.Running || j.RunsDone > 0) {
				return j
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.t.Fatalf("optimization %s never reached %v", id, want)
	return optimizeJob{}
}

// cliOptimize is what `tuxlb optimize --format json` prints for scenario
// and spec: the optimizer compiled, run on the pool, encoded.
func cliOptimize(t *testing.T, scenario string, spec sweep.OptimizeSpec) []byte {
	t.Helper()
	sc, err := core.ParseScenario([]byte(scenario))
	if err != nil {
		t.Fatal(err)
	}
	opt, err := sweep.CompileOptimize(sc, spec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pool.Optimize(context.Background(), opt, pool.SweepOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return sweep.EncodeOptimization(res)
}

// TestOptimizeJobLifeCycle: an optimization is queued with its bound of
// replications, worked by the sweep workers, and ends with the CLI's bytes
// as its result and the replications it spent as its progress. It is no
// sweep, and a sweep is no optimization.
func TestOptimizeJobLifeCycle(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.SweepWorkers = 2 })
	fields := map[string]any{"vary": []string{"SERVERS.simpserv.MIN=1..5/1"}, "objectives": []string{"wait_mean_ms<=10"},
		"costs": []string{"SERVERS.simpserv.MIN=3"}, "epsilon": "10%", "pcs": 0.9, "first_stage": 5, "max_replications": 40}
	id := h.postOptimize(optimizeBody(t, fields))
	j := h.getOptimize(id)
	// 5 configurations x 40 replications at most
	if j.Status != sweep.Queued || j.RunsDone != 0 || j.RunsTotal != 200 || string(j.Result) != "null" ||
		j.Spec.Epsilon != 0.1 || j.Spec.PCS != 0.9 || len(j.Spec.Costs) != 1 {
		t.Fatalf("new job: %+v, want queued, 0 of 200 runs, no result, the spec with ε 0.1", j)
	}
	h.startSweeps()
	j = h.waitOptimize(id, sweep.Done, sweep.Failed)
	want := cliOptimize(t, scenarioJSON(t), sweep.OptimizeSpec{Vary: []string{"SERVERS.simpserv.MIN=1..5/1"},
		Objectives: []string{"wait_mean_ms<=10"}, Costs: []string{"SERVERS.simpserv.MIN=3"}, Epsilon: 0.1, PCS: 0.9,
		FirstStage: 5, MaxReplications: 40})
	if j.Status != sweep.Done || string(j.Result)+"\n" != string(want) {
		t.Fatalf("finished job %s (%s), result:\n%s\nwant (tuxlb optimize --format json):\n%s", j.Status, j.Error, j.Result, want)
	}
	var res sweep.Optimization
	if err := json.Unmarshal(want, &res); err != nil {
		t.Fatal(err)
	}
	if res.Chosen == nil || j.RunsDone != res.Replications.Spent || j.RunsDone < 5 {
		t.Errorf("runs done %d, want the %d replications spent; chosen %+v", j.RunsDone, res.Replications.Spent, res.Chosen)
	}
	rec := h.do(http.MethodDelete, "/api/v1/optimize/"+id, "", "")
	wantProblem(t, rec, "/api/v1/optimize/"+id, http.StatusConflict, "conflict")
	for _, path := range []string{"/api/v1/sweeps/" + id} {
		wantProblem(t, h.do(http.MethodGet, path, "", ""), path, http.StatusNotFound, "not-found")
		wantProblem(t, h.do(http.MethodDelete, path, "", ""), path, http.StatusNotFound, "not-found")
	}
	sw := h.postSweep(sweepBody(t, []string{"rate_scale=0.5"}, 1, ""))
	path := "/api/v1/optimize/" + sw
	wantProblem(t, h.do(http.MethodGet, path, "", ""), path, http.StatusNotFound, "not-found")
}

// slowScenario is the test scenario with runs 500 times as long, so that
// an optimization of it runs long enough to be stopped.
func slowScenario(t *testing.T) string {
	return strings.Replace(scenarioJSON(t), `"duration_ms": 2000`, `"duration_ms": 1000000`, 1)
}

// slowOptimize is an optimization whose cheapest configuration (a mean
// wait of about 10.39 ms) sits on its limit, within a narrow indifference
// zone, so the search runs to its cap.
func slowOptimize(t *testing.T) map[string]any {
	return map[string]any{"scenario": json.RawMessage(slowScenario(t)), "vary": []string{"SERVERS.simpserv.MIN=3..6/1"},
		"objectives": []string{"wait_mean_ms<=10.4"}, "epsilon": "0.5%", "max_replications": 100}
}

func TestOptimizeJobCancel(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.SweepWorkers = 1
		c.MaxSweepRequests = 1 << 40
		c.SweepLease = 300 * time.Millisecond
	})
	// Canceled while queued: never run.
	queued := h.postOptimize(optimizeBody(t, map[string]any{"vary": []string{"SERVERS.simpserv.MIN=1,2"}, "objectives": []string{"wait_mean_ms<=10"}}))
	rec := h.do(http.MethodDelete, "/api/v1/optimize/"+queued, "", "")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"status":"canceled"`) {
		t.Fatalf("DELETE: %d %s", rec.Code, rec.Body.String())
	}
	// Canceled while running: the replica stops the search.
	long := h.postOptimize(optimizeBody(t, slowOptimize(t)))
	h.startSweeps()
	h.waitOptimize(long, sweep.Running)
	h.waitWorking(long, true)
	if rec := h.do(http.MethodDelete, "/api/v1/optimize/"+long, "", ""); rec.Code != http.StatusOK {
		t.Fatalf("DELETE running: %d %s", rec.Code, rec.Body.String())
	}
	h.waitWorking(long, false)
	if j := h.getOptimize(long); j.Status != sweep.Canceled || string(j.Result) != "null" {
		t.Errorf("canceled job: %+v", j)
	}
	if j := h.getOptimize(queued); j.Status != sweep.Canceled || j.RunsDone != 0 {
		t.Errorf("job canceled while queued: %+v, want canceled with nothing run", j)
	}
	if rec := h.do(http.MethodDelete, "/api/v1/optimize/"+long, "", ""); rec.Code != http.StatusOK {
		t.Errorf("second DELETE: %d", rec.Code)
	}
}

// TestOptimizeJobRestart: a server that stops mid-search gives the
// optimization back; the next server on the same database runs it again
// from the start and ends with the bytes of a search straight through.
func TestOptimizeJobRestart(t *testing.T) {
	// A short lease: the progress is written every third of it.
	h := newHarness(t, func(c *Config) {
		c.SweepWorkers = 1
		c.MaxSweepRequests = 1 << 40
		c.SweepLease = 300 * time.Millisecond
	})
	fields := slowOptimize(t)
	fields["max_replications"] = 30
	fields["first_stage"] = 4
	id := h.postOptimize(optimizeBody(t, fields))
	stop := h.startSweeps()
	h.waitOptimize(id, sweep.Running)
	stop()
	if j := h.getOptimize(id); j.Status != sweep.Running || string(j.Result) != "null" {
		t.Fatalf("stopped server left %+v, want running without a result", j)
	}
	h2 := &harness{t: t, db: h.db, logs: h.logs, srv: New(Config{Store: h.db, Assets: testAssets, SweepWorkers: 2,
		MaxSweepRequests: 1 << 40, SweepLease: 300 * time.Millisecond, AllowedHosts: []string{"example.com"}})}
	h2.startSweeps()
	j := h2.waitOptimize(id, sweep.Done, sweep.Failed)
	want := cliOptimize(t, slowScenario(t), sweep.OptimizeSpec{Vary: []string{"SERVERS.simpserv.MIN=3..6/1"},
		Objectives: []string{"wait_mean_ms<=10.4"}, Epsilon: 0.005, FirstStage: 4, MaxReplications: 30})
	if j.Status != sweep.Done || string(j.Result)+"\n" != string(want) {
		t.Errorf("resumed job %s (%s): result differs from a search straight through:\n%s\nwant\n%s", j.Status, j.Error, j.Result, want)
	}
}

func TestOptimizeBadInput(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxSweepPoints = 5 })
	sc := scenarioJSON(t)
	vary := []string{"SERVERS.simpserv.MIN=1,2"}
	obj := []string{"wait_mean_ms<=5"}
	for _, tt := range []struct {
		name   string
		body   string
		status int
		slug   string
		field  string
		want   string
	}{
		{"malformed", `{"scenario":`, 400, "malformed-json", "", ""},
		{"unknown field", `{"scenario":` + sc + `,"vary":["rate_scale=1"],"jobs":2}`, 422, "invalid", "jobs", "unknown field"},
		{"wrong type", `{"scenario":` + sc + `,"vary":"rate_scale=1"}`, 422, "invalid", "vary", "vary: want a list of strings, got a string"},
		{"no scenario", `{"vary":["rate_scale=1"],"objectives":["wait_mean_ms<=5"]}`, 422, "invalid", "scenario", "missing"},
		{"no vary", optimizeBody(t, map[string]any{"objectives": obj}), 422, "invalid", "vary", "at least one"},
		{"no objective", optimizeBody(t, map[string]any{"vary": vary}), 422, "invalid", "objectives", "at least one"},
		{"bad key", optimizeBody(t, map[string]any{"vary": []string{"SERVERS.nosuch.MIN=1,2"}, "objectives": obj}), 422, "invalid", "vary", "nosuch"},
		{"unknown key", optimizeBody(t, map[string]any{"vary": []string{"rate_scael=1,2"}, "objectives": obj}), 422, "invalid", "vary", "rate_scael: unknown key"},
		{"unknown figure", optimizeBody(t, map[string]any{"vary": vary, "objectives": []string{"wait_mean_ms<=5", "p99<=1"}}), 422, "invalid", "objectives[1]", `unknown figure "p99"`},
		{"unknown service", optimizeBody(t, map[string]any{"vary": vary, "objectives": []string{"wait_mean_ms[NOSUCH]<=1"}}), 422, "invalid", "objectives[0]", "NOSUCH"},
		{"bad cost", optimizeBody(t, map[string]any{"vary": vary, "objectives": obj, "costs": []string{"rate_scale=2"}}), 422, "invalid", "costs[0]", "not a varied key"},
		{"bad epsilon", optimizeBody(t, map[string]any{"vary": vary, "objectives": obj, "epsilon": "150%"}), 422, "invalid", "epsilon", "between 0 and 1"},
		{"bad pcs", optimizeBody(t, map[string]any{"vary": vary, "objectives": obj, "pcs": 1.5}), 422, "invalid", "pcs", "probability"},
		// 0 is outside (0.5, 1) as documented: refused, not read as absent
		{"pcs 0", optimizeBody(t, map[string]any{"vary": vary, "objectives": obj, "pcs": 0}), 422, "invalid", "pcs", "pcs: want a probability between 0.5 and 1 (e.g. 0.95), got 0"},
		{"pcs 0.5", optimizeBody(t, map[string]any{"vary": vary, "objectives": obj, "pcs": 0.5}), 422, "invalid", "pcs", "got 0.5"},
		{"bad cap", optimizeBody(t, map[string]any{"vary": vary, "objectives": obj, "first_stage": 10, "max_replications": 5}), 422, "invalid", "max_replications", "first stage"},
		{"too many points", optimizeBody(t, map[string]any{"vary": []string{"SERVERS.simpserv.MIN=1..6/1"}, "objectives": obj}), 422, "too-many-points", "vary", "--max-sweep-points"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := h.do(http.MethodPost, "/api/v1/optimize", "application/json", tt.body)
			p := wantProblem(t, rec, "/api/v1/optimize", tt.status, tt.slug)
			if !strings.Contains(p.Detail, tt.want) {
				t.Errorf("detail %q, want it to contain %q", p.Detail, tt.want)
			}
			if tt.field != "" && (len(p.Errors) == 0 || p.Errors[0].Field != tt.field) {
				t.Errorf("errors %+v, want the field %s named", p.Errors, tt.field)
			}
		})
	}
	rec := h.do(http.MethodGet, "/api/v1/optimize/AAAAAAAAAAAAAAAAAAAAAA", "", "")
	wantProblem(t, rec, "/api/v1/optimize/AAAAAAAAAAAAAAAAAAAAAA", http.StatusNotFound, "not-found")
	rec = h.do(http.MethodDelete, "/api/v1/optimize/nope", "", "")
	wantProblem(t, rec, "/api/v1/optimize/nope", http.StatusBadRequest, "malformed-id")
}

// A job that is not there is named by what was asked for: an unknown id,
// or a sweep's, at /optimize is an optimization not found, not a sweep.
func TestUnknownJobNamesItsKind(t *testing.T) {
	h := newHarness(t, nil)
	sweepID := h.postSweep(sweepBody(t, []string{"rate_scale=1"}, 1, "")) // queued: no worker runs here
	for _, tc := range []struct{ path, want string }{
		{"/api/v1/optimize/" + unknownID, "optimization " + unknownID + ": not found"},
		{"/api/v1/optimize/" + sweepID, "optimization " + sweepID + ": not found"},
		{"/api/v1/sweeps/" + unknownID, "sweep " + unknownID + ": not found"},
	} {
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			p := wantProblem(t, h.do(method, tc.path, "", ""), tc.path, http.StatusNotFound, "not-found")
			if p.Detail != tc.want {
				t.Errorf("%s %s: detail %q, want %q", method, tc.path, p.Detail, tc.want)
			}
		}
	}
}
