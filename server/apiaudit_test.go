package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A null among a stream's routing values is a 422 naming the value's path in
// JSON's words, not encoding/json's Go type names. Hand-worked: the test
// scenario's one stream is streams[0]; values [1, null] puts the null at
// index 1; a routing value is a string or a number, so the item reads
// "workload.generate.streams[0].route.values[1]: want a string or a number,
// got null" with that path as its field.
func TestRunRouteValueNullNamesTheValue(t *testing.T) {
	h := newHarness(t, nil)
	doc := strings.Replace(scenarioJSON(t), `"rate_per_s": 300`, `"rate_per_s": 300, "route": {"values": [1, null]}`, 1)
	rec := h.do(http.MethodPost, "/api/v1/runs", "application/json", doc)
	p := wantProblem(t, rec, "/api/v1/runs", http.StatusUnprocessableEntity, "invalid")
	const field = "workload.generate.streams[0].route.values[1]"
	if len(p.Errors) != 1 || p.Errors[0].Field != field || p.Errors[0].Message != field+": want a string or a number, got null" {
		t.Errorf("errors %+v, want one item with field %s saying a string or a number is wanted", p.Errors, field)
	}
	if strings.Contains(p.Detail, "Go struct") || strings.Contains(p.Detail, "unmarshal") {
		t.Errorf("detail %q speaks Go, not JSON", p.Detail)
	}
}

// A sweep whose scenario every point refuses names the scenario's field in
// its item, as POST /runs does, beside the point in the message.
// Hand-worked: network.latency_ms -1 fails the range check (must be >= 0)
// at the first point compiled, rate_scale=0.5; the item is source
// "scenario", field "network.latency_ms", and the message "vary
// rate_scale=0.5: network.latency_ms: must be >= 0". A bad vary value that
// no scenario field holds stays named by the field vary.
func TestSweepPointErrorNamesTheScenarioField(t *testing.T) {
	h := newHarness(t, nil)
	doc := strings.Replace(scenarioJSON(t), `"seed": 1,`, `"seed": 1, "network": {"latency_ms": -1},`, 1)
	rec := h.do(http.MethodPost, "/api/v1/sweeps", "application/json", `{"scenario": `+doc+`, "vary": ["rate_scale=0.5,1"]}`)
	p := wantProblem(t, rec, "/api/v1/sweeps", http.StatusUnprocessableEntity, "invalid")
	want := ProblemItem{Source: "scenario", Field: "network.latency_ms", Severity: "error", Message: "vary rate_scale=0.5: network.latency_ms: must be >= 0"}
	if len(p.Errors) != 1 || p.Errors[0] != want {
		t.Errorf("errors %+v, want [%+v]", p.Errors, want)
	}

	rec = h.do(http.MethodPost, "/api/v1/sweeps", "application/json", `{"scenario": `+scenarioJSON(t)+`, "vary": ["SERVERS.simpserv.MIN=1,0"]}`)
	p = wantProblem(t, rec, "/api/v1/sweeps", http.StatusUnprocessableEntity, "invalid")
	if len(p.Errors) != 1 || p.Errors[0].Field != "vary" || p.Errors[0].Source != "" {
		t.Errorf("errors %+v, want one item with field vary and no source", p.Errors)
	}
}

// A compare variant that cannot be read or applied (not key=value, a key
// no scenario or UBBCONFIG has, a value its key refuses) names the query
// parameter variant in its item, from the options. Hand-worked: each of the
// three is refused before any run, with the variant's text in the message
// ("variant \"zzz=1\": zzz: unknown field", ...).
func TestCompareVariantErrorNamesTheParameter(t *testing.T) {
	h := newHarness(t, nil)
	run := h.postRun("", scenarioJSON(t))
	for _, tc := range []struct{ variant, message string }{
		{"nokey", `variant "nokey": want key=value, e.g. ldbal=N or policy=p2c`},
		{"zzz=1", `variant "zzz=1": zzz: unknown field`},
		{"rate_scale=-1", `variant "rate_scale=-1": rate_scale: value -1 must be > 0`},
	} {
		rec := h.do(http.MethodGet, "/api/v1/compare?runs="+run.ID+"&variant="+tc.variant, "", "")
		p := wantProblem(t, rec, "/api/v1/compare", http.StatusUnprocessableEntity, "invalid")
		want := ProblemItem{Source: "options", Field: "variant", Severity: "error", Message: tc.message}
		if len(p.Errors) != 1 || p.Errors[0] != want {
			t.Errorf("%s: errors %+v, want [%+v]", tc.variant, p.Errors, want)
		}
	}
}

// A trace whose header lacks a column the run needs, or whose mapping
// names a column the header does not have, names the mapping that would fix
// it, workload.columns.FIELD, in its item (source trace), not only in the
// text. Hand-worked: "x" is a header of one column, x, with no name like a
// time (time, timestamp, ts, datetime), so the time column is missing:
// field workload.columns.time. In the form, trace_map time=nope names a
// column that formTrace's header (timestamp, svc, exec_time_ms) lacks:
// field workload.columns.time again.
func TestTraceHeaderErrorNamesTheMapping(t *testing.T) {
	h := newHarness(t, nil)
	var sc map[string]any
	if err := json.Unmarshal([]byte(scenarioJSON(t)), &sc); err != nil {
		t.Fatal(err)
	}
	sc["workload"] = map[string]any{"trace_csv": "x\n1\n"}
	body, _ := json.Marshal(sc)
	rec := h.do(http.MethodPost, "/api/v1/runs", "application/json", string(body))
	p := wantProblem(t, rec, "/api/v1/runs", http.StatusUnprocessableEntity, "invalid")
	if len(p.Errors) != 1 || p.Errors[0].Source != "trace" || p.Errors[0].Field != "workload.columns.time" ||
		!strings.Contains(p.Errors[0].Message, `missing column "time_ms"`) {
		t.Errorf("errors %+v, want one trace item with field workload.columns.time", p.Errors)
	}

	ctype, form := form(t, "@ubbconfig", formUBB, "@trace", formTrace, "trace_map", "time=nope")
	rec = h.do(http.MethodPost, "/api/v1/runs", ctype, form)
	p = wantProblem(t, rec, "/api/v1/runs", http.StatusUnprocessableEntity, "invalid")
	if len(p.Errors) != 1 || p.Errors[0].Source != "trace" || p.Errors[0].Field != "workload.columns.time" ||
		!strings.Contains(p.Errors[0].Message, `no column "nope" in the header (it has timestamp, svc, exec_time_ms)`) {
		t.Errorf("form: errors %+v, want one trace item with field workload.columns.time", p.Errors)
	}
}

// The fields of the body that a sweep or an optimization compiles (costs,
// replications) are the body's, not the scenario's: their items have no
// source, beside a point's scenario field, which has "scenario".
// Hand-worked: "SERVERS.simpserv.MIN" has no =WEIGHT, so costs[0] is
// refused as it is written; replications 101 is over the 100 allowed.
func TestCompiledBodyFieldsAreNotTheScenarios(t *testing.T) {
	h := newHarness(t, nil)
	for _, tc := range []struct{ path, body, field string }{
		{"/api/v1/optimize", `{"scenario": ` + scenarioJSON(t) + `, "vary": ["SERVERS.simpserv.MIN=1,2"], "objectives": ["response_p99_ms<=100"], "costs": ["SERVERS.simpserv.MIN"]}`, "costs[0]"},
		{"/api/v1/sweeps", `{"scenario": ` + scenarioJSON(t) + `, "vary": ["rate_scale=0.5,1"], "replications": 101}`, "replications"},
	} {
		rec := h.do(http.MethodPost, tc.path, "application/json", tc.body)
		p := wantProblem(t, rec, tc.path, http.StatusUnprocessableEntity, "invalid")
		if len(p.Errors) != 1 || p.Errors[0].Field != tc.field || p.Errors[0].Source != "" {
			t.Errorf("%s: errors %+v, want one item with field %s and no source", tc.path, p.Errors, tc.field)
		}
	}
}

// A sweep of closed-loop clients counts their requests, roughly, against
// --max-sweep-requests before it is stored, each run's up to --max-requests:
// a grid of runs that each go on to the request limit is refused up front,
// not worked for hours. Hand-worked: 100 clients thinking a constant 90 ms
// over 60 000 ms issue about 100 × 60000 / (90 + 10) = 60 000 requests a
// run; 2 points (policy tuxedo, jsq) × 10 replications × 60 000 = 1 200 000.
// A limit of 1 199 999 refuses it (413, naming 1200000); 1 200 000 takes it.
// With --max-requests 50 000 each run counts at most 50 000: 2 × 10 × 50 000
// = 1 000 000, which a limit of 1 000 000 takes.
func TestSweepOfClientsCountsTheirRequests(t *testing.T) {
	var sc map[string]any
	if err := json.Unmarshal([]byte(scenarioJSON(t)), &sc); err != nil {
		t.Fatal(err)
	}
	sc["workload"] = map[string]any{"generate": map[string]any{"duration_ms": 60000, "clients": []any{map[string]any{
		"name": "c", "count": 100, "origin": "site1", "think": map[string]any{"dist": "const", "ms": 90},
		"services": []any{map[string]any{"service": "TOUPPER"}}}}}}
	doc, _ := json.Marshal(sc)
	body := `{"scenario": ` + string(doc) + `, "vary": ["policy=tuxedo,jsq"], "replications": 10}`
	for _, tc := range []struct {
		maxSweep, maxRun int64
		status           int
	}{
		{1199999, 0, http.StatusRequestEntityTooLarge},
		{1200000, 0, http.StatusAccepted},
		{1000000, 50000, http.StatusAccepted},
		{999999, 50000, http.StatusRequestEntityTooLarge},
	} {
		h := newHarness(t, func(c *Config) {
			c.MaxSweepRequests = tc.maxSweep
			if tc.maxRun > 0 {
				c.MaxRequests = tc.maxRun
			}
		})
		rec := h.do(http.MethodPost, "/api/v1/sweeps", "application/json", body)
		if tc.status == http.StatusAccepted {
			if rec.Code != tc.status {
				t.Errorf("limits %d, %d: status %d (%s), want 202", tc.maxSweep, tc.maxRun, rec.Code, rec.Body.String())
			}
			continue
		}
		p := wantProblem(t, rec, "/api/v1/sweeps", tc.status, "too-large")
		want := "about 1200000 requests (2 points, 10 replications; client sets counted"
		if tc.maxRun > 0 {
			want = "about 1000000 requests (2 points, 10 replications; client sets counted"
		}
		if !strings.Contains(p.Detail, want) || p.Limit != float64(tc.maxSweep) {
			t.Errorf("limits %d, %d: detail %q limit %v, want %q and the limit", tc.maxSweep, tc.maxRun, p.Detail, p.Limit, want)
		}
	}
}

// A JSON body saved "UTF-8 with BOM" (Windows editors) is the same document,
// as tuxlb run reads it: POST /runs, /scenarios and /sweeps take it, and the
// shared scenario's id is that of the document without the mark. (Sent past
// the harness's check against the API document, whose JSON reader refuses
// the mark.) A byte that is no UTF-8 where JSON stops is named as a byte, not
// as the Latin-1 letter encoding/json would print: 0xff at line 1 col 1 is
// "invalid byte 0xff (not UTF-8 text)", not "invalid character 'ÿ'".
func TestJSONBodyWithByteOrderMark(t *testing.T) {
	h := newHarness(t, nil)
	doc := scenarioJSON(t)
	raw := func(path, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.srv.ServeHTTP(rec, req)
		return rec
	}
	marked := raw("/api/v1/scenarios", "\uFEFF"+doc)
	plain := h.do(http.MethodPost, "/api/v1/scenarios", "application/json", doc)
	if marked.Code != http.StatusCreated || plain.Code != http.StatusOK || plain.Body.String() != marked.Body.String() {
		t.Errorf("scenarios: with a BOM %d %s, then without %d %s; want 201 then 200 with the same id", marked.Code, marked.Body.String(), plain.Code, plain.Body.String())
	}
	if rec := raw("/api/v1/runs", "\uFEFF"+doc); rec.Code != http.StatusCreated {
		t.Errorf("runs: status %d (%s), want 201", rec.Code, rec.Body.String())
	}
	if rec := raw("/api/v1/sweeps", "\uFEFF"+`{"scenario": `+doc+`, "vary": ["rate_scale=0.5,1"]}`); rec.Code != http.StatusAccepted {
		t.Errorf("sweeps: status %d (%s), want 202", rec.Code, rec.Body.String())
	}

	rec := h.do(http.MethodPost, "/api/v1/runs", "application/json", "\xff{}")
	p := wantProblem(t, rec, "/api/v1/runs", http.StatusBadRequest, "malformed-json")
	const why = "invalid byte 0xff (not UTF-8 text) looking for beginning of value"
	if len(p.Errors) != 1 || p.Errors[0].Message != why || p.Errors[0].Line != 1 || p.Errors[0].Col != 1 {
		t.Errorf("errors %+v, want %q at line 1 col 1", p.Errors, why)
	}
}

// A trace row whose shape is wrong (more fields than the header, a quote
// left open) is placed like a row whose value is wrong: line = the row.
// Hand-worked: formTrace's header has 3 fields; "x,y,z,w" is its row 1 with
// 4. In the second log, row 1 (the text's line 2) opens a quote at col 30
// that the text never closes: row 1, the place on line 2 in the message.
func TestTraceRowShapePlacesTheRow(t *testing.T) {
	h := newHarness(t, nil)
	ctype, body := form(t, "@ubbconfig", formUBB, "@trace", "timestamp,svc,exec_time_ms\nx,y,z,w\n")
	rec := h.do(http.MethodPost, "/api/v1/runs", ctype, body)
	p := wantProblem(t, rec, "/api/v1/runs", http.StatusUnprocessableEntity, "invalid")
	want := ProblemItem{Source: "trace", File: "trace.txt", Line: 1, Severity: "error", Message: "trace row 1: has 4 fields, the header has 3"}
	if len(p.Errors) != 1 || p.Errors[0] != want {
		t.Errorf("errors %+v, want [%+v]", p.Errors, want)
	}
	ctype, body = form(t, "@ubbconfig", formUBB, "@trace", "timestamp,svc,exec_time_ms\n2026-11-29T10:00:00Z,BALANCE,\"3\n")
	rec = h.do(http.MethodPost, "/api/v1/runs", ctype, body)
	p = wantProblem(t, rec, "/api/v1/runs", http.StatusUnprocessableEntity, "invalid")
	if len(p.Errors) != 1 || p.Errors[0].Line != 1 || p.Errors[0].Source != "trace" ||
		!strings.HasPrefix(p.Errors[0].Message, `trace row 1 (line 2 col `) || !strings.HasSuffix(p.Errors[0].Message, `): extraneous or missing " in quoted-field`) {
		t.Errorf("errors %+v, want row 1 and the quote's place in the text", p.Errors)
	}
}
