package server

import (
	"net/http"
	"strings"
	"testing"
)

// Form bodies that cannot be read are 400 problems in words, never the
// reader's own messages (bufio: buffer full); a part given twice, an
// unknown part and a part that is not UTF-8 are 422 naming the part.
func TestFormProblems(t *testing.T) {
	h := newHarness(t, nil)
	ubb := ubbconfig(t)
	long := strings.Repeat("x", 10_000) + "\r\n--b\r\nContent-Disposition: form-data; name=\"ubbconfig\"\r\n\r\nx\r\n--b--\r\n"
	dupCtype, dup := form(t, "ubbconfig", ubb, "ubbconfig", ubb)
	badCtype, bad := form(t, "ubbconfig", ubb, "dmconfig", "*DM_LOCAL_DOMAINS\n\xff\n")
	traceCtype, trace := form(t, "ubbconfig", formUBB, "trace", "time_ms,service\n1,BAL\xe9NCE\n")
	gzCtype, gz := form(t, "ubbconfig", formUBB, "trace", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff")
	for _, tc := range []struct {
		path, ctype, body string
		status            int
		slug, field, want string
	}{
		{"/api/v1/validate", "multipart/form-data; boundary=b", long, 400, "malformed-multipart", "", "longer than"},
		{"/api/v1/runs", "multipart/form-data; boundary=b", long, 400, "malformed-multipart", "", "longer than"},
		{"/api/v1/validate", "multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"ubbconfig\"\r\n\r\nx", 400, "malformed-multipart", "", "ends inside a part"},
		{"/api/v1/validate", "multipart/form-data; boundary=b", "no parts at all", 400, "malformed-multipart", "", "no part"},
		{"/api/v1/validate", dupCtype, dup, 422, "invalid", "ubbconfig", `form part "ubbconfig" given twice`},
		{"/api/v1/validate", badCtype, bad, 422, "invalid", "dmconfig", "form part dmconfig: line 2 col 1: not valid UTF-8"},
		{"/api/v1/runs", traceCtype, trace, 422, "invalid", "trace", "form part trace: line 2 col 6: not valid UTF-8"},
		{"/api/v1/runs", gzCtype, gz, 422, "invalid", "trace", "form part trace is gzipped: send its text"},
	} {
		p := wantProblem(t, h.do(http.MethodPost, tc.path, tc.ctype, tc.body), tc.path, tc.status, tc.slug)
		if !strings.Contains(p.Detail, tc.want) || strings.Contains(p.Detail, "bufio") || strings.Contains(p.Detail, "NextPart") {
			t.Errorf("%s %.40q: detail %q, want %q and none of the reader's words", tc.path, tc.body, p.Detail, tc.want)
		}
		if tc.field != "" && (len(p.Errors) != 1 || p.Errors[0].Field != tc.field) {
			t.Errorf("%s %.40q: errors %+v, want field %s", tc.path, tc.body, p.Errors, tc.field)
		}
	}
}

// Text that is not UTF-8 is refused naming where it is, in every body form,
// rather than answered with the bad bytes replaced.
func TestInvalidUTF8Refused(t *testing.T) {
	h := newHarness(t, nil)
	ubb := strings.Replace(ubbconfig(t), "APPGRP", "APP\xffGRP", 1)
	sc := strings.Replace(scenarioJSON(t), `"simpapp, three servers"`, "\"simpapp\xe9\"", 1)
	sweep := `{"scenario": ` + scenarioJSON(t) + `, "vary": ["rate_scale=1,2"], "objective": "response_p99_ms<=1` + "\xff" + `"}`
	for _, tc := range []struct {
		path, ctype, body string
		field, want       string
		line              int
	}{
		{"/api/v1/validate", "text/plain", ubb, "", "not valid UTF-8", 15},
		{"/api/v1/validate", "application/json", "{\"ubbconfig\": \"*RESOURCES\\n\xff\"}", "ubbconfig", "ubbconfig: not valid UTF-8", 1},
		{"/api/v1/runs", "application/json", sc, "name", "name: not valid UTF-8", 2},
		{"/api/v1/scenarios", "application/json", sc, "name", "name: not valid UTF-8", 2},
		{"/api/v1/sweeps", "application/json", sweep, "objective", "objective: not valid UTF-8", 26},
		{"/api/v1/runs?policy=%FF", "application/json", scenarioJSON(t), "policy", "not valid UTF-8", 0},
	} {
		path, status, slug := tc.path, 422, "invalid"
		if strings.Contains(path, "?") {
			path, status, slug = strings.Split(path, "?")[0], 400, "malformed-query"
		}
		p := wantProblem(t, h.do(http.MethodPost, tc.path, tc.ctype, tc.body), path, status, slug)
		if !strings.Contains(p.Detail, tc.want) || len(p.Errors) == 0 || p.Errors[0].Field != tc.field || p.Errors[0].Line != tc.line {
			t.Errorf("%s %s: detail %q errors %+v; want %q, field %q, line %d", tc.path, tc.ctype, p.Detail, p.Errors, tc.want, tc.field, tc.line)
		}
	}
}

// JSON keys are case-sensitive in every body: a case variant of a field is
// an error naming it.
func TestJSONKeysCaseSensitive(t *testing.T) {
	h := newHarness(t, nil)
	sc := strings.Replace(scenarioJSON(t), `"seed": 1,`, `"seed": 1, "SEED": 2,`, 1)
	for _, tc := range []struct{ path, body, field string }{
		{"/api/v1/runs", sc, "SEED"},
		{"/api/v1/validate", `{"ubbconfig": "x", "UBBCONFIG": "y"}`, "UBBCONFIG"},
		{"/api/v1/sweeps", `{"scenario": ` + scenarioJSON(t) + `, "vary": ["rate_scale=1,2"], "Vary": ["rate_scale=3"]}`, "Vary"},
	} {
		p := wantProblem(t, h.do(http.MethodPost, tc.path, "application/json", tc.body), tc.path, 422, "invalid")
		if len(p.Errors) == 0 || p.Errors[0].Field != tc.field || !strings.Contains(p.Detail, "case-sensitive") {
			t.Errorf("%s: detail %q errors %+v, want field %s", tc.path, p.Detail, p.Errors, tc.field)
		}
	}
}
