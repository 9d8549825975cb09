package sweep

import (
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/scenario"
)

func f64(x float64) *float64 { return &x }

// TestClientKeys: clients.NAME.count sets a population's size and
// clients.NAME.think_ms its think time's mean, at each point of a sweep,
// leaving the base scenario as it was; the best count is the most that
// meets; a compare variant takes the same keys.
func TestClientKeys(t *testing.T) {
	sc := exampleScenario(t, "self-call-deadlock") // shoppers: 5, think exp mean 300
	sw, err := Compile(sc, Spec{Vary: []string{"clients.shoppers.count=2,8", "clients.shoppers.think_ms=600,150"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		count int
		mean  float64
	}{{2, 600}, {8, 600}, {2, 150}, {8, 150}}
	for p, w := range want {
		cs := sw.pointScenario(p).Workload.Generate.Clients[0]
		if cs.Count != w.count || cs.Think.Dist != "exp" || *cs.Think.MeanMS != w.mean {
			t.Errorf("point %d: count %d, think %s mean %v; want %d, exp %v", p, cs.Count, cs.Think.Dist, *cs.Think.MeanMS, w.count, w.mean)
		}
	}
	if cs := sc.Workload.Generate.Clients[0]; cs.Count != 5 || *cs.Think.MeanMS != 300 {
		t.Errorf("the base scenario changed: %+v", cs)
	}
	// What runs is the edited population: point 1 issues what the scenario
	// edited by hand (8 shoppers thinking 600 ms on average) issues.
	res, err := sw.Run(core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hand := *sc
	g := *sc.Workload.Generate
	g.Clients = []scenario.ClientSet{g.Clients[0]}
	g.Clients[0].Count, g.Clients[0].Think = 8, &scenario.Dist{Dist: "exp", MeanMS: f64(600)}
	hand.Workload.Generate = &g
	r, err := core.Run(&hand, core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Points[1].Figures["issued"].Mean; got != float64(r.Requests.Issued) || got == res.Points[0].Figures["issued"].Mean {
		t.Errorf("point 1 issued %v, the scenario edited by hand %d (point 0: %v)", got, r.Requests.Issued, res.Points[0].Figures["issued"].Mean)
	}
	if k := lookupKey("clients.shoppers.count"); k.ruleOf() != RuleLargest || k.ruleWord() != "most" {
		t.Errorf("count: rule %s %s", k.ruleOf(), k.ruleWord())
	}
	if k := lookupKey("clients.shoppers.think_ms"); k.ruleOf() != RuleSmallest || k.ruleWord() != "shortest" {
		t.Errorf("think_ms: rule %s %s", k.ruleOf(), k.ruleWord())
	}
	v, _ := ParseVariant("clients.shoppers.count=7,clients.shoppers.think_ms=100")
	vsc, err := ApplyVariant(sc, v)
	if err != nil {
		t.Fatal(err)
	}
	if cs := vsc.Workload.Generate.Clients[0]; cs.Count != 7 || *cs.Think.MeanMS != 100 {
		t.Errorf("variant: %+v", cs)
	}
}

// TestThinkMeanKeepsShape: every time of the distribution is scaled by
// new mean / old mean: lognormal 20 ± 30 to a mean of 50 is 50 ± 75; uniform
// 100..300 (mean 200) to 100 is 50..150; a set without think time gets the
// constant.
func TestThinkMeanKeepsShape(t *testing.T) {
	for _, c := range []struct {
		in   *scenario.Dist
		v    string
		want scenario.Dist
	}{
		{&scenario.Dist{Dist: "lognormal", MeanMS: f64(20), SDMS: f64(30)}, "50", scenario.Dist{Dist: "lognormal", MeanMS: f64(50), SDMS: f64(75)}},
		{&scenario.Dist{Dist: "uniform", MinMS: f64(100), MaxMS: f64(300)}, "100", scenario.Dist{Dist: "uniform", MinMS: f64(50), MaxMS: f64(150)}},
		{&scenario.Dist{Dist: "const", MS: f64(30)}, "0.1", scenario.Dist{Dist: "const", MS: f64(0.1)}},
		{&scenario.Dist{Dist: "empirical", SamplesMS: []float64{10, 30}}, "40", scenario.Dist{Dist: "empirical", SamplesMS: []float64{20, 60}}},
		{nil, "250", scenario.Dist{Dist: "const", MS: f64(250)}},
	} {
		cs := &scenario.ClientSet{Name: "T", Think: c.in}
		if err := setThinkMean(cs, "T", c.v); err != nil {
			t.Fatal(err)
		}
		got, want := distText(cs.Think), distText(&c.want)
		if got != want {
			t.Errorf("%s to %s: %s, want %s", distText(c.in), c.v, got, want)
		}
	}
}

func distText(d *scenario.Dist) string {
	if d == nil {
		return "none"
	}
	s := d.Dist
	for _, p := range []struct {
		n string
		v *float64
	}{{"ms", d.MS}, {"mean", d.MeanMS}, {"min", d.MinMS}, {"max", d.MaxMS}, {"sd", d.SDMS}} {
		if p.v != nil {
			s += " " + p.n + "=" + formatFloat(*p.v)
		}
	}
	for _, x := range d.SamplesMS {
		s += " " + formatFloat(x)
	}
	return s
}

// TestStreamRateKey: streams.SERVICE.rate sets the stream's rate_per_s;
// a rate profile is refused (rate_scale scales it), and unknown names are
// refused naming what there is.
func TestStreamRateKey(t *testing.T) {
	sc := exampleScenario(t, "shm-ldbal-n") // TOUPPER at 100/s
	sw, err := Compile(sc, Spec{Vary: []string{"streams.TOUPPER.rate=50,200"}})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range []float64{50, 200} {
		if got := sw.pointScenario(p).Workload.Generate.Streams[0].RatePerS; got != want {
			t.Errorf("point %d: rate %v, want %v", p, got, want)
		}
	}
	if sc.Workload.Generate.Streams[0].RatePerS != 100 || lookupKey("streams.TOUPPER.rate").ruleOf() != RuleLargest {
		t.Errorf("the base scenario changed, or the rule is not the largest")
	}
	for _, c := range []struct {
		name string
		vary string
		want string
	}{
		{"shm-ldbal-n", "streams.NOSUCH.rate=1", `no generated stream of service "NOSUCH" (streams of: TOUPPER)`},
		{"mp-netload", "streams.BALANCE.rate=1", "rate profile"},
		{"self-call-deadlock", "clients.tellers.count=2", `no client population "tellers" (populations: shoppers)`},
		{"shm-ldbal-n", "clients.tellers.count=2", "the workload has no client populations"},
		{"self-call-deadlock", "clients.shoppers.count=0", "clients.shoppers.count: value 0 must be at least 1"},
	} {
		_, err := Compile(exampleScenario(t, c.name), Spec{Vary: []string{c.vary}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want %q", c.name, c.vary, err, c.want)
		}
	}
}
