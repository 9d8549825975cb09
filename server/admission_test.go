package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// admissionUBB is a UBBCONFIG of entries × perEntry instances, each
// advertising services services named with nameLen characters.
func admissionUBB(entries, perEntry, services, nameLen int) string {
	var b strings.Builder
	b.WriteString("*RESOURCES\nIPCKEY 1\nMASTER s1\nMODEL SHM\nLDBAL Y\n*MACHINES\nh LMID=s1\n*GROUPS\nG LMID=s1 GRPNO=1\n*SERVERS\n")
	var svc []string
	for i := 0; i < services; i++ {
		name := fmt.Sprintf("S%d", i)
		svc = append(svc, name+strings.Repeat("X", max(nameLen-len(name), 0)))
	}
	fmt.Fprintf(&b, "DEFAULT: CLOPT=\"-s %s --\"\n", strings.Join(svc, ","))
	for e := 0; e < entries; e++ {
		fmt.Fprintf(&b, "srv%d SRVGRP=G SRVID=%d MIN=%d\n", e, 1+e*perEntry, perEntry)
	}
	return b.String()
}

// admissionScenario is a scenario on ubb with a few requests of its first
// service.
func admissionScenario(t *testing.T, ubb string, extra string) string {
	t.Helper()
	u, _ := json.Marshal(ubb)
	return `{"ubbconfig": ` + string(u) + `, "services": {"S0": {"service_time": {"dist": "const", "ms": 1}}},` + extra +
		` "workload": {"trace": [{"time_ms": 0, "service": "S0"}, {"time_ms": 1, "service": "S0"}]}}`
}

// A request whose estimate passes its share of the memory budget is
// refused at once, before anything of it is built, with a problem naming
// the product that is too large and the field behind it: a run of 10 000
// instances × 5 000 services (a 34 KB body), a sweep of 1 000 points of a
// large model, a model whose JSON would be hundreds of megabytes.
func TestAdmissionRefusesOverBudget(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxRuns, c.SweepWorkers = 2, 1 }) // the default budget, 2 GiB: shares of 512 MiB
	pairs := admissionScenario(t, admissionUBB(10, 1000, 5000, 0), "")
	if len(pairs) > 40_000 {
		t.Fatalf("the run's body is %d bytes, want a small one", len(pairs))
	}
	// 10^8 clients in 1000 sets of 100 000 (an 80 KB body), and a call
	// graph of 9 levels of 10 tpacalls (1 111 111 111 requests at once
	// from one arrival)
	var sets []string
	for k := 0; k < 1000; k++ {
		sets = append(sets, fmt.Sprintf(`{"name":"c%d","count":100000,"services":[{"service":"S0"}]}`, k))
	}
	u, _ := json.Marshal(admissionUBB(1, 1, 10, 0))
	clients := `{"ubbconfig": ` + string(u) + `, "services": {"S0": {"service_time": {"dist": "const", "ms": 1}}},` +
		` "workload": {"generate": {"duration_ms": 1000, "streams": [], "clients": [` + strings.Join(sets, ",") + `]}}}`
	var svc []string
	for l := 0; l < 9; l++ {
		svc = append(svc, fmt.Sprintf(`"S%d": {"service_time": {"dist": "const", "ms": 1}, "calls": [%s]}`, l,
			strings.TrimSuffix(strings.Repeat(fmt.Sprintf(`{"service": "S%d", "mode": "tpacall"},`, l+1), 10), ",")))
	}
	calls := `{"ubbconfig": ` + string(u) + `, "services": {` + strings.Join(svc, ",") + `, "S9": {"service_time": {"dist": "const", "ms": 1}}},` +
		` "workload": {"trace": [{"time_ms": 0, "service": "S0"}]}}`
	sweep := `{"scenario": ` + admissionScenario(t, admissionUBB(10, 1000, 1, 0), "") + `, "vary": ["rate_scale=1..1000/1"]}`
	for _, tc := range []struct {
		path, body, slug, field, what string
	}{
		{"/api/v1/runs", pairs, "over-budget", "ubbconfig", "10000 instances × 5000 services each = 50000000 (instance, service) pairs"},
		{"/api/v1/sweeps", sweep, "over-budget", "vary", "1000 points × a model of 10000 instances"},
		{"/api/v1/runs", clients, "over-budget", "workload.generate.clients", "100000000 clients in 1000 sets"},
		{"/api/v1/runs", calls, "over-budget", "services.S0.calls", "one request of S0 holds up to 1111111111 requests at once"},
	} {
		start := time.Now()
		rec := h.doBounded(context.Background(), 60*time.Second, "POST", tc.path, tc.body)
		p := wantProblem(t, rec, tc.path, 413, tc.slug)
		if len(p.Errors) != 1 || p.Errors[0].Field != tc.field || !strings.Contains(p.Detail, tc.what) || !strings.Contains(p.Detail, "--memory-budget") {
			t.Errorf("%s: detail %q errors %+v; want %q, field %s and the flag", tc.path, p.Detail, p.Errors, tc.what, tc.field)
		}
		t.Logf("%s refused in %s", tc.path, time.Since(start))
	}
	// a model whose JSON would be too large for a share: names of 200
	// characters make few pairs heavy
	big := admissionUBB(10, 1000, 100, 200)
	h = newHarness(t, func(c *Config) { c.MaxRuns, c.SweepWorkers, c.MemoryBudget = 2, 1, 1<<30 })
	p := wantProblem(t, h.do("POST", "/api/v1/validate", "text/plain", big), "/api/v1/validate", 413, "model-too-large")
	if len(p.Errors) != 1 || p.Errors[0].Field != "ubbconfig" || !strings.Contains(p.Detail, "bytes of names, as JSON") {
		t.Errorf("validate: detail %q errors %+v, want the names' bytes named", p.Detail, p.Errors)
	}
	if rec := h.do("POST", "/api/v1/validate", "text/plain", admissionUBB(10, 1000, 10, 10)); rec.Code != 200 {
		t.Errorf("a model of 10000 instances and short names: got %d, want 200", rec.Code)
	}
}

// With many runs at once the shares are smaller than --max-stored: a run
// with a dispatch log reserves half its share for the log instead, so it
// is admitted (it was refused whatever its size), and a log past that
// reserve stops the run with a 413 that names it.
func TestDispatchReserveFitsShare(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxRuns, c.SweepWorkers, c.MemoryBudget = 64, 1, 2<<30 }) // shares of 31 MiB
	if rec := h.do("POST", "/api/v1/runs?dispatch=true", "application/json", scenarioJSON(t)); rec.Code != 201 {
		t.Fatalf("a small run with its dispatch log and --max-runs 64: %d %s, want 201", rec.Code, rec.Body)
	}
	// shares of 2 MiB, a reserve of 1 MiB: 200 000 requests' log is more
	h = newHarness(t, func(c *Config) { c.MaxRuns, c.SweepWorkers, c.MemoryBudget = 64, 1, 132<<20 })
	u, _ := json.Marshal(admissionUBB(1, 2, 1, 0))
	big := `{"ubbconfig": ` + string(u) + `, "services": {"S0": {"service_time": {"dist": "const", "ms": 1}}},` +
		` "workload": {"generate": {"duration_ms": 100000, "streams": [{"service": "S0", "arrivals": "poisson", "rate_per_s": 1000}]}}}`
	p := wantProblem(t, h.do("POST", "/api/v1/runs?dispatch=true", "application/json", big), "/api/v1/runs", 413, "stored-too-large")
	if p.Limit != float64(1<<20) || !strings.Contains(p.Detail, "half a run's share") || !strings.Contains(p.Detail, "--max-runs 64") {
		t.Errorf("detail %q limit %d, want the reserve of 1 MiB explained", p.Detail, p.Limit)
	}
}
