package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// formUBB and formTrace are an administrator's files: a server without -s
// and a log with its own column names and date-times.
const formUBB = `*RESOURCES
MASTER SITE1
MODEL MP
LDBAL Y
*MACHINES
"h1" LMID=SITE1
"h2" LMID=SITE2
*GROUPS
G1 LMID=SITE1 GRPNO=1
G2 LMID=SITE2 GRPNO=2
*SERVERS
bankserv SRVGRP=G1 SRVID=1 CLOPT="-s BALANCE"
bankserv SRVGRP=G2 SRVID=2 CLOPT="-s BALANCE"
legacy SRVGRP=G2 SRVID=3
*SERVICES
BALANCE
AUDIT
`

const formTrace = "timestamp,svc,exec_time_ms\n2026-11-29T10:00:00Z,BALANCE,3\n2026-11-29T10:00:00.002Z,AUDIT,1\n2026-11-29T10:00:00.003Z,BALANCE,2\n"

// form builds a multipart body; a part whose name starts with @ is sent as
// a file (curl -F name=@file).
func form(t *testing.T, parts ...string) (string, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for i := 0; i+1 < len(parts); i += 2 {
		name, text := parts[i], parts[i+1]
		var err error
		var pw interface{ Write([]byte) (int, error) }
		if n, ok := strings.CutPrefix(name, "@"); ok {
			pw, err = w.CreateFormFile(n, n+".txt")
		} else {
			pw, err = w.CreateFormField(name)
		}
		if err != nil {
			t.Fatal(err)
		}
		pw.Write([]byte(text))
	}
	w.Close()
	return w.FormDataContentType(), b.String()
}

// TestRunFormEqualsEmbedded: the files posted as parts give the same result
// as the scenario that embeds them, built by hand from the documented
// defaults (starter.New's service times and advertise; the trace as
// the workload).
func TestRunFormEqualsEmbedded(t *testing.T) {
	h := newHarness(t, nil)
	ctype, body := form(t, "@ubbconfig", formUBB, "@trace", formTrace)
	rec := h.do(http.MethodPost, "/api/v1/runs", ctype, body)
	if rec.Code != http.StatusCreated {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	var got struct {
		ID     string          `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	decode(t, rec, &got)
	// By hand: BALANCE's mean from the log (3+2)/2 = 2.5 ms, AUDIT's 1 ms;
	// legacy advertises every *SERVICES service.
	embedded := map[string]any{
		"name":      "ubbconfig.txt replaying trace.txt (defaults: see docs/scenario.md, Starting from your own files)",
		"ubbconfig": formUBB,
		"advertise": map[string]any{"legacy": []string{"BALANCE", "AUDIT"}},
		"services": map[string]any{
			"BALANCE": map[string]any{"service_time": map[string]any{"dist": "exp", "mean_ms": 2.5}},
			"AUDIT":   map[string]any{"service_time": map[string]any{"dist": "exp", "mean_ms": 1}},
		},
		"workload": map[string]any{"trace_csv": formTrace},
	}
	doc, _ := json.Marshal(embedded)
	want, _ := runDirect(t, string(doc), core.RunOptions{})
	if !bytes.Equal(got.Result, bytes.TrimRight(want, "\n")) {
		t.Errorf("multipart result differs from the embedded scenario's:\ngot  %.400s\nwant %.400s", got.Result, want)
	}
	// The stored scenario is the combined one: it reruns to the same result.
	rec = h.do(http.MethodGet, "/api/v1/runs/"+got.ID, "", "")
	var stored struct {
		Scenario scenario.Scenario `json:"scenario"`
		Headline result.Headline   `json:"headline"`
	}
	decode(t, rec, &stored)
	if stored.Scenario.Workload.TraceCSV != formTrace || stored.Scenario.UBBConfig != formUBB {
		t.Errorf("stored scenario: got %+v", stored.Scenario)
	}
	if stored.Headline.Issued != 3 {
		t.Errorf("headline: got %+v, want 3 issued", stored.Headline)
	}
}

// TestRunFormWithScenario: a scenario part gives the rest; the files replace
// its parts, and trace_map says how to read the log.
func TestRunFormWithScenario(t *testing.T) {
	h := newHarness(t, nil)
	log := "when;what\n1764410400;BALANCE\n1764410400.25;BALANCE\n"
	rest := `{"name": "mine", "ubbconfig": "replaced", "seed": 3, "advertise": {"legacy": ["AUDIT"]},
		"services": {"BALANCE": {"service_time": {"dist": "const", "ms": 4}}, "AUDIT": {"service_time": {"dist": "const", "ms": 1}}},
		"workload": {"generate": {"duration_ms": 10, "streams": [{"service": "AUDIT", "arrivals": "constant", "rate_per_s": 1000}]}}}`
	ctype, body := form(t, "scenario", rest, "@ubbconfig", formUBB, "@trace", log, "trace_map", "time=when,service=what,time_unit=s")
	rec := h.do(http.MethodPost, "/api/v1/runs?seed=5", ctype, body)
	if rec.Code != http.StatusCreated {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	var got struct {
		Result json.RawMessage `json:"result"`
	}
	decode(t, rec, &got)
	seed := uint64(5)
	want, _ := runDirect(t, strings.Replace(strings.Replace(rest, `"replaced"`, mustMarshal(formUBB), 1),
		`{"generate": {"duration_ms": 10, "streams": [{"service": "AUDIT", "arrivals": "constant", "rate_per_s": 1000}]}}`,
		`{"trace_csv": `+mustMarshal(log)+`, "columns": {"time": "when", "service": "what", "time_unit": "s"}}`, 1),
		core.RunOptions{Seed: &seed})
	if !bytes.Equal(got.Result, bytes.TrimRight(want, "\n")) || !bytes.Contains(got.Result, []byte(`"issued": 2`)) {
		t.Errorf("differs from the scenario with its parts replaced by hand:\ngot  %.300s\nwant %.300s", got.Result, want)
	}
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestRunFormProblems(t *testing.T) {
	h := newHarness(t, nil)
	tests := []struct {
		name   string
		parts  []string
		status int
		field  string
		detail string
	}{
		{"no ubbconfig", []string{"@trace", formTrace}, 422, "ubbconfig", "form part ubbconfig: missing"},
		{"unknown part", []string{"@ubbconfig", formUBB, "colour", "red"}, 422, "colour", `unknown form part "colour"`},
		{"twice", []string{"@ubbconfig", formUBB, "@ubbconfig", formUBB}, 422, "ubbconfig", `form part "ubbconfig" given twice`},
		// a trace's problems are the trace part's (source), at a row (line) and column (field)
		{"bad trace row", []string{"@ubbconfig", formUBB, "@trace", "ts,service\n2026-11-29 10:00:00,BALANCE\nnoon,BALANCE\n"}, 422, "trace:ts@2",
			"form part trace: trace row 2: ts: not a date-time"},
		{"unknown service in trace", []string{"scenario", `{"ubbconfig": "", "services": {"BALANCE": {"service_time": {"dist": "const", "ms": 1}}}, "workload": {}}`,
			"@ubbconfig", formUBB, "@trace", "time_ms,service\n0,NOPE\n"}, 422, "trace:service@1", `form part trace: trace row 1: service: unknown service "NOPE"`},
		{"empty trace", []string{"@ubbconfig", formUBB, "@trace", " \n"}, 422, "trace:@0", "form part trace: trace: the file is empty"},
		{"bad trace_map", []string{"@ubbconfig", formUBB, "trace_map", "when"}, 422, "trace_map", "trace_map:"},
		{"bad ubbconfig", []string{"@ubbconfig", "*RESOURCES\nMODEL XX\n"}, 422, "", "MODEL must be SHM or MP"},
		{"bad scenario JSON", []string{"scenario", "{", "@ubbconfig", formUBB}, 400, "scenario", "form part scenario: the body is not a JSON document"},
		{"scenario unknown field", []string{"scenario", `{"colour": 1}`, "@ubbconfig", formUBB}, 422, "colour", "colour: unknown field"},
	}
	for _, tt := range tests {
		ctype, body := form(t, tt.parts...)
		rec := h.do(http.MethodPost, "/api/v1/runs", ctype, body)
		var p Problem
		json.Unmarshal(rec.Body.Bytes(), &p)
		field := tt.field
		if len(p.Errors) > 0 && p.Errors[0].Source == "trace" {
			field = fmt.Sprintf("trace:%s@%d", p.Errors[0].Field, p.Errors[0].Line)
			if p.Errors[0].File != "trace.txt" {
				t.Errorf("%s: file %q, want the trace part's file name", tt.name, p.Errors[0].File)
			}
		} else if len(p.Errors) > 0 {
			field = p.Errors[0].Field
		}
		if rec.Code != tt.status || !strings.Contains(p.Detail, tt.detail) || (tt.field != "" && (len(p.Errors) == 0 || field != tt.field)) {
			t.Errorf("%s: got %d %s; want %d, field %q, detail containing %q", tt.name, rec.Code, rec.Body.String(), tt.status, tt.field, tt.detail)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("%s: content type %q", tt.name, ct)
		}
	}
}
