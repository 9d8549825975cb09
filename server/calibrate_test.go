package server

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// calibUBB is one machine with three simpserv instances on one queue
// (MSSQ) offering QA and QB.
const calibUBB = "*RESOURCES\nMODEL SHM\nLDBAL Y\n*MACHINES\nh LMID=site1\n*GROUPS\nG1 LMID=site1 GRPNO=1\n" +
	"*SERVERS\nsimpserv SRVGRP=G1 SRVID=1 MIN=3 MAX=3 RQADDR=Q1 REPLYQ=Y CLOPT=\"-s QA,QB\"\n"

// calibExport is an export of secs seconds made on calibUBB: Poisson
// arrivals of QA (100/s, exponential service times of mean 10 ms) and QB
// (40/s, 20 ms) from a fixed seed, each row with its service time and the
// response the configuration gave it (its dispatch log's reply_us -
// issue_us).
func calibExport(t *testing.T, secs float64) string {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	type row struct {
		at, svcMS float64
		svc       string
	}
	var rows []row
	for _, s := range []struct {
		svc        string
		rate, mean float64
	}{{"QA", 100, 10}, {"QB", 40, 20}} {
		for at := r.ExpFloat64() * 1000 / s.rate; at < secs*1000; at += r.ExpFloat64() * 1000 / s.rate {
			rows = append(rows, row{at, r.ExpFloat64() * s.mean, s.svc})
		}
	}
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && rows[j].at < rows[j-1].at; j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
	var b strings.Builder
	b.WriteString("time_ms,service,id,service_ms\n")
	for i, rw := range rows {
		fmt.Fprintf(&b, "%.3f,%s,r%d,%.3f\n", rw.at, rw.svc, i, rw.svcMS)
	}
	var dl bytes.Buffer
	if _, err := core.Run(&scenario.Scenario{UBBConfig: calibUBB, Workload: scenario.Workload{TraceCSV: b.String()}}, core.RunOptions{Dispatch: &dl}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&dl).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	resp := map[string]string{}
	for _, rec := range recs[1:] {
		issue, _ := strconv.ParseInt(rec[3], 10, 64)
		reply, _ := strconv.ParseInt(rec[9], 10, 64)
		resp[rec[0]] = strconv.FormatFloat(float64(reply-issue)/1000, 'f', 3, 64)
	}
	var out strings.Builder
	out.WriteString("time_ms,service,id,service_ms,observed_ms\n")
	for i, rw := range rows {
		fmt.Fprintf(&out, "%.3f,%s,r%d,%.3f,%s\n", rw.at, rw.svc, i, rw.svcMS, resp["r"+strconv.Itoa(i)])
	}
	return out.String()
}

// calibrateBody is a multipart body of the UBBCONFIG, the export and the
// options.
func calibrateBody(export, options string) (string, string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	pw, _ := w.CreateFormFile("ubbconfig", "ubbconfig")
	io.WriteString(pw, calibUBB)
	pw, _ = w.CreateFormFile("trace", "export.csv")
	io.WriteString(pw, export)
	if options != "" {
		fw, _ := w.CreateFormField("options")
		io.WriteString(fw, options)
	}
	w.Close()
	return w.FormDataContentType(), b.String()
}

// post sends a request over real HTTP to the harness's server.
func post(ctx context.Context, t *testing.T, url, path, contentType, body string) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	return res, data, err
}

// wantHTTPProblem checks an answer's status and problem type.
func wantHTTPProblem(t *testing.T, res *http.Response, data []byte, status int, slug string) {
	t.Helper()
	var p Problem
	json.Unmarshal(data, &p)
	if res.StatusCode != status || p.Type != ProblemTypeBase+slug {
		t.Errorf("got %d %s, want %d %s", res.StatusCode, data, status, slug)
	}
}

// POST /calibrate over HTTP: the export fitted (from its first 20 s) and
// replayed on the configuration it came from passes, with a fitted
// scenario and the verdicts; the options reach the validation. The replay
// draws service times from the fit (not the rows'), so 20 s of rows judge
// the true model within about ±25% (the p99 of QB's 800 rows, whose
// interval reaches the largest when the batches' tails are correlated,
// within about ±40%): those are the tolerances (p99 45%).
func TestCalibrateOverHTTP(t *testing.T) {
	h := newHarness(t, nil)
	ts := httptest.NewServer(h.srv)
	defer ts.Close()
	ct, body := calibrateBody(calibExport(t, 40), `{"replications": 10, "tolerance": {"default": 0.25, "p99": 0.45}, "after_ms": 20000}`)
	res, data, err := post(context.Background(), t, ts.URL, "/api/v1/calibrate", ct, body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("got %d %s, want 200", res.StatusCode, data)
	}
	var out struct {
		Scenario struct {
			Services map[string]struct {
				ServiceTime map[string]any `json:"service_time"`
			}
		}
		Validation struct {
			Verdict      string
			Replications int
			FromMS       float64 `json:"from_ms"`
			Tolerance    struct{ Mean, P99 float64 }
			Services     []struct {
				Service, Verdict string
				SimulatedCI      struct{ Mean struct{ Lo, Hi float64 } } `json:"simulated_ci"`
			}
		}
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	v := out.Validation
	if v.Verdict != "pass" || v.Replications != 10 || v.FromMS != 20000 || v.Tolerance.Mean != 0.25 || v.Tolerance.P99 != 0.45 || len(v.Services) != 2 {
		t.Errorf("validation: got %+v, want pass over 2 services, 10 replications, from 20000 ms, tolerance 25%% and p99 45%%", v)
	}
	for _, s := range v.Services { // service times drawn from the fit: the replications differ
		if iv := s.SimulatedCI.Mean; !(iv.Hi > iv.Lo) {
			t.Errorf("%s: the replications' mean response interval %+v, want them to differ", s.Service, iv)
		}
	}
	if out.Scenario.Services["QA"].ServiceTime == nil {
		t.Errorf("the scenario lacks QA's fitted service time: %s", data)
	}
	// the same through the recorder, whose exchanges are checked against
	// the API document
	if rec := h.do(http.MethodPost, "/api/v1/calibrate", ct, body); rec.Code != http.StatusOK {
		t.Errorf("recorded: got %d %s, want 200", rec.Code, rec.Body)
	}
	// a bad option is a 422 naming the part
	ct, body = calibrateBody("time_ms,service,observed_ms\n0,QA,1\n", `{"replications": 0}`)
	res, data, _ = post(context.Background(), t, ts.URL, "/api/v1/calibrate", ct, body)
	wantHTTPProblem(t, res, data, 422, "invalid")
	// ulog_tz: a zone the reader knows, and only beside ulog parts
	ct, body = calibrateBody("time_ms,service,observed_ms\n0,QA,1\n", `{"ulog_tz": "Europe/Nowhere"}`)
	res, data, _ = post(context.Background(), t, ts.URL, "/api/v1/calibrate", ct, body)
	wantHTTPProblem(t, res, data, 422, "invalid")
	if !strings.Contains(string(data), `ulog_tz: unknown zone \"Europe/Nowhere\"`) {
		t.Errorf("an unknown ulog_tz: got %s, want the option and the zone named", data)
	}
	ct, body = calibrateBody("time_ms,service,observed_ms\n0,QA,1\n", `{"ulog_tz": "+01:00"}`)
	res, data, _ = post(context.Background(), t, ts.URL, "/api/v1/calibrate", ct, body)
	wantHTTPProblem(t, res, data, 422, "invalid")
	if !strings.Contains(string(data), "ulog_tz places the trace beside the ulog parts") {
		t.Errorf("ulog_tz without ulog parts: got %s, want it said", data)
	}
	ct, body = calibrateBody("time_ms,service,observed_ms\n0,QA,1\n", `{"tolerance": {"p99": -1}}`)
	res, data, _ = post(context.Background(), t, ts.URL, "/api/v1/calibrate", ct, body)
	wantHTTPProblem(t, res, data, 422, "invalid")
	if !strings.Contains(string(data), "validation.tolerance.p99") {
		t.Errorf("a negative tolerance: got %s, want the field named", data)
	}
}

// A fit past --max-run-time answers 422 run-too-long, as runs do; so does
// a calibration.
func TestFitRunTooLong(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxRunTime = 1 }) // a nanosecond: past before the fit starts
	ts := httptest.NewServer(h.srv)
	defer ts.Close()
	ct, body := fitBody(t, true)
	res, data, err := post(context.Background(), t, ts.URL, "/api/v1/fit", ct, body)
	if err != nil {
		t.Fatal(err)
	}
	wantHTTPProblem(t, res, data, 422, "run-too-long")
	ct, body = calibrateBody(calibExport(t, 5), `{"replications": 2}`)
	res, data, err = post(context.Background(), t, ts.URL, "/api/v1/calibrate", ct, body)
	if err != nil {
		t.Fatal(err)
	}
	wantHTTPProblem(t, res, data, 422, "run-too-long")
	if len(h.srv.runs) != 0 {
		t.Errorf("%d run slots still taken, want none", len(h.srv.runs))
	}
}

// With every run slot taken, fit and calibrate answer 503 busy.
func TestFitCalibrateBusy(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxRuns = 1 })
	ts := httptest.NewServer(h.srv)
	defer ts.Close()
	release, err := h.srv.acquireSlot()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ct, body := fitBody(t, true)
	res, data, _ := post(context.Background(), t, ts.URL, "/api/v1/fit", ct, body)
	wantHTTPProblem(t, res, data, 503, "busy")
	ct, body = calibrateBody(calibExport(t, 5), "")
	res, data, _ = post(context.Background(), t, ts.URL, "/api/v1/calibrate", ct, body)
	wantHTTPProblem(t, res, data, 503, "busy")
}

// A calibration whose client goes away stops, and its slot is free for the
// next request: whether it leaves during the fit (which ends, then frees
// the slot) or during the replay (100 replications of 60 000 rows, seconds
// of work, stopped at once: counted canceled, never ok).
func TestCalibrateClientGoneFreesSlot(t *testing.T) {
	replaying := make(chan struct{}, 2)
	h := newHarness(t, func(c *Config) {
		c.MaxRuns, c.MaxRunTime, c.MaxRequests = 1, time.Hour, 20_000_000
		c.Run = func(pr *core.Prepared, opt core.RunOptions) (*result.Result, error) {
			replaying <- struct{}{}
			return runPrepared(pr, opt)
		}
	})
	ts := httptest.NewServer(h.srv)
	defer ts.Close()
	ct, body := calibrateBody(calibExport(t, 430), `{"replications": 100}`)
	for _, phase := range []string{"fit", "replay"} {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, _, err := post(ctx, t, ts.URL, "/api/v1/calibrate", ct, body)
			done <- err
		}()
		if phase == "fit" {
			waitFor(t, "the calibration to take the slot", func() bool { return len(h.srv.runs) == 1 })
		} else {
			<-replaying
		}
		cancel()
		if err := <-done; err == nil {
			t.Fatalf("%s: the request ended without error although its client canceled it", phase)
		}
		waitFor(t, "the slot to be freed", func() bool { return len(h.srv.runs) == 0 })
		select { // a replay the first phase began (its fit ended first) does not count for the second
		case <-replaying:
		default:
		}
	}
	if ok, canceled := metricValue(t, h, `tuxlb_runs_total{outcome="ok"}`), metricValue(t, h, `tuxlb_runs_total{outcome="canceled"}`); ok != 0 || canceled < 1 {
		t.Errorf("runs ok %v, canceled %v: want the replay canceled, none completed", ok, canceled)
	}
	ct, body = fitBody(t, true)
	res, data, err := post(context.Background(), t, ts.URL, "/api/v1/fit", ct, body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Errorf("the next fit: got %v %s, want 200", err, data)
	}
}

// waitFor polls cond for up to a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("waited a minute for %s", what)
}

// metricValue reads one sample of GET /metrics (0 when absent).
func metricValue(t *testing.T, h *harness, sample string) float64 {
	t.Helper()
	rec := h.do("GET", "/metrics", "", "")
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if v, ok := strings.CutPrefix(line, sample+" "); ok {
			x, _ := strconv.ParseFloat(v, 64)
			return x
		}
	}
	return 0
}
