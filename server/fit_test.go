package server

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"os"
	"testing"
)

// fitBody is a multipart body of the bank ULOGs (core/ulog/testdata/bank)
// as files with their names, and their UBBCONFIG.
func fitBody(t *testing.T, withUBB bool) (string, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	dir := "../core/ulog/testdata/bank/"
	for _, f := range []string{"node1/ULOG.120126", "node2/ULOG.120126"} {
		data, err := os.ReadFile(dir + f)
		if err != nil {
			t.Fatal(err)
		}
		pw, _ := w.CreateFormFile("ulog", "ULOG.120126")
		pw.Write(data)
	}
	if withUBB {
		data, _ := os.ReadFile(dir + "ubbconfig")
		pw, _ := w.CreateFormFile("ubbconfig", "ubbconfig")
		pw.Write(data)
	}
	w.Close()
	return w.FormDataContentType(), b.String()
}

func TestFitULOGParts(t *testing.T) {
	h := newHarness(t, nil)
	ct, body := fitBody(t, true)
	rec := h.do(http.MethodPost, "/api/v1/fit", ct, body)
	if rec.Code != http.StatusOK {
		t.Fatalf("%d: %s", rec.Code, rec.Body)
	}
	var out struct {
		Report struct {
			Services map[string]struct {
				Samples int
				Calls   []struct{ Service string }
			}
			Arrivals struct {
				Services map[string]struct{ Origins map[string]float64 }
			}
			Network struct {
				LatencyMS float64 `json:"latency_ms"`
			}
		}
		Scenario map[string]any
	}
	decode(t, rec, &out)
	// The bank's calls cross machines with 1 ms each way (NOTES.md: the
	// client's span is 2 ms longer than TRANSFER's execution).
	if nw, _ := out.Scenario["network"].(map[string]any); out.Report.Network.LatencyMS != 1 || nw["latency_ms"] != 1.0 {
		t.Errorf("network: report %+v, scenario %v", out.Report.Network, out.Scenario["network"])
	}
	x := out.Report.Services["TRANSFER"]
	if x.Samples != 10 || len(x.Calls) != 3 || out.Report.Arrivals.Services["TRANSFER"].Origins["SITE1"] != 1.11 {
		t.Errorf("report: %+v", out.Report)
	}
	if out.Scenario == nil || out.Scenario["workload"] == nil {
		t.Errorf("scenario missing: %v", out.Scenario)
	}
	// Without a UBBCONFIG: the report only, hosts as they are.
	ct, body = fitBody(t, false)
	rec = h.do(http.MethodPost, "/api/v1/fit", ct, body)
	decode(t, rec, &out)
	if rec.Code != http.StatusOK || out.Report.Arrivals.Services["TRANSFER"].Origins["node1"] != 1.11 {
		t.Errorf("%d: %s", rec.Code, rec.Body)
	}
}

func TestFitBadParts(t *testing.T) {
	h := newHarness(t, nil)
	wantProblem(t, h.do(http.MethodPost, "/api/v1/fit", "application/json", "{}"), "/api/v1/fit", http.StatusUnsupportedMediaType, "unsupported-media-type")
	ct, body := form(t, "ubbconfig", formUBB)
	wantProblem(t, h.do(http.MethodPost, "/api/v1/fit", ct, body), "/api/v1/fit", http.StatusUnprocessableEntity, "invalid")
	ct, body = form(t, "@trace", "time_ms,service,service_ms\n0,A,1\nx,A,2\n")
	p := wantProblem(t, h.do(http.MethodPost, "/api/v1/fit", ct, body), "/api/v1/fit", http.StatusUnprocessableEntity, "invalid")
	if len(p.Errors) == 0 || p.Errors[0].Source != "trace" || p.Errors[0].Line != 2 || p.Errors[0].Field != "time_ms" {
		t.Errorf("bad row: %+v, want the trace part's row 2, column time_ms", p)
	}
	ct, body = form(t, "@trace", "time_ms,service\n0,A\n", "@trace", "time_ms,service\n0,A\n")
	wantProblem(t, h.do(http.MethodPost, "/api/v1/fit", ct, body), "/api/v1/fit", http.StatusUnprocessableEntity, "invalid")
}

// TestFitPSCPart: a psc part gives the services of a server that
// advertises at run time, so the trace's service resolves and the answer
// has a scenario whose advertise map lists it; without a ubbconfig part the
// psc part is refused.
func TestFitPSCPart(t *testing.T) {
	h := newHarness(t, nil)
	ubb := "*RESOURCES\nMODEL SHM\n*MACHINES\nh LMID=SITE1\n*GROUPS\nG LMID=SITE1 GRPNO=1\n*SERVERS\nsrv SRVGRP=G SRVID=1 CLOPT=\"-A\"\n"
	listing := "Service Name Routine Name Prog Name  Grp Name  ID    Machine  # Done Status\n" +
		"------------ ------------ ---------  --------  --    -------  ------ ------\n" +
		"QUERY        QUERY        srv        G          1     SITE1        0 AVAIL\n"
	trace := "time_ms,service,service_ms\n0,QUERY,3\n100,QUERY,5\n"
	ct, body := form(t, "@trace", trace, "@ubbconfig", ubb, "@psc", listing)
	rec := h.do(http.MethodPost, "/api/v1/fit", ct, body)
	if rec.Code != http.StatusOK {
		t.Fatalf("%d: %s", rec.Code, rec.Body)
	}
	var out struct {
		Scenario struct {
			Advertise map[string][]string
		}
	}
	decode(t, rec, &out)
	if got := out.Scenario.Advertise["srv"]; len(got) != 1 || got[0] != "QUERY" {
		t.Errorf("advertise: got %v, want srv: [QUERY]", out.Scenario.Advertise)
	}
	ct, body = form(t, "@trace", trace, "@psc", listing)
	wantProblem(t, h.do(http.MethodPost, "/api/v1/fit", ct, body), "/api/v1/fit", http.StatusUnprocessableEntity, "invalid")
}
