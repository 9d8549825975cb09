package workload

import (
	"math"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/fixture"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/scenario"
)

func genWorkload(durMS float64, streams ...scenario.Stream) *scenario.Scenario {
	return &scenario.Scenario{Workload: scenario.Workload{Generate: &scenario.Generator{DurationMS: durMS, Streams: streams}}}
}

func openGen(t *testing.T, sc *scenario.Scenario, seed uint64) []Request {
	t.Helper()
	rs, err := Open(fixture.HandModel(), sc, seed, 0)
	if err != nil {
		t.Fatal(err)
	}
	reqs := drain(rs)
	if rs.Err() != nil {
		t.Fatal(rs.Err())
	}
	return reqs
}

func times(reqs []Request) []int64 {
	out := make([]int64, len(reqs))
	for i, r := range reqs {
		out[i] = r.TimeUS
	}
	return out
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestConstantArrivals(t *testing.T) {
	tests := []struct {
		rate, durMS float64
		want        []int64
	}{
		{1000, 5, []int64{0, 1000, 2000, 3000, 4000}},
		{3, 1000, []int64{0, 333333, 666667}},
		{1000, 5.0005, []int64{0, 1000, 2000, 3000, 4000, 5000}}, // 5000 us < 5000.5 us rounded to 5001
		{1e-320, 1000, []int64{0}},                               // the first at 0 even with an infinite period
	}
	for _, tt := range tests {
		sc := genWorkload(tt.durMS, scenario.Stream{Service: "TOUPPER", Arrivals: "constant", RatePerS: tt.rate})
		if got := times(openGen(t, sc, 1)); !equalInts(got, tt.want) {
			t.Errorf("constant %g/s for %g ms: got %v, want %v", tt.rate, tt.durMS, got, tt.want)
		}
	}
}

func TestMergeOrder(t *testing.T) {
	sc := genWorkload(2,
		scenario.Stream{Service: "TOUPPER", Origin: "site2", Arrivals: "constant", RatePerS: 1000, Prio: ip(9)},
		scenario.Stream{Service: "TOLOWER", Arrivals: "constant", RatePerS: 1000})
	sc.Workload.TraceCSV = "time_ms,service,id\n1,TOLOWER,t2\n0,TOUPPER,t1\n"
	got := openGen(t, sc, 1)
	type key struct {
		id      string
		t       int64
		service int
		origin  int
		prio    int
	}
	want := []key{
		{"t1", 0, fixture.SvcToUpper, fixture.Site1, 0}, {"", 0, fixture.SvcToUpper, fixture.Site2, 9}, {"", 0, fixture.SvcToLower, fixture.Site1, 0},
		{"t2", 1000, fixture.SvcToLower, fixture.Site1, 0}, {"", 1000, fixture.SvcToUpper, fixture.Site2, 9}, {"", 1000, fixture.SvcToLower, fixture.Site1, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d requests, want %d", len(got), len(want))
	}
	for i, r := range got {
		if k := (key{r.ID, r.TimeUS, r.Service, r.Origin, r.Prio}); k != want[i] || r.Seq != int64(i+1) {
			t.Errorf("request %d: got %+v (seq %d), want %+v (seq %d)", i, k, r.Seq, want[i], i+1)
		}
	}
}

// countCheck draws a stream and compares its count with the expectation.
func countCheck(t *testing.T, name string, st scenario.Stream, durMS, want, tol float64) []Request {
	t.Helper()
	sc := genWorkload(durMS, st)
	rs, err := Open(fixture.HandModel(), sc, 5, 0)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if math.Abs(float64(rs.Total())-want) > 1 {
		t.Errorf("%s: Total() = %d, want %v", name, rs.Total(), want)
	}
	reqs := drain(rs)
	if n := float64(len(reqs)); math.Abs(n-want) > tol {
		t.Errorf("%s: got %v requests, want %v ± %v", name, n, want, tol)
	}
	for i := 1; i < len(reqs); i++ {
		if reqs[i].TimeUS < reqs[i-1].TimeUS || reqs[i].TimeUS >= int64(durMS*1000) {
			t.Fatalf("%s: request %d at %d us after %d us (duration %v ms)", name, i, reqs[i].TimeUS, reqs[i-1].TimeUS, durMS)
		}
	}
	return reqs
}

func TestArrivalCounts(t *testing.T) {
	// Poisson counts have sd sqrt(mean): 5 sd is 500 of 10 000. Bursty and
	// MMPP counts vary more (the on periods are random too); the bands below
	// are about 5 of their sd, worked out from the renewal-reward variance.
	countCheck(t, "poisson", scenario.Stream{Service: "TOUPPER", Arrivals: "poisson", RatePerS: 1000}, 10_000, 10_000, 500)
	countCheck(t, "bursty", scenario.Stream{Service: "TOUPPER", Arrivals: "bursty", RatePerS: 1000, OnMS: f(10), OffMS: f(30)}, 100_000, 25_000, 4000)
	countCheck(t, "mmpp", scenario.Stream{Service: "TOUPPER", Arrivals: "mmpp", Rates: []float64{100, 1000}, MeanMS: []float64{50, 50}}, 100_000, 55_000, 5000)
	ramp := countCheck(t, "ramp", scenario.Stream{Service: "TOUPPER", Arrivals: "profile",
		Profile: []scenario.RatePoint{{AtMS: 0, RatePerS: 0}, {AtMS: 1000, RatePerS: 20_000}}}, 1000, 10_000, 500)
	firstHalf := 0
	for _, r := range ramp {
		if r.TimeUS < 500_000 {
			firstHalf++
		}
	}
	if firstHalf < 2500-250 || firstHalf > 2500+250 { // a quarter of the area; sd 50
		t.Errorf("ramp: %d requests in the first half, want 2500 ± 250", firstHalf)
	}
	step := countCheck(t, "step", scenario.Stream{Service: "TOUPPER", Arrivals: "profile",
		Profile: []scenario.RatePoint{{AtMS: 500, RatePerS: 0}, {AtMS: 500, RatePerS: 10_000}}}, 1000, 5000, 350)
	if len(step) > 0 && step[0].TimeUS < 500_000 {
		t.Errorf("step: first request at %d us, want none before 500000", step[0].TimeUS)
	}
	countCheck(t, "flat before first point", scenario.Stream{Service: "TOUPPER", Arrivals: "profile",
		Profile: []scenario.RatePoint{{AtMS: 200, RatePerS: 1000}, {AtMS: 300, RatePerS: 1000}}}, 1000, 1000, 160)
}

func TestStreamsAreIndependent(t *testing.T) {
	s0 := scenario.Stream{Service: "TOUPPER", Arrivals: "poisson", RatePerS: 500}
	s1 := scenario.Stream{Service: "TOLOWER", Arrivals: "bursty", RatePerS: 900, OnMS: f(5), OffMS: f(5)}
	alone := openGen(t, genWorkload(200, s0), 3)
	both := openGen(t, genWorkload(200, s0, s1), 3)
	var mine []Request
	for _, r := range both {
		if r.Service == fixture.SvcToUpper {
			mine = append(mine, r)
		}
	}
	if len(mine) != len(alone) || len(alone) == 0 {
		t.Fatalf("got %d requests of stream 0 with stream 1 added, want %d", len(mine), len(alone))
	}
	for i := range alone {
		if mine[i].TimeUS != alone[i].TimeUS || mine[i].Key != alone[i].Key {
			t.Fatalf("request %d of stream 0: got (%d, %x) with stream 1, want (%d, %x)", i, mine[i].TimeUS, mine[i].Key, alone[i].TimeUS, alone[i].Key)
		}
	}
	other := openGen(t, genWorkload(200, s0), 4)
	if equalInts(times(other), times(alone)) {
		t.Errorf("seeds 3 and 4 gave the same arrival times")
	}
}

func TestRequestLimit(t *testing.T) {
	tests := []struct {
		name    string
		sc      *scenario.Scenario
		limit   int64
		upFront bool
		want    string
	}{
		{"expected over", genWorkload(10_000, scenario.Stream{Service: "TOUPPER", Arrivals: "poisson", RatePerS: 1000}), 100, true,
			"workload: 10000 requests over the limit of 100"},
		{"trace over", &scenario.Scenario{Workload: scenario.Workload{TraceCSV: "time_ms,service\n0,TOUPPER\n1,TOUPPER\n2,TOUPPER\n"}}, 2, true,
			"workload: 3 requests over the limit of 2"},
		// Starts in state 0 at 1000/s and stays there: twice the stationary expectation.
		{"counted over", genWorkload(100, scenario.Stream{Service: "TOUPPER", Arrivals: "mmpp", Rates: []float64{1000, 0}, MeanMS: []float64{1e6, 1e6}}), 60, false,
			"workload: 61 requests over the limit of 60"},
	}
	for _, tt := range tests {
		rs, err := Open(fixture.HandModel(), tt.sc, 1, tt.limit)
		if tt.upFront {
			if err == nil || err.Error() != tt.want || diag.ErrorCode(err) != diag.ETOOLARGE {
				t.Errorf("%s: got %v, want %s error %q", tt.name, err, diag.ETOOLARGE, tt.want)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		n := len(drain(rs))
		if err := rs.Err(); err == nil || err.Error() != tt.want || n != int(tt.limit) {
			t.Errorf("%s: got %d requests and %v, want %d and %q", tt.name, n, err, tt.limit, tt.want)
		}
	}
}

func TestStreamErrors(t *testing.T) {
	ok := scenario.Stream{Service: "TOUPPER", Arrivals: "poisson", RatePerS: 1}
	tests := []struct {
		name string
		dur  float64
		st   scenario.Stream
		want string
	}{
		{"rate", 1, scenario.Stream{Service: "TOUPPER", Arrivals: "poisson"}, "workload.generate.streams[1].rate_per_s: must be > 0"},
		{"duration", 0, ok, "workload.generate.duration_ms: must be > 0"},
		{"arrivals", 1, scenario.Stream{Service: "TOUPPER", Arrivals: "weibull"}, `workload.generate.streams[1].arrivals: unknown arrival process "weibull" (want poisson, constant, bursty, mmpp, profile)`},
		{"service", 1, scenario.Stream{Service: "NOPE", Arrivals: "poisson", RatePerS: 1}, `workload.generate.streams[1].service: unknown service "NOPE"`},
		{"origin", 1, scenario.Stream{Service: "TOUPPER", Origin: "mars", Arrivals: "poisson", RatePerS: 1}, `workload.generate.streams[1].origin: unknown LMID "mars"`},
		{"prio", 1, scenario.Stream{Service: "TOUPPER", Arrivals: "poisson", RatePerS: 1, Prio: ip(0)}, "workload.generate.streams[1].prio: must be between 1 and 100, got 0"},
		{"unused", 1, scenario.Stream{Service: "TOUPPER", Arrivals: "poisson", RatePerS: 1, OnMS: f(1)}, `workload.generate.streams[1].on_ms: not used by arrivals "poisson"`},
		{"bursty off", 1, scenario.Stream{Service: "TOUPPER", Arrivals: "bursty", RatePerS: 1, OnMS: f(1)}, "workload.generate.streams[1].on_ms: bursty arrivals need on_ms and off_ms"},
		{"bursty on 0", 1, scenario.Stream{Service: "TOUPPER", Arrivals: "bursty", RatePerS: 1, OnMS: f(0), OffMS: f(1)}, "workload.generate.streams[1].on_ms: must be > 0"},
		{"mmpp rates", 1, scenario.Stream{Service: "TOUPPER", Arrivals: "mmpp", Rates: []float64{1}, MeanMS: []float64{1, 1}}, "workload.generate.streams[1].rates_per_s: want 2 rates"},
		{"mmpp zero", 1, scenario.Stream{Service: "TOUPPER", Arrivals: "mmpp", Rates: []float64{0, 0}, MeanMS: []float64{1, 1}}, "workload.generate.streams[1].rates_per_s: at least one rate must be > 0"},
		{"mmpp mean", 1, scenario.Stream{Service: "TOUPPER", Arrivals: "mmpp", Rates: []float64{1, 1}, MeanMS: []float64{1, -1}}, "workload.generate.streams[1].state_mean_ms[1]: must be > 0"},
		{"profile order", 1, scenario.Stream{Service: "TOUPPER", Arrivals: "profile", Profile: []scenario.RatePoint{{AtMS: 5, RatePerS: 1}, {AtMS: 1, RatePerS: 1}}}, "workload.generate.streams[1].profile: points must be in order of at_ms"},
		{"profile rate", 1, scenario.Stream{Service: "TOUPPER", Arrivals: "profile", Profile: []scenario.RatePoint{{AtMS: 0, RatePerS: -1}}}, "workload.generate.streams[1].profile[0].rate_per_s: must be between 0"},
		{"poisson rate and profile", 1, scenario.Stream{Service: "TOUPPER", Arrivals: "poisson", RatePerS: 5, Profile: []scenario.RatePoint{{AtMS: 0, RatePerS: 1}}}, "workload.generate.streams[1].rate_per_s: give rate_per_s or profile, not both"},
		{"constant profile", 1, scenario.Stream{Service: "TOUPPER", Arrivals: "constant", RatePerS: 5, Profile: []scenario.RatePoint{{AtMS: 0, RatePerS: 1}}}, `workload.generate.streams[1].profile: not used by arrivals "constant"`},
		{"mmpp switches", 1e9, scenario.Stream{Service: "TOUPPER", Arrivals: "mmpp", Rates: []float64{0, 1e-6}, MeanMS: []float64{1, 1}}, "workload.generate.streams[1].state_mean_ms: periods too short for duration_ms: about 1e+09 state changes"},
		{"bursty switches", 1e9, scenario.Stream{Service: "TOUPPER", Arrivals: "bursty", RatePerS: 1e-6, OnMS: f(1), OffMS: f(1)}, "workload.generate.streams[1].on_ms: periods too short"},
		{"profile empty", 1, scenario.Stream{Service: "TOUPPER", Arrivals: "profile"}, "workload.generate.streams[1].profile: want at least one point"},
	}
	for _, tt := range tests {
		_, err := Open(fixture.HandModel(), genWorkload(tt.dur, ok, tt.st), 1, 0)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestNextDoesNotAllocate(t *testing.T) {
	sc := genWorkload(1e7,
		scenario.Stream{Service: "TOUPPER", Arrivals: "poisson", RatePerS: 1000},
		scenario.Stream{Service: "TOLOWER", Arrivals: "profile", Profile: []scenario.RatePoint{{AtMS: 0, RatePerS: 10}, {AtMS: 1000, RatePerS: 500}}},
		scenario.Stream{Service: "TOLOWER", Arrivals: "mmpp", Rates: []float64{10, 100}, MeanMS: []float64{5, 5}})
	rs, err := Open(fixture.HandModel(), sc, 1, 1<<62)
	if err != nil {
		t.Fatal(err)
	}
	var r Request
	if allocs := testing.AllocsPerRun(10_000, func() { rs.Next(&r) }); allocs != 0 {
		t.Errorf("Next allocates %v times per request, want 0", allocs)
	}
}

func BenchmarkWorkloadNext(b *testing.B) {
	sc := genWorkload(1e9, scenario.Stream{Service: "TOUPPER", Arrivals: "poisson", RatePerS: 1000},
		scenario.Stream{Service: "TOLOWER", Arrivals: "poisson", RatePerS: 1000})
	rs, _ := Open(fixture.HandModel(), sc, 1, 1<<62)
	var r Request
	for b.Loop() {
		rs.Next(&r)
	}
}

func TestPoissonWithProfile(t *testing.T) {
	// "poisson" with a profile is the profile process: the same requests.
	pts := []scenario.RatePoint{{AtMS: 0, RatePerS: 100}, {AtMS: 500, RatePerS: 3000}, {AtMS: 800, RatePerS: 0}}
	a := openGen(t, genWorkload(1000, scenario.Stream{Service: "TOUPPER", Arrivals: "poisson", Profile: pts}), 2)
	b := openGen(t, genWorkload(1000, scenario.Stream{Service: "TOUPPER", Arrivals: "profile", Profile: pts}), 2)
	if len(a) < 100 || !equalInts(times(a), times(b)) {
		t.Errorf("poisson+profile gave %d requests, profile %d: want the same, and more than 100", len(a), len(b))
	}
	for _, r := range a {
		if r.TimeUS >= 800_000 {
			t.Fatalf("request at %d us, want none after the rate falls to 0 at 800 ms", r.TimeUS)
		}
	}
}
