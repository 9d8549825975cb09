package core

import (
	"fmt"
	"math"

	"github.com/tuxlb/tuxlb/core/internal/fmath"
	"github.com/tuxlb/tuxlb/core/internal/rng"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// normal draws a standard normal value by Marsaglia's polar method, which
// needs only log and sqrt. The second value of the pair is dropped so that a
// sampler holds no state between draws.
func normal(r *rng.PCG) float64 {
	for {
		u := float64(2*r.Float64()) - 1
		v := float64(2*r.Float64()) - 1
		s := float64(u*u) + float64(v*v)
		if s > 0 && s < 1 {
			return float64(u * math.Sqrt(float64(-2*fmath.Log(s))/s))
		}
	}
}

type constDist float64

func (c constDist) SampleMS(*rng.PCG) float64 { return float64(c) }
func (c constDist) MeanMS() float64           { return float64(c) }

type expDist float64

func (e expDist) SampleMS(r *rng.PCG) float64 { return float64(float64(e) * r.ExpFloat64()) }
func (e expDist) MeanMS() float64             { return float64(e) }

type uniformDist struct{ lo, width float64 }

func (u uniformDist) SampleMS(r *rng.PCG) float64 { return float64(u.width*r.Float64()) + u.lo }
func (u uniformDist) MeanMS() float64             { return u.lo + u.width/2 }

// lognormalDist is exp(mu + sigma·Z), with mu and sigma derived from the
// distribution's own mean m and standard deviation s:
// sigma² = ln(1 + s²/m²), mu = ln(m) - sigma²/2.
type lognormalDist struct{ mu, sigma, mean float64 }

func newLognormal(mean, sd float64) sampler {
	if sd == 0 {
		return constDist(mean)
	}
	cv := sd / mean
	v := fmath.Log(1 + float64(cv*cv))
	return lognormalDist{mu: fmath.Log(mean) - v/2, sigma: math.Sqrt(v), mean: mean}
}

func (l lognormalDist) SampleMS(r *rng.PCG) float64 {
	return fmath.Exp(float64(l.sigma*normal(r)) + l.mu)
}
func (l lognormalDist) MeanMS() float64 { return l.mean }

type empiricalDist struct {
	samples []float64
	mean    float64
}

func (e empiricalDist) SampleMS(r *rng.PCG) float64 { return e.samples[r.IntN(len(e.samples))] }
func (e empiricalDist) MeanMS() float64             { return e.mean }

// gammaDist uses Marsaglia and Tsang's method (2000) for shape >= 1; for
// shape < 1 it draws with shape+1 and multiplies by U^(1/shape).
type gammaDist struct {
	shape, scale, mean float64
	d, c               float64 // Marsaglia–Tsang constants for max(shape, shape+1)
}

func newGamma(shape, mean float64) sampler {
	a := shape
	if a < 1 {
		a++
	}
	d := a - 1.0/3
	return gammaDist{shape: shape, scale: mean / shape, mean: mean, d: d, c: 1 / math.Sqrt(9*d)}
}

func (g gammaDist) SampleMS(r *rng.PCG) float64 {
	x := g.unit(r)
	if g.shape < 1 {
		u := 1 - r.Float64() // (0, 1]
		x = float64(x * fmath.Exp(fmath.Log(u)/g.shape))
	}
	return float64(x * g.scale)
}

// unit draws Gamma(a, 1) for a = g.d + 1/3 >= 1.
func (g gammaDist) unit(r *rng.PCG) float64 {
	for {
		z := normal(r)
		v := float64(g.c*z) + 1
		if v <= 0 {
			continue
		}
		v = float64(float64(v*v) * v)
		u := 1 - r.Float64()
		if fmath.Log(u) < float64(0.5*z*z)+float64(g.d*(1-v+fmath.Log(v))) {
			return float64(g.d * v)
		}
	}
}

func (g gammaDist) MeanMS() float64 { return g.mean }

// erlangDist sums k exponential phases of mean mean/k.
type erlangDist struct {
	k           int
	mean, scale float64
}

func (e erlangDist) SampleMS(r *rng.PCG) float64 {
	sum := 0.0
	for range e.k {
		sum += r.ExpFloat64()
	}
	return float64(sum * e.scale)
}
func (e erlangDist) MeanMS() float64 { return e.mean }
