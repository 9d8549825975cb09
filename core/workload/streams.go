package workload

import (
	"fmt"
	"math"
	"slices"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/internal/mergetree"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/internal/vocab"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// arrivalKind is the arrival process of a generated stream.
type arrivalKind uint8

// The arrival processes.
const (
	arrivalPoisson  arrivalKind = iota
	arrivalConstant             // one request every 1/rate
	arrivalBursty               // on/off: a two-state mmpp whose off state sends nothing
	arrivalMMPP                 // a two-state Markov-modulated Poisson process
	arrivalProfile              // a Poisson process whose rate follows a profile
)

var arrivalKinds = vocab.Table[arrivalKind]{What: "arrival process", Names: []string{"poisson", "constant", "bursty", "mmpp", "profile"}}

// String returns the process's name as the scenario spells it.
func (k arrivalKind) String() string { return arrivalKinds.Name(k) }

// streamSpec is a checked stream: what start needs to play it.
type streamSpec struct {
	kind            arrivalKind
	service, origin int
	queue           int32 // an enqueue stream's queue (Request.Queue)
	prio            int
	ratePMS         float64 // per ms
	mmpp            mmpp
	at, rate        []float64
	limitMS         float64
	limitUS         int64
	expected        float64
	route           *StreamRoute
}

// start sets s to play the stream, drawing from Rand stream genStreamBase+i.
func (sp *streamSpec) start(s *streamSource, seed uint64, i int) {
	*s = streamSource{keyBase: KeyBase(seed, uint64(i)+1), limitMS: sp.limitMS, limitUS: sp.limitUS,
		service: sp.service, origin: sp.origin, prio: sp.prio, queue: sp.queue, route: sp.route}
	s.rand.Seed(seed, genStreamBase+uint64(i))
	switch sp.kind {
	case arrivalPoisson:
		s.pois = poisson{meanMS: 1 / sp.ratePMS}
	case arrivalConstant:
		s.arr = &constant{periodMS: 1 / sp.ratePMS}
	case arrivalProfile:
		s.arr = &profile{at: sp.at, rate: sp.rate}
	case arrivalBursty, arrivalMMPP:
		p := sp.mmpp
		s.arr = &p
	default:
		panic("core: stream start: no process for arrivals " + sp.kind.String())
	}
}

// maxStreams is the most streams a workload may generate: each is a leaf of
// the merger's tree, and so is the trace.
const maxStreams = mergetree.MaxLeaves - 1

// CheckGenerate checks workload.generate. n may be nil: then names are not
// resolved (ParseScenario checks what it can without the model).
func CheckGenerate(n *Names, g *scenario.Generator) ([]streamSpec, error) {
	const path = "workload.generate"
	durUS, err := usec.FromMSValue(g.DurationMS)
	if msg := usec.Problem(durUS, err); msg != "" {
		return nil, diag.FieldErrorf(path+".duration_ms", "%s", msg)
	}
	if durUS <= 0 {
		return nil, diag.FieldErrorf(path+".duration_ms", "must be > 0 (at least 0.001 ms once rounded to the microsecond), got %g", g.DurationMS)
	}
	if len(g.Streams) == 0 && len(g.Clients) == 0 {
		return nil, diag.FieldErrorf(path+".streams", "want at least one stream (or a client set in clients)")
	}
	if len(g.Streams) > maxStreams {
		return nil, diag.FieldErrorf(path+".streams", "want at most %d streams, got %d", maxStreams, len(g.Streams))
	}
	specs := make([]streamSpec, len(g.Streams))
	for i := range g.Streams {
		sc := StreamCheck{Stream: &g.Streams[i], Path: fmt.Sprintf("%s.streams[%d]", path, i)}
		specs[i] = sc.check(n, g.DurationMS, durUS)
		if sc.Err != nil {
			return nil, sc.Err
		}
	}
	return specs, nil
}

// StreamCheck validates one stream, keeping the first error.
type StreamCheck struct {
	Stream *scenario.Stream
	Path   string
	Err    error
	// Bufs numbers a buffer type checked without the names (a client's or
	// a call's request of an unrouted service carries it for its nested
	// requests); nil: not numbered then.
	Bufs *BufTable
}

func (c *StreamCheck) fail(field, format string, args ...any) {
	if c.Err == nil {
		c.Err = diag.FieldErrorf(c.Path+"."+field, "%s", fmt.Sprintf(format, args...))
	}
}

func (c *StreamCheck) check(n *Names, durMS float64, durUS int64) streamSpec {
	st := c.Stream
	sp := streamSpec{limitMS: durMS, limitUS: durUS}
	c.names(n, &sp)
	if c.Err == nil {
		sp.route = c.CheckRoute(n, sp.service)
	}
	if st.Prio != nil {
		if sp.prio = *st.Prio; sp.prio < 1 || sp.prio > 100 {
			c.fail("prio", "must be between 1 and 100, got %d", sp.prio)
		}
	}
	kind, known := arrivalKinds.Lookup(st.Arrivals)
	switch {
	case st.Arrivals == "":
		c.fail("arrivals", "missing (want %s)", arrivalKinds.Want())
	case !known:
		c.fail("arrivals", "unknown arrival process %q (want %s)", st.Arrivals, arrivalKinds.Want())
	case kind == arrivalPoisson && st.Profile != nil:
		kind = arrivalProfile // a Poisson process whose rate follows the profile
	}
	if !known {
		return sp
	}
	sp.kind = kind
	switch sp.kind {
	case arrivalPoisson, arrivalConstant:
		sp.ratePMS = c.rate("rate_per_s", st.RatePerS, true) / 1000
		c.only("rate_per_s")
	case arrivalProfile:
		if st.RatePerS != 0 {
			c.fail("rate_per_s", "give rate_per_s or profile, not both")
		}
		c.profile(&sp)
	case arrivalBursty:
		c.bursty(&sp)
	case arrivalMMPP:
		c.mmpp(&sp)
	default:
		panic("core: stream check: no rule for arrivals " + sp.kind.String())
	}
	if c.Err == nil && (sp.kind == arrivalBursty || sp.kind == arrivalMMPP) {
		c.switches(&sp.mmpp, durMS)
	}
	if c.Err == nil {
		sp.expected = expectedCount(&sp, durMS)
	}
	return sp
}

// names resolves the stream's service and origin when a model is at hand.
func (c *StreamCheck) names(n *Names, sp *streamSpec) {
	if c.Stream.Service == "" && c.Stream.Enqueue == "" {
		c.fail("service", "missing")
		return
	}
	if n == nil {
		return
	}
	var msg string
	if c.Stream.Enqueue != "" {
		if sp.service, sp.queue, msg = n.Enqueue(c.Stream.Enqueue); msg != "" {
			c.fail("enqueue", "%s", msg)
		}
	} else if sp.service, msg = n.Service(c.Stream.Service); msg != "" {
		c.fail("service", "%s", msg)
	} else if n.NeedMS != nil && n.NeedMS[sp.service] {
		c.fail("service", "service %s has no service_time for group %s, and generated requests carry no service_ms (give services.%s.service_time)",
			c.Stream.Service, n.NeedGroup[sp.service], c.Stream.Service)
	}
	if sp.origin, msg = n.Origin(c.Stream.Origin); msg != "" {
		c.fail("origin", "%s", msg)
	}
}

// rate checks a rate in requests per second: finite, >= 0 (> 0 when positive).
func (c *StreamCheck) rate(field string, v float64, positive bool) float64 {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > maxRatePerS:
		c.fail(field, "must be between 0 and %g, got %g", float64(maxRatePerS), v)
	case positive && v == 0:
		c.fail(field, "must be > 0")
	}
	return v
}

// period checks a mean duration in ms: > 0 and at most maxMS.
func (c *StreamCheck) period(field string, v float64) float64 {
	if math.IsNaN(v) || v <= 0 || v > dist.MaxMS {
		c.fail(field, "must be > 0 and <= %g ms, got %g", float64(dist.MaxMS), v)
	}
	return v
}

// only reports the arrival fields given that the process does not use.
func (c *StreamCheck) only(used ...string) {
	st := c.Stream
	given := []struct {
		name string
		set  bool
	}{
		{"rate_per_s", st.RatePerS != 0}, {"on_ms", st.OnMS != nil}, {"off_ms", st.OffMS != nil},
		{"rates_per_s", st.Rates != nil}, {"state_mean_ms", st.MeanMS != nil}, {"profile", st.Profile != nil},
	}
	for _, g := range given {
		if g.set && !slices.Contains(used, g.name) {
			c.fail(g.name, "not used by arrivals %q", st.Arrivals)
		}
	}
}

func (c *StreamCheck) bursty(sp *streamSpec) {
	st := c.Stream
	r := c.rate("rate_per_s", st.RatePerS, true)
	if st.OnMS == nil || st.OffMS == nil {
		c.fail("on_ms", "bursty arrivals need on_ms and off_ms")
		return
	}
	on, off := c.period("on_ms", *st.OnMS), c.period("off_ms", *st.OffMS)
	c.only("rate_per_s", "on_ms", "off_ms")
	sp.mmpp = mmpp{ratePMS: [2]float64{r / 1000, 0}, meanMS: [2]float64{on, off}}
}

func (c *StreamCheck) mmpp(sp *streamSpec) {
	st := c.Stream
	if len(st.Rates) != 2 {
		c.fail("rates_per_s", "want 2 rates (state 0 and state 1), got %d", len(st.Rates))
		return
	}
	if len(st.MeanMS) != 2 {
		c.fail("state_mean_ms", "want 2 mean sojourn times, got %d", len(st.MeanMS))
		return
	}
	for i := range 2 {
		sp.mmpp.ratePMS[i] = c.rate(fmt.Sprintf("rates_per_s[%d]", i), st.Rates[i], false) / 1000
		sp.mmpp.meanMS[i] = c.period(fmt.Sprintf("state_mean_ms[%d]", i), st.MeanMS[i])
	}
	if st.Rates[0] == 0 && st.Rates[1] == 0 {
		c.fail("rates_per_s", "at least one rate must be > 0")
	}
	c.only("rates_per_s", "state_mean_ms")
}

func (c *StreamCheck) profile(sp *streamSpec) {
	pts := c.Stream.Profile
	if len(pts) == 0 {
		c.fail("profile", "want at least one point")
		return
	}
	if !sortedProfile(pts) {
		c.fail("profile", "points must be in order of at_ms")
	}
	for i, p := range pts {
		if math.IsNaN(p.AtMS) || p.AtMS < 0 || p.AtMS > dist.MaxMS {
			c.fail(fmt.Sprintf("profile[%d].at_ms", i), "must be between 0 and %g, got %g", float64(dist.MaxMS), p.AtMS)
		}
		sp.at = append(sp.at, p.AtMS)
		sp.rate = append(sp.rate, c.rate(fmt.Sprintf("profile[%d].rate_per_s", i), p.RatePerS, false)/1000)
	}
	c.only("profile")
}

// expectedCount is the expected number of requests of a stream in durMS.
func expectedCount(sp *streamSpec, durMS float64) float64 {
	switch sp.kind {
	case arrivalConstant:
		return math.Ceil(float64(durMS * sp.ratePMS))
	case arrivalProfile:
		p := profile{at: sp.at, rate: sp.rate}
		return p.expected(durMS)
	case arrivalBursty, arrivalMMPP:
		m := sp.mmpp
		mean := (float64(m.ratePMS[0]*m.meanMS[0]) + float64(m.ratePMS[1]*m.meanMS[1])) / (m.meanMS[0] + m.meanMS[1])
		return float64(mean * durMS)
	}
	return float64(durMS * sp.ratePMS)
}

// maxSwitches bounds the expected number of state changes of a bursty or
// mmpp stream, which cost work even when they send nothing.
const maxSwitches = 1e8

func (c *StreamCheck) switches(m *mmpp, durMS float64) {
	field := "state_mean_ms"
	if c.Stream.Arrivals == arrivalBursty.String() {
		field = "on_ms"
	}
	if n := float64(2*durMS) / (m.meanMS[0] + m.meanMS[1]); n > maxSwitches {
		c.fail(field, "periods too short for duration_ms: about %.3g state changes, the limit is %g", n, float64(maxSwitches))
	}
}
