// Package dist is the distributions of durations a scenario can name
// (const, exp, uniform, lognormal, empirical, gamma, erlang, hyperexp,
// weibull): each checked once against its parameters and drawn from the
// engine's random streams with portable arithmetic only, so a run draws the
// same numbers natively and in WebAssembly.
package dist

import (
	"fmt"
	"math"
	"slices"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/internal/vocab"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// Sampler draws durations in milliseconds from a distribution. Implementations
// use only deterministic arithmetic (no math.Log/Exp, whose native and WASM
// results may differ in the last bit; see core/internal/fmath).
type Sampler interface {
	SampleMS(r *rng.PCG) float64
	MeanMS() float64
}

// MaxMS bounds every millisecond parameter of a distribution (MaxTimeUS in ms).
const MaxMS = 1e9

// maxErlangK bounds the number of exponential phases of an erlang distribution.
const maxErlangK = 10_000

// distKind is a family of distributions a scenario can name.
type distKind uint8

// The distributions.
const (
	distConst distKind = iota
	distExp
	distUniform
	distLognormal
	distEmpirical
	distGamma
	distErlang
	distHyperexp
	distWeibull
)

var kinds = vocab.Table[distKind]{What: "distribution", Names: []string{"const", "exp", "uniform", "lognormal", "empirical", "gamma", "erlang", "hyperexp", "weibull"}}

// Names lists the distributions by the names the scenario gives them.
func Names() []string { return kinds.List() }

// String returns the distribution's name as the scenario spells it.
func (k distKind) String() string { return kinds.Name(k) }

// build checks the parameters of k and returns its Sampler.
func (k distKind) build(c *distCheck) Sampler {
	switch k {
	case distConst:
		return Const(c.need("ms", c.d.MS, false))
	case distExp:
		return Exp(c.need("mean_ms", c.d.MeanMS, true))
	case distUniform:
		return c.uniform()
	case distLognormal:
		return c.lognormal()
	case distEmpirical:
		return c.empirical()
	case distGamma:
		return c.gamma()
	case distErlang:
		return c.erlang()
	case distHyperexp:
		return c.hyperexp()
	case distWeibull:
		return c.weibull()
	}
	panic("core: no Sampler for dist " + k.String())
}

// New checks d and returns its Sampler. field names d in errors, e.g.
// `services.TOUPPER.service_time`.
func New(d *scenario.Dist, field string) (Sampler, error) {
	if d == nil {
		return nil, diag.FieldErrorf(field, "missing distribution")
	}
	c := distCheck{d: d, field: field}
	if d.Dist == "" {
		return nil, diag.FieldErrorf(field+".dist", "missing (want %s)", kinds.Want())
	}
	kind, ok := kinds.Lookup(d.Dist)
	if !ok {
		return nil, diag.FieldErrorf(field+".dist", "unknown distribution %q (want %s)", d.Dist, kinds.Want())
	}
	s := kind.build(&c)
	if c.err == nil {
		c.unused()
	}
	if c.err != nil {
		return nil, c.err
	}
	return s, nil
}

// distCheck validates the fields of one Dist, keeping the first error and
// remembering which fields the distribution used.
type distCheck struct {
	d     *scenario.Dist
	field string
	used  []string
	err   error
}

func (c *distCheck) fail(name, format string, args ...any) {
	if c.err == nil {
		c.err = diag.FieldErrorf(c.field+"."+name, "%s", fmt.Sprintf(format, args...))
	}
}

// need returns the value of a required millisecond field: >= 0, or > 0 when
// positive, and at most MaxMS.
func (c *distCheck) need(name string, v *float64, positive bool) float64 {
	c.used = append(c.used, name)
	if v == nil {
		c.fail(name, "missing (required by dist %q)", c.d.Dist)
		return 0
	}
	c.checkMS(name, *v, positive)
	return *v
}

func (c *distCheck) checkMS(name string, v float64, positive bool) {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		c.fail(name, "not a number")
	case positive && v <= 0:
		c.fail(name, "must be > 0, got %g", v)
	case v < 0:
		c.fail(name, "must be >= 0, got %g", v)
	case v > MaxMS:
		c.fail(name, "must be <= %g ms, got %g", float64(MaxMS), v)
	}
}

// unused reports a field that the distribution does not take, so that a typo
// such as {"dist":"exp","ms":4} is not silently ignored.
func (c *distCheck) unused() {
	d := c.d
	given := []struct {
		name string
		set  bool
	}{
		{"ms", d.MS != nil}, {"mean_ms", d.MeanMS != nil}, {"min_ms", d.MinMS != nil},
		{"max_ms", d.MaxMS != nil}, {"sd_ms", d.SDMS != nil}, {"shape", d.Shape != nil},
		{"k", d.K != nil}, {"samples_ms", d.SamplesMS != nil},
	}
	for _, g := range given {
		if g.set && !slices.Contains(c.used, g.name) {
			c.fail(g.name, "not a parameter of dist %q", d.Dist)
		}
	}
}

func (c *distCheck) uniform() Sampler {
	lo := c.need("min_ms", c.d.MinMS, false)
	hi := c.need("max_ms", c.d.MaxMS, false)
	if c.err == nil && hi < lo {
		c.fail("max_ms", "must be >= min_ms (%g), got %g", lo, hi)
	}
	return Uniform{lo: lo, width: hi - lo}
}

func (c *distCheck) lognormal() Sampler {
	mean := c.need("mean_ms", c.d.MeanMS, true)
	sd := c.need("sd_ms", c.d.SDMS, false)
	if c.err != nil {
		return nil
	}
	return newLognormal(mean, sd)
}

func (c *distCheck) empirical() Sampler {
	c.used = append(c.used, "samples_ms")
	if len(c.d.SamplesMS) == 0 {
		c.fail("samples_ms", "must hold at least one sample")
		return nil
	}
	sum := 0.0
	for i, v := range c.d.SamplesMS {
		c.checkMS(fmt.Sprintf("samples_ms[%d]", i), v, false)
		sum += v
	}
	return Empirical{samples: c.d.SamplesMS, mean: sum / float64(len(c.d.SamplesMS))}
}

func (c *distCheck) gamma() Sampler {
	mean := c.need("mean_ms", c.d.MeanMS, true)
	var shape float64
	switch {
	case c.d.SDMS != nil && c.d.Shape != nil:
		c.used = append(c.used, "sd_ms", "shape")
		c.fail("shape", "give either sd_ms or shape, not both")
	case c.d.SDMS != nil:
		sd := c.need("sd_ms", c.d.SDMS, true)
		shape = float64(mean/sd) * float64(mean/sd)
		if c.err == nil && (shape < 1e-3 || shape > 1e6) {
			// the shape is the user's two fields: name them, and the sd_ms
			// their mean_ms allows
			c.fail("sd_ms", "must be between mean_ms/1000 and mean_ms*31.62 (%.4g and %.4g with mean_ms %g), got %g: "+
				"a gamma's shape (mean_ms/sd_ms)^2 must be between 0.001 and 1e6", mean/1000, mean*math.Sqrt(1000), mean, sd)
		}
	case c.d.Shape != nil:
		shape = c.need("shape", c.d.Shape, true)
		if c.err == nil && (shape < 1e-3 || shape > 1e6) {
			c.fail("shape", "must be between 0.001 and 1e6, got %g", shape)
		}
	default:
		c.fail("sd_ms", "missing (dist \"gamma\" needs sd_ms or shape)")
	}
	if c.err != nil {
		return nil
	}
	return newGamma(shape, mean)
}

func (c *distCheck) erlang() Sampler {
	mean := c.need("mean_ms", c.d.MeanMS, true)
	c.used = append(c.used, "k")
	if c.d.K == nil {
		c.fail("k", "missing (required by dist \"erlang\")")
		return nil
	}
	k := *c.d.K
	if k < 1 || k > maxErlangK {
		c.fail("k", "must be between 1 and %d, got %d", maxErlangK, k)
		return nil
	}
	return erlangDist{k: k, mean: mean, scale: mean / float64(k)}
}

// hyperexp is the balanced two-phase hyperexponential of the given mean and
// standard deviation (sd > mean): with probability p an exponential of mean
// mean/(2p), else one of mean mean/(2(1-p)), p chosen so that both phases
// carry half the mean; its squared coefficient of variation is (sd/mean)^2.
func (c *distCheck) hyperexp() Sampler {
	mean := c.need("mean_ms", c.d.MeanMS, true)
	sd := c.need("sd_ms", c.d.SDMS, true)
	if c.err == nil && sd <= mean {
		c.fail("sd_ms", "must be above mean_ms (%g) for a hyperexponential, got %g (exp has sd = mean; erlang and gamma go below it)", mean, sd)
	}
	if c.err != nil {
		return nil
	}
	cv2 := float64(sd/mean) * float64(sd/mean)
	p := 0.5 * (1 + math.Sqrt((cv2-1)/(cv2+1)))
	return hyperexpDist{p: p, m1: mean / (2 * p), m2: mean / (2 * (1 - p)), mean: mean}
}

// weibull is the Weibull distribution of the given mean and shape k
// (0.1..100; below 1 its tail is heavier than an exponential's).
func (c *distCheck) weibull() Sampler {
	mean := c.need("mean_ms", c.d.MeanMS, true)
	k := c.need("shape", c.d.Shape, true)
	if c.err == nil && (k < 0.1 || k > 100) {
		c.fail("shape", "must be between 0.1 and 100, got %g", k)
	}
	if c.err != nil {
		return nil
	}
	return weibullDist{inv: 1 / k, scale: mean / gammaFn(1+1/k), mean: mean}
}

// BoundMS is the largest duration s can draw for a bounded
// distribution (const, uniform, empirical), and its mean for the others,
// whose tails are unbounded: a mean past the limit is certain to overflow,
// while a rare long draw is caught when it happens.
func BoundMS(s Sampler) (float64, string) {
	switch d := s.(type) {
	case Const:
		return float64(d), "ms"
	case Uniform:
		return d.lo + d.width, "max_ms"
	case Empirical:
		hi := 0.0
		for _, v := range d.samples {
			hi = max(hi, v)
		}
		return hi, "largest sample"
	}
	return s.MeanMS(), "mean_ms"
}
