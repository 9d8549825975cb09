package server

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/records"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// An id of the right form that names nothing.
const unknownID = "AAAAAAAAAAAAAAAAAAAAAA"

func TestBadInputNeedsNoEngine(t *testing.T) {
	h := newHarness(t, nil)
	tests := []struct {
		name, method, target, body string
		status                     int
		slug, field                string
	}{
		{"malformed JSON", "POST", "/api/v1/runs", `{"name": "x",`, 400, "malformed-json", ""},
		{"not JSON at all", "POST", "/api/v1/runs", `*RESOURCES`, 400, "malformed-json", ""},
		{"trailing data", "POST", "/api/v1/runs", `{} {}`, 400, "malformed-json", ""},
		{"empty body", "POST", "/api/v1/scenarios", ``, 400, "malformed-json", ""},
		{"seed not a number", "POST", "/api/v1/runs?seed=abc", `{}`, 400, "malformed-query", "seed"},
		{"negative seed", "POST", "/api/v1/runs?seed=-1", `{}`, 400, "malformed-query", "seed"},
		{"dispatch not a bool", "POST", "/api/v1/runs?dispatch=maybe", `{}`, 400, "malformed-query", "dispatch"},
		{"malformed run id", "GET", "/api/v1/runs/x';DROP", ``, 400, "malformed-id", "id"},
		{"run id too long", "GET", "/api/v1/runs/" + unknownID + "A", ``, 400, "malformed-id", "id"},
		{"unknown run", "GET", "/api/v1/runs/" + unknownID, ``, 404, "not-found", ""},
		{"result of unknown run", "GET", "/api/v1/runs/" + unknownID + "/result.json", ``, 404, "not-found", ""},
		{"result of malformed id", "GET", "/api/v1/runs/bad/result.json", ``, 400, "malformed-id", "id"},
		{"dispatch of unknown run", "GET", "/api/v1/runs/" + unknownID + "/dispatch.csv", ``, 404, "not-found", ""},
		{"dispatch of malformed id", "GET", "/api/v1/runs/bad-id/dispatch.csv", ``, 400, "malformed-id", "id"},
		{"rerun of unknown run", "POST", "/api/v1/runs/" + unknownID + "/rerun", ``, 404, "not-found", ""},
		{"rerun bad dispatch", "POST", "/api/v1/runs/" + unknownID + "/rerun?dispatch=2", ``, 400, "malformed-query", "dispatch"},
		{"unknown scenario", "GET", "/api/v1/scenarios/" + unknownID, ``, 404, "not-found", ""},
		{"malformed scenario id", "GET", "/api/v1/scenarios/short", ``, 400, "malformed-id", "id"},
		{"limit zero", "GET", "/api/v1/runs?limit=0", ``, 400, "malformed-query", "limit"},
		{"limit with a leading zero", "GET", "/api/v1/runs?limit=05", ``, 400, "malformed-query", "limit"},
		{"limit with a sign", "GET", "/api/v1/runs?limit=%2B5", ``, 400, "malformed-query", "limit"},
		{"a query that cannot be decoded", "POST", "/api/v1/runs?policy=%zz", `{}`, 400, "malformed-query", ""},
		{"limit too big", "GET", "/api/v1/runs?limit=101", ``, 400, "malformed-query", "limit"},
		{"limit not a number", "GET", "/api/v1/runs?limit=ten", ``, 400, "malformed-query", "limit"},
		{"bad cursor", "GET", "/api/v1/runs?cursor=bm9wZTox", ``, 400, "malformed-query", "cursor"},
		{"compare without runs", "GET", "/api/v1/compare", ``, 400, "malformed-query", "runs"},
		{"compare one run", "GET", "/api/v1/compare?runs=" + unknownID, ``, 400, "malformed-query", "runs"},
		{"compare eleven runs", "GET", "/api/v1/compare?runs=" + strings.Repeat(unknownID+",", 10) + unknownID, ``, 400, "malformed-query", "runs"},
		{"compare malformed id", "GET", "/api/v1/compare?runs=" + unknownID + ",nope", ``, 400, "malformed-id", "runs"},
		{"compare unknown run", "GET", "/api/v1/compare?runs=" + unknownID + "," + unknownID, ``, 404, "not-found", ""},
		{"wrong method", "DELETE", "/api/v1/runs", ``, 405, "method-not-allowed", ""},
		{"wrong method on a run", "PUT", "/api/v1/runs/" + unknownID, ``, 405, "method-not-allowed", ""},
		{"unknown API path", "GET", "/api/v1/nothing", ``, 404, "not-found", ""},
		{"unknown API path, POST", "POST", "/api/v2/runs", ``, 404, "not-found", ""},
		{"validate: other media type", "POST", "/api/v1/validate", `x`, 415, "unsupported-media-type", ""},
	}
	// a UBBCONFIG sent as the body: the problem says how to send one
	p := wantProblem(t, h.do("POST", "/api/v1/runs", "application/json", "# ubbconfig\n*RESOURCES\nIPCKEY 1\n"), "/api/v1/runs", 400, "malformed-json")
	if !strings.Contains(p.Detail, "it reads as a UBBCONFIG: send it as the ubbconfig part of a multipart/form-data request (curl -F ubbconfig=@FILE)") {
		t.Errorf("a UBBCONFIG as the body: detail %q, want how to send one", p.Detail)
	}
	if p := wantProblem(t, h.do("POST", "/api/v1/runs", "application/json", `{"name": "x",`), "/api/v1/runs", 400, "malformed-json"); strings.Contains(p.Detail, "UBBCONFIG") {
		t.Errorf("truncated JSON: detail %q names a UBBCONFIG", p.Detail)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctype := "application/json"
			if tt.slug == "unsupported-media-type" {
				ctype = "application/xml"
			}
			rec := h.do(tt.method, tt.target, ctype, tt.body)
			path := strings.SplitN(tt.target, "?", 2)[0]
			p := wantProblem(t, rec, path, tt.status, tt.slug)
			if tt.field != "" && (len(p.Errors) == 0 || p.Errors[0].Field != tt.field) {
				t.Errorf("errors got %+v, want the first naming field %q", p.Errors, tt.field)
			}
			if tt.status == 405 && rec.Header().Get("Allow") == "" {
				t.Errorf("405 without an Allow header")
			}
		})
	}
}

func TestMalformedJSONIsPositioned(t *testing.T) {
	h := newHarness(t, nil)
	body := "{\n  \"name\": \"x\",\n  \"seed\": 1,,\n}"
	p := wantProblem(t, h.do("POST", "/api/v1/runs", "application/json", body), "/api/v1/runs", 400, "malformed-json")
	if len(p.Errors) != 1 || p.Errors[0].Line != 3 || p.Errors[0].Col != 13 {
		t.Errorf("errors got %+v, want one at line 3 col 13", p.Errors)
	}
}

// A body nested past encoding/json's 10 000 levels says so, placed where
// the level is passed, as the CLI says it; its bracket is no "invalid
// character".
func TestTooDeepJSONSaysSo(t *testing.T) {
	h := newHarness(t, nil)
	body := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	for _, path := range []string{"/api/v1/runs", "/api/v1/sweeps"} {
		p := wantProblem(t, h.do("POST", path, "application/json", body), path, 400, "malformed-json")
		const why = "nested more than 10000 arrays and objects deep"
		if len(p.Errors) != 1 || p.Errors[0].Line != 1 || p.Errors[0].Col != 10001 || p.Errors[0].Message != why {
			t.Errorf("%s: errors got %+v, want one at line 1 col 10001 saying %q", path, p.Errors, why)
		}
	}
}

// Data after the JSON document is placed as the CLI places it: the line
// and column where it starts, in every body the server reads as JSON.
func TestTrailingDataIsPositioned(t *testing.T) {
	h := newHarness(t, nil)
	for _, path := range []string{"/api/v1/runs", "/api/v1/scenarios", "/api/v1/sweeps", "/api/v1/optimize", "/api/v1/validate"} {
		p := wantProblem(t, h.do("POST", path, "application/json", "{\"name\": \"x\"}\n  {}"), path, 400, "malformed-json")
		if len(p.Errors) != 1 || p.Errors[0].Line != 2 || p.Errors[0].Col != 3 || p.Errors[0].Message != "trailing data after the document" {
			t.Errorf("%s: errors got %+v, want one at line 2 col 3 saying trailing data after the document", path, p.Errors)
		}
		if !strings.Contains(p.Detail, "line 2 col 3: trailing data after the document") {
			t.Errorf("%s: detail %q does not place the trailing data", path, p.Detail)
		}
	}
}

func TestInvalidScenario(t *testing.T) {
	h := newHarness(t, nil)
	good := scenarioJSON(t)
	tests := []struct{ name, body, field string }{
		{"unknown field", strings.Replace(good, `"seed": 1`, `"seed": 1, "sead": 2`, 1), "sead"},
		{"wrong type", strings.Replace(good, `"seed": 1`, `"seed": "one"`, 1), "seed"},
		{"unknown service in a stream", strings.Replace(good, `"service": "TOUPPER",`, `"service": "TOLOWER",`, 1), ""},
		{"unknown LMID", strings.Replace(good, `"origin": "site1"`, `"origin": "site9"`, 1), ""},
		{"not an object", `[1, 2]`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.body == good {
				t.Fatal("the test did not change the scenario")
			}
			for _, path := range []string{"/api/v1/runs", "/api/v1/scenarios"} {
				if path == "/api/v1/scenarios" && strings.HasPrefix(tt.name, "unknown ") && tt.field == "" {
					continue // scenarios are checked as documents, not run
				}
				p := wantProblem(t, h.do("POST", path, "application/json", tt.body), path, 422, "invalid")
				if len(p.Errors) == 0 {
					t.Errorf("%s: no errors listed", path)
				}
				if tt.field != "" && !strings.Contains(p.Detail, tt.field) {
					t.Errorf("%s: detail %q does not name %q", path, p.Detail, tt.field)
				}
			}
		})
	}
}

func TestBodyOverLimit(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxBodyBytes = 1024 })
	big := `{"name":"` + strings.Repeat("x", 2000) + `"}`
	for _, path := range []string{"/api/v1/runs", "/api/v1/scenarios", "/api/v1/validate"} {
		p := wantProblem(t, h.do("POST", path, "application/json", big), path, 413, "body-too-large")
		if p.Limit != float64(1024) {
			t.Errorf("%s: limit got %v, want 1024", path, p.Limit)
		}
		// Without Content-Length the limit bites while reading.
		req := httptest.NewRequest("POST", path, strings.NewReader(big))
		req.ContentLength = -1
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.srv.ServeHTTP(rec, req)
		wantProblem(t, rec, path, 413, "body-too-large")
	}
}

func TestWorkloadOverLimit(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxRequests = 10 })
	p := wantProblem(t, h.do("POST", "/api/v1/runs", "application/json", scenarioJSON(t)), "/api/v1/runs", 413, "too-large")
	if p.Limit != float64(10) || !strings.Contains(p.Detail, "--max-requests") {
		t.Errorf("limit %v detail %q, want 10 and the flag named", p.Limit, p.Detail)
	}
}

func TestRunTimeLimit(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.MaxRunTime = 1 // nanosecond: the deadline has passed when the run starts
		c.Run = func(pr *core.Prepared, opt core.RunOptions) (*result.Result, error) {
			<-opt.Context.Done()
			return nil, diag.Errorf(diag.ECANCELED, "run stopped: %v", opt.Context.Err())
		}
	})
	p := wantProblem(t, h.do("POST", "/api/v1/runs", "application/json", scenarioJSON(t)), "/api/v1/runs", 422, "run-too-long")
	if p.Limit != "1ns" {
		t.Errorf("limit got %v, want 1ns", p.Limit)
	}
}

func TestTooManyRunsAtOnce(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	h := newHarness(t, func(c *Config) {
		c.MaxRuns = 1
		c.Run = func(pr *core.Prepared, opt core.RunOptions) (*result.Result, error) {
			started <- struct{}{}
			<-release
			return nil, diag.Errorf(diag.EINVALID, "released")
		}
	})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		h.do("POST", "/api/v1/runs", "application/json", scenarioJSON(t))
	}()
	<-started
	rec := h.do("POST", "/api/v1/runs", "application/json", scenarioJSON(t))
	wantProblem(t, rec, "/api/v1/runs", 503, "busy")
	if rec.Header().Get("Retry-After") != "2" {
		t.Errorf("Retry-After got %q, want 2", rec.Header().Get("Retry-After"))
	}
	// busy is load, not a fault: logged at WARN, not ERROR
	if logs := h.logs.String(); !strings.Contains(logs, "level=WARN msg=\"request refused: busy\"") || strings.Contains(logs, "level=ERROR") {
		t.Errorf("the busy answer's log: %q, want one WARN line and no ERROR", logs)
	}
	// A scenario that cannot run is refused for what it is on a busy server
	// too: it is checked, and its configuration read, before a run waits
	// for a slot, so a client does not retry what will never run.
	for _, tc := range []struct{ name, bad, field string }{
		{"scenario", strings.Replace(scenarioJSON(t), `"workload"`, `"replications": 1000, "workload"`, 1), "replications"},
		{"configuration", strings.Replace(scenarioJSON(t), `LDBAL\t\tY`, `LDBAL\t\tMAYBE`, 1), "LDBAL"},
	} {
		p := wantProblem(t, h.do("POST", "/api/v1/runs", "application/json", tc.bad), "/api/v1/runs", 422, "invalid")
		if len(p.Errors) == 0 || !strings.Contains(p.Errors[0].Field+" "+p.Errors[0].Message, tc.field) {
			t.Errorf("busy server, bad %s: got %+v, want the problem naming %s", tc.name, p.Errors, tc.field)
		}
	}
	close(release)
	wg.Wait()
}

func TestPanicIsRecovered(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Run = func(pr *core.Prepared, opt core.RunOptions) (*result.Result, error) { panic("boom") }
	})
	rec := h.do("POST", "/api/v1/runs", "application/json", scenarioJSON(t), "X-Request-ID", "req-42")
	p := wantProblem(t, rec, "/api/v1/runs", 500, "internal")
	if p.RequestID != "req-42" || !strings.Contains(p.Detail, "req-42") || strings.Contains(p.Detail, "boom") {
		t.Errorf("problem %+v: want request id req-42 quoted and the panic kept out", p)
	}
	if logs := h.logs.String(); !strings.Contains(logs, "boom") || !strings.Contains(logs, "request_id=req-42") {
		t.Errorf("log lacks the panic or its request id:\n%s", logs)
	}
	if rec := h.do("GET", "/healthz", "", ""); rec.Code != 200 {
		t.Errorf("after the panic /healthz got %d, want 200", rec.Code)
	}
}

func TestCanceledByClient(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Run = func(pr *core.Prepared, opt core.RunOptions) (*result.Result, error) {
			<-opt.Context.Done()
			return nil, diag.Errorf(diag.ECANCELED, "run stopped")
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest("POST", "/api/v1/runs", strings.NewReader(scenarioJSON(t))).WithContext(ctx)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.srv.ServeHTTP(rec, req)
	wantProblem(t, rec, "/api/v1/runs", 503, "canceled")
}

func TestErrorCodeTable(t *testing.T) {
	tests := []struct {
		code   string
		status int
	}{
		{diag.EINVALID, 422}, {diag.ENOTFOUND, 404}, {diag.ECONFLICT, 409}, {diag.ETOOLARGE, 413},
		{diag.ECANCELED, 503}, {diag.EUNAVAILABLE, 503}, {diag.EFULL, 503}, {diag.EINTERNAL, 500}, {"unheard-of", 500},
	}
	for _, tt := range tests {
		e := diag.FieldErrorf("machines.site9", "unknown LMID")
		e.Code = tt.code
		p := fromCoreError(e)
		if p.Status != tt.status {
			t.Errorf("%s: status got %d, want %d", tt.code, p.Status, tt.status)
		}
		if tt.status < 500 && (len(p.Errors) != 1 || p.Errors[0].Field != "machines.site9") {
			t.Errorf("%s: errors got %+v, want field machines.site9", tt.code, p.Errors)
		}
	}
	// a field of a run option is named as the option's, not the scenario's
	sc, err := core.ParseScenario([]byte(scenarioJSON(t)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = core.Run(sc, core.RunOptions{Policy: "x"})
	var ce *diag.Error
	if !errors.As(err, &ce) {
		t.Fatalf("run with policy x: got %v, want a core error", err)
	}
	if opt := fromCoreError(ce); opt.Errors[0].Field != "policy" || opt.Errors[0].Source != "options" || !strings.HasPrefix(opt.Detail, "policy (option): ") {
		t.Errorf("run option: got %+v, want field policy of the options", opt)
	}
	ce2 := diag.ConfigError(ubb.Diagnostic{File: "UBBCONFIG", Line: 4, Col: 7, Severity: "error", Message: "bad"})
	p := fromCoreError(ce2)
	if len(p.Errors) != 1 || p.Errors[0].Line != 4 || p.Errors[0].Col != 7 || p.Errors[0].File != "UBBCONFIG" {
		t.Errorf("diagnostics got %+v, want UBBCONFIG:4:7", p.Errors)
	}
}

// downStore is a store whose database server has gone away: every call
// fails as storage reports it, with a driver message naming the host.
type downStore struct{ Store }

var errDown = &diag.Error{Code: diag.EUNAVAILABLE,
	Message: "database unavailable: failed to connect to `user=tuxlb database=tuxlb`: 10.1.2.3:5432: connection refused"}

func (downStore) Run(context.Context, string) (*records.StoredRun, error) { return nil, errDown }
func (downStore) CreateRun(context.Context, *records.StoredRun) error     { return errDown }
func (downStore) Runs(context.Context, int, string) ([]records.RunSummary, string, error) {
	return nil, "", errDown
}

func TestDatabaseUnavailable(t *testing.T) {
	h := newHarness(t, nil)
	h.srv = New(Config{Store: downStore{h.db}, Logger: h.srv.log, AllowedHosts: []string{"example.com"}})
	tests := []struct{ method, path, body string }{
		{"GET", "/api/v1/runs/AAAAAAAAAAAAAAAAAAAAAA", ""},
		{"GET", "/api/v1/runs", ""},
		{"POST", "/api/v1/runs", scenarioJSON(t)},
	}
	for _, tt := range tests {
		rec := h.do(tt.method, tt.path, "application/json", tt.body)
		p := wantProblem(t, rec, tt.path, 503, "unavailable")
		if got := rec.Header().Get("Retry-After"); got != "2" {
			t.Errorf("%s %s: Retry-After got %q, want 2", tt.method, tt.path, got)
		}
		if strings.Contains(p.Detail, "10.1.2.3") || strings.Contains(p.Detail, "user=") {
			t.Errorf("%s %s: detail %q shows the driver's message, want it in the log only", tt.method, tt.path, p.Detail)
		}
	}
	if !strings.Contains(h.logs.String(), "10.1.2.3") {
		t.Errorf("the log lacks the driver's message:\n%s", h.logs)
	}
}

// A path that takes only POST (or only some methods) answers another method
// with 405 and the methods it takes, not 404 as if it did not exist.
func TestPostOnlyRoutesAre405(t *testing.T) {
	h := newHarness(t, nil)
	for _, tc := range []struct{ method, path, allow string }{
		{"GET", "/api/v1/validate", "POST"},
		{"GET", "/api/v1/sweeps", "POST"},
		{"GET", "/api/v1/scenarios", "POST"},
		{"GET", "/api/v1/runs/" + unknownID + "/rerun", "POST"},
		{"HEAD", "/api/v1/validate", "POST"},
		{"PUT", "/api/v1/sweeps/" + unknownID, "GET, HEAD, DELETE"},
		{"DELETE", "/api/v1/runs", "GET, HEAD, POST"},
	} {
		rec := h.do(tc.method, tc.path, "", "")
		if tc.method != "HEAD" {
			wantProblem(t, rec, tc.path, 405, "method-not-allowed")
		} else if rec.Code != 405 {
			t.Errorf("HEAD %s: got %d, want 405", tc.path, rec.Code)
		}
		if got := rec.Header().Get("Allow"); got != tc.allow {
			t.Errorf("%s %s: Allow %q, want %q", tc.method, tc.path, got, tc.allow)
		}
	}
	for _, path := range []string{"/api/v1/nothing", "/api/v1/runs/" + unknownID + "/other", "/api/v2/runs"} {
		wantProblem(t, h.do("GET", path, "", ""), path, 404, "not-found")
		wantProblem(t, h.do("POST", path, "application/json", "{}"), path, 404, "not-found")
	}
}
