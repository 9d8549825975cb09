package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/timeseries"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// boundedUBB is one machine, one server, service BALANCE; MODEL is filled in.
const boundedUBB = "*RESOURCES\nIPCKEY 123458\nMASTER SITE1\nMODEL %s\nLDBAL Y\n" +
	"*MACHINES\nnode1 LMID=SITE1 APPDIR=\"/app\" TUXCONFIG=\"/app/tuxconfig\" TUXDIR=\"/opt/tuxedo\"\n" +
	"*GROUPS\nGRP1 LMID=SITE1 GRPNO=1\n" +
	"*SERVERS\nsrv SRVGRP=GRP1 SRVID=1 MIN=1 CLOPT=\"-s BALANCE --\"\n*SERVICES\nBALANCE LOAD=50\n"

// boundedScenario builds a scenario document on boundedUBB from its parts.
func boundedScenario(t testing.TB, model string, parts map[string]any) *scenario.Scenario {
	t.Helper()
	doc := map[string]any{
		"ubbconfig": sprintf(boundedUBB, model),
		"workload": map[string]any{"generate": map[string]any{"duration_ms": 100, "streams": []any{
			map[string]any{"service": "BALANCE", "origin": "SITE1", "arrivals": "constant", "rate_per_s": 1000}}}},
	}
	for k, v := range parts {
		doc[k] = v
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ParseScenario(b)
	if err != nil {
		t.Fatalf("ParseScenario: %v", err)
	}
	return sc
}

// runBounded runs sc under a context with a deadline and fails the test if
// the run does not return well within it: a regression of the hang cannot
// hang the test suite.
func runBounded(t *testing.T, sc *scenario.Scenario) (*result.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	type out struct {
		res *result.Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := Run(sc, RunOptions{Context: ctx})
		done <- out{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not return within 30 s, even with a 20 s context deadline")
		return nil, nil
	}
}

// A service time of 1e9 ms on a machine of speed 1e-6 is 1e15 ms per request:
// past the simulated clock's range. It once wrapped the int64 clock and made
// the MP reset loop (and the series bins) run forever; it is now refused
// before the run, naming the fields.
func TestHorizonRefusedNamingFields(t *testing.T) {
	slow := map[string]any{"SITE1": map[string]any{"speed": 1e-6}}
	for _, tc := range []struct {
		name, model string
		parts       map[string]any
		want        []string
	}{
		{"MP const", "MP", map[string]any{"machines": slow,
			"services": map[string]any{"BALANCE": map[string]any{"service_time": map[string]any{"dist": "const", "ms": 1e9}}}},
			[]string{"services.BALANCE.service_time: ms 1e+09 ms", "machines.SITE1.speed 1e-06", "past the longest simulated time"}},
		{"SHM const", "SHM", map[string]any{"machines": slow,
			"services": map[string]any{"BALANCE": map[string]any{"service_time": map[string]any{"dist": "const", "ms": 1e9}}}},
			[]string{"services.BALANCE.service_time:", "machines.SITE1.speed"}},
		{"uniform max", "SHM", map[string]any{"machines": map[string]any{"SITE1": map[string]any{"speed": 0.5}},
			"services": map[string]any{"BALANCE": map[string]any{"service_time": map[string]any{"dist": "uniform", "min_ms": 0, "max_ms": 6e8}}}},
			[]string{"services.BALANCE.service_time: max_ms 6e+08 ms", "machines.SITE1.speed 0.5", "1.2e+09 ms"}},
		{"by group", "SHM", map[string]any{"machines": slow,
			"services": map[string]any{"BALANCE": map[string]any{"by_group": map[string]any{"GRP1": map[string]any{"dist": "exp", "mean_ms": 2e3}}}}},
			[]string{"services.BALANCE.by_group.GRP1: mean_ms 2000 ms"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := boundedScenario(t, tc.model, tc.parts)
			_, err := runBounded(t, sc)
			if err == nil || diag.ErrorCode(err) != diag.EINVALID {
				t.Fatalf("got error %v (code %q), want an %q error", err, diag.ErrorCode(err), diag.EINVALID)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

// Times that only pass the limit as the run goes (a long tail, or requests
// queued behind one another) stop the run at the first event past it.
func TestHorizonPassedDuringRun(t *testing.T) {
	for _, tc := range []struct {
		name, model string
		parts       map[string]any
		want        []string
	}{
		// 100 requests of 1e8 ms at once on one server: the 11th ends at 1.1e9 ms.
		{"backlog MP", "MP", map[string]any{
			"services": map[string]any{"BALANCE": map[string]any{"service_time": map[string]any{"dist": "const", "ms": 1e8}}}},
			[]string{"services.BALANCE.service_time and machines.SITE1.speed: request 11 (service BALANCE) it would end at 1.1e+09 ms"}},
		{"backlog SHM", "SHM", map[string]any{
			"services": map[string]any{"BALANCE": map[string]any{"service_time": map[string]any{"dist": "const", "ms": 1e8}}}},
			[]string{"request 11 (service BALANCE) it would end at 1.1e+09 ms", "past the longest simulated time (1e9 ms"}},
		// the mean is at the limit; some draw of an exponential passes it
		{"exp tail", "SHM", map[string]any{
			"services": map[string]any{"BALANCE": map[string]any{"service_time": map[string]any{"dist": "exp", "mean_ms": 1e9}}}},
			[]string{"services.BALANCE.service_time and machines.SITE1.speed: request"}},
		// a trace row's own service_ms, with a slow machine
		{"trace service_ms", "SHM", map[string]any{"machines": map[string]any{"SITE1": map[string]any{"speed": 1e-6}},
			"workload": map[string]any{"trace_csv": "time_ms,service,service_ms\n0,BALANCE,2000\n"}},
			[]string{"the request's service_ms and machines.SITE1.speed: request 1 (service BALANCE) it would end at 2e+09 ms"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := boundedScenario(t, tc.model, tc.parts)
			_, err := runBounded(t, sc)
			if err == nil || diag.ErrorCode(err) != diag.EINVALID {
				t.Fatalf("got error %v (code %q), want an %q error", err, diag.ErrorCode(err), diag.EINVALID)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

// A run that ends just inside the limit is a result, with exact figures: the
// percentiles reach past the histogram's old 28-hour ceiling.
func TestHorizonJustInside(t *testing.T) {
	// 9 requests of 1e8 ms at 0, 1, ... 8 ms on one server: the last ends at
	// 9e8 ms; request k waits (k-1) x 1e8 - (k-1) ms.
	sc := boundedScenario(t, "MP", map[string]any{
		"services": map[string]any{"BALANCE": map[string]any{"service_time": map[string]any{"dist": "const", "ms": 1e8}}},
		"workload": map[string]any{"generate": map[string]any{"duration_ms": 9, "streams": []any{
			map[string]any{"service": "BALANCE", "origin": "SITE1", "arrivals": "constant", "rate_per_s": 1000}}}},
	})
	res, err := runBounded(t, sc)
	if err != nil {
		t.Fatal(err)
	}
	if res.SpanMS != 9e8 || res.Requests.Completed != 9 {
		t.Errorf("got span %v ms, %d completed; want 9e8 ms, 9", res.SpanMS, res.Requests.Completed)
	}
	w := res.WaitMS
	if w.Max != 8e8-8 || w.P99 > w.Max || w.P50 < 3.99e8 || w.P50 > 4.01e8 {
		t.Errorf("got wait %+v, want max 799999992, p50 about 4e8 (within 1 in 1000), p99 <= max", w)
	}
	if u := res.Servers[0].Utilization; u != 1 {
		t.Errorf("got utilization %v, want 1", u)
	}
}

// Many MP resets between two events are counted, not walked one by one.
func TestResetsCountedNotWalked(t *testing.T) {
	// reset every 1 us; one request of 5e8 ms: 5e14 resets.
	sc := boundedScenario(t, "MP", map[string]any{
		"tuning":   map[string]any{"mp_reset_ms": 0.001},
		"services": map[string]any{"BALANCE": map[string]any{"service_time": map[string]any{"dist": "const", "ms": 5e8}}},
		"workload": map[string]any{"trace_csv": "time_ms,service\n0,BALANCE\n"},
	})
	res, err := runBounded(t, sc)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Series.ResetsMS); n != timeseries.MaxResets {
		t.Errorf("got %d reset times listed, want the first %d", n, timeseries.MaxResets)
	}
}

func TestCheckSums(t *testing.T) {
	for _, tc := range []struct {
		name      string
		completed int64
		maxUS     int64
		pool      int
		span      int64
		bad       bool
	}{
		{"small", 1000, 1e6, 10, 1e9, false},
		{"at the bound", 9_223_372, MaxTimeUS, 1, MaxTimeUS, false},
		{"responses past", 9_223_373, MaxTimeUS, 1, MaxTimeUS, true},
		// (a span past MaxTimeUS, so that a few records in flight stand
		// for the millions that would pass the bound at MaxTimeUS)
		{"queue area at the bound", 1, 1, 2, math.MaxInt64 / 2, false},
		{"queue area past", 1, 1, 3, math.MaxInt64 / 2, true},
	} {
		e := &engine{spanUS: tc.span}
		for range tc.pool {
			e.pool.Add()
		}
		e.st.completed, e.st.svc = tc.completed, make([]svcAcc, 2)
		e.st.svc[1].resp.Max = tc.maxUS
		err := e.checkSums()
		if (err != nil) != tc.bad {
			t.Errorf("%s: got %v, want error %v", tc.name, err, tc.bad)
		}
	}
}

// bigModelUBB is 10 000 instances in 10 groups, each advertising services
// S0..S(n-1): the shape whose setup was once quadratic in servers per service.
func bigModelUBB(n int) string {
	var b strings.Builder
	b.WriteString("*RESOURCES\nIPCKEY 1\nMASTER s1\nMODEL SHM\nLDBAL Y\n*MACHINES\nh LMID=s1\n*GROUPS\n")
	for g := 1; g <= 10; g++ {
		fmt.Fprintf(&b, "G%d LMID=s1 GRPNO=%d\n", g, g)
	}
	svcs := make([]string, n)
	for i := range svcs {
		svcs[i] = fmt.Sprintf("S%d", i)
	}
	b.WriteString("*SERVERS\n")
	for g := 1; g <= 10; g++ {
		fmt.Fprintf(&b, "srv SRVGRP=G%d SRVID=1 MIN=1000 CLOPT=\"-s %s --\"\n", g, strings.Join(svcs, ","))
	}
	return b.String()
}

// Setup is linear in servers x services: 10 000 instances advertising 1 000
// services each (1e7 advertisements) is set up in moments. Quadratic setup
// (a scan of the candidate list per candidate) took minutes here, and no
// deadline could stop it.
func TestSetupLinear(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a 10 000-instance model")
	}
	m, err := LoadModel(ubb.Input{UBBConfig: bigModelUBB(1000), UBBName: "u"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		e, err := newEngine(engSetup(m), &sliceRequests{}, simOptions{})
		if err == nil && len(e.svc[0].cands) != 10000 {
			err = fmt.Errorf("service S0 has %d candidates, want 10000", len(e.svc[0].cands))
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("setting up 10 000 instances x 1 000 services did not end within 60 s")
	}
}

func BenchmarkSetupManyServers(b *testing.B) {
	m, err := LoadModel(ubb.Input{UBBConfig: bigModelUBB(200), UBBName: "u"})
	if err != nil {
		b.Fatal(err)
	}
	setup := engSetup(m)
	for b.Loop() {
		if _, err := newEngine(setup, &sliceRequests{}, simOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// A run whose backlog passes MaxInFlight stops with a too_large error that
// names the limit, instead of growing without bound.
func TestMaxInFlight(t *testing.T) {
	t.Parallel()
	sc := boundedScenario(t, "SHM", map[string]any{
		"services": map[string]any{"BALANCE": map[string]any{"service_time": map[string]any{"dist": "const", "ms": 10}}},
		"workload": map[string]any{"generate": map[string]any{"duration_ms": 1000, "streams": []any{
			map[string]any{"service": "BALANCE", "origin": "SITE1", "arrivals": "constant", "rate_per_s": 10000}}}},
	})
	// 10 000 requests, one every 0.1 ms, on one server busy 10 ms with each:
	// at t ms, floor(t/0.1)+1 issued and floor(t/10) done. The 501st held at
	// once comes at 50.5 ms (506 issued, 5 done).
	_, err := Run(sc, RunOptions{MaxInFlight: 500})
	var ce *diag.Error
	if !errors.As(err, &ce) || ce.Code != diag.ETOOLARGE || ce.Limit != diag.LimitInFlight ||
		!strings.Contains(ce.Message, "backlog: more than 500 requests held at once at 50.5 ms") {
		t.Fatalf("got %v, want a too_large backlog error at 50.5 ms", err)
	}
	if _, err := Run(sc, RunOptions{MaxInFlight: 10_001}); err != nil {
		t.Errorf("with room for every request: %v", err)
	}
}

// A service nobody advertises costs the engine nothing, and a service's
// tables do not grow with servers x services: 10 000 instances and 20 000
// services once took 800 MB (a per-server table per service) before the
// first request.
func TestSetupMemoryLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10 000-instance model")
	}
	var b strings.Builder
	b.WriteString("*RESOURCES\nIPCKEY 1\nMASTER s1\nMODEL SHM\nLDBAL Y\n*MACHINES\nh LMID=s1\n*GROUPS\n")
	for g := 1; g <= 10; g++ {
		fmt.Fprintf(&b, "G%d LMID=s1 GRPNO=%d\n", g, g)
	}
	b.WriteString("*SERVERS\n")
	for g := 1; g <= 10; g++ {
		fmt.Fprintf(&b, "srv SRVGRP=G%d SRVID=1 MIN=1000 CLOPT=\"-s S0 --\"\n", g)
	}
	b.WriteString("*SERVICES\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "S%d LOAD=50\n", i)
	}
	m, err := LoadModel(ubb.Input{UBBConfig: b.String(), UBBName: "u"})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := newEngine(engSetup(m), &sliceRequests{}, simOptions{}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 64 {
		t.Errorf("setting up 10 000 instances x 20 000 services allocated %d MiB, want at most 64 (linear in what is advertised)", mb)
	}
}
