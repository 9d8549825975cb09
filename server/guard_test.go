package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// POST /runs takes only JSON or multipart, POST /scenarios only JSON: any
// other type stores nothing.
func TestPostBodyTypes(t *testing.T) {
	h := newHarness(t, nil)
	for _, tc := range []struct {
		path, ctype string
		status      int
	}{
		{"/api/v1/runs", "text/plain", 415},
		{"/api/v1/runs", "application/x-www-form-urlencoded", 415},
		{"/api/v1/runs", "", 415},
		{"/api/v1/runs", "application/jsonx", 415},
		{"/api/v1/scenarios", "text/plain;charset=utf-8", 415},
		{"/api/v1/runs", "application/json; charset=utf-8", 201},
		{"/api/v1/scenarios", "application/json", 200}, // stored by the run already
	} {
		rec := h.do("POST", tc.path, tc.ctype, scenarioJSON(t))
		if tc.status != 415 {
			if rec.Code != tc.status {
				t.Errorf("%s %q: got %d, want %d; %s", tc.path, tc.ctype, rec.Code, tc.status, rec.Body.String())
			}
			continue
		}
		p := wantProblem(t, rec, tc.path, 415, "unsupported-media-type")
		want := "send application/json or multipart/form-data"
		if tc.path == "/api/v1/scenarios" {
			want = "send application/json"
		}
		if !strings.Contains(p.Detail, want) {
			t.Errorf("%s %q: detail %q, want the accepted types named", tc.path, tc.ctype, p.Detail)
		}
	}
	var list struct {
		Runs []any `json:"runs"`
	}
	decode(t, h.do("GET", "/api/v1/runs", "", ""), &list)
	if len(list.Runs) != 1 {
		t.Errorf("got %d stored runs, want only the JSON one", len(list.Runs))
	}
}

// A Content-Type that names a type the path reads, with parameters that
// cannot be read (a boundary= without a value, a stray ;), says so: "send
// multipart/form-data" alone was said of a multipart/form-data body.
func TestUnreadableContentTypeSaysSo(t *testing.T) {
	h := newHarness(t, nil)
	for _, tc := range []struct{ path, ctype, want string }{
		{"/api/v1/runs", "multipart/form-data; boundary=", `Content-Type "multipart/form-data; boundary=" (its parameters cannot be read: invalid media parameter): send application/json or multipart/form-data`},
		{"/api/v1/scenarios", "application/json;;", `Content-Type "application/json;;" (its parameters cannot be read: invalid media parameter): send application/json`},
		{"/api/v1/validate", "text/plain; charset", `Content-Type "text/plain; charset" (its parameters cannot be read: invalid media parameter): send text/plain`},
		{"/api/v1/fit", "multipart/form-data; boundary=", `Content-Type "multipart/form-data; boundary=" (its parameters cannot be read: invalid media parameter); POST /api/v1/fit takes multipart/form-data`},
		{"/api/v1/calibrate", "multipart/form-data; boundary=", `(its parameters cannot be read: invalid media parameter); POST /api/v1/calibrate takes multipart/form-data`},
		{"/api/v1/runs", "text/csv", `Content-Type "text/csv": send application/json or multipart/form-data`},
	} {
		p := wantProblem(t, h.do("POST", tc.path, tc.ctype, "x"), tc.path, 415, "unsupported-media-type")
		if !strings.Contains(p.Detail, tc.want) {
			t.Errorf("%s %q: detail %q, want %q", tc.path, tc.ctype, p.Detail, tc.want)
		}
	}
}

// A compressed body is refused for what it is, not misread as bad JSON.
func TestCompressedBodyRefused(t *testing.T) {
	h := newHarness(t, nil)
	for _, path := range []string{"/api/v1/runs", "/api/v1/scenarios", "/api/v1/validate"} {
		p := wantProblem(t, h.do("POST", path, "application/json", "\x1f\x8b\x08\x00", "Content-Encoding", "gzip"), path, 415, "unsupported-media-type")
		if !strings.Contains(p.Detail, `Content-Encoding "gzip": send the body uncompressed`) {
			t.Errorf("%s: detail %q", path, p.Detail)
		}
	}
	if rec := h.do("POST", "/api/v1/scenarios", "application/json", scenarioJSON(t), "Content-Encoding", "identity"); rec.Code != 201 {
		t.Errorf("identity encoding: got %d, want 201", rec.Code)
	}
}

// DNS rebinding: a page on evil.example whose name now points at 127.0.0.1
// sends Host: evil.example. Only IP addresses, localhost and the names given
// by --allowed-hosts are served.
func TestHostHeader(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.AllowedHosts = []string{"Tuxlb.Internal."} })
	for _, tc := range []struct {
		host   string
		status int
	}{
		{"evil.example", 421},
		{"evil.example:8080", 421},
		{"localhost.evil.example", 421},
		{"example.com", 421},
		{"localhost", 200},
		{"localhost:8080", 200},
		{"app.localhost:8080", 200},
		{"127.0.0.1:8080", 200},
		{"[::1]:8080", 200},
		{"192.168.1.20", 200},
		{"tuxlb.internal:8080", 200},
		{"TUXLB.INTERNAL", 200},
	} {
		req := httptest.NewRequest("GET", "/healthz", nil)
		req.Host = tc.host
		rec := httptest.NewRecorder()
		h.srv.ServeHTTP(rec, req)
		if tc.status == 421 {
			p := wantProblem(t, rec, "/healthz", 421, "unknown-host")
			if !strings.Contains(p.Detail, "--allowed-hosts") {
				t.Errorf("%s: detail %q, want the flag named", tc.host, p.Detail)
			}
		} else if rec.Code != tc.status {
			t.Errorf("Host %s: got %d, want %d", tc.host, rec.Code, tc.status)
		}
	}
}

// An unknown query parameter anywhere is a 400 that names it.
func TestUnknownQueryParameter(t *testing.T) {
	h := newHarness(t, nil)
	id := h.postRun("", scenarioJSON(t)).ID
	for _, tc := range []struct {
		method, target, name string
	}{
		{"POST", "/api/v1/runs?polcy=jsq", "polcy"},
		{"GET", "/api/v1/runs?limt=5", "limt"},
		{"GET", "/api/v1/runs/" + id + "?x=1", "x"},
		{"GET", "/api/v1/compare?runs=" + id + "&format=csv", "format"},
		{"POST", "/api/v1/runs/" + id + "/rerun?seed=3", "seed"},
		{"GET", "/healthz?verbose", "verbose"},
		{"GET", "/?utm=1", "utm"},
		{"POST", "/api/v1/validate?strict=1", "strict"},
	} {
		body := ""
		if tc.method == "POST" {
			body = scenarioJSON(t)
		}
		p := wantProblem(t, h.do(tc.method, tc.target, "application/json", body), strings.Split(tc.target, "?")[0], 400, "malformed-query")
		if len(p.Errors) != 1 || p.Errors[0].Field != tc.name {
			t.Errorf("%s %s: errors %+v, want field %s", tc.method, tc.target, p.Errors, tc.name)
		}
	}
	// the parameters a route reads are accepted
	if rec := h.do("GET", "/api/v1/runs?limit=5", "", ""); rec.Code != 200 {
		t.Errorf("?limit=5: got %d, want 200", rec.Code)
	}
}

// A parameter that takes one value, given twice, is a 400 that names it:
// the first value is not taken silently. Those that take a list by
// repeating (compare's variant, figure, objective) may repeat.
func TestRepeatedQueryParameter(t *testing.T) {
	var runs atomic.Int64
	h := newHarness(t, countingRuns(&runs))
	a := h.postRun("", scenarioJSON(t)).ID
	b := h.postRun("?seed=2", scenarioJSON(t)).ID
	for _, tc := range []struct {
		method, target, name, times string
	}{
		{"POST", "/api/v1/runs?seed=1&seed=2", "seed", "2"},
		{"POST", "/api/v1/runs?policy=jsq&seed=1&policy=tuxedo&policy=jsq", "policy", "3"},
		{"GET", "/api/v1/runs/" + a + "/explain?request=1&request=2", "request", "2"},
		{"GET", "/api/v1/compare?runs=" + a + "&runs=" + b, "runs", "2"},
		{"GET", "/api/v1/runs?limit=1&limit=2", "limit", "2"},
		{"POST", "/api/v1/runs/" + a + "/rerun?dispatch=true&dispatch=false", "dispatch", "2"},
	} {
		body := ""
		if tc.method == "POST" {
			body = scenarioJSON(t)
		}
		p := wantProblem(t, h.do(tc.method, tc.target, "application/json", body), strings.Split(tc.target, "?")[0], 400, "malformed-query")
		if len(p.Errors) != 1 || p.Errors[0].Field != tc.name || p.Errors[0].Source != "options" || p.Errors[0].Severity != "error" ||
			!strings.Contains(p.Detail, `"`+tc.name+`": given `+tc.times+` times; it takes one value`) {
			t.Errorf("%s %s: detail %q errors %+v, want the parameter %s named, given %s times", tc.method, tc.target, p.Detail, p.Errors, tc.name, tc.times)
		}
		if tc.name == "runs" && !strings.Contains(p.Detail, "runs=ID,ID") {
			t.Errorf("compare: detail %q does not say how to list runs", p.Detail)
		}
	}
	if runs.Load() != 2 {
		t.Errorf("%d runs, want the 2 posted before: a refused request ran", runs.Load())
	}
	// repeatable ones repeat
	if rec := h.do("GET", "/api/v1/compare?runs="+a+","+b+"&figure=utilization_max&figure=response_p99_ms", "", ""); rec.Code != 200 {
		t.Errorf("two figures: %d %s", rec.Code, rec.Body.String())
	}
}

// HEAD answers wherever GET does, with GET's status and headers.
func TestHeadWhereGet(t *testing.T) {
	h := newHarness(t, nil)
	run := h.postRun("?dispatch=true", scenarioJSON(t))
	other := h.postRun("?seed=2", scenarioJSON(t))
	for _, path := range []string{"/healthz", "/api/openapi.json", "/api/v1/runs", "/api/v1/runs/" + run.ID,
		"/api/v1/runs/" + run.ID + "/result.json", "/api/v1/runs/" + run.ID + "/dispatch.csv", "/api/v1/compare?runs=" + run.ID + "," + other.ID,
		"/", "/assets/app.js"} {
		get := h.do("GET", path, "", "")
		head := h.do("HEAD", path, "", "")
		if head.Code != get.Code || get.Code != 200 || head.Header().Get("Content-Type") != get.Header().Get("Content-Type") {
			t.Errorf("%s: HEAD %d %q, GET %d %q; want both 200 with the same type", path, head.Code,
				head.Header().Get("Content-Type"), get.Code, get.Header().Get("Content-Type"))
		}
	}
	wantProblem(t, h.do("HEAD", "/api/v1/runs/AAAAAAAAAAAAAAAAAAAAAA", "", ""), "/api/v1/runs/AAAAAAAAAAAAAAAAAAAAAA", 404, "not-found")
}

// A client that writes its whole (too large) body before reading the answer
// gets its 413, not a reset connection.
func TestBodyOverLimitWrittenWhole(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxBodyBytes = 1 << 20 })
	ts := httptest.NewServer(h.srv)
	defer ts.Close()
	for _, chunked := range []bool{false, true} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(60 * time.Second))
		body := bytes.Repeat([]byte(" "), 20<<20)
		head := fmt.Sprintf("POST /api/v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
		if chunked {
			head = "POST /api/v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
			body = append([]byte(fmt.Sprintf("%x\r\n", len(body))), append(body, "\r\n0\r\n\r\n"...)...)
		}
		if _, err := conn.Write(append([]byte(head), body...)); err != nil {
			t.Errorf("chunked %v: writing the body: %v (the server gave up on the connection)", chunked, err)
			conn.Close()
			continue
		}
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Errorf("chunked %v: reading the answer: %v", chunked, err)
			conn.Close()
			continue
		}
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 413 || !strings.Contains(string(b), "body-too-large") {
			t.Errorf("chunked %v: got %d %s, want 413 body-too-large", chunked, res.StatusCode, b)
		}
		conn.Close()
	}
}

// Problem documents quote a caller's input only in part.
func TestProblemQuotesCapped(t *testing.T) {
	h := newHarness(t, nil)
	long := strings.Repeat("A", 100_000)
	sc := strings.Replace(scenarioJSON(t), `"workload"`, `"machines": {"`+long+`": {"speed": 2}}, "workload"`, 1)
	rec := h.do("POST", "/api/v1/runs", "application/json", sc)
	p := wantProblem(t, rec, "/api/v1/runs", 422, "invalid")
	if rec.Body.Len() > 3000 || !strings.Contains(p.Detail, "…(100000 bytes)") {
		t.Errorf("got a %d-byte problem, detail %.300q; want under 3000 bytes saying how long the name was", rec.Body.Len(), p.Detail)
	}
	rec = h.do("GET", "/api/v1/runs?"+long+"=1", "", "")
	if rec.Code != 400 || rec.Body.Len() > 3000 {
		t.Errorf("unknown long parameter: got %d with %d bytes, want 400 under 3000 bytes", rec.Code, rec.Body.Len())
	}
}

// A query parameter given with no value is a 400 naming it, on every
// route: taken as absent, ?seed= would run the scenario's seed.
func TestEmptyQueryValueRefused(t *testing.T) {
	h := newHarness(t, nil)
	id := h.postRun("", scenarioJSON(t)).ID
	for _, c := range []struct{ method, path, names string }{
		{"POST", "/api/v1/runs?seed=", "seed"},
		{"POST", "/api/v1/runs?policy=jsq&series=&dispatch=", "dispatch, series"},
		{"GET", "/api/v1/runs?limit=", "limit"},
		{"GET", "/api/v1/runs/" + id + "?series=", "series"},
		{"GET", "/api/v1/compare?runs=" + id + "," + id + "&figure=", "figure"},
	} {
		rec := h.do(c.method, c.path, "application/json", scenarioJSON(t))
		p := wantProblem(t, rec, strings.SplitN(c.path, "?", 2)[0], 400, "malformed-query")
		if !strings.HasPrefix(p.Detail, fmt.Sprintf("%q: given with no value", c.names)) || len(p.Errors) != strings.Count(c.names, ",")+1 {
			t.Errorf("%s %s: %q, %d items; want %s named", c.method, c.path, p.Detail, len(p.Errors), c.names)
		}
	}
	// an empty cursor is the first page, as a client paging from "" writes it
	first := h.do("GET", "/api/v1/runs?limit=5&cursor=", "", "")
	if first.Code != 200 || !strings.Contains(first.Body.String(), id) {
		t.Errorf("cursor=: %d %s; want the first page, with the run", first.Code, first.Body.String())
	}
}
