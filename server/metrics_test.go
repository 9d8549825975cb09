package server

import (
	"bufio"
	"strconv"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/sweep"
)

// scrape reads GET /metrics into series -> value.
func (h *harness) scrape() map[string]float64 {
	h.t.Helper()
	rec := h.do("GET", "/metrics", "", "")
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain") {
		h.t.Fatalf("/metrics: status %d Content-Type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			h.t.Fatalf("/metrics: line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

func TestProbes(t *testing.T) {
	h := newHarness(t, nil)
	for _, path := range []string{"/livez", "/readyz", "/healthz"} {
		if rec := h.do("GET", path, "", ""); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"status":"ok"`) {
			t.Errorf("%s: status %d body %s, want 200 ok", path, rec.Code, rec.Body.String())
		}
	}
	h.db.Close()
	if rec := h.do("GET", "/livez", "", ""); rec.Code != 200 {
		t.Errorf("/livez with the database closed: %d, want 200", rec.Code)
	}
	for _, path := range []string{"/readyz", "/healthz"} {
		rec := h.do("GET", path, "", "")
		wantProblem(t, rec, path, 503, "unavailable")
		if rec.Header().Get("Retry-After") == "" {
			t.Errorf("%s: no Retry-After", path)
		}
	}
	if m := h.scrape(); m[`tuxlb_database_errors_total{op="ping"}`] != 2 {
		t.Errorf("database errors of ping: %v, want 2", m[`tuxlb_database_errors_total{op="ping"}`])
	}
}

func TestMetricsCountRunsAndSweeps(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.SweepWorkers = 2 })
	before := h.scrape()
	for _, name := range []string{"go_goroutines", "go_memstats_alloc_bytes", `tuxlb_runs_total{outcome="ok"}`,
		"tuxlb_run_duration_seconds_count", "tuxlb_simulated_requests_total", "tuxlb_sweep_points_queued_total"} {
		if _, ok := before[name]; !ok {
			t.Errorf("/metrics has no %s", name)
		}
	}
	h.postRun("", scenarioJSON(t))
	m := h.scrape()
	if m[`tuxlb_runs_total{outcome="ok"}`] != 1 || m["tuxlb_run_duration_seconds_count"] != 1 || m["tuxlb_simulated_requests_total"] <= 0 {
		t.Errorf("after one run: runs ok %v, durations %v, requests %v; want 1, 1 and more than 0",
			m[`tuxlb_runs_total{outcome="ok"}`], m["tuxlb_run_duration_seconds_count"], m["tuxlb_simulated_requests_total"])
	}

	id := h.postSweep(sweepBody(t, []string{"rate_scale=0.5,1"}, 1, "response_p99_ms<=40"))
	if m := h.scrape(); m["tuxlb_sweep_points_queued_total"] != 2 {
		t.Errorf("points queued: %v, want 2", m["tuxlb_sweep_points_queued_total"])
	}
	h.startSweeps()
	h.waitSweep(id, sweep.Done, sweep.Failed)
	m = h.scrape()
	if m["tuxlb_sweep_claims_total"] != 1 || m["tuxlb_sweep_points_done_total"] != 2 || m[`tuxlb_sweeps_total{outcome="done"}`] != 1 {
		t.Errorf("after the sweep: claims %v, points done %v, sweeps done %v; want 1, 2, 1",
			m["tuxlb_sweep_claims_total"], m["tuxlb_sweep_points_done_total"], m[`tuxlb_sweeps_total{outcome="done"}`])
	}
	if m[`tuxlb_database_errors_total{op="create_run"}`] != 0 {
		t.Errorf("database errors on a healthy database: %v", m)
	}

	h.db.Close()
	h.do("POST", "/api/v1/runs", "application/json", scenarioJSON(t))
	if m := h.scrape(); m[`tuxlb_database_errors_total{op="create_run"}`] != 1 {
		t.Errorf("create_run errors with the database closed: %v, want 1", m[`tuxlb_database_errors_total{op="create_run"}`])
	}
}
