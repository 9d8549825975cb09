package rng

import "github.com/tuxlb/tuxlb/core/internal/fmath"

// This file holds the exponential sampler: Marsaglia and Tsang's ziggurat
// (2000) with 256 layers, written with integer and float64 operations only
// (the tables are computed once, with the portable fmath.Exp and fmath.Log),
// so a draw gives the same bits natively and in WebAssembly, and almost every
// draw costs one 64-bit random number, a multiplication and a comparison,
// with no logarithm.
//
// The density e^-x is covered by 256 layers of equal area zigV: the base
// layer is the rectangle [0, R+1) × [0, e^-R), which stands for [0, R) under
// the curve and, beyond R, for the tail; layer i (1..255) is the rectangle
// [0, x_i) × [e^-x_i, e^-x_(i+1)), with x_1 = R > x_2 > ... > x_255 > x_256 = 0.
// A draw picks a layer and a point x uniformly in its width; a point left of
// the layer above (x < x_(i+1)) lies under the curve and is the result
// (98.9% of draws). Otherwise, in the base layer, the result is R plus a new
// exponential draw (the exponential forgets its past), and in another layer
// the point is kept when a uniform height in the layer falls under e^-x, else
// the draw starts again.

// zigR is x_1, where the tail begins, and zigV the area of each layer, for
// 256 layers (Marsaglia and Tsang's constants).
const (
	zigLayers = 256
	zigR      = 7.69711747013104972
	zigV      = 3.949659822581572e-3
)

// zigLayer is one layer of the ziggurat, what every draw reads: 16 bytes, so
// that the 256 layers take 4 KB of cache.
type zigLayer struct {
	w    float64 // the layer's width / 2^53: x = u·w for a 53-bit u
	next float64 // x_(i+1), the width of the layer above
}

// zigWedge is what a draw that lands in a layer's wedge reads.
type zigWedge struct {
	fLo, fHi float64 // e^-x_i and e^-x_(i+1): the layer's bottom and top
}

// The exponential ziggurat, computed once: arrays, not pointers, so that a
// draw reads a layer at a fixed address with no pointer load.
var zigExp, zigExpWedge = newZigExp()

// newZigExp computes the layers from zigR and zigV: x_0 = zigV / e^-R (the
// base layer's width, R + 1), x_1 = R and e^-x_(i+1) = zigV/x_i + e^-x_i.
func newZigExp() ([zigLayers]zigLayer, [zigLayers]zigWedge) {
	var x [zigLayers + 1]float64
	x[0] = zigV / fmath.Exp(-zigR)
	x[1] = zigR
	for i := 1; i < zigLayers-1; i++ {
		x[i+1] = -fmath.Log(zigV/x[i] + fmath.Exp(-x[i]))
	}
	x[zigLayers] = 0
	var t [zigLayers]zigLayer
	var wedge [zigLayers]zigWedge
	for i := range t {
		t[i] = zigLayer{w: x[i] / (1 << 53), next: x[i+1]}
		wedge[i] = zigWedge{fLo: fmath.Exp(-x[i]), fHi: fmath.Exp(-x[i+1])}
	}
	return t, wedge
}

// ExpFloat64 draws from the exponential distribution of mean 1 by the
// ziggurat (ziggurat.go). The low 8 bits of a random number pick the layer,
// its high 53 bits the point: they are independent.
func (r *PCG) ExpFloat64() float64 {
	b := r.Uint64()
	l := &zigExp[b&(zigLayers-1)]
	if x := float64(float64(b>>11) * l.w); x < l.next {
		return x
	}
	return expSlow(r, b)
}

// expSlow finishes a draw that did not land under the curve at once: the
// tail, the wedges between a layer's rectangle and the curve, and new
// attempts after a rejection.
func expSlow(r *PCG, b uint64) float64 {
	base := 0.0
	for {
		i := b & (zigLayers - 1)
		l := &zigExp[i]
		x := float64(float64(b>>11) * l.w)
		switch {
		case x < l.next:
			return base + x
		case i == 0:
			base += zigR // in the tail: R plus a fresh draw
		case zigExpWedge[i].fLo+float64((zigExpWedge[i].fHi-zigExpWedge[i].fLo)*r.Float64()) < fmath.Exp(-x):
			return base + x
		}
		b = r.Uint64()
	}
}
