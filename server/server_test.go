package server

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"os"
	"sort"
	"strings"
	"testing"
)

func TestOpenAPIListsEveryRoute(t *testing.T) {
	h := newHarness(t, nil)
	rec := h.do("GET", "/api/openapi.json", "", "")
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	decode(t, rec, &doc)
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi got %q, want 3.1.0", doc.OpenAPI)
	}
	var documented []string
	for path, ops := range doc.Paths {
		for method := range ops {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	routes := h.srv.Routes()
	sort.Strings(documented)
	sort.Strings(routes)
	if strings.Join(documented, "\n") != strings.Join(routes, "\n") {
		t.Errorf("OpenAPI and echo disagree:\ndocumented:\n%s\nrouted:\n%s", strings.Join(documented, "\n"), strings.Join(routes, "\n"))
	}
}

// TestOpenAPIEveryOperationHasDefault checks what docs/api.md promises: every
// operation lists, besides its own statuses, a default problem document for
// those any path can give (400 malformed-query, 403, 405, 421, 500, 503), so
// a client generated from the document can read every error it gets.
func TestOpenAPIEveryOperationHasDefault(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Ref string `json:"$ref"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			n++
			if d, ok := op.Responses["default"]; !ok || d.Ref != "#/components/responses/Problem" {
				t.Errorf("%s %s: no default problem response (got %+v)", strings.ToUpper(method), path, d)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d operations read from the document", n)
	}
}

func TestSecurityHeaders(t *testing.T) {
	h := newHarness(t, nil)
	for _, path := range []string{"/", "/assets/app.js", "/api/v1/runs", "/api/v1/nothing", "/s/" + unknownID} {
		rec := h.do("GET", path, "", "")
		csp := rec.Header().Get("Content-Security-Policy")
		for _, want := range []string{"script-src 'self' 'wasm-unsafe-eval'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", path, csp, want)
			}
		}
		for _, d := range strings.Split(csp, ";") {
			if strings.HasPrefix(strings.TrimSpace(d), "script-src") && strings.Contains(d, "unsafe-inline") {
				t.Errorf("%s: CSP allows inline scripts: %q", path, csp)
			}
		}
		if rec.Header().Get("X-Content-Type-Options") != "nosniff" || rec.Header().Get("Referrer-Policy") == "" {
			t.Errorf("%s: missing nosniff or Referrer-Policy", path)
		}
		if rec.Header().Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s: CORS header set although no origins were given", path)
		}
	}
}

func TestAssetTypes(t *testing.T) {
	h := newHarness(t, nil)
	tests := map[string]string{
		"/assets/core.wasm":    "application/wasm",
		"/assets/app.js":       "text/javascript; charset=utf-8",
		"/assets/style.css":    "text/css; charset=utf-8",
		"/assets/nested/x.svg": "image/svg+xml",
		"/index.html":          "text/html; charset=utf-8",
	}
	for path, want := range tests {
		rec := h.do("GET", path, "", "")
		if rec.Code != 200 || rec.Header().Get("Content-Type") != want {
			t.Errorf("GET %s: %d %q, want 200 %q", path, rec.Code, rec.Header().Get("Content-Type"), want)
		}
	}
	if rec := h.do("GET", "/assets/core.wasm", "", ""); !bytes.HasPrefix(rec.Body.Bytes(), []byte("\x00asm")) {
		t.Errorf("wasm body got %q", rec.Body.Bytes())
	}
}

func TestCORS(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.CORSOrigins = []string{"https://allowed.example"} })
	tests := map[string]string{"https://allowed.example": "https://allowed.example", "https://evil.example": ""}
	for origin, want := range tests {
		rec := h.do("GET", "/api/v1/runs", "", "", "Origin", origin)
		if got := rec.Header().Get("Access-Control-Allow-Origin"); got != want {
			t.Errorf("Origin %s: Access-Control-Allow-Origin got %q, want %q", origin, got, want)
		}
	}
}

func TestRequestID(t *testing.T) {
	h := newHarness(t, nil)
	tests := []struct{ sent, want string }{{"abc-123", "abc-123"}, {"bad id\nwith newline", ""}, {strings.Repeat("x", 65), ""}}
	for _, tt := range tests {
		rec := h.do("GET", "/healthz", "", "", "X-Request-ID", tt.sent)
		got := rec.Header().Get("X-Request-ID")
		if (tt.want != "" && got != tt.want) || got == "" || (tt.want == "" && got == tt.sent) {
			t.Errorf("sent %q: got %q, want %q (or a fresh id)", tt.sent, got, tt.want)
		}
		if !strings.Contains(h.logs.String(), "request_id="+got) {
			t.Errorf("no log line with request_id=%s", got)
		}
	}
}

func TestHealthz(t *testing.T) {
	h := newHarness(t, nil)
	rec := h.do("GET", "/healthz", "", "")
	var got map[string]string
	decode(t, rec, &got)
	if rec.Code != 200 || got["status"] != "ok" {
		t.Errorf("got %d %v, want 200 ok", rec.Code, got)
	}
	h.db.Close()
	wantProblem(t, h.do("GET", "/healthz", "", ""), "/healthz", 503, "unavailable")
}

// ubbconfig is the test UBBCONFIG.
func ubbconfig(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("testdata/ubbconfig.ubb")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestValidateAcceptsThreeForms(t *testing.T) {
	h := newHarness(t, nil)
	ubb := ubbconfig(t)
	asJSON, _ := json.Marshal(map[string]string{"ubbconfig": ubb})
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("ubbconfig", "ubbconfig.ubb")
	fw.Write([]byte(ubb))
	mw.WriteField("dmconfig", "")
	mw.Close()
	tests := []struct{ name, ctype, body string }{
		{"text/plain", "text/plain; charset=utf-8", ubb},
		{"no content type", "", ubb},
		{"json", "application/json", string(asJSON)},
		{"multipart", mw.FormDataContentType(), form.String()},
	}
	for _, tt := range tests {
		rec := h.do("POST", "/api/v1/validate", tt.ctype, tt.body)
		if rec.Code != 200 {
			t.Errorf("%s: status %d: %s", tt.name, rec.Code, rec.Body.String())
			continue
		}
		var m struct {
			Model   string `json:"model"`
			LDBAL   bool   `json:"ldbal"`
			Servers []struct {
				ID string `json:"id"`
			} `json:"servers"`
		}
		decode(t, rec, &m)
		if m.Model != "SHM" || !m.LDBAL || len(m.Servers) != 3 || m.Servers[2].ID != "APPGRP/3" {
			t.Errorf("%s: got %+v, want SHM, LDBAL and APPGRP/1..3", tt.name, m)
		}
	}
}

func TestValidateErrors(t *testing.T) {
	h := newHarness(t, nil)
	broken := strings.Replace(ubbconfig(t), "MODEL\t\tSHM", "MODEL\t\tXYZ", 1)
	tests := []struct {
		name, ctype, body string
		status            int
		slug, field       string
		line              int
	}{
		{"bad MODEL", "text/plain", broken, 422, "invalid", "", 5},
		{"empty", "text/plain", "  \n", 422, "invalid", "ubbconfig", 0},
		{"json unknown field", "application/json", `{"ubbconfig":"x","ubbconf":"y"}`, 422, "invalid", "ubbconf", 0},
		{"json wrong type", "application/json", `{"ubbconfig":5}`, 422, "invalid", "ubbconfig", 0},
		{"json malformed", "application/json", `{"ubbconfig":`, 400, "malformed-json", "", 1},
		{"multipart without boundary", "multipart/form-data", "x", 400, "malformed-multipart", "", 0},
		{"unparsable content type", "text/plain; ===", "x", 415, "unsupported-media-type", "", 0},
	}
	for _, tt := range tests {
		p := wantProblem(t, h.do("POST", "/api/v1/validate", tt.ctype, tt.body), "/api/v1/validate", tt.status, tt.slug)
		if len(p.Errors) == 0 && tt.status != 415 && tt.slug != "malformed-multipart" {
			t.Errorf("%s: no errors listed", tt.name)
			continue
		}
		if tt.field != "" && p.Errors[0].Field != tt.field {
			t.Errorf("%s: field got %q, want %q", tt.name, p.Errors[0].Field, tt.field)
		}
		if tt.line != 0 && p.Errors[0].Line != tt.line {
			t.Errorf("%s: line got %d, want %d (%+v)", tt.name, p.Errors[0].Line, tt.line, p.Errors)
		}
	}
}

// TestConfigNamedAlikeOnEveryRoute: a bad UBBCONFIG's diagnostic names the
// same source and file ("ubbconfig") whichever route and body form brought
// it, so that a client reads it the one way.
func TestConfigNamedAlikeOnEveryRoute(t *testing.T) {
	h := newHarness(t, nil)
	broken := strings.Replace(ubbconfig(t), "MODEL\t\tSHM", "MODEL\t\tXYZ", 1)
	var sc map[string]any
	if err := json.Unmarshal([]byte(scenarioJSON(t)), &sc); err != nil {
		t.Fatal(err)
	}
	sc["ubbconfig"] = broken
	scenario, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	in, err := json.Marshal(map[string]string{"ubbconfig": broken})
	if err != nil {
		t.Fatal(err)
	}
	fieldType, fieldBody := form(t, "ubbconfig", broken)
	fileType, fileBody := form(t, "@ubbconfig", broken)
	tests := []struct{ name, path, ctype, body string }{
		{"validate, text", "/api/v1/validate", "text/plain", broken},
		{"validate, JSON", "/api/v1/validate", "application/json", string(in)},
		{"validate, form field", "/api/v1/validate", fieldType, fieldBody},
		{"validate, form file", "/api/v1/validate", fileType, fileBody},
		{"runs, scenario", "/api/v1/runs", "application/json", string(scenario)},
		{"runs, form field", "/api/v1/runs", fieldType, fieldBody},
		{"runs, form file", "/api/v1/runs", fileType, fileBody},
		{"sweeps", "/api/v1/sweeps", "application/json", `{"vary": ["rate_scale=1..2/1"], "scenario": ` + string(scenario) + `}`},
	}
	for _, tt := range tests {
		p := wantProblem(t, h.do("POST", tt.path, tt.ctype, tt.body), tt.path, 422, "invalid")
		if len(p.Errors) == 0 {
			t.Errorf("%s: no errors listed", tt.name)
			continue
		}
		if e := p.Errors[0]; e.Source != "ubbconfig" || e.File != "ubbconfig" || e.Line != 5 {
			t.Errorf("%s: source %q file %q line %d, want ubbconfig, ubbconfig, 5 (%+v)", tt.name, e.Source, e.File, e.Line, p.Errors)
		}
	}
}

// TestValidateJSONMessages checks that a wrong JSON body for /validate is
// described in the scenario reader's words, not Go's type names.
func TestValidateJSONMessages(t *testing.T) {
	h := newHarness(t, nil)
	tests := []struct{ name, body, detail string }{
		{"number for string", `{"ubbconfig":5}`, "ubbconfig: want a string, got a number"},
		{"string for object", `{"ubbconfig":"x","advertise":"simpserv"}`, "advertise: want an object, got a string"},
		{"array for document", `[]`, `want an object {"ubbconfig", "dmconfig", "advertise"}, got an array`},
		{"unknown field", `{"ubbconf":"x"}`, "ubbconf: unknown field (want ubbconfig, dmconfig, advertise)"},
	}
	for _, tt := range tests {
		p := wantProblem(t, h.do("POST", "/api/v1/validate", "application/json", tt.body), "/api/v1/validate", 422, "invalid")
		if p.Detail != tt.detail {
			t.Errorf("%s: detail got %q, want %q", tt.name, p.Detail, tt.detail)
		}
	}
}

// TestValidateMediaTypeHint checks that the 415 for curl's default form type
// says how to send the file, and that other types get no curl hint.
func TestValidateMediaTypeHint(t *testing.T) {
	h := newHarness(t, nil)
	tests := []struct{ ctype, detail string }{
		{"application/x-www-form-urlencoded", `Content-Type "application/x-www-form-urlencoded": send text/plain, application/json or multipart/form-data (curl --data-binary sends this type unless told: add -H 'Content-Type: text/plain')`},
		{"image/png", `Content-Type "image/png": send text/plain, application/json or multipart/form-data`},
	}
	for _, tt := range tests {
		p := wantProblem(t, h.do("POST", "/api/v1/validate", tt.ctype, "x"), "/api/v1/validate", 415, "unsupported-media-type")
		if p.Detail != tt.detail {
			t.Errorf("%s: detail got %q, want %q", tt.ctype, p.Detail, tt.detail)
		}
	}
}
