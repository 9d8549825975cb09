package server

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// badEnvelope is a request whose JSON envelope is wrong, and the problem it
// should get: 422 invalid, its one item naming the key's path, placed.
type badEnvelope struct {
	name, path, ctype, body string
	field, detail           string
	line, col               int
	source                  string
}

// check sends the request and checks the problem.
func (tt badEnvelope) check(t *testing.T, h *harness) {
	t.Helper()
	ctype := tt.ctype
	if ctype == "" {
		ctype = "application/json"
	}
	rec := h.do(http.MethodPost, tt.path, ctype, tt.body)
	p := wantProblem(t, rec, tt.path, http.StatusUnprocessableEntity, "invalid")
	if p.Detail != tt.detail {
		t.Errorf("%s: detail got %q, want %q", tt.name, p.Detail, tt.detail)
	}
	if len(p.Errors) != 1 || p.Errors[0].Field != tt.field || p.Errors[0].Line != tt.line || p.Errors[0].Col != tt.col ||
		p.Errors[0].Source != tt.source || p.Errors[0].Message != tt.detail {
		t.Errorf("%s: errors got %+v, want one with field %q source %q at line %d col %d", tt.name, p.Errors, tt.field, tt.source, tt.line, tt.col)
	}
	// Go's words for its types never reach the client.
	for _, leak := range []string{"Go ", "unmarshal", "[]string", "uint64", "int64", "float64", "Request", "calibrateOptions", "configInput", "struct"} {
		if strings.Contains(rec.Body.String(), leak) {
			t.Errorf("%s: the problem says %q: %s", tt.name, leak, rec.Body.String())
		}
	}
}

// calibrateOptionsBody is a POST /calibrate form whose options part is
// options (the part is read before anything is fitted).
func calibrateOptionsBody(options string) (string, string) {
	return calibrateBody("time_ms,service\n1,QA\n", options)
}

// A value of the wrong type in a body the server decodes is named by its
// key's path, with its line and column, and described in JSON's words.
func TestEnvelopeTypeErrors(t *testing.T) {
	h := newHarness(t, nil)
	sc := `{"ubbconfig": "x"}`
	seedType, seedBody := calibrateOptionsBody(`{"seed": -1}`)
	tolType, tolBody := calibrateOptionsBody(`{"replications": 2,` + "\n" + ` "tolerance": {"p99": "a"}}`)
	unknownType, unknownBody := calibrateOptionsBody(`{"tolerance": {"p98": 0.1}}`)
	for _, tt := range []badEnvelope{
		{name: "sweep vary a string", path: "/api/v1/sweeps", body: `{"scenario": ` + sc + `, "vary": "rate_scale=1"}`,
			field: "vary", detail: "vary: want a list of strings, got a string", line: 1, col: 42},
		{name: "sweep replications out of range", path: "/api/v1/sweeps", body: `{"scenario": ` + sc + ",\n" + `"vary": ["rate_scale=1"], "replications": 1e308}`,
			field: "replications", detail: "replications: want a whole number, got 1e308", line: 2, col: 43},
		{name: "sweep objective in a list a number", path: "/api/v1/sweeps", body: `{"scenario": ` + sc + `, "objectives": ["wait_mean_ms<=5", 5]}`,
			field: "objectives[1]", detail: "objectives[1]: want a string, got a number", line: 1, col: 68},
		{name: "sweep unknown field", path: "/api/v1/sweeps", body: `{"scenario": ` + sc + `, "jobs": 2}`,
			field: "jobs", detail: "jobs: unknown field (want scenario, vary, replications, objective, objectives, precision, max_replications, figures)", line: 1, col: 34},
		{name: "sweep an array", path: "/api/v1/sweeps", body: `[1]`,
			detail: `want an object {"scenario", "vary", "replications", "objective", "objectives", "precision", "max_replications", "figures"}, got an array`, line: 1, col: 1},
		{name: "optimize first_stage a fraction", path: "/api/v1/optimize", body: `{"scenario": ` + sc + `, "first_stage": 1.5}`,
			field: "first_stage", detail: "first_stage: want a whole number, got 1.5", line: 1, col: 49},
		{name: "optimize pcs a string", path: "/api/v1/optimize", body: `{"scenario": ` + sc + `, "pcs": "high"}`,
			field: "pcs", detail: "pcs: want a number, got a string", line: 1, col: 41},
		{name: "validate advertise entry", path: "/api/v1/validate", body: `{"ubbconfig": "x", "advertise": {"simpserv": ["A", 2]}}`,
			field: "advertise.simpserv[1]", detail: "advertise.simpserv[1]: want a string, got a number", line: 1, col: 52},
		{name: "calibrate seed negative", path: "/api/v1/calibrate", ctype: seedType, body: seedBody, source: "options",
			field: "seed", detail: "options: seed: want a whole number from 0 to 18446744073709551615, got -1", line: 1, col: 10},
		{name: "calibrate tolerance a string", path: "/api/v1/calibrate", ctype: tolType, body: tolBody, source: "options",
			field: "tolerance.p99", detail: "options: tolerance.p99: want a number, got a string", line: 2, col: 23},
		{name: "calibrate unknown tolerance", path: "/api/v1/calibrate", ctype: unknownType, body: unknownBody, source: "options",
			field: "tolerance.p98", detail: "options: tolerance.p98: unknown field (want default, mean, p50, p95, p99)", line: 1, col: 16},
	} {
		tt.check(t, h)
	}
}

// placeOf is the line and column of byte offset i of body.
func placeOf(body string, i int) (line, col int) {
	return strings.Count(body[:i], "\n") + 1, i - strings.LastIndexByte(body[:i], '\n')
}

// A key given twice in one object of a body the server decodes is refused
// as the scenario reader refuses it (encoding/json would keep the last):
// 422 naming the key's path and where its second one is.
func TestEnvelopeDuplicateKeys(t *testing.T) {
	h := newHarness(t, nil)
	sc := scenarioJSON(t)
	sweep := `{"scenario": ` + sc + `, "vary": ["rate_scale=1,2"], "vary": ["rate_scale=3"], "replications": 1}`
	optimize := `{"scenario": ` + sc + `, "vary": ["SERVERS.simpserv.MIN=1,2"], "objectives": ["wait_mean_ms<=5"],` +
		"\n" + `  "objectives": ["wait_mean_ms<=50"]}`
	nested := `{"scenario": {"seed": 1, "seed": 2}, "vary": ["rate_scale=1"]}`
	validate := `{"ubbconfig": "*RESOURCES", "dmconfig": "", "ubbconfig": "*MACHINES"}`
	options := `{"seed": 1, "seed": 2}`
	calType, calBody := calibrateOptionsBody(options)
	for _, tc := range []struct {
		name, path, ctype, body, doc, second, field, what, source, prefix string
	}{
		{"sweep vary", "/api/v1/sweeps", "", sweep, sweep, `"vary": ["rate_scale=3"]`, "vary", "body", "", ""},
		{"optimize objectives", "/api/v1/optimize", "", optimize, optimize, `"objectives": ["wait_mean_ms<=50"]`, "objectives", "body", "", ""},
		{"a sweep's scenario", "/api/v1/sweeps", "", nested, nested, `"seed": 2`, "scenario.seed", "body", "", ""},
		{"validate ubbconfig", "/api/v1/validate", "", validate, validate, `"ubbconfig": "*MACHINES"`, "ubbconfig", "body", "", ""},
		{"calibrate seed", "/api/v1/calibrate", calType, calBody, options, `"seed": 2`, "seed", "options", "options", "options: "},
	} {
		line, col := placeOf(tc.doc, strings.LastIndex(tc.doc, tc.second))
		tt := badEnvelope{name: tc.name, path: tc.path, ctype: tc.ctype, body: tc.body, field: tc.field, source: tc.source, line: line, col: col}
		tt.detail = fmt.Sprintf("%s%s: given twice in one object (%s line %d col %d); give each key once", tc.prefix, tc.field, tc.what, line, col)
		tt.check(t, h)
	}
	// the same key in two objects is fine
	rec := h.do(http.MethodPost, "/api/v1/sweeps", "application/json", sweepBody(t, []string{"rate_scale=1"}, 1, ""))
	if rec.Code != http.StatusAccepted {
		t.Errorf("a sweep without a key given twice: %d %s", rec.Code, rec.Body.String())
	}
}

// calibrate's options part is one JSON document, as the run form's
// scenario part is: what is not (trailing data, a syntax error) is 400
// malformed-json naming the part, placed.
func TestCalibrateOptionsOneDocument(t *testing.T) {
	h := newHarness(t, nil)
	for _, tc := range []struct {
		options, message string
		line, col        int
	}{
		{`{"seed": 1} {"seed": 2}`, "trailing data after the document", 1, 13},
		{"{\"seed\": 1,\n \"replications\" 2}", "invalid character '2' after object key", 2, 17},
	} {
		ctype, body := calibrateOptionsBody(tc.options)
		p := wantProblem(t, h.do(http.MethodPost, "/api/v1/calibrate", ctype, body), "/api/v1/calibrate", http.StatusBadRequest, "malformed-json")
		if !strings.HasPrefix(p.Detail, "form part options: ") || len(p.Errors) != 1 || p.Errors[0].Field != "options" ||
			p.Errors[0].Line != tc.line || p.Errors[0].Col != tc.col || p.Errors[0].Message != tc.message {
			t.Errorf("options %q: got %q %+v, want the part options named, %q at line %d col %d", tc.options, p.Detail, p.Errors, tc.message, tc.line, tc.col)
		}
	}
}

// An envelope's scenario that is no object is named by its field.
func TestEnvelopeScenarioNotAnObject(t *testing.T) {
	h := newHarness(t, nil)
	for _, path := range []string{"/api/v1/sweeps", "/api/v1/optimize"} {
		body := `{"scenario": "x", "vary": ["rate_scale=1"], "objectives": ["wait_mean_ms<=10"]}`
		if path == "/api/v1/sweeps" {
			body = `{"scenario": "x", "vary": ["rate_scale=1"]}`
		}
		p := wantProblem(t, h.do("POST", path, "application/json", body), path, 422, "invalid")
		if len(p.Errors) != 1 || p.Errors[0].Field != "scenario" || !strings.Contains(p.Detail, "want an object") || !strings.Contains(p.Detail, "got a string") {
			t.Errorf("%s: detail %q errors %+v, want the field scenario named", path, p.Detail, p.Errors)
		}
	}
}

// An empty body says so, with the fields it wants, not Go's EOF.
func TestEnvelopeEmpty(t *testing.T) {
	h := newHarness(t, nil)
	rec := h.do("POST", "/api/v1/sweeps", "application/json", "")
	if rec.Code/100 != 4 || strings.Contains(rec.Body.String(), "EOF") || !strings.Contains(rec.Body.String(), "empty") {
		t.Errorf("an empty body: %d %s, want a 4xx saying it is empty", rec.Code, rec.Body.String())
	}
}
