package batchmeans

import (
	"sort"

	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/workload"
)

// Window is a replay's validation window and, per service (Svc) and
// overall (All), the batches the observed rows fall into and what the
// observed and the run's responses to them add up to.
type Window struct {
	FromUS, ToUS int64 // the window: rows issued at or after FromUS; throughput up to ToUS
	Svc          []Side
	All          Side
}

// Side is one validation row's batches: the observed and simulated sums.
type Side struct {
	Obs, Sim Sums
}

// Sums adds up responses by batch, and counts those answered within the
// window (Done).
type Sums struct {
	bounds []int64 // bounds[b] is the first issue time of batch b+1
	sum    []int64
	n      []int64
	Done   int64
}

// Add counts the response resp of a row issued at t in its batch (a row
// issued at t is in the batch that counts the bounds ≤ t); done says it
// was answered within the window.
func (b *Sums) Add(t, resp int64, done bool) {
	k := b.batch(t)
	b.sum[k] += resp
	b.n[k]++
	if done {
		b.Done++
	}
}

// batch is the batch of a row issued at t: the one that counts the bounds
// ≤ t.
func (b *Sums) batch(t int64) int {
	return sort.Search(len(b.bounds), func(i int) bool { return b.bounds[i] > t })
}

// Means returns the means (ms) of the batches that hold a response.
func (b *Sums) Means() []float64 {
	out := []float64{}
	for k := range b.sum {
		if b.n[k] > 0 {
			out = append(out, usec.Round6(float64(b.sum[k])/float64(b.n[k])/1000))
		}
	}
	return out
}

// newSide is the batches whose bounds are given: nb-1 issue times.
func newSide(bounds []int64) Side {
	nb := len(bounds) + 1
	mk := func() Sums {
		return Sums{bounds: bounds, sum: make([]int64, nb), n: make([]int64, nb)}
	}
	return Side{Obs: mk(), Sim: mk()}
}

// NewWindow sets up the window (from fromUS to the last observed row's
// issue time) and the batches of the observed rows in it ([Bounds]), adding
// the observed responses up; the run adds its own (Side.Sim) as its
// requests complete.
func NewWindow(obs []workload.ObservedRow, nsvc int, fromUS int64) *Window {
	v := &Window{FromUS: fromUS, Svc: make([]Side, nsvc)}
	for _, o := range obs {
		v.ToUS = max(v.ToUS, o.TimeUS)
	}
	bounds := Bounds(obs, nsvc, fromUS)
	for s := range nsvc {
		v.Svc[s] = newSide(bounds[s])
	}
	v.All = newSide(bounds[nsvc])
	for _, o := range obs {
		if o.TimeUS >= fromUS {
			done := o.TimeUS+o.US <= v.ToUS
			v.Svc[o.Service].Obs.Add(o.TimeUS, o.US, done)
			v.All.Obs.Add(o.TimeUS, o.US, done)
		}
	}
	return v
}
