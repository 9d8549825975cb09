// Package timeseries holds a run's time series once its bins are closed:
// fixed-width bins kept in flat slices, neighbours merged and the width
// doubled when too many have closed, the MP counter resets listed, and the
// result's series built from them, the busiest lines kept and the others
// added together (docs/engine.md, "The result", its series). The open bin is the
// engine's: core fills each bin as it closes it ([Bins.Open],
// [Bins.Close]).
package timeseries

import (
	"cmp"
	"slices"

	"github.com/tuxlb/tuxlb/core/internal/hist"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// Series bins: the width is the scenario's bin_ms, or the workload's horizon
// / TargetBins rounded up to 1-2-5 x 10^k. Memory stays bounded: when the run has
// filled its bins' maximum, neighbouring bins merge and the width doubles.
const (
	TargetBins  = 120
	AutoMaxBins = 2 * TargetBins
	MaxResets   = 10000 // reset times listed in the result
)

// MaxCells bounds the numbers the engine's closed bins hold at once (128 MB
// of them): a model whose bins are wide enough that AutoMaxBins of them
// would pass it (an MP domain of a hundred machines has a counter for every
// machine and queue: 128 × 512 of them) keeps fewer bins, CellBins, merged
// sooner. Below that size nothing changes.
const (
	MaxCells = 16_000_000
	MinBins  = 16
)

// CellBins is the most bins of cols numbers each that MaxCells holds: at
// least MinBins, an even number (bins merge in pairs).
func CellBins(cols int64) int {
	return int(max(MaxCells/max(cols, 1), MinBins)) &^ 1
}

// Limit is how many lines of each kind a result's series keeps (queue
// lengths, utilizations and dispatches, MP counters) unless every line is
// asked for: past it, the busiest lines and one line of the others
// together (docs/engine.md, "The result", its series).
const Limit = 64

// Others names the line of the others together.
const Others = "others"

// Shape is how many lines of each kind a bin holds.
type Shape struct {
	Queues    int // request queues
	Servers   int // server instances
	Pairs     int // (machine, queue) MP counters; 0 without MP
	Failures  int // failure codes
	MsgQueues int // /Q queues
}

// Bins are the closed bins of a run, bin-major: per bin the nq queues'
// waiting x µs, the ns servers' busy µs and requests chosen, the nf
// failure codes' counts, the npair (machine, queue) MP counters at the
// bin's end, and the nmq /Q queues' depth x µs.
type Bins struct {
	width    int64
	maxBins  int
	nbins    int   // closed bins
	lastEnd  int64 // end of the last (possibly partial) bin
	nq, ns   int
	npair    int
	nf       int
	nmq      int
	qArea    []int64 // nbins x nq: waiting x us
	busy     []int64 // nbins x ns: busy us
	disp     []int64 // nbins x ns: requests chosen
	fails    []int64 // nbins x nf: requests failed in the bin
	counters []int64 // nbins x npair: C_m(q) at the bin's end
	mqArea   []int64 // nbins x nmq: /Q depth x us
	resets   []int64
	nresets  int64
	seen     []bool // per (machine, queue): its counter was > 0 at a bin end or reset
}

// New returns no bins yet, of width µs, merged once maxBins have closed,
// each holding the lines sh counts.
func New(width int64, maxBins int, sh Shape) Bins {
	return Bins{width: width, maxBins: maxBins, nq: sh.Queues, ns: sh.Servers, npair: sh.Pairs, nf: sh.Failures,
		nmq: sh.MsgQueues, seen: make([]bool, sh.Pairs)}
}

// Sized returns New's bins for a run: of the scenario's bin width binUS
// when it has one (as many bins as the horizon horizonUS needs before
// neighbours merge, within 4 million cells of the lines sh counts), else
// of the horizon / TargetBins rounded up to 1-2-5 x 10^k µs (1 ms without
// a horizon), merged past AutoMaxBins; never more than CellBins.
func Sized(binUS, horizonUS int64, sh Shape) Bins {
	width, maxBins := int64(1000), AutoMaxBins
	cols := int64(sh.Queues + 2*sh.Servers + sh.Pairs + 1)
	switch {
	case binUS > 0:
		width = binUS
		planned := int64(TargetBins)
		if horizonUS > 0 {
			planned = horizonUS/width + 1
		}
		maxBins = int(min(max(2*planned, AutoMaxBins), max(4_000_000/cols, AutoMaxBins)))
	case horizonUS > 0:
		width = hist.NiceUp((horizonUS + TargetBins - 1) / TargetBins)
	}
	return New(width, min(maxBins&^1, CellBins(cols)), sh)
}

// Width is the bins' width now, µs.
func (s *Bins) Width() int64 { return s.width }

// Open makes room for the bin being closed and returns its queues' areas
// and its servers' busy times, for the caller to set every one of, then
// call Close.
func (s *Bins) Open() (qArea, busy []int64) {
	if len(s.busy)+s.ns > cap(s.busy) {
		s.grow()
	}
	n, m := len(s.qArea), len(s.busy)
	s.qArea = slices.Grow(s.qArea, s.nq)[:n+s.nq]
	s.busy = slices.Grow(s.busy, s.ns)[:m+s.ns]
	return s.qArea[n:], s.busy[m:]
}

// Close closes the bin Open opened at end (its end, or the span for the
// last one), with the requests chosen per server and failed per code in
// it, the MP counters at its end and the /Q queues' depth x µs in it
// (nil without /Q), and returns the end of the next bin.
func (s *Bins) Close(end int64, disp, fails, counters, mqArea []int64) int64 {
	s.disp = append(s.disp, disp...)
	s.fails = append(s.fails, fails...)
	s.counters = append(s.counters, counters...)
	s.mqArea = append(s.mqArea, mqArea...)
	s.markSeen(counters)
	s.nbins++
	s.lastEnd = end
	if s.nbins == s.maxBins {
		s.merge()
	}
	return int64(s.nbins+1) * s.width
}

// MergeAhead merges the closed bins now, doubling the width, when closing
// every bin that ends by t would fill the bins anyway and they pair up (an
// even number of them), and returns the open bin's end then (0 when it did
// not merge). The caller calls it when nothing happens until t, so that the
// open bin and the bins up to t hold the same all the way: a wider open
// bin then holds what two narrower ones would, once merged, and a long
// crossing closes a few wide bins rather than many narrow ones merged
// again and again (a short run of a large model whose horizon is short
// and whose span is long closed about a thousand).
func (s *Bins) MergeAhead(t int64) int64 {
	end := int64(s.nbins+1) * s.width
	if t < end || s.nbins%2 != 0 || int64(s.nbins)+(t-end)/s.width+1 < int64(s.maxBins) {
		return 0
	}
	s.merge()
	return int64(s.nbins+1) * s.width
}

// Closes reports whether a run whose span is span still has a last,
// partial, bin to close: one past the last end, or the first of a run
// with a span.
func (s *Bins) Closes(span int64) bool {
	return span > s.lastEnd || s.nbins == 0 && span > 0
}

// Reset notes the MP counter resets from first to last, every period µs:
// the first MaxResets are listed. counters are the counters they clear.
func (s *Bins) Reset(first, last, period int64, counters []int64) {
	// Their number is computed, not counted one by one: only the first
	// MaxResets are listed, so this step is bounded whatever the gap.
	for x := first; x <= last && len(s.resets) < MaxResets; x += period {
		s.resets = append(s.resets, x)
	}
	s.nresets += (last-first)/period + 1
	s.markSeen(counters)
}

// Resets is how many MP counter resets there were.
func (s *Bins) Resets() int64 { return s.nresets }

// grow makes room for more closed bins in every slice at once, by whole
// bins: firstBins at first (a short run needs no more), then AutoMaxBins
// (all that an automatic width ever holds), then twice as many, never
// more than maxBins. append's growth, a quarter at a time for large
// slices, left a large model's series (tens of thousands of values a bin)
// with several times its size in garbage.
func (s *Bins) grow() {
	const firstBins = 30
	bins := firstBins
	if s.nbins > 0 {
		bins = max(2*s.nbins, AutoMaxBins)
	}
	bins = min(bins, max(s.maxBins, s.nbins+1))
	more := func(xs []int64, w int) []int64 {
		out := make([]int64, len(xs), bins*w)
		copy(out, xs)
		return out
	}
	s.qArea = more(s.qArea, s.nq)
	s.busy = more(s.busy, s.ns)
	s.disp = more(s.disp, s.ns)
	s.fails = more(s.fails, s.nf)
	s.counters = more(s.counters, s.npair)
	s.mqArea = more(s.mqArea, s.nmq)
}

// merge halves the number of closed bins by adding neighbours (the counters
// keep the later value) and doubles the width.
func (s *Bins) merge() {
	half := s.nbins / 2
	sum := func(xs []int64, w int) []int64 {
		for k := 0; k < half; k++ {
			for j := 0; j < w; j++ {
				xs[k*w+j] = xs[2*k*w+j] + xs[(2*k+1)*w+j]
			}
		}
		return xs[:half*w]
	}
	s.qArea = sum(s.qArea, s.nq)
	s.busy = sum(s.busy, s.ns)
	s.disp = sum(s.disp, s.ns)
	s.fails = sum(s.fails, s.nf)
	s.mqArea = sum(s.mqArea, s.nmq)
	for k := 0; k < half; k++ {
		copy(s.counters[k*s.npair:(k+1)*s.npair], s.counters[(2*k+1)*s.npair:(2*k+2)*s.npair])
	}
	s.counters = s.counters[:half*s.npair]
	s.nbins = half
	s.width *= 2
}

// Build turns the closed bins into the result's Series, the lines named
// from m: every line when all is set, else at most Limit of a kind and the
// others together. failures names the failure codes, whose lines are
// shown (those with a request failed) when it is not nil.
func (s *Bins) Build(m *ubb.Model, failures []string, all bool) result.Series {
	out := result.Series{BinMS: usec.ToMS(s.width), StartMS: []float64{}, Queue: []result.NamedSeries{},
		Util: []result.NamedSeries{}, Dispatch: []result.NamedSeries{}}
	dur := make([]float64, s.nbins)
	for k := 0; k < s.nbins; k++ {
		start := int64(k) * s.width
		out.StartMS = append(out.StartMS, usec.ToMS(start))
		dur[k] = float64(min(s.width, s.lastEnd-start))
	}
	col := func(xs []int64, w, j int, perUS bool) []float64 {
		v := make([]float64, s.nbins)
		for k := range v {
			x := float64(xs[k*w+j])
			if perUS {
				if dur[k] > 0 {
					x /= dur[k]
				} else {
					x = 0
				}
			}
			v[k] = usec.Round6(x)
		}
		return v
	}
	var sum *result.SeriesSummary
	qs := keptColumns(s.qArea, s.nq, nil, all)
	for _, j := range qs {
		out.Queue = append(out.Queue, result.NamedSeries{Name: m.Queues[j].Name, Values: col(s.qArea, s.nq, j, true)})
	}
	if len(qs) < s.nq {
		sum = &result.SeriesSummary{Limit: Limit}
		sum.Queues = s.nq - len(qs)
		out.Queue = append(out.Queue, result.NamedSeries{Name: Others, Values: s.othersCol(s.qArea, s.nq, qs, dur, 1)})
	}
	ss := keptColumns(s.busy, s.ns, s.disp, all)
	for _, j := range ss {
		id := m.Servers[j].ID
		out.Util = append(out.Util, result.NamedSeries{Name: id, Values: col(s.busy, s.ns, j, true)})
		out.Dispatch = append(out.Dispatch, result.NamedSeries{Name: id, Values: col(s.disp, s.ns, j, false)})
	}
	if len(ss) < s.ns {
		if sum == nil {
			sum = &result.SeriesSummary{Limit: Limit}
		}
		sum.Servers = s.ns - len(ss)
		// utilization: the mean of the others'; dispatches: their sum
		out.Util = append(out.Util, result.NamedSeries{Name: Others, Values: s.othersCol(s.busy, s.ns, ss, dur, sum.Servers)})
		out.Dispatch = append(out.Dispatch, result.NamedSeries{Name: Others, Values: s.othersCol(s.disp, s.ns, ss, nil, 1)})
	}
	out.Summarised = sum
	if failures != nil {
		out.Failures = []result.NamedSeries{}
		for k := 0; k < s.nf; k++ {
			v := col(s.fails, s.nf, k, false)
			if slices.ContainsFunc(v, func(x float64) bool { return x > 0 }) {
				out.Failures = append(out.Failures, result.NamedSeries{Name: failures[k], Values: v})
			}
		}
	}
	if s.npair > 0 {
		out.Counters = []result.CounterSeries{}
		var seen []int
		for j := 0; j < s.npair; j++ {
			if s.seen[j] {
				seen = append(seen, j)
			}
		}
		if len(seen) > Limit && !all {
			// the counters that reached the highest values, in their order
			peak := make([]int64, s.npair)
			for k := 0; k < s.nbins; k++ {
				for _, j := range seen {
					peak[j] = max(peak[j], s.counters[k*s.npair+j])
				}
			}
			n := len(seen)
			seen = topColumns(seen, peak, nil, Limit)
			if sum == nil {
				sum = &result.SeriesSummary{Limit: Limit}
				out.Summarised = sum
			}
			sum.Counters = n - len(seen)
		}
		for _, j := range seen {
			out.Counters = append(out.Counters, result.CounterSeries{Machine: m.Machines[j/s.nq].LMID,
				Queue: m.Queues[j%s.nq].Name, Values: col(s.counters, s.npair, j, false)})
		}
		out.ResetsMS = []float64{}
		for _, r := range s.resets {
			out.ResetsMS = append(out.ResetsMS, usec.ToMS(r))
		}
	}
	return out
}

// MsgQueue is /Q queue k's mean depth in each closed bin.
func (s *Bins) MsgQueue(k int) []float64 {
	out := make([]float64, s.nbins)
	for b := range out {
		if d := min(s.width, s.lastEnd-int64(b)*s.width); d > 0 {
			out[b] = usec.Round6(float64(s.mqArea[b*s.nmq+k]) / float64(d))
		}
	}
	return out
}

// AddChosen adds to n[i] the requests that chose server i in the closed
// bins.
func (s *Bins) AddChosen(n []int64) {
	for k := 0; k < s.nbins; k++ {
		for i, c := range s.disp[k*s.ns : (k+1)*s.ns] {
			n[i] += c
		}
	}
}

func (s *Bins) markSeen(counters []int64) {
	for j, c := range counters {
		if c > 0 {
			s.seen[j] = true
		}
	}
}

// keptColumns returns the columns of xs (nbins x w, bin-major) a result
// shows: all of them when they are at most Limit or all is set, else
// the Limit with the largest totals over the run (ties: the larger
// total in ys when given, then the first), in column order.
func keptColumns(xs []int64, w int, ys []int64, all bool) []int {
	cols := make([]int, w)
	for j := range cols {
		cols[j] = j
	}
	if w <= Limit || all {
		return cols
	}
	total := func(xs []int64) []int64 {
		t := make([]int64, w)
		for k := 0; k*w < len(xs); k++ {
			for j, x := range xs[k*w : (k+1)*w] {
				t[j] += x
			}
		}
		return t
	}
	var ty []int64
	if ys != nil {
		ty = total(ys)
	}
	return topColumns(cols, total(xs), ty, Limit)
}

// topColumns returns the n of cols with the largest key (ties: the larger
// key2 when given, then the first in cols), in the order of cols.
func topColumns(cols []int, key, key2 []int64, n int) []int {
	byKey := slices.Clone(cols)
	slices.SortStableFunc(byKey, func(a, b int) int {
		if c := cmp.Compare(key[b], key[a]); c != 0 || key2 == nil {
			return c
		}
		return cmp.Compare(key2[b], key2[a])
	})
	top := byKey[:n]
	slices.Sort(top)
	return top
}

// othersCol returns the line of the columns of xs (nbins x w) not in kept,
// added together bin by bin: divided by dur[k] x div when dur is given (a
// time-averaged figure, div the number of columns for a mean), else as
// counted.
func (s *Bins) othersCol(xs []int64, w int, kept []int, dur []float64, div int) []float64 {
	in := make([]bool, w)
	for _, j := range kept {
		in[j] = true
	}
	v := make([]float64, s.nbins)
	for k := range v {
		var t int64
		for j, x := range xs[k*w : (k+1)*w] {
			if !in[j] {
				t += x
			}
		}
		x := float64(t)
		if dur != nil {
			if d := dur[k] * float64(div); d > 0 {
				x /= d
			} else {
				x = 0
			}
		}
		v[k] = usec.Round6(x)
	}
	return v
}
