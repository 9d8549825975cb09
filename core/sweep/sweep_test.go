package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/scenario"
)

func TestParseSweepValues(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"1,2,4", []string{"1", "2", "4"}},
		{" jsq , p2c ", []string{"jsq", "p2c"}},
		{"0.1..0.3/0.1", []string{"0.1", "0.2", "0.3"}}, // exact decimals: 0.1+0.1+0.1 is 0.3
		{"0.5..1.5/0.25", []string{"0.5", "0.75", "1", "1.25", "1.5"}},
		{"1..2/0.4", []string{"1", "1.4", "1.8"}}, // the end is included only when reached
		{"5..1/2", []string{"5", "3", "1"}},       // start > end counts down
		{"3..3/1", []string{"3"}},
		{"-1..1/1", []string{"-1", "0", "1"}},
	}
	for _, tt := range tests {
		got, err := parseValues("k", tt.text)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("parseValues(%q): got %q, %v; want %q", tt.text, got, err, tt.want)
		}
	}
	for _, tt := range []struct{ text, want string }{
		{"", "vary k: no values"},
		{"1,,2", `vary k: empty value in "1,,2"`},
		{"1..2", `vary k: range "1..2": no /step`},
		{"1..2/0", "step must be > 0"},
		{"a..2/1", "start is not a decimal number"},
		{"1..b/1", "end is not a decimal number"},
		{"1..2/1e-1", "step is not a decimal number"},
		{"0..10000/1", "more than the limit of 1000 values"},
		{"1,2,1", "vary k: value 1 given twice"},
	} {
		_, err := parseValues("k", tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseValues(%q): got %v, want an error containing %q", tt.text, err, tt.want)
		}
	}
}

// sweepScenario is one machine, one server of SVC with a constant service
// time of 4 ms, and constant arrivals at 100/s for one second.
func sweepScenario(t *testing.T) *scenario.Scenario {
	t.Helper()
	doc := `{
  "name": "sweep",
  "ubbconfig": "*RESOURCES\nIPCKEY 1\nMASTER SITE1\nMODEL SHM\nLDBAL Y\n*MACHINES\nh LMID=SITE1\n*GROUPS\nG LMID=SITE1 GRPNO=1\n*SERVERS\nsrv SRVGRP=G SRVID=1 CLOPT=\"-s SVC\"\n*SERVICES\nSVC LOAD=50\n",
  "services": {"SVC": {"service_time": {"dist": "const", "ms": 4}}},
  "seed": 5,
  "workload": {"generate": {"duration_ms": 1000, "streams": [{"service": "SVC", "arrivals": "constant", "rate_per_s": 100}]}}
}`
	sc, err := core.ParseScenario([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// runSweep runs every unit of the sweep in the order given and reduces them.
func runSweep(t *testing.T, s *Sweep, order []int) *Result {
	t.Helper()
	r := s.NewReducer()
	for _, u := range order {
		smp, err := s.RunUnit(u, core.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Add(u, smp); err != nil {
			t.Fatal(err)
		}
	}
	return r.Result()
}

func inOrder(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestSweepObjectiveHandWorked: constant arrivals every 1/(100 x rate_scale)
// s and a constant 4 ms service at speed 1 (2 ms at speed 2). While the gap
// between arrivals is at least the service time nobody waits and the response
// is exactly the service time; once it is shorter, the queue grows by the
// difference at every arrival, so the mean response is far above it.
//
//	speed 1: gaps 10, 5, 3.33, 2.5 ms: response 4, 4, >4, >4 -> last meeting <=4.5: rate_scale 2
//	speed 2: service 2 ms, every gap >= 2.5 ms: response 2 everywhere -> last meeting: rate_scale 4
func TestSweepObjectiveHandWorked(t *testing.T) {
	sc := sweepScenario(t)
	s, err := Compile(sc, Spec{Vary: []string{"rate_scale=1..4/1", "machines.SITE1.speed=1,2"},
		Objective: "response_mean_ms<=4.5"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Points() != 8 || s.Units() != 8 {
		t.Fatalf("points %d units %d, want 8 and 8", s.Points(), s.Units())
	}
	res := runSweep(t, s, inOrder(s.Units()))
	wantMeets := []bool{true, true, false, false, true, true, true, true}
	for i, p := range res.Points {
		if p.Meets == nil || *p.Meets != wantMeets[i] {
			t.Errorf("point %d %v: meets %v, want %v (response %v)", i, p.Values, p.Meets, wantMeets[i], p.Figures["response_mean_ms"])
		}
		wantIssued := 100 * float64(i%4+1)
		if got := p.Figures["issued"].Mean; got != wantIssued {
			t.Errorf("point %d: issued %v, want %v (rate x 1 s)", i, got, wantIssued)
		}
	}
	if got := res.Points[1].Figures["response_mean_ms"].Mean; got != 4 {
		t.Errorf("rate_scale 2, speed 1: response %v, want exactly 4 (no waiting)", got)
	}
	if got := res.Points[7].Figures["response_mean_ms"].Mean; got != 2 {
		t.Errorf("rate_scale 4, speed 2: response %v, want exactly 2", got)
	}
	if len(res.Lines) != 2 {
		t.Fatalf("lines: got %d, want 2", len(res.Lines))
	}
	for i, want := range []string{"2", "4"} {
		l := res.Lines[i]
		if l.LastMeeting == nil || fmt.Sprint(l.LastMeeting.Values["rate_scale"]) != want {
			t.Errorf("line %v: last meeting %+v, want rate_scale %s", l.Values, l.LastMeeting, want)
		}
	}
}

// TestSweepSameBytesAnyOrder: the reducer gives the same bytes whatever order
// the units arrive in, and a unit equals core.Run of the point's scenario with
// the replication's seed.
func TestSweepSameBytesAnyOrder(t *testing.T) {
	sc := sweepScenario(t)
	sc.Services["SVC"] = scenario.ServiceSpec{ServiceTime: &scenario.Dist{Dist: "exp", MeanMS: ptr(4.0)}}
	sc.Workload.Generate.Streams[0].Arrivals = "poisson"
	s, err := Compile(sc, Spec{Vary: []string{"rate_scale=1,2", "policy=tuxedo,random"}, Replications: 3,
		Objective: "wait_mean_ms<=1"})
	if err != nil {
		t.Fatal(err)
	}
	forward := Encode(runSweep(t, s, inOrder(s.Units())))
	backward := inOrder(s.Units())
	slices.Reverse(backward)
	if got := Encode(runSweep(t, s, backward)); !bytes.Equal(got, forward) {
		t.Errorf("reversed order gives other bytes:\n%s\nwant\n%s", got, forward)
	}
	// The grid's first key varies fastest: points (1, tuxedo), (2, tuxedo),
	// (1, random), (2, random), 3 replications each. rate_scale 2 doubles
	// the expected requests, so its points' units come first, each group
	// in unit order.
	largest := s.LargestFirst()
	if want := []int{3, 4, 5, 9, 10, 11, 0, 1, 2, 6, 7, 8}; !slices.Equal(largest, want) {
		t.Errorf("LargestFirst = %v, want %v", largest, want)
	}
	if got := Encode(runSweep(t, s, largest)); !bytes.Equal(got, forward) {
		t.Errorf("largest-first order gives other bytes:\n%s\nwant\n%s", got, forward)
	}
	// Unit 4 is point 1 (rate_scale 2, tuxedo), replication 1.
	p, rep := s.Unit(4)
	res, err := core.Run(s.pointScenario(p), core.RunOptions{Seed: &s.Seeds[rep]})
	if err != nil {
		t.Fatal(err)
	}
	smp, _ := s.RunUnit(4, core.RunOptions{})
	if want := sampleOf(res, nil); fmt.Sprint(smp) != fmt.Sprint(want) {
		t.Errorf("unit 4: got %v, want core.Run's %v", smp, want)
	}
	var doc map[string]any
	if err := json.Unmarshal(forward, &doc); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"keys", "points", "seeds", "lines", "replications", "objective"} {
		if _, ok := doc[key]; !ok {
			t.Errorf("result has no %q", key)
		}
	}
}

func TestSweepBadInput(t *testing.T) {
	sc := sweepScenario(t)
	for _, tt := range []struct {
		spec Spec
		want string
	}{
		{Spec{}, "vary: want 1 or 2 keys"},
		{Spec{Vary: []string{"a=1", "b=2", "c=3"}}, "vary: want 1 or 2 keys"},
		{Spec{Vary: []string{"rate_scale"}}, `vary "rate_scale": want KEY=VALUES`},
		{Spec{Vary: []string{"nosuch=1,2"}}, "vary nosuch: unknown key (want one of " + keysHelp + ")"}, // the whole list, not cut as an input is
		{Spec{Vary: []string{"tuning.nosuch=1"}}, "vary tuning.nosuch: unknown key"},
		{Spec{Vary: []string{"SERVERS.srv.LOAD=1"}}, "vary SERVERS.srv.LOAD: unknown key"},
		{Spec{Vary: []string{"rate_scale=1", "RATE_SCALE=2"}}, "vary rate_scale: key given twice"},
		{Spec{Vary: []string{"rate_scale=0..1/0.5"}}, "vary rate_scale: value 0 must be > 0"},
		{Spec{Vary: []string{"rate_scale=x"}}, `vary rate_scale: value "x" is not a number`},
		{Spec{Vary: []string{"policy=best"}}, `vary policy: value "best" is not one of tuxedo`},
		{Spec{Vary: []string{"ldbal=maybe"}}, `vary ldbal: value "maybe" is not one of Y, N`},
		{Spec{Vary: []string{"network.latency_ms=-1"}}, "vary network.latency_ms: value -1 must be >= 0"},
		{Spec{Vary: []string{"SERVERS.srv.MIN=1.5"}}, `vary SERVERS.srv.MIN: value "1.5" is not a whole number`},
		{Spec{Vary: []string{"machines.NOPE.speed=1,2"}}, "vary machines.NOPE.speed=1"},
		{Spec{Vary: []string{"rate_scale=1..1000/1", "policy=tuxedo,jsq"}}, "vary: 2000 points, more than the limit of 1000"},
		{Spec{Vary: []string{"rate_scale=1"}, Replications: 101}, "replications: must be between 1 and 100"},
		{Spec{Vary: []string{"rate_scale=1"}, Objective: "p99<=3"}, `unknown figure "p99"`},
		{Spec{Vary: []string{"rate_scale=1"}, Objective: "response_p99_ms<200"}, "want FIGURE<=X or FIGURE>=X"},
		{Spec{Vary: []string{"rate_scale=1"}, Objective: "response_p99_ms<=fast"}, `limit "fast" is not a number`},
		{Spec{Vary: []string{"rate_scale=1"}, Objective: "utilization.NOPE>=0.5"}, `no machine "NOPE"`},
	} {
		_, err := Compile(sc, tt.spec)
		if err == nil || diag.ErrorCode(err) != diag.EINVALID || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Compile(%+v): got %v, want an invalid error containing %q", tt.spec, err, tt.want)
		}
	}
	clients := *sc
	clients.Workload = scenario.Workload{Generate: &scenario.Generator{DurationMS: 100,
		Clients: []scenario.ClientSet{{Name: "desk", Count: 2, Think: &scenario.Dist{Dist: "const", MS: ptr(10.0)},
			Script: []scenario.ScriptEntry{{Service: "SVC"}}}}}}
	_, err := Compile(&clients, Spec{Vary: []string{"rate_scale=2"}})
	if err == nil || !strings.Contains(err.Error(), "vary rate_scale=2: rate_scale: the workload has no trace or generated streams") {
		t.Errorf("rate_scale of clients alone: got %v", err)
	}
}

// TestRateScaleOfTrace: rate_scale compresses a trace (its issue times
// divided by the factor, multiplied into a trace_rate_scale already given
// as exact decimals) and scales the streams beside it.
func TestRateScaleOfTrace(t *testing.T) {
	sc := sweepScenario(t)
	sc.Workload.TraceCSV = "time_ms,service\n0,SVC\n1000,SVC\n"
	for _, c := range []struct {
		given *float64
		want  float64
	}{{nil, 1.5}, {ptr(1.1), 1.65}} {
		sc.Workload.TraceRateScale = c.given
		v, err := ApplyVariant(sc, Variant{Name: "x", Set: []Assignment{{Path: "rate_scale", Value: "1.5"}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Workload.TraceRateScale; got == nil || *got != c.want {
			t.Errorf("trace_rate_scale %v times 1.5: got %v, want %v", c.given, got, c.want)
		}
		if g, w := v.Workload.Generate.Streams[0].RatePerS, sc.Workload.Generate.Streams[0].RatePerS*1.5; g != w {
			t.Errorf("the stream beside the trace: rate %v, want %v", g, w)
		}
		if sc.Workload.TraceRateScale != c.given {
			t.Errorf("the scenario itself changed")
		}
	}
}

// sweepTheory is one queue of c servers (an MSSQ set when c > 1) with
// Poisson arrivals at rate_per_s 100 and exponential service of mean 4 ms
// (mu = 250/s per server), a 2-second warm-up and 60 s measured.
func sweepTheory(t *testing.T, c int) *scenario.Scenario {
	t.Helper()
	rq := ""
	if c > 1 {
		rq = ` RQADDR=\"Q\"`
	}
	doc := fmt.Sprintf(`{
  "ubbconfig": "*RESOURCES\nIPCKEY 1\nMASTER SITE1\nMODEL SHM\nLDBAL Y\n*MACHINES\nh LMID=SITE1\n*GROUPS\nG LMID=SITE1 GRPNO=1\n*SERVERS\nsrv SRVGRP=G SRVID=1 MIN=%d%s CLOPT=\"-s SVC\"\n*SERVICES\nSVC LOAD=50\n",
  "services": {"SVC": {"service_time": {"dist": "exp", "mean_ms": 4}}},
  "seed": 3,
  "warmup_ms": 2000,
  "workload": {"generate": {"duration_ms": 62000, "streams": [{"service": "SVC", "arrivals": "poisson", "rate_per_s": 100}]}}
}`, c, rq)
	sc, err := core.ParseScenario([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestSweepTheory: a rate_scale sweep's mean wait at every point against
// queueing theory, within the point's 95% confidence interval (10
// replications). M/M/1: Wq = rho/(1-rho) x S. M/M/c: Wq = C(c, a)/(c mu - lambda)
// (Erlang C). Each replication measures 60 s after a 2 s warm-up.
func TestSweepTheory(t *testing.T) {
	if testing.Short() {
		t.Skip("long runs")
	}
	cases := []struct {
		name   string
		c      int
		values string
		want   func(lambda float64) float64 // ms
	}{
		{"M/M/1", 1, "0.5..2/0.5", func(lambda float64) float64 {
			rho := lambda / 250
			return rho / (1 - rho) * 4
		}},
		{"M/M/4 (MSSQ)", 4, "2..8/2", func(lambda float64) float64 {
			return erlangC(4, lambda/250) / (1000 - lambda) * 1000
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Compile(sweepTheory(t, c.c), Spec{Vary: []string{"rate_scale=" + c.values}, Replications: 10})
			if err != nil {
				t.Fatal(err)
			}
			res := runSweep(t, s, inOrder(s.Units()))
			for _, p := range res.Points {
				scale := mustFloat(t, p.Values["rate_scale"])
				want := c.want(100 * scale)
				got := p.Figures["wait_mean_ms"]
				if math.Abs(got.Mean-want) > got.HalfWidth {
					t.Errorf("rate_scale %v: mean wait %.4f ± %.4f ms, theory %.4f outside the interval", scale, got.Mean, got.HalfWidth, want)
				}
				t.Logf("rate_scale %v (lambda %v/s): wait %.4f ± %.4f ms, theory %.4f", scale, 100*scale, got.Mean, got.HalfWidth, want)
			}
		})
	}
}

func mustFloat(t *testing.T, v any) float64 {
	t.Helper()
	var x float64
	if _, err := fmt.Sscan(fmt.Sprint(v), &x); err != nil {
		t.Fatal(err)
	}
	return x
}

func ptr[T any](v T) *T { return &v }

// erlangC is the probability that an arrival waits in M/M/c with offered
// load a = lambda/mu (in servers).
func erlangC(c int, a float64) float64 {
	term, sum := 1.0, 1.0
	for k := 1; k < c; k++ {
		term *= a / float64(k)
		sum += term
	}
	term *= a / float64(c)
	top := term * float64(c) / (float64(c) - a)
	return top / (sum + top)
}

// Sweep.Run gives the bytes of the units run in any other order (here
// backwards) and reduced.
func TestSweepRunIsAnyOrder(t *testing.T) {
	sw, err := Compile(traceScenario(t), Spec{Vary: []string{"SERVERS.simpserv.MIN=2,4"}, Replications: 2})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sw.Run(core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := sw.NewReducer()
	for u := sw.Units() - 1; u >= 0; u-- {
		smp, err := sw.RunUnit(u, core.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Add(u, smp); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := Encode(res), Encode(r.Result()); !bytes.Equal(got, want) {
		t.Errorf("Sweep.Run:\n%s\nwant the units reduced backwards:\n%s", got, want)
	}
}

// traceScenario is four instances of simpserv (TOUPPER) on one SHM machine,
// a CSV trace of four rows and a Poisson stream.
func traceScenario(t *testing.T) *scenario.Scenario {
	t.Helper()
	const ubb = "*RESOURCES\nIPCKEY 123456\nMASTER SITE1\nMODEL SHM\nLDBAL Y\n*MACHINES\n\"tuxhost\" LMID=SITE1 APPDIR=\"/app\" TUXCONFIG=\"/app/tuxconfig\" TUXDIR=\"/opt/tuxedo\"\n" +
		"*GROUPS\nAPPGRP LMID=SITE1 GRPNO=1\n*SERVERS\nsimpserv SRVGRP=APPGRP SRVID=1 MIN=4 MAX=4 CLOPT=\"-A\"\n*SERVICES\nTOUPPER LOAD=50\n"
	doc, err := json.Marshal(map[string]any{
		"ubbconfig": ubb,
		"services":  map[string]any{"TOUPPER": map[string]any{"service_time": map[string]any{"dist": "exp", "mean_ms": 2}}},
		"workload": map[string]any{
			"trace_csv": "time_ms,service,origin\n5,TOUPPER,SITE1\n1,TOUPPER,SITE1\n3,TOUPPER,SITE1\n1,TOUPPER,SITE1\n",
			"generate": map[string]any{"duration_ms": 200, "streams": []any{
				map[string]any{"service": "TOUPPER", "origin": "SITE1", "arrivals": "poisson", "rate_per_s": 1500}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := core.ParseScenario(doc)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// The page reads a sweep's keys, seeds and points, and each point's values
// and figures, as arrays and objects, never null (frontend/src/sweepdata.ts
// narrows the generated types so): the encoded result has them so, and a
// key's values are numbers or names.
func TestSweepResultNeverNull(t *testing.T) {
	s, err := Compile(sweepScenario(t), Spec{Vary: []string{"rate_scale=1,2", "policy=tuxedo,jsq"}})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Keys []struct {
			Values []any `json:"values"`
		} `json:"keys"`
		Seeds  []uint64 `json:"seeds"`
		Points []struct {
			Values  map[string]any `json:"values"`
			Figures map[string]any `json:"figures"`
		} `json:"points"`
	}
	if err := json.Unmarshal(Encode(runSweep(t, s, inOrder(s.Units()))), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Keys == nil || doc.Seeds == nil || len(doc.Points) != 4 {
		t.Fatalf("keys %v, seeds %v, %d points", doc.Keys, doc.Seeds, len(doc.Points))
	}
	for _, k := range doc.Keys {
		for _, v := range k.Values {
			switch v.(type) {
			case float64, string:
			default:
				t.Errorf("a key's value %v (%T): want a number or a name", v, v)
			}
		}
	}
	for i, p := range doc.Points {
		if p.Values == nil || p.Figures == nil {
			t.Errorf("point %d: values %v, figures %v", i, p.Values, p.Figures)
		}
	}
}

// TestSeedVariantExact: a variant's seed keeps every digit (a float64 holds
// integers exactly only to 2^53), 2^64 is refused as written, and a variant
// of another field leaves a large seed of the scenario as it was.
func TestSeedVariantExact(t *testing.T) {
	sc := sweepScenario(t)
	for value, want := range map[string]uint64{"9007199254740993": 9007199254740993, "18446744073709551615": 18446744073709551615, "007": 7} {
		v, err := ApplyVariant(sc, Variant{Name: "x", Set: []Assignment{{Path: "seed", Value: value}}})
		if err != nil || v.Seed == nil || *v.Seed != want {
			t.Errorf("seed=%s: error %v, want seed %d", value, err, want)
			if err == nil && v.Seed != nil {
				t.Errorf("seed=%s: got seed %d", value, *v.Seed)
			}
		}
	}
	_, err := ApplyVariant(sc, Variant{Name: "x", Set: []Assignment{{Path: "seed", Value: "18446744073709551616"}}})
	if err == nil || !strings.Contains(err.Error(), "got 18446744073709551616") {
		t.Errorf("seed=2^64: error %v, want one quoting 18446744073709551616", err)
	}
	big := uint64(9007199254740993)
	sc.Seed = &big
	v, err := ApplyVariant(sc, Variant{Name: "x", Set: []Assignment{{Path: "network.latency_ms", Value: "2"}}})
	if err != nil || v.Seed == nil || *v.Seed != big {
		t.Errorf("another field varied: error %v, want the seed %d kept", err, big)
	}
}

// TestSweepMinFromOne: a sweep (an optimization too) varies a server's MIN
// from 1: MIN=0 boots none of its instances, every request of its services
// fails, and their latency figures (0) would meet any objective. compare's
// variant keeps it, to show the failures.
func TestSweepMinFromOne(t *testing.T) {
	sc := shardSweep(t, shardDoc, Spec{Vary: []string{"SERVERS.srv.MIN=1,2"}, Replications: 1})
	if len(sc.points) != 2 {
		t.Fatalf("MIN=1,2: %d points, want 2", len(sc.points))
	}
	parsed, err := core.ParseScenario([]byte(shardDoc))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compile(parsed, Spec{Vary: []string{"SERVERS.srv.MIN=0..2/1"}, Replications: 1})
	if err == nil || !strings.Contains(err.Error(), "vary SERVERS.srv.MIN: value 0 boots none of the entry's instances") {
		t.Errorf("MIN=0..2: error %v, want the value 0 refused", err)
	}
	if _, err := ApplyVariant(parsed, Variant{Name: "x", Set: []Assignment{{Path: "SERVERS.srv.MIN", Value: "0"}}}); err != nil {
		t.Errorf("compare's variant MIN=0: %v, want it applied", err)
	}
}
