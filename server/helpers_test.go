package server

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tuxlb/tuxlb/storage"
)

// testAssets stands in for the built playground.
var testAssets = fstest.MapFS{
	"index.html":          {Data: []byte("<!doctype html><title>tuxlb playground</title>")},
	"assets/app.js":       {Data: []byte("console.log(1)")},
	"assets/core.wasm":    {Data: []byte("\x00asm\x01\x00\x00\x00")},
	"assets/style.css":    {Data: []byte("body{}")},
	"assets/nested/x.svg": {Data: []byte("<svg/>")},
}

// harness is a server on a real SQLite file in t.TempDir().
type harness struct {
	t    *testing.T
	srv  *Server
	db   *storage.DB
	logs *strings.Builder
}

// newHarness builds a server; edit adjusts its Config before New.
func newHarness(t *testing.T, edit func(*Config)) *harness {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "tuxlb.db"))
	if err != nil {
		t.Fatalf("storage.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	logs := &strings.Builder{}
	// httptest.NewRequest sends Host: example.com
	cfg := Config{Store: db, Assets: testAssets, Logger: slog.New(slog.NewTextHandler(logs, nil)), AllowedHosts: []string{"example.com"}}
	if edit != nil {
		edit(&cfg)
	}
	return &harness{t: t, srv: New(cfg), db: db, logs: logs}
}

// do sends one request and returns the recorded response.
func (h *harness) do(method, target, contentType, body string, headers ...string) *httptest.ResponseRecorder {
	h.t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.srv.ServeHTTP(rec, req)
	checkExchange(h.t, method, target, contentType, []byte(body), headers, rec)
	return rec
}

// decode unmarshals a JSON response body into v.
func decode(t *testing.T, rec *httptest.ResponseRecorder, v any) {
	t.Helper()
	if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
		t.Fatalf("response is not JSON (%v): %s", err, rec.Body.String())
	}
}

// wantProblem checks that rec is a problem document of this status and type
// slug, consistent with itself and with the request, and returns it.
func wantProblem(t *testing.T, rec *httptest.ResponseRecorder, path string, status int, slug string) Problem {
	t.Helper()
	if rec.Code != status {
		t.Errorf("status got %d, want %d; body %s", rec.Code, status, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type got %q, want application/problem+json", ct)
	}
	var p Problem
	decode(t, rec, &p)
	if p.Type != ProblemTypeBase+slug {
		t.Errorf("type got %q, want %q (detail %q)", p.Type, ProblemTypeBase+slug, p.Detail)
	}
	if p.Status != rec.Code || p.Title == "" || p.Detail == "" {
		t.Errorf("problem got status %d title %q detail %q, want status %d and a title and detail", p.Status, p.Title, p.Detail, rec.Code)
	}
	if p.Instance != path || p.RequestID == "" || p.RequestID != rec.Header().Get("X-Request-ID") {
		t.Errorf("instance %q request_id %q, want %q and the X-Request-ID %q", p.Instance, p.RequestID, path, rec.Header().Get("X-Request-ID"))
	}
	return p
}

// scenarioJSON is the test scenario of testdata/scenario.json.
func scenarioJSON(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("testdata/scenario.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// createdRun is the body of a 201 from POST /runs.
type createdRun struct {
	ID     string          `json:"id"`
	Result json.RawMessage `json:"result"`
}

// postRun posts the scenario and insists on a 201.
func (h *harness) postRun(query, scenario string) createdRun {
	h.t.Helper()
	rec := h.do(http.MethodPost, "/api/v1/runs"+query, "application/json", scenario)
	if rec.Code != http.StatusCreated {
		h.t.Fatalf("POST /api/v1/runs%s: status %d, want 201; body %s", query, rec.Code, rec.Body.String())
	}
	var out createdRun
	decode(h.t, rec, &out)
	if !validID().MatchString(out.ID) || rec.Header().Get("Location") != "/api/v1/runs/"+out.ID {
		h.t.Fatalf("id %q Location %q: want a 22-character id and its URL", out.ID, rec.Header().Get("Location"))
	}
	return out
}

// readAll reads a body for comparison.
func readAll(t *testing.T, r io.Reader) string {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
