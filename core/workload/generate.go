package workload

import (
	"cmp"
	"math"
	"slices"

	"github.com/tuxlb/tuxlb/core/internal/mergetree"
	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// genStreamBase offsets the Rand stream numbers of generated streams (stream i
// uses genStreamBase+i) away from those the engine uses.
const genStreamBase = 1 << 40

// maxRatePerS bounds a stream's rate (and every point of a profile).
const maxRatePerS = 1e9

// arrivals is an arrival process: next returns the absolute time in ms of the
// stream's next request, or false when there is none before limitMS.
type arrivals interface {
	next(r *rng.PCG, limitMS float64) (float64, bool)
}

// poisson has exponential gaps of mean 1000/rate ms. The absolute time is kept
// in float64 ms and converted to microseconds per request, so rounding never
// accumulates.
type poisson struct{ t, meanMS float64 }

func (p *poisson) next(r *rng.PCG, limitMS float64) (float64, bool) {
	p.t += float64(p.meanMS * r.ExpFloat64())
	return p.t, p.t < limitMS
}

// constant sends its n-th request (0-based) at n × 1000/rate ms: the first at 0.
type constant struct {
	n        int64
	periodMS float64
}

func (c *constant) next(_ *rng.PCG, limitMS float64) (float64, bool) {
	t := 0.0 // the first at 0, even when the period is infinite
	if c.n > 0 {
		t = float64(float64(c.n) * c.periodMS)
	}
	c.n++
	return t, t < limitMS
}

// mmpp is a two-state Markov-modulated Poisson process that starts in state 0:
// state s lasts an exponential time of mean meanMS[s] and sends at rate[s]
// (per ms). bursty is the case rate = {r, 0}, meanMS = {on_ms, off_ms}.
type mmpp struct {
	t, end  float64
	state   int
	ratePMS [2]float64
	meanMS  [2]float64
	started bool
}

func (p *mmpp) next(r *rng.PCG, limitMS float64) (float64, bool) {
	if !p.started {
		p.started = true
		p.end = float64(p.meanMS[0] * r.ExpFloat64())
	}
	for p.t < limitMS {
		if rate := p.ratePMS[p.state]; rate > 0 {
			dt := r.ExpFloat64() / rate
			if p.t+dt < p.end {
				p.t += dt
				return p.t, p.t < limitMS
			}
		}
		p.t = p.end
		p.state ^= 1
		p.end = p.t + float64(p.meanMS[p.state]*r.ExpFloat64())
	}
	return p.t, false
}

// profile is a Poisson process whose rate is piecewise linear in time,
// sampled by inversion: each gap is an Exp(1) amount of the integrated rate,
// solved segment by segment (the quadratic needs only sqrt). Before the first
// point and after the last the rate stays flat.
type profile struct {
	at, rate []float64 // ms and per ms, at[0] may be > 0
	t        float64
	seg      int // the segment holding t: seg 0 is before at[0], seg i ends at at[i]
}

func (p *profile) next(r *rng.PCG, limitMS float64) (float64, bool) {
	need := r.ExpFloat64()
	for p.t < limitMS {
		r0, slope, end := p.segment()
		if math.IsInf(end, 1) { // flat after the last point
			if r0 == 0 {
				return p.t, false
			}
			p.t += need / r0
			return p.t, p.t < limitMS
		}
		u := end - p.t
		area := float64(r0*u) + float64(float64(slope*u)*u)/2
		if need <= area {
			p.t += solveArea(r0, slope, need)
			return p.t, p.t < limitMS
		}
		need -= area
		p.t = end
		p.seg++
	}
	return p.t, false
}

// segment returns the rate at p.t, its slope, and where the segment ends.
func (p *profile) segment() (r0, slope, end float64) {
	n := len(p.at)
	for p.seg < n && p.at[p.seg] <= p.t {
		p.seg++
	}
	switch {
	case p.seg == 0:
		return p.rate[0], 0, p.at[0]
	case p.seg == n:
		return p.rate[n-1], 0, math.Inf(1)
	}
	a, b := p.seg-1, p.seg
	slope = (p.rate[b] - p.rate[a]) / (p.at[b] - p.at[a])
	return float64(slope*(p.t-p.at[a])) + p.rate[a], slope, p.at[b]
}

// solveArea returns u >= 0 with r0·u + slope·u²/2 = need, in the form
// 2·need / (r0 + sqrt(r0² + 2·slope·need)) that has no cancellation.
func solveArea(r0, slope, need float64) float64 {
	disc := float64(r0*r0) + float64(float64(2*slope)*need)
	den := r0 + math.Sqrt(max(disc, 0))
	if den <= 0 {
		return 0
	}
	return float64(2*need) / den
}

// expected returns the integral of the rate over [0, limitMS): the expected
// number of requests.
func (p *profile) expected(limitMS float64) float64 {
	q := profile{at: p.at, rate: p.rate}
	sum := 0.0
	for q.t < limitMS {
		r0, slope, end := q.segment()
		u := min(end, limitMS) - q.t
		sum += float64(r0*u) + float64(float64(slope*u)*u)/2
		q.t += u
		q.seg++
	}
	return sum
}

// streamSource is one generated stream as the workload plays it.
type streamSource struct {
	pois    poisson  // the arrivals when arr is nil: the common process, called without an interface
	arr     arrivals // the other processes
	rand    rng.PCG
	keyBase uint64 // keyBase(seed, stream index + 1)
	n       uint64 // requests issued so far
	limitMS float64
	limitUS int64
	service int
	origin  int
	prio    int
	queue   int32        // an enqueue stream's queue (Request.Queue), 0 for none
	route   *StreamRoute // nil: the requests carry no routing value
	draw    rng.PCG      // the routing value's generator, seeded per request
}

// next fills r, unless it is nil, with the stream's pending request, issued
// at us as the workload's request seq, and draws the time of the request
// after it: mergetree.NoMore at the stream's end. The first call, with r
// nil, draws the first time. (One function, so that the merger makes one
// call per request.)
func (s *streamSource) next(r *Request, us, seq int64) int64 {
	if r != nil {
		// field by field: a composite literal is built in a temporary and copied
		r.Seq, r.ID, r.TimeUS = seq, "", us
		r.Service, r.Origin, r.ServiceUS = s.service, s.origin, -1
		r.Prio, r.Key = s.prio, Mix64(s.keyBase^s.n)
		r.Route, r.RouteVal, r.RouteNum, r.Trace, r.Queue = RouteNone, "", 0, false, s.queue
		if s.route != nil {
			// from a generator seeded by the request's key: when it is drawn does not matter
			s.draw.Seed(r.Key, StreamRouteValue)
			s.route.Draw(&s.draw, r)
		}
		s.n++
	}
	var t float64
	var ok bool
	if s.arr == nil {
		t, ok = s.pois.next(&s.rand, s.limitMS)
	} else {
		t, ok = s.arr.next(&s.rand, s.limitMS)
	}
	if us := usec.FromMS(t); ok && us < s.limitUS {
		return us
	}
	return mergetree.NoMore
}

// sortedProfile reports whether the profile's times never decrease.
func sortedProfile(pts []scenario.RatePoint) bool {
	return slices.IsSortedFunc(pts, func(a, b scenario.RatePoint) int { return cmp.Compare(a.AtMS, b.AtMS) })
}
