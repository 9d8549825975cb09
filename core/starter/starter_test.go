package starter

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// starterUBB: S1 (simpserv, -s A,B) and S2 (other, -s A) on one machine, and
// an "legacy" server with no -s that takes every *SERVICES service (A, C).
const starterUBB = `*RESOURCES
MODEL SHM
LDBAL Y
*MACHINES
h LMID=site1
*GROUPS
G1 LMID=site1 GRPNO=1
*SERVERS
simpserv SRVGRP=G1 SRVID=1 CLOPT="-s A,B"
other SRVGRP=G1 SRVID=2 CLOPT="-s A"
legacy SRVGRP=G1 SRVID=3
*SERVICES
A
C
`

func TestNew(t *testing.T) {
	ubb := starterUBB
	sc, err := New(Files{UBBConfig: &ubb, UBBName: "ubb.cfg"})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string][]string{"legacy": {"A", "C"}}; !reflect.DeepEqual(sc.Advertise, want) {
		t.Errorf("advertise: got %v, want %v", sc.Advertise, want)
	}
	// Each server's time split evenly among its services: simpserv gives A
	// and B 1/2 each, other gives A 1, legacy gives A and C 1/2 each. A
	// service is offered load times the smallest share of its servers, so
	// that no server is above 50% busy even if it alone took all of its
	// services' requests: A min(1/2, 1, 1/2) = 1/2, B 1/2, C 1/2. At 50%
	// busy and 10 ms per request (100 per second per server): 0.5*0.5*100
	// = 25/s each (simpserv then has at most 25+25 = 50/s, 50% busy).
	want := []scenario.Stream{
		{Service: "A", Origin: "site1", Arrivals: "poisson", RatePerS: 25},
		{Service: "B", Origin: "site1", Arrivals: "poisson", RatePerS: 25},
		{Service: "C", Origin: "site1", Arrivals: "poisson", RatePerS: 25},
	}
	if sc.Workload.Generate == nil || !reflect.DeepEqual(sc.Workload.Generate.Streams, want) {
		t.Errorf("streams: got %+v, want %+v", sc.Workload.Generate, want)
	}
	if sc.Workload.Generate.DurationMS != 60000 {
		t.Errorf("duration: got %g, want 60000", sc.Workload.Generate.DurationMS)
	}
	for _, s := range []string{"A", "B", "C"} {
		d := sc.Services[s].ServiceTime
		if d == nil || d.Dist != "exp" || *d.MeanMS != 10 {
			t.Errorf("services.%s: got %+v, want exp 10 ms", s, d)
		}
	}
	if !strings.Contains(sc.Name, "about 50% busy") || !strings.Contains(sc.Name, "docs/scenario.md") {
		t.Errorf("name %q: want the load level and where to look", sc.Name)
	}
	// It runs, and the legacy server no longer warns of its missing -s.
	data, _ := json.Marshal(sc)
	parsed, err := core.ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := core.Compile(parsed, core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range plan.Warnings() {
		if strings.Contains(w, "no -s") {
			t.Errorf("warning %q: the advertise entry should have answered it", w)
		}
	}
}

func TestStarterFromTrace(t *testing.T) {
	ubb, trace := starterUBB, "timestamp,svc,exec_time_ms\n"+
		"2026-11-29 10:00:00,A,4\n2026-11-29 10:00:01,A,6\n2026-11-29 10:00:02,B,\n2026-11-29 10:00:04,A,\n"
	sc, err := New(Files{UBBConfig: &ubb, Trace: &trace, TraceName: "t.csv"})
	if err != nil {
		t.Fatal(err)
	}
	// The trace spans 4 s: A 3 requests (0.75/s), B 1 (0.25/s). A's measured
	// mean service time is (4+6)/2 = 5 ms; B has none given: 10 ms.
	want := &scenario.Generator{DurationMS: 4000, Streams: []scenario.Stream{
		{Service: "A", Origin: "site1", Arrivals: "poisson", RatePerS: 0.75},
		{Service: "B", Origin: "site1", Arrivals: "poisson", RatePerS: 0.25},
	}}
	if !reflect.DeepEqual(sc.Workload.Generate, want) {
		t.Errorf("got %+v, want %+v", sc.Workload.Generate, want)
	}
	if got := *sc.Services["A"].ServiceTime.MeanMS; got != 5 {
		t.Errorf("A's mean: got %g, want 5", got)
	}
	if got := *sc.Services["B"].ServiceTime.MeanMS; got != 10 {
		t.Errorf("B's mean: got %g, want 10", got)
	}
}

func TestWithFiles(t *testing.T) {
	ubb, dm, trace := starterUBB, "", "time_ms,service\n0,A\n"
	base := &scenario.Scenario{Name: "mine", UBBConfig: "old", Workload: scenario.Workload{
		TraceCSV: "x", Columns: &scenario.TraceMap{Delimiter: ";"}, Generate: &scenario.Generator{DurationMS: 5}}}
	got, err := WithFiles(base, Files{UBBConfig: &ubb, DMConfig: &dm, Trace: &trace})
	if err != nil {
		t.Fatal(err)
	}
	want := &scenario.Scenario{Name: "mine", UBBConfig: ubb, Workload: scenario.Workload{TraceCSV: trace, Columns: &scenario.TraceMap{Delimiter: ";"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if base.UBBConfig != "old" || base.Workload.Generate == nil {
		t.Errorf("the scenario given was modified: %+v", base)
	}
	// Without a scenario: the starter, with the trace as its workload.
	got, err = WithFiles(nil, Files{UBBConfig: &ubb, Trace: &trace, Columns: &scenario.TraceMap{Time: "time_ms"}, UBBName: "u", TraceName: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Workload.TraceCSV != trace || got.Workload.Generate != nil || got.Workload.Columns.Time != "time_ms" || got.Name != "u replaying t (defaults: see docs/scenario.md, Starting from your own files)" {
		t.Errorf("got %+v", got)
	}
	for _, tt := range []struct {
		f    Files
		want string
	}{
		{Files{Trace: &dm}, "trace: the file is empty"},
		{Files{}, "ubbconfig: missing"},
		{Files{UBBConfig: &ubb, Trace: ptr("time_ms,service\n0,NOPE\n")}, `trace row 1: service: unknown service "NOPE"`},
		{Files{UBBConfig: ptr("*RESOURCES\nMODEL SHM\n*MACHINES\nh LMID=a\n*GROUPS\nG LMID=a GRPNO=1\n")}, "ubbconfig: no server offers a service"},
	} {
		if _, err := WithFiles(nil, tt.f); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("got %v, want %q", err, tt.want)
		}
	}
}

func TestParseTraceMap(t *testing.T) {
	got, err := ParseTraceMap("time=ts, service = svc,time_unit=s,delimiter=tab")
	want := &scenario.TraceMap{Time: "ts", Service: "svc", TimeUnit: "s", Delimiter: "\t"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, %v; want %+v", got, err, want)
	}
	// every field of workload.columns is a key, the routing value's column
	// and the observed response's among them
	got, err = ParseTraceMap("route=Account,observed=Elapsed(ms),date_order=dmy,tz=Europe/Paris,buftype=Type")
	want = &scenario.TraceMap{Route: "Account", Observed: "Elapsed(ms)", DateOrder: "dmy", TZ: "Europe/Paris", BufType: "Type"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, %v; want %+v", got, err, want)
	}
	// a value with commas, a POSIX TZ rule or a column's name, in quotes
	got, err = ParseTraceMap(`tz="CET-1CEST,M3.5.0,M10.5.0/3", service = "Svc, ""main""",delimiter=","`)
	want = &scenario.TraceMap{TZ: "CET-1CEST,M3.5.0,M10.5.0/3", Service: `Svc, "main"`, Delimiter: ","}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("quoted values: got %+v, %v; want %+v", got, err, want)
	}
	for bad, msg := range map[string]string{`tz="CET-1CEST,M3.5.0`: "never closed", `tz="UTC"x,time=ts`: "want a comma after the quoted value"} {
		if _, err := ParseTraceMap(bad); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: got %v, want %q", bad, err, msg)
		}
	}
	for _, bad := range []string{"time", "colour=x", "=x"} {
		if _, err := ParseTraceMap(bad); err == nil {
			t.Errorf("%q: got no error", bad)
		}
	}
	if _, err := ParseTraceMap("colour=x"); err == nil || !strings.Contains(err.Error(), "route, buftype, delimiter, observed, date_order, tz, status") {
		t.Errorf("the unknown key's error lists the keys: got %v", err)
	}
}

func TestParseScenario(t *testing.T) {
	ubb, trace := starterUBB, "time_ms,service\n0,A\n"
	doc := `{"services": {"A": {"service_time": {"dist": "const", "ms": 1}}}, "workload": {"columns": {"delimiter": ","}}}`
	sc, err := ParseScenario([]byte(doc), Files{UBBConfig: &ubb, Trace: &trace})
	if err != nil {
		t.Fatal(err)
	}
	if sc.UBBConfig != ubb || sc.Workload.TraceCSV != trace || sc.Workload.Columns == nil || sc.Workload.Columns.Delimiter != "," {
		t.Errorf("got %+v", sc)
	}
	if _, err := ParseScenario([]byte(`{"colour": 1}`), Files{UBBConfig: &ubb}); err == nil || err.Error() != "colour: unknown field" {
		t.Errorf("got %v, want colour: unknown field", err)
	}
	if _, err := ParseScenario([]byte("{\n,"), Files{UBBConfig: &ubb}); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("got %v, want the syntax error's line", err)
	}
	// The document is read as it was sent, files or not: a key given twice
	// is refused naming it and its place in the document.
	dup := "{\"services\": {},\n \"services\": {}, \"workload\": {}}"
	for _, f := range []Files{{}, {UBBConfig: &ubb}, {UBBConfig: &ubb, Trace: &trace}} {
		_, err := ParseScenario([]byte(dup), f)
		if err == nil || !strings.HasPrefix(err.Error(), "services: given twice") || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("files %+v: got %v, want services given twice on line 2", f, err)
		}
	}
	// The spliced scenario is checked once, as a whole: a document that is
	// only missing what the files give is complete with them.
	if _, err := ParseScenario([]byte(`{"workload": {}}`), Files{}); err == nil || !strings.HasPrefix(err.Error(), "ubbconfig: missing") {
		t.Errorf("without the file: got %v, want ubbconfig missing", err)
	}
}

// The starters of the configurations under testdata (real ones, and the
// bank sample with routing by account and branch) run with no TPESYSTEM
// (routed services get values from their RANGES) and no server above 60%
// busy (each is about 50% busy by construction).
func TestStarterStaysBelowHalfBusy(t *testing.T) {
	type cfg struct{ name, text string }
	var cfgs []cfg
	var bank struct {
		UBBConfig string `json:"ubbconfig"`
	}
	data, err := os.ReadFile("../../examples/bank-routing.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &bank); err != nil {
		t.Fatal(err)
	}
	cfgs = append(cfgs, cfg{"bank-routing", bank.UBBConfig})
	paths, _ := filepath.Glob("../../testdata/tuxedo-configs/*.ubb")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, cfg{filepath.Base(p), string(b)})
	}
	ran, routed := 0, 0
	for _, c := range cfgs {
		sc, err := New(Files{UBBConfig: &c.text})
		if err != nil {
			continue // a configuration that does not load (the syntax-error samples) or offers nothing
		}
		for _, st := range sc.Workload.Generate.Streams {
			if st.Route != nil {
				routed++
			}
		}
		sc.Workload.Generate.DurationMS = 20000
		r, err := core.Run(sc, core.RunOptions{})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		ran++
		if n := r.Requests.Failed["TPESYSTEM"]; n > 0 {
			t.Errorf("%s: %d TPESYSTEM failures", c.name, n)
		}
		for _, s := range r.Servers {
			if s.Utilization >= 0.6 {
				t.Errorf("%s: server %s %.2f busy, want < 0.6", c.name, s.ID, s.Utilization)
			}
		}
	}
	if ran < 10 || routed < 5 {
		t.Errorf("ran %d starters with %d routed streams: want the testdata configurations", ran, routed)
	}
}

// Routed services draw values from their RANGES, weighted by width.
func TestStarterRoutes(t *testing.T) {
	ubbText := `*RESOURCES
MODEL SHM
LDBAL Y
*MACHINES
h LMID=site1
*GROUPS
G1 LMID=site1 GRPNO=1
G2 LMID=site1 GRPNO=2
G3 LMID=site1 GRPNO=3
G9 LMID=site1 GRPNO=9
*SERVERS
S SRVGRP=G1 SRVID=1 MIN=2 CLOPT="-s ACCT,NAME"
S SRVGRP=G2 SRVID=1 CLOPT="-s ACCT,NAME"
S SRVGRP=G3 SRVID=1 CLOPT="-s ACCT"
*SERVICES
ACCT ROUTING=ACCT
NAME ROUTING=NAMES
*ROUTING
ACCT FIELD=ACCT RANGES="MIN-999:G1, 1000-3999:G1, 5000-5999:G2, 6000-6999:G3, 7000-7999:G9, *:*"
NAMES FIELD=NAME RANGES="'A'-'M':G1, 'N'-'Z':G2, *:*"
`
	sc, err := New(Files{UBBConfig: &ubbText})
	if err != nil {
		t.Fatal(err)
	}
	// ACCT: MIN-999 and * are unbounded, G9 serves nothing; 1000-3999
	// (3000 values, G1), 5000-5999 (1000, G2), 6000-6999 (1000, G3) have a
	// gap, so one value inside each, weighted 3000:1000:1000. Shares: G1's
	// servers offer two services (1/2), G2's two (1/2), G3's one (1).
	// Fractions 0.6, 0.2, 0.2: work min(0.5/0.6, 0.5/0.2, 1/0.2) = 0.8333,
	// rate 0.5*0.8333*100 = 41.7/s. NAME: strings, one value each, weights
	// 1:1; work min(0.5/0.5, 0.5/0.5) = 1, rate 50/s.
	st := sc.Workload.Generate.Streams
	if len(st) != 2 || st[0].Service != "ACCT" || st[1].Service != "NAME" {
		t.Fatalf("streams %+v", st)
	}
	a, n := st[0], st[1]
	if a.RatePerS != 41.7 || a.Route == nil || !reflect.DeepEqual(a.Route.Values, []scenario.RouteValue{"2499", "5499", "6499"}) ||
		!reflect.DeepEqual(a.Route.Weights, []float64{3000, 1000, 1000}) {
		t.Errorf("ACCT: %+v route %+v", a, a.Route)
	}
	if n.RatePerS != 50 || n.Route == nil || !reflect.DeepEqual(n.Route.Values, []scenario.RouteValue{"A", "N"}) {
		t.Errorf("NAME: %+v route %+v", n, n.Route)
	}
	r, err := core.Run(sc, core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Requests.Failed) != 0 {
		t.Errorf("failed %v, want none", r.Requests.Failed)
	}
}

// A service whose servers are all spares (MIN=0) has no capacity to size
// its stream from: it gets the smallest rate, and a warning says how to
// start one of them.
func TestStarterServiceOfSparesOnly(t *testing.T) {
	ubbText := "*RESOURCES\nIPCKEY 1\nMASTER site1\nMODEL SHM\n*MACHINES\nh LMID=site1\n*GROUPS\nG LMID=site1 GRPNO=1\n*SERVERS\n" +
		"a SRVGRP=G SRVID=1 CLOPT=\"-s A\"\nb SRVGRP=G SRVID=2 MIN=0 MAX=2 CLOPT=\"-s B\"\n*SERVICES\nA\nB\n"
	sc, warns, err := NewWithWarnings(Files{UBBConfig: &ubbText})
	if err != nil {
		t.Fatal(err)
	}
	rates := map[string]float64{}
	for _, st := range sc.Workload.Generate.Streams {
		rates[st.Service] = st.RatePerS
	}
	if rates["B"] != 0.001 || rates["A"] <= 1 {
		t.Errorf("rates %v, want B's the smallest, 0.001, and A's sized to its server", rates)
	}
	if !strings.Contains(strings.Join(warns, "|"), "B: no running server offers it (its servers are spares until booted: MIN=0)") {
		t.Errorf("warnings %q, want one naming B", warns)
	}
}

// A multithreaded server's streams are sized to its threads: its busy
// fraction is over its MAXDISPATCHTHREADS (docs/engine.md), so the starter's
// about-half-busy rule offers it k threads' worth. By hand, one server
// offering A and B at the default 10 ms each, load 0.5: each service gets
// half the server, 0.5 × 0.5 × 1000 / 10 = 25 requests/s with one thread;
// with MAXDISPATCHTHREADS=4, 4 × 25 = 100.
func TestStarterCountsThreads(t *testing.T) {
	rates := func(threads string) map[string]float64 {
		ubbText := "*RESOURCES\nIPCKEY 1\nMASTER site1\nMODEL SHM\n*MACHINES\nh LMID=site1\n*GROUPS\nG LMID=site1 GRPNO=1\n*SERVERS\n" +
			"a SRVGRP=G SRVID=1 " + threads + " CLOPT=\"-s A,B\"\n*SERVICES\nA\nB\n"
		sc, err := New(Files{UBBConfig: &ubbText})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, st := range sc.Workload.Generate.Streams {
			out[st.Service] = st.RatePerS
		}
		return out
	}
	if got := rates(""); got["A"] != 25 || got["B"] != 25 {
		t.Errorf("one thread: rates %v, want A and B 25/s", got)
	}
	if got := rates("MINDISPATCHTHREADS=1 MAXDISPATCHTHREADS=4"); got["A"] != 100 || got["B"] != 100 {
		t.Errorf("four threads: rates %v, want A and B 100/s", got)
	}
}

// The starter lists what reading the configuration left out, where it is
// written, as the run will: MINN=5 (a typo of MIN) is ignored, so simpserv
// boots one instance, not five; and the warning about simpserv advertising
// every *SERVICES service is not said twice (the scenario's advertise
// entry answers it). A section written *servers is not *SERVERS: its
// servers are left out, nothing is left to run, and the warning that says
// why comes with the error.
func TestStarterListsConfigurationWarnings(t *testing.T) {
	ubbText := "*RESOURCES\nIPCKEY 1\nMASTER site1\nMODEL SHM\n*MACHINES\nh LMID=site1\n*GROUPS\nG LMID=site1 GRPNO=1\n*SERVERS\n" +
		"simpserv SRVGRP=G SRVID=1 MINN=5 CLOPT=\"-A\"\n*SERVICES\nTOUPPER\n"
	sc, warns, err := NewWithWarnings(Files{UBBConfig: &ubbText, UBBPath: "ubb.cfg"})
	if err != nil {
		t.Fatal(err)
	}
	// MINN starts after "simpserv SRVGRP=G SRVID=1 ", 26 characters: column 27
	want := []string{"ubb.cfg:10:27: unknown keyword MINN in *SERVERS (ignored)"}
	if !reflect.DeepEqual(warns, want) {
		t.Errorf("warnings %q, want %q", warns, want)
	}
	if !reflect.DeepEqual(sc.Advertise["simpserv"], []string{"TOUPPER"}) {
		t.Errorf("advertise %v, want simpserv: TOUPPER", sc.Advertise)
	}
	lower := strings.Replace(ubbText, "*SERVERS", "*servers", 1)
	_, warns, err = NewWithWarnings(Files{UBBConfig: &lower, UBBPath: "ubb.cfg"})
	if err == nil || !strings.Contains(err.Error(), "nothing to run") {
		t.Fatalf("err %v, want nothing to run", err)
	}
	if want := []string{"ubb.cfg:9:1: unknown section *servers: its entries are ignored"}; !reflect.DeepEqual(warns, want) {
		t.Errorf("warnings with the error %q, want %q", warns, want)
	}
}

// A configuration that offers nothing says why: BEA's Jolt setup of
// simpapp boots only JSL and three JREPSVRs (Tuxedo's own servers, no
// application service) and lists no service; a section written *servers
// leaves no server at all.
func TestStarterNothingToRunSaysWhy(t *testing.T) {
	jolt := "*RESOURCES\nIPCKEY 123460\nMASTER jrep\nMODEL SHM\n*MACHINES\nDK3303 LMID=jrep\n*GROUPS\n\"JOLT\" LMID=\"jrep\" GRPNO=2\n*SERVERS\n" +
		"\"JSL\" SRVGRP=\"JOLT\" SRVID=1 CLOPT=\"-A -- -n //DK3303:7004\"\n\"JREPSVR\" SRVGRP=\"JOLT\" SRVID=2\n\"JREPSVR\" SRVGRP=\"JOLT\" SRVID=3\n*SERVICES\n"
	_, _, err := NewWithWarnings(Files{UBBConfig: &jolt})
	want := "no server offers a service, so there is nothing to run: its servers (JSL, JREPSVR) are all Tuxedo system servers, which offer no application service"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Jolt only: got %v, want %q", err, want)
	}
	none := strings.Replace(jolt, "*SERVERS", "*servers", 1)
	_, _, err = NewWithWarnings(Files{UBBConfig: &none})
	if want := "nothing to run: the configuration has no server (no *SERVERS entry)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("*servers: got %v, want %q", err, want)
	}
}
