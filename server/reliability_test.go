package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/admission"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/sweep"
)

// hangScenario once wrapped the engine's int64 clock (1e9 ms / speed 1e-6 per
// request) and looped forever in the MP reset and series bin loops.
const hangScenario = `{
  "ubbconfig": "*RESOURCES\nIPCKEY 123458\nMASTER SITE1\nMODEL MP\nLDBAL Y\n*MACHINES\nnode1 LMID=SITE1 APPDIR=\"/app\" TUXCONFIG=\"/app/tuxconfig\" TUXDIR=\"/opt/tuxedo\"\n*GROUPS\nGRP1 LMID=SITE1 GRPNO=1\n*SERVERS\nsrv SRVGRP=GRP1 SRVID=1 MIN=1 CLOPT=\"-s BALANCE --\"\n*SERVICES\nBALANCE LOAD=50\n",
  "services": {"BALANCE": {"service_time": {"dist": "const", "ms": 1e9}}},
  "machines": {"SITE1": {"speed": 1e-6}},
  "workload": {"generate": {"duration_ms": 100, "streams": [{"service": "BALANCE", "origin": "SITE1", "arrivals": "constant", "rate_per_s": 1000}]}}
}`

// longScenario takes many seconds to run: 10 million requests.
const longScenario = `{
  "ubbconfig": "*RESOURCES\nIPCKEY 123458\nMASTER SITE1\nMODEL SHM\nLDBAL Y\n*MACHINES\nnode1 LMID=SITE1 APPDIR=\"/app\" TUXCONFIG=\"/app/tuxconfig\" TUXDIR=\"/opt/tuxedo\"\n*GROUPS\nGRP1 LMID=SITE1 GRPNO=1\n*SERVERS\nsrv SRVGRP=GRP1 SRVID=1 MIN=4 CLOPT=\"-s BALANCE --\"\n*SERVICES\nBALANCE LOAD=50\n",
  "services": {"BALANCE": {"service_time": {"dist": "exp", "mean_ms": 0.001}}},
  "workload": {"generate": {"duration_ms": 10000, "streams": [{"service": "BALANCE", "origin": "SITE1", "arrivals": "poisson", "rate_per_s": 1000000}]}}
}`

// doBounded sends a request under ctx and fails the test if the server does
// not answer within limit (so that a regression fails instead of hanging).
func (h *harness) doBounded(ctx context.Context, limit time.Duration, method, target, body string) *httptest.ResponseRecorder {
	h.t.Helper()
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		req := httptest.NewRequest(method, target, strings.NewReader(body)).WithContext(ctx)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.srv.ServeHTTP(rec, req)
		done <- rec
	}()
	select {
	case rec := <-done:
		return rec
	case <-time.After(limit):
		h.t.Fatalf("%s %s: no answer within %s", method, target, limit)
		return nil
	}
}

// Four scenarios that once hung the engine no longer take the server's run
// slots: each is refused at once, naming the fields, and a good run follows.
func TestHangScenarioRefusedAndSlotsFree(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxRuns = 4 })
	for i := 0; i < 4; i++ {
		rec := h.doBounded(context.Background(), 30*time.Second, "POST", "/api/v1/runs", hangScenario)
		p := wantProblem(t, rec, "/api/v1/runs", 422, "invalid")
		if !strings.Contains(p.Detail, "machines.SITE1.speed") || len(p.Errors) == 0 ||
			p.Errors[0].Field != "services.BALANCE.service_time" {
			t.Errorf("got detail %q, errors %+v; want the service time and speed named", p.Detail, p.Errors)
		}
	}
	rec := h.doBounded(context.Background(), 30*time.Second, "POST", "/api/v1/runs", scenarioJSON(t))
	if rec.Code != http.StatusCreated {
		t.Errorf("a good run after them: got %d, want 201; %s", rec.Code, rec.Body.String())
	}
}

// --max-run-time stops a real run of the engine (not a stand-in), and its
// slot is free for the next run.
func TestMaxRunTimeStopsEngineAndFreesSlot(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxRuns, c.MaxRunTime, c.MaxRequests = 1, 200*time.Millisecond, 20_000_000 })
	rec := h.doBounded(context.Background(), 60*time.Second, "POST", "/api/v1/runs", longScenario)
	wantProblem(t, rec, "/api/v1/runs", 422, "run-too-long")
	rec = h.doBounded(context.Background(), 30*time.Second, "POST", "/api/v1/runs", scenarioJSON(t))
	if rec.Code != http.StatusCreated {
		t.Errorf("the next run: got %d, want 201; %s", rec.Code, rec.Body.String())
	}
}

// A client that goes away stops its run, and its slot is free.
func TestClientGoneStopsRun(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxRuns, c.MaxRunTime, c.MaxRequests = 1, time.Hour, 20_000_000 })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	rec := h.doBounded(ctx, 60*time.Second, "POST", "/api/v1/runs", longScenario)
	if rec.Code == http.StatusCreated {
		t.Fatalf("the run finished although its client left; got 201")
	}
	rec = h.doBounded(context.Background(), 30*time.Second, "POST", "/api/v1/runs", scenarioJSON(t))
	if rec.Code != http.StatusCreated {
		t.Errorf("the next run: got %d, want 201; %s", rec.Code, rec.Body.String())
	}
}

// The run time limit covers everything from the request's arrival to the
// store: a run that returns after the deadline (here, one that returns only
// once its context's deadline has passed, as a run deaf to its context
// would) is not stored, and the answer is run-too-long.
func TestRunTimeLimitCoversStoring(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.MaxRunTime = 300 * time.Millisecond
		c.Run = func(pr *core.Prepared, opt core.RunOptions) (*result.Result, error) {
			<-opt.Context.Done()
			return runPrepared(pr, core.RunOptions{})
		}
	})
	rec := h.doBounded(context.Background(), 30*time.Second, "POST", "/api/v1/runs", scenarioJSON(t))
	wantProblem(t, rec, "/api/v1/runs", 422, "run-too-long")
	var list struct {
		Runs []any `json:"runs"`
	}
	decode(t, h.do("GET", "/api/v1/runs", "", ""), &list)
	if len(list.Runs) != 0 {
		t.Errorf("got %d stored runs, want none", len(list.Runs))
	}
}

// A small UBBCONFIG whose instances advertise many services expands past
// what /validate answers: a 413 naming the flag, not a giant answer.
func TestValidateBounded(t *testing.T) {
	var ubb strings.Builder
	ubb.WriteString("*RESOURCES\nIPCKEY 1\nMASTER s1\nMODEL SHM\n*MACHINES\nh LMID=s1\n*GROUPS\nG LMID=s1 GRPNO=1\n*SERVERS\nsrv SRVGRP=G SRVID=1 MIN=100 CLOPT=\"-s ")
	for i := 0; i < 50; i++ {
		if i > 0 {
			ubb.WriteString(",")
		}
		fmt.Fprintf(&ubb, "S%d", i)
	}
	ubb.WriteString(" --\"\n")
	h := newHarness(t, func(c *Config) { c.MaxModelEntries = 4999 })
	rec := h.do("POST", "/api/v1/validate", "text/plain", ubb.String())
	p := wantProblem(t, rec, "/api/v1/validate", 413, "model-too-large")
	if p.Limit != float64(4999) || !strings.Contains(p.Detail, "5000 services over 100 server instances") ||
		!strings.Contains(p.Detail, "--max-model-entries") {
		t.Errorf("limit %v, detail %q; want 4999, the count and the flag", p.Limit, p.Detail)
	}
	h = newHarness(t, func(c *Config) { c.MaxModelEntries = 5000 })
	if rec := h.do("POST", "/api/v1/validate", "text/plain", ubb.String()); rec.Code != 200 {
		t.Errorf("at the limit: got %d, want 200", rec.Code)
	}
}

// A run whose stored form passes --max-stored is refused (and its dispatch
// log stops the run as soon as it passes the limit), and nothing is stored.
func TestStoredSizeLimit(t *testing.T) {
	for _, tc := range []struct {
		query, want string
	}{
		{"", "bytes (scenario, result and dispatch log)"},
		{"?dispatch=true", "a compressed dispatch log larger than that"},
	} {
		limit := int64(4_000) // the test scenario's result alone is about 8 KB compact (21 KB indented)
		if tc.query != "" {
			limit = 200_000 // the result fits, the log of 10 million requests does not
		}
		h := newHarness(t, func(c *Config) { c.MaxStoredBytes, c.MaxRequests = limit, 20_000_000 })
		sc := scenarioJSON(t)
		if tc.query != "" {
			sc = longScenario
		}
		rec := h.doBounded(context.Background(), 60*time.Second, "POST", "/api/v1/runs"+tc.query, sc)
		p := wantProblem(t, rec, "/api/v1/runs", 413, "stored-too-large")
		if !strings.Contains(p.Detail, tc.want) || !strings.Contains(p.Detail, "--max-stored") || p.Limit != float64(limit) {
			t.Errorf("%q: detail %q limit %v; want %q, the flag and %d", tc.query, p.Detail, p.Limit, tc.want, limit)
		}
		var list struct {
			Runs []any `json:"runs"`
		}
		decode(t, h.do("GET", "/api/v1/runs", "", ""), &list)
		if len(list.Runs) != 0 {
			t.Errorf("%q: %d runs stored, want none", tc.query, len(list.Runs))
		}
	}
}

// A run whose backlog passes what its share of the memory budget leaves
// stops with a problem naming the budget and its flag.
func TestMemoryBudget(t *testing.T) {
	// 2 runs, 1 sweep run and a sweep's points share 10 MiB: 2.5 MiB each
	h := newHarness(t, func(c *Config) {
		c.MemoryBudget, c.MaxRuns, c.SweepWorkers, c.MaxRequests = 10<<20, 2, 1, 20_000_000
	})
	backlog := strings.Replace(strings.Replace(hangScenario, `"ms": 1e9`, `"ms": 10`, 1), `"speed": 1e-6`, `"speed": 1`, 1)
	backlog = strings.Replace(backlog, `"rate_per_s": 1000}`, `"rate_per_s": 100000}`, 1)
	sc, err := core.ParseScenario([]byte(backlog))
	if err != nil {
		t.Fatal(err)
	}
	m, err := loadModel(sc)
	if err != nil {
		t.Fatal(err)
	}
	want := (10<<20/4 - admission.RunCost(sc, m).Bytes()) / core.BytesPerInFlight
	rec := h.doBounded(context.Background(), 60*time.Second, "POST", "/api/v1/runs", backlog)
	p := wantProblem(t, rec, "/api/v1/runs", 413, "backlog-too-large")
	if p.Limit != float64(want) || !strings.Contains(p.Detail, "--memory-budget") ||
		!strings.Contains(p.Detail, fmt.Sprintf("backlog: more than %d requests held", want)) {
		t.Errorf("limit %v, detail %q; want %d and the flag", p.Limit, p.Detail, want)
	}
}

// A compare decodes stored results: it takes a run slot, so that
// compares at once are bounded like runs.
func TestCompareTakesRunSlot(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{}, 1)
	hold := false
	h := newHarness(t, func(c *Config) {
		c.MaxRuns = 1
		c.Run = func(pr *core.Prepared, opt core.RunOptions) (*result.Result, error) {
			if hold {
				started <- struct{}{}
				<-release
			}
			return runPrepared(pr, opt)
		}
	})
	a, b := h.postRun("", scenarioJSON(t)).ID, h.postRun("?seed=2", scenarioJSON(t)).ID
	hold = true
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.do("POST", "/api/v1/runs", "application/json", scenarioJSON(t))
	}()
	<-started
	wantProblem(t, h.do("GET", "/api/v1/compare?runs="+a+","+b, "", ""), "/api/v1/compare", 503, "busy")
	close(release)
	<-done
	if rec := h.do("GET", "/api/v1/compare?runs="+a+","+b, "", ""); rec.Code != 200 {
		t.Errorf("after the run: got %d, want 200", rec.Code)
	}
}

// --max-run-time bounds a compare of variants as a whole, from the
// request's arrival, not each variant anew: nine variants once ran nine
// limits' worth.
func TestCompareVariantsWithinRunTime(t *testing.T) {
	slow := false
	h := newHarness(t, func(c *Config) {
		c.MaxRunTime = 400 * time.Millisecond
		c.Run = func(pr *core.Prepared, opt core.RunOptions) (*result.Result, error) {
			if slow {
				time.Sleep(250 * time.Millisecond)
			}
			return runPrepared(pr, opt)
		}
	})
	id := h.postRun("", scenarioJSON(t))
	slow = true
	target := "/api/v1/compare?runs=" + id.ID + "&variant=ldbal=N&variant=policy=jsq&variant=policy=p2c&variant=policy=round_robin"
	rec := h.doBounded(context.Background(), 60*time.Second, "GET", target, "")
	p := wantProblem(t, rec, "/api/v1/compare", 422, "run-too-long")
	if !strings.Contains(p.Detail, "the compare of 4 variants did not finish within 400ms") || !strings.Contains(p.Detail, "was running") {
		t.Errorf("detail %q, want the compare and the variant named", p.Detail)
	}
}

// Each run of a sweep job is bounded by --max-run-time: a point that runs
// too long fails the job, naming it, instead of holding the worker.
func TestSweepRunWithinRunTime(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxRunTime, c.SweepWorkers, c.MaxRequests = 200*time.Millisecond, 1, 20_000_000 })
	body := `{"scenario": ` + longScenario + `, "vary": ["rate_scale=1,2"]}`
	id := h.postSweep(body)
	h.startSweeps()
	j := h.waitSweep(id, sweep.Done, sweep.Failed)
	if j.Status != sweep.Failed || !strings.Contains(j.Error, "the run did not finish within 200ms") || !strings.Contains(j.Error, "point ") {
		t.Errorf("job %+v, want failed naming the point and the limit", j)
	}
}
