package server

import (
	"bytes"
	"mime/multipart"
	"strings"
	"testing"
)

// A web page on another site can make the user's browser post to a local
// server without asking first (a form, multipart/form-data or text/plain).
// Every state-changing request from another origin is refused before its
// body is read, whatever its type; the server's own pages, the origins of
// --cors-origins and clients that send no Origin (curl) are served.
func TestCrossSiteRequestsRefused(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.CORSOrigins = []string{"https://ok.example"} })
	run := h.postRun("", scenarioJSON(t))
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	mw.WriteField("scenario", scenarioJSON(t))
	mw.Close()
	sweep := `{"scenario": ` + scenarioJSON(t) + `, "vary": ["rate_scale=1,2"]}`
	for _, tc := range []struct {
		method, path, ctype, body string
	}{
		{"POST", "/api/v1/runs", mw.FormDataContentType(), form.String()},
		{"POST", "/api/v1/runs", "application/json", scenarioJSON(t)},
		{"POST", "/api/v1/scenarios", "application/json", scenarioJSON(t)},
		{"POST", "/api/v1/sweeps", "application/json", sweep},
		{"POST", "/api/v1/validate", "text/plain", "*RESOURCES\n"},
		{"POST", "/api/v1/runs/" + run.ID + "/rerun", "", ""},
		{"DELETE", "/api/v1/sweeps/AAAAAAAAAAAAAAAAAAAAAA", "", ""},
	} {
		for _, headers := range [][]string{
			{"Origin", "https://evil.example"},
			{"Origin", "null"},
			{"Origin", "http://example.com.evil.example"},
			{"Sec-Fetch-Site", "cross-site"},
			{"Origin", "http://localhost:3000", "Sec-Fetch-Site", "same-site"},
		} {
			rec := h.do(tc.method, tc.path, tc.ctype, tc.body, headers...)
			p := wantProblem(t, rec, tc.path, 403, "cross-origin")
			if !strings.Contains(p.Detail, "--cors-origins") {
				t.Errorf("%s %s %v: detail %q, want the flag named", tc.method, tc.path, headers, p.Detail)
			}
		}
	}
	var list struct {
		Runs []any `json:"runs"`
	}
	decode(t, h.do("GET", "/api/v1/runs", "", ""), &list)
	if len(list.Runs) != 1 {
		t.Errorf("got %d stored runs, want only the first", len(list.Runs))
	}
	// the server's own page, an allowed origin, a client without Origin
	for _, headers := range [][]string{
		{"Origin", "http://example.com", "Sec-Fetch-Site", "same-origin"},
		{"Origin", "http://EXAMPLE.com"},
		{"Origin", "https://ok.example", "Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "none"},
		nil,
	} {
		if rec := h.do("POST", "/api/v1/scenarios", "application/json", scenarioJSON(t), headers...); rec.Code != 200 {
			t.Errorf("%v: got %d, want 200; %s", headers, rec.Code, rec.Body.String())
		}
	}
	// reading is not refused: a cross-origin page cannot read the answer anyway
	if rec := h.do("GET", "/api/v1/runs", "", "", "Origin", "https://evil.example"); rec.Code != 200 {
		t.Errorf("GET from another origin: got %d, want 200", rec.Code)
	}
}

// A body must be what its Content-Type says: a JSON document labelled
// multipart/form-data is not read as JSON.
func TestBodyMatchesItsType(t *testing.T) {
	h := newHarness(t, nil)
	sweep := `{"scenario": ` + scenarioJSON(t) + `, "vary": ["rate_scale=1,2"]}`
	for _, tc := range []struct {
		path, body string
		status     int
		slug       string
	}{
		{"/api/v1/scenarios", scenarioJSON(t), 415, "unsupported-media-type"},
		{"/api/v1/sweeps", sweep, 415, "unsupported-media-type"},
		{"/api/v1/runs", scenarioJSON(t), 400, "malformed-multipart"},
	} {
		wantProblem(t, h.do("POST", tc.path, "multipart/form-data; boundary=xyz", tc.body), tc.path, tc.status, tc.slug)
	}
	var list struct {
		Runs []any `json:"runs"`
	}
	decode(t, h.do("GET", "/api/v1/runs", "", ""), &list)
	if len(list.Runs) != 0 {
		t.Errorf("got %d stored runs, want none", len(list.Runs))
	}
}
