package plan

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/fixture"
	"github.com/tuxlb/tuxlb/core/ubb"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// baseScenario is valid against handModel: every service that a local server
// may process has a distribution, and RDOM has a response time.
func baseScenario() *scenario.Scenario {
	return &scenario.Scenario{
		UBBConfig: "(built by hand in handModel)",
		Services: map[string]scenario.ServiceSpec{
			"TOUPPER": {ServiceTime: &scenario.Dist{Dist: "exp", MeanMS: f(4)}, ByGroup: map[string]scenario.Dist{"G2": {Dist: "const", MS: f(2)}}},
			"TOLOWER": {ServiceTime: &scenario.Dist{Dist: "const", MS: f(1)}},
		},
		Domains:  map[string]scenario.DomainSpec{"RDOM": {ResponseTime: scenario.Dist{Dist: "const", MS: f(20)}}},
		Workload: scenario.Workload{TraceCSV: "time_ms,service\n0,TOUPPER\n"},
	}
}

func TestSetupDefaults(t *testing.T) {
	m := fixture.HandModel()
	m.Warnings = []ubb.Diagnostic{{File: "ubbconfig", Line: 3, Col: 1, Message: "services from *SERVICES"}}
	st, err := Resolve(m, baseScenario(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"policy", st.Policy.String(), "tuxedo"},
		{"seed", st.Seed, uint64(1)},
		{"idle", st.Tuning.Idle, "server"},
		{"netload", st.Tuning.NetLoad, "server"},
		{"mp_counter", st.Tuning.MPCounter, "load+netload"},
		{"mp_reset_ms", *st.Tuning.MPResetMS, 120_000.0},
		{"gateway_forward_ms", *st.Tuning.GatewayForwardMS, 0.1},
		{"ResetUS", st.ResetUS, int64(120_000_000)},
		{"BlockUS", st.BlockUS, int64(60_000_000)},
		{"GatewayForwardUS", st.GatewayForwardUS, int64(100)},
		{"LatencyUS", st.LatencyUS, int64(0)},
		{"WarmupUS", st.WarmupUS, int64(0)},
		{"speeds", len(st.Speed) == 2 && st.Speed[0] == 1 && st.Speed[1] == 1, true},
		{"warnings", strings.Join(st.Warnings, "|"), "ubbconfig:3:1: warning: services from *SERVICES"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestSetupResolves(t *testing.T) {
	sc := baseScenario()
	sc.Policy, sc.Seed = "jsq", new(uint64)
	sc.Machines = map[string]scenario.MachineSpec{"site2": {Speed: f(0.5)}}
	sc.Network = &scenario.NetworkSpec{LatencyMS: 1.0005}
	sc.Tuning = &scenario.Tuning{MPResetMS: f(2.5), GatewayForwardMS: f(0), NetLoad: "origin"}
	sc.WarmupMS = &scenario.Warmup{MS: 10}
	seed := uint64(99)
	st, err := Resolve(fixture.HandModel(), sc, Options{Policy: "p2c", Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	if st.Policy != PolicyP2C || st.Seed != 99 || st.Speed[1] != 0.5 || st.LatencyUS != 1001 ||
		st.ResetUS != 2500 || st.GatewayForwardUS != 0 || st.Tuning.NetLoad != "origin" || st.WarmupUS != 10_000 {
		t.Errorf("got %+v, want policy p2c, seed 99, speed[1] 0.5, latency 1001, reset 2500, forward 0, netload origin, warmup 10000", st)
	}
	up := st.ServiceTime[fixture.SvcToUpper]
	if up[0].MeanMS() != 4 || up[1].MeanMS() != 2 || up[2].MeanMS() != 4 {
		t.Errorf("TOUPPER means per group: got %v %v %v, want 4 2 4", up[0].MeanMS(), up[1].MeanMS(), up[2].MeanMS())
	}
	if st.ServiceTime[fixture.SvcRemote][0] != nil {
		t.Errorf("REMOTE has no service_time: got a sampler, want nil")
	}
	if st.RemoteTime[fixture.SvcRemote] == nil || st.RemoteTime[fixture.SvcRemote].MeanMS() != 20 || st.RemoteTime[fixture.SvcToUpper] != nil {
		t.Errorf("RemoteTime: got %v, want RDOM's 20 ms for REMOTE only", st.RemoteTime)
	}
}

func TestSetupErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(sc *scenario.Scenario, opt *Options)
		want string
	}{
		{"machine", func(sc *scenario.Scenario, _ *Options) { sc.Machines = map[string]scenario.MachineSpec{"site9": {}} },
			"machines.site9: unknown LMID (the UBBCONFIG has site1 and site2)"},
		{"speed", func(sc *scenario.Scenario, _ *Options) {
			sc.Machines = map[string]scenario.MachineSpec{"site1": {Speed: f(0)}}
		},
			"machines.site1.speed: must be between 1e-6 and 1e6, got 0"},
		{"tiny speed", func(sc *scenario.Scenario, _ *Options) {
			sc.Machines = map[string]scenario.MachineSpec{"site1": {Speed: f(1e-300)}}
		},
			"machines.site1.speed: must be between 1e-6 and 1e6, got 1e-300"},
		{"latency", func(sc *scenario.Scenario, _ *Options) { sc.Network = &scenario.NetworkSpec{LatencyMS: -1} },
			"network.latency_ms: must be >= 0"},
		{"service", func(sc *scenario.Scenario, _ *Options) { sc.Services["FOO"] = scenario.ServiceSpec{} },
			"services.FOO: unknown service"},
		{"group", func(sc *scenario.Scenario, _ *Options) {
			sc.Services["TOLOWER"] = scenario.ServiceSpec{ByGroup: map[string]scenario.Dist{"GX": {Dist: "const", MS: f(1)}}}
		}, "services.TOLOWER.by_group.GX: unknown group"},
		{"domain", func(sc *scenario.Scenario, _ *Options) { sc.Domains["XDOM"] = sc.Domains["RDOM"] },
			"domains.XDOM: unknown remote domain (the DMCONFIG has RDOM)"},
		{"missing domain", func(sc *scenario.Scenario, _ *Options) { delete(sc.Domains, "RDOM") },
			"domains.RDOM: missing; service REMOTE is imported from it and needs its response_time"},
		{"policy option", func(_ *scenario.Scenario, opt *Options) { opt.Policy = "fast" },
			`policy (option): unknown policy "fast"`},
		{"stream without distribution", func(sc *scenario.Scenario, _ *Options) {
			delete(sc.Services, "TOLOWER")
			sc.Workload.Generate = &scenario.Generator{DurationMS: 10, Streams: []scenario.Stream{
				{Service: "REMOTE", Arrivals: "poisson", RatePerS: 1}, {Service: "TOLOWER", Arrivals: "poisson", RatePerS: 1}}}
		}, "workload.generate.streams[1].service: service TOLOWER has no service_time for group G1"},
		{"row without service_ms", func(sc *scenario.Scenario, _ *Options) {
			sc.Services["TOUPPER"] = scenario.ServiceSpec{ByGroup: map[string]scenario.Dist{"G1": {Dist: "const", MS: f(1)}}}
			sc.Workload.TraceCSV = "time_ms,service,service_ms\n0,TOUPPER,3\n1,REMOTE,\n2,TOUPPER,\n"
		}, "trace row 3: service_ms: missing; service TOUPPER has no service_time for group G2"},
		{"trace error", func(sc *scenario.Scenario, _ *Options) { sc.Workload.TraceCSV = "time_ms,service\nx,TOUPPER\n" },
			"trace row 1: time_ms: not a number"},
	}
	for _, tt := range tests {
		sc, opt := baseScenario(), Options{}
		tt.edit(sc, &opt)
		_, err := Resolve(fixture.HandModel(), sc, opt)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || diag.ErrorCode(err) != diag.EINVALID {
			t.Errorf("%s: got %v, want %s error %q", tt.name, err, diag.EINVALID, tt.want)
		}
	}
}

func TestSetupAcceptsTimedTrace(t *testing.T) {
	sc := baseScenario()
	delete(sc.Services, "TOLOWER")
	sc.Workload.TraceCSV = "time_ms,service,service_ms\n0,TOLOWER,2\n1,REMOTE,\n"
	if _, err := Resolve(fixture.HandModel(), sc, Options{}); err != nil {
		t.Errorf("TOLOWER rows with service_ms and a REMOTE row: got %v, want no error", err)
	}
}

// TestSetupTMNetLoad: TMNETLOAD of machines.LMID.env replaces the
// machine's NETLOAD in the setup's copy of the model (the loaded model is
// not changed); a value that is not a NETLOAD is an error naming the field.
func TestSetupTMNetLoad(t *testing.T) {
	m := fixture.HandModel()
	before := m.Machines[1].NetLoad
	sc := baseScenario()
	sc.Machines = map[string]scenario.MachineSpec{"site2": {Env: map[string]string{"TMNETLOAD": "0077", "PATH": "/bin"}}}
	st, err := Resolve(m, sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Model.Machines[1].NetLoad != 77 || m.Machines[1].NetLoad != before {
		t.Errorf("NetLoad: setup %d, loaded model %d; want 77 and %d", st.Model.Machines[1].NetLoad, m.Machines[1].NetLoad, before)
	}
	for _, v := range []string{"abc", "-1", "+5", " 5", "32768", "", "1e3", "0x10"} {
		sc.Machines = map[string]scenario.MachineSpec{"site2": {Env: map[string]string{"TMNETLOAD": v}}}
		_, err := Resolve(fixture.HandModel(), sc, Options{})
		want := `machines.site2.env.TMNETLOAD: want a whole number from 0 to 32767, got "` + v + `"`
		if err == nil || err.Error() != want {
			t.Errorf("TMNETLOAD %q: got %v, want %s", v, err, want)
		}
	}
	sc.Machines = map[string]scenario.MachineSpec{"site9": {Env: map[string]string{"TMNETLOAD": "1"}}}
	if _, err := Resolve(fixture.HandModel(), sc, Options{}); err == nil || !strings.Contains(err.Error(), "machines.site9: unknown LMID") {
		t.Errorf("unknown LMID: got %v", err)
	}
}

func f(v float64) *float64 { return &v }

// TestEmptyTraceList: a trace list of no rows is an error naming
// workload.trace, with generated streams beside it too (it would add
// nothing to them), as a log of no rows is; trace left out is no error.
func TestEmptyTraceList(t *testing.T) {
	sc := baseScenario()
	sc.Workload = scenario.Workload{Trace: []scenario.TraceRow{}}
	want := "workload.trace: empty (give at least one row, or leave trace out)"
	if err := Check(sc); err == nil || err.Error() != want || diag.ErrorCode(err) != diag.EINVALID {
		t.Errorf("trace []: got %v, want %s error %q", err, diag.EINVALID, want)
	}
	gen := &scenario.Generator{DurationMS: 10, Streams: []scenario.Stream{{Service: "TOUPPER", Arrivals: "poisson", RatePerS: 1}}}
	sc.Workload.Generate = gen
	if err := Check(sc); err == nil || err.Error() != want {
		t.Errorf("trace [] beside generate: got %v, want %q", err, want)
	}
	sc.Workload = scenario.Workload{Generate: gen}
	if err := Check(sc); err != nil {
		t.Errorf("generate alone: got %v, want no error", err)
	}
}

// TestTMSTime: transactions.tms_time is checked with the scenario, resolved
// (default const 1 ms) only when the configuration can start a transaction.
func TestTMSTime(t *testing.T) {
	sc := baseScenario()
	sc.Transactions = &scenario.TransactionsSpec{TMSTime: &scenario.Dist{Dist: "const", MS: f(-2)}}
	if err := Check(sc); err == nil || !strings.Contains(err.Error(), "transactions.tms_time") {
		t.Errorf("Check: got %v, want an error naming transactions.tms_time", err)
	}
	if _, err := Resolve(fixture.HandModel(), sc, Options{}); err == nil || !strings.Contains(err.Error(), "transactions.tms_time") {
		t.Errorf("Resolve: got %v, want an error naming transactions.tms_time", err)
	}

	st, err := Resolve(fixture.HandModel(), baseScenario(), Options{})
	if err != nil || st.TMSTime != nil {
		t.Fatalf("without AUTOTRAN: %v, TMSTime %v, want none", err, st.TMSTime)
	}
	m := fixture.HandModel()
	m.TMS = []ubb.TMSGroup{{Group: "G1", Name: "TMS", Count: 2, Queue: "G1/TMS"}}
	if st, err = Resolve(m, baseScenario(), Options{}); err != nil || st.TMSTime == nil || st.TMSTime.MeanMS() != 1 {
		t.Fatalf("default: %v, %v, want const 1 ms", err, st.TMSTime)
	}
	sc = baseScenario()
	sc.Transactions = &scenario.TransactionsSpec{TMSTime: &scenario.Dist{Dist: "exp", MeanMS: f(3)}}
	if st, err = Resolve(m, sc, Options{}); err != nil || st.TMSTime.MeanMS() != 3 {
		t.Fatalf("given: %v, %v, want mean 3 ms", err, st.TMSTime)
	}
}

// tuning.mt_idle is checked always and shown only when some instance has
// more than one dispatch thread, so a run without one keeps its bytes.
func TestSetupMTIdle(t *testing.T) {
	st, err := Resolve(fixture.HandModel(), baseScenario(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Tuning.MTIdle != "" {
		t.Errorf("single-threaded model: mt_idle %q, want it left out", st.Tuning.MTIdle)
	}
	m := fixture.HandModel()
	m.Servers[1].Threads = 3
	st, err = Resolve(m, baseScenario(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Tuning.MTIdle != "server" {
		t.Errorf("an instance with 3 threads: mt_idle %q, want the default %q", st.Tuning.MTIdle, "server")
	}
	sc := baseScenario()
	sc.Tuning = &scenario.Tuning{MTIdle: "no_request"}
	if st, err = Resolve(m, sc, Options{}); err != nil || st.Tuning.MTIdle != "no_request" {
		t.Errorf("mt_idle no_request: got %q, %v", st.Tuning.MTIdle, err)
	}
	r, _ := TuningReadings(&st.Tuning)
	if r.MTIdle != MTIdleNoRequest {
		t.Errorf("reading: got %v, want no_request", r.MTIdle)
	}
	sc.Tuning = &scenario.Tuning{MTIdle: "threads"}
	_, err = Resolve(fixture.HandModel(), sc, Options{})
	if err == nil || !strings.Contains(err.Error(), "tuning.mt_idle") || !strings.Contains(err.Error(), "threads") {
		t.Errorf("mt_idle threads: got %v, want an error naming tuning.mt_idle", err)
	}
}

// A scenario is checked once: the samplers CheckScenario built are the
// ones ResolveChecked puts in the Setup, not built again. baseScenario has
// four distributions (TOUPPER, its G2 entry, TOLOWER, RDOM) and the TMS
// servers' default: five samplers in all.
func TestResolveCheckedTakesTheCheckedSamplers(t *testing.T) {
	built := 0
	defer func(f func(*scenario.Dist, string) (dist.Sampler, error)) { newSampler = f }(newSampler)
	newSampler = func(d *scenario.Dist, field string) (dist.Sampler, error) {
		built++
		return dist.New(d, field)
	}
	sc := baseScenario()
	ck, err := CheckScenario(sc)
	if err != nil {
		t.Fatal(err)
	}
	checked := built
	st, err := ResolveChecked(fixture.HandModel(), ck, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if checked != 5 || built != checked {
		t.Errorf("samplers built: %d checking, %d in all; want 5 and 5 (none again while resolving)", checked, built)
	}
	if st.ServiceTime[fixture.SvcToUpper][0] != ck.services["TOUPPER"] || st.ServiceTime[fixture.SvcToUpper][1] != ck.services["TOUPPER/G2"] {
		t.Errorf("TOUPPER's samplers were built again: %v, checked %v", st.ServiceTime[fixture.SvcToUpper], ck.services)
	}
	if st.RemoteTime[fixture.SvcRemote] != ck.domains["RDOM"].response {
		t.Errorf("RDOM's response time was built again")
	}
	if st.ck != nil {
		t.Errorf("the Setup keeps the Checked after resolving")
	}
}

// TestValidationWindowPastTheLog: a hold-out window that starts after the
// log's last observed row judges nothing, and the setup says so; one that
// starts at that row does not warn.
func TestValidationWindowPastTheLog(t *testing.T) {
	for _, tt := range []struct {
		afterMS float64
		warn    bool
	}{{1_800_000, true}, {250.001, true}, {250, false}, {0, false}} {
		sc := baseScenario()
		sc.Workload.TraceCSV = "time_ms,service,observed_ms\n0,TOUPPER,5\n100,TOLOWER,5\n250,TOUPPER,6\n"
		sc.Validation = &scenario.ValidationOptions{AfterMS: f(tt.afterMS)}
		st, err := Resolve(fixture.HandModel(), sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(st.Warnings, "|")
		want := "validation.after_ms: the window starts at " + strconv.FormatFloat(tt.afterMS, 'f', -1, 64) +
			" ms, after the log's last observed row (issued at 250 ms): no row is judged"
		if strings.Contains(got, want) != tt.warn {
			t.Errorf("after_ms %v: warnings %q, want the warning %q: %v", tt.afterMS, got, want, tt.warn)
		}
	}
}

// TestWarmupPastTheWorkload: a warm-up at or past a generated workload's
// duration counts no request, and the setup says so; one before it does
// not warn.
func TestWarmupPastTheWorkload(t *testing.T) {
	for _, tt := range []struct {
		warmupMS float64
		warn     bool
	}{{10_000, true}, {20_000, true}, {9_999, false}} {
		sc := baseScenario()
		sc.Workload = scenario.Workload{Generate: &scenario.Generator{DurationMS: 10_000,
			Streams: []scenario.Stream{{Service: "TOUPPER", Arrivals: "poisson", RatePerS: 10}}}}
		sc.WarmupMS = &scenario.Warmup{MS: tt.warmupMS}
		st, err := Resolve(fixture.HandModel(), sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Contains(strings.Join(st.Warnings, "|"), "is at or past the workload's duration_ms (10000 ms): no request is counted")
		if got != tt.warn {
			t.Errorf("warm-up %v ms: warnings %q, want the warning: %v", tt.warmupMS, st.Warnings, tt.warn)
		}
	}
}

// A trace that gives its rows' service times beside a service that makes
// calls: the row's service_ms is TOUPPER's own work, and its call of
// TOLOWER comes after it, so a column holding TOUPPER's whole time (a
// monitoring export's) would count the call twice. The setup warns, naming
// the column and the caller; without a service_ms, or without calls, it
// does not.
func TestSetupWarnsServiceMSWithCalls(t *testing.T) {
	calls := func(sc *scenario.Scenario) {
		s := sc.Services["TOUPPER"]
		s.Calls = []scenario.CallStep{{Service: "TOLOWER"}}
		sc.Services["TOUPPER"] = s
	}
	warned := func(st *Setup) string {
		for _, w := range st.Warnings {
			if strings.Contains(w, "counted twice") {
				return w
			}
		}
		return ""
	}
	cases := []struct {
		name string
		edit func(sc *scenario.Scenario)
		want string // in the warning; "" for none
	}{
		{"column and calls", func(sc *scenario.Scenario) {
			calls(sc)
			sc.Workload.TraceCSV = "time_ms,service,service_ms\n0,TOUPPER,5\n"
		}, `trace: the column "service_ms" is each row's own work, and TOUPPER makes its calls (services.S.calls)`},
		{"JSON rows and calls", func(sc *scenario.Scenario) {
			calls(sc)
			sc.Workload.TraceCSV = ""
			sc.Workload.Trace = []scenario.TraceRow{{TimeMS: f(0), Service: "TOUPPER", ServiceMS: f(5)}}
		}, "trace: its service_ms is each row's own work, and TOUPPER makes its calls"},
		{"no service_ms", calls, ""},
		{"no calls", func(sc *scenario.Scenario) { sc.Workload.TraceCSV = "time_ms,service,service_ms\n0,TOUPPER,5\n" }, ""},
	}
	for _, c := range cases {
		sc := baseScenario()
		c.edit(sc)
		st, err := Resolve(fixture.HandModel(), sc, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if w := warned(st); c.want == "" && w != "" || c.want != "" && !strings.Contains(w, c.want) {
			t.Errorf("%s: warning %q, want %q", c.name, w, c.want)
		}
	}
}
