package server

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/result"
)

// What Go's HTTP server answers on its own, before any handler (a request
// it cannot read), leaves as a problem document like every other error.
func TestHTTPLayerErrorsAreProblems(t *testing.T) {
	h := newHarness(t, nil)
	ts := httptest.NewUnstartedServer(h.srv)
	ts.Listener = ProblemListener(ts.Listener)
	ts.Start()
	defer ts.Close()
	for _, tc := range []struct {
		name, request string
		status        int
		slug, detail  string
	}{
		{"no Host", "GET /healthz HTTP/1.1\r\n\r\n", 400, "malformed-request", "missing required Host header"},
		{"bad header line", "GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", 400, "malformed-request", "malformed"},
		{"bad request line", "GARBAGE\r\n\r\n", 400, "malformed-request", "malformed"},
		{"headers too large", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 2<<20) + "\r\n\r\n", 431, "headers-too-large", "over the limit"},
		{"unknown transfer coding", "POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: rot13\r\n\r\n", 501, "unsupported-transfer-encoding", "Transfer-Encoding"},
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		go io.WriteString(conn, tc.request)
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			conn.Close()
			continue
		}
		var p Problem
		body, _ := io.ReadAll(res.Body)
		err = json.Unmarshal(body, &p)
		if res.StatusCode != tc.status || res.Header.Get("Content-Type") != "application/problem+json" || err != nil ||
			p.Type != ProblemTypeBase+tc.slug || p.Status != tc.status || !strings.Contains(p.Detail, tc.detail) {
			t.Errorf("%s: got %d %q %s, want %d problem %s saying %q", tc.name, res.StatusCode, res.Header.Get("Content-Type"), body, tc.status, tc.slug, tc.detail)
		}
		conn.Close()
	}
	// the server's own answers are untouched
	res, err := http.Get(ts.URL + "/healthz")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("GET /healthz: %v %v", res, err)
	}
	res.Body.Close()
}

// A Range that selects nothing of a playground file is a problem too, not
// net/http's plain text.
func TestRangeErrorIsProblem(t *testing.T) {
	h := newHarness(t, nil)
	rec := h.do("GET", "/assets/app.js", "", "", "Range", "bytes=1000-2000")
	p := wantProblem(t, rec, "/assets/app.js", 416, "range-not-satisfiable")
	if !strings.Contains(p.Detail, "14 bytes") {
		t.Errorf("detail %q, want the file's size", p.Detail)
	}
	if rec := h.do("GET", "/assets/app.js", "", "", "Range", "bytes=0-3"); rec.Code != 206 || rec.Body.String() != "cons" {
		t.Errorf("a good Range: got %d %q, want 206 \"cons\"", rec.Code, rec.Body.String())
	}
}

// A client that stops sending its body is cut after the stall timeout,
// not at the end of the whole request's time.
func TestStalledBodyCut(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.BodyStallTimeout, c.BodyTimeout = 300*time.Millisecond, time.Hour })
	ts := httptest.NewServer(h.srv)
	defer ts.Close()
	for _, ctype := range []string{"application/json", "multipart/form-data; boundary=b"} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		io.WriteString(conn, "POST /api/v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "+ctype+"\r\nContent-Length: 1000\r\n\r\n{\"name\"")
		start := time.Now()
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: %v (want a 408 before the connection's own limit)", ctype, err)
		}
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != 408 || !strings.Contains(string(body), "body-stalled") || time.Since(start) > 20*time.Second {
			t.Errorf("%s: got %d %s after %s, want 408 body-stalled soon after 300ms", ctype, res.StatusCode, body, time.Since(start))
		}
		conn.Close()
	}
}

// The stall timeout covers waiting for the body, not what comes after it:
// a run that takes longer than the stall timeout, once its body is read,
// is not cut.
func TestStallTimeoutEndsWithTheBody(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.BodyStallTimeout, c.BodyTimeout = 200*time.Millisecond, time.Hour
		c.Run = func(pr *core.Prepared, opt core.RunOptions) (*result.Result, error) {
			select {
			case <-time.After(time.Second):
			case <-opt.Context.Done():
				return nil, opt.Context.Err()
			}
			return runPrepared(pr, opt)
		}
	})
	ts := httptest.NewServer(h.srv)
	defer ts.Close()
	ctype, form := form(t, "scenario", scenarioJSON(t))
	for _, tc := range [][2]string{{"application/json", scenarioJSON(t)}, {ctype, form}} {
		res, err := http.Post(ts.URL+"/api/v1/runs", tc[0], strings.NewReader(tc[1]))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 201 {
			t.Errorf("%.30s: a run longer than the stall timeout: got %d %s, want 201", tc[0], res.StatusCode, body)
		}
	}
}
