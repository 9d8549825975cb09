package core

import (
	"cmp"
	"slices"

	"github.com/tuxlb/tuxlb/core/result"
)

// Series bins: the width is the scenario's bin_ms, or the workload's horizon
// / 120 rounded up to 1-2-5 x 10^k. Memory stays bounded: when the run has
// filled maxBins bins, neighbouring bins merge and the width doubles.
const (
	targetBins  = 120
	autoMaxBins = 2 * targetBins
	maxResets   = 10000 // reset times listed in the result
)

// series accumulates the time series of a run in fixed-width bins. Closed
// bins are appended to flat slices (bin-major); the open bin's figures live
// in the engine's server and queue states (binBusy, binArea) and in dispatch.
type series struct {
	binUS    int64
	maxBins  int
	nbins    int   // closed bins
	end      int64 // end of the open bin
	lastEnd  int64 // end of the last (possibly partial) bin, after the run
	nq, ns   int
	npair    int     // machines x queues, when MP counters exist
	qArea    []int64 // nbins x nq: waiting x us
	nmq      int     // /Q queues
	mqArea   []int64 // nbins x nmq: /Q depth x us
	busy     []int64 // nbins x ns: busy us
	disp     []int64 // nbins x ns: requests chosen
	counters []int64 // nbins x npair: C_m(q) at the bin's end
	dispatch []int64 // open bin: requests chosen per server
	resets   []int64
	nresets  int64
	seen     []bool             // per (machine, queue): its counter was > 0 at a bin end or reset
	fails    []int64            // nbins x numFailures: requests failed in the bin
	failOpen [numFailures]int64 // open bin: requests failed, by code
	failed   bool               // some request failed: the series has failure lines
}

// fail counts a request failed with code r in the open bin.
func (s *series) fail(r reason) {
	s.failOpen[r-reasonNoEnt]++
	s.failed = true
}

func (s *series) init(e *engine) {
	s.nq, s.ns = len(e.queues), len(e.servers)
	if q := e.setup.Q; q != nil {
		s.nmq = len(q.Queues)
	}
	s.npair = len(e.counters)
	s.dispatch = make([]int64, s.ns)
	s.seen = make([]bool, s.npair)
	h := e.opt.HorizonUS
	switch {
	case e.opt.BinUS > 0:
		s.binUS = e.opt.BinUS
		planned := int64(targetBins)
		if h > 0 {
			planned = h/s.binUS + 1
		}
		cols := int64(s.nq + 2*s.ns + s.npair + 1)
		s.maxBins = int(min(max(2*planned, autoMaxBins), max(4_000_000/cols, autoMaxBins)))
		s.maxBins &^= 1
	case h > 0:
		s.binUS = niceUp((h + targetBins - 1) / targetBins)
		s.maxBins = autoMaxBins
	default:
		s.binUS = 1000
		s.maxBins = autoMaxBins
	}
	s.end = s.binUS
}

// crossBoundaries applies, in time order, every bin end and MP reset at or
// before t. A bin ending at the instant of a reset closes first, so the
// counters it shows are those of its last moment.
func (e *engine) crossBoundaries(t int64) {
	s := &e.ser
	for {
		b, r := s.end, e.nextReset
		if b <= r {
			if b > t {
				break
			}
			e.closeBin(b)
			continue
		}
		if r > t {
			break
		}
		// Every reset before the next bin end and not after t has the same
		// effect: apply them at once, listing their times.
		// Their number is computed, not counted one by one: only the first
		// maxResets are listed, so this step is bounded whatever the gap.
		period := e.setup.ResetUS
		last := min(t, b-1) / period * period
		n := (last-r)/period + 1
		for x := r; x <= last && len(s.resets) < maxResets; x += period {
			s.resets = append(s.resets, x)
		}
		s.nresets += n
		s.markSeen(e.counters)
		clear(e.counters)
		if e.mpTrees {
			e.staleTrees()
		}
		e.nextReset = last + e.setup.ResetUS
	}
	e.nextBoundary = min(s.end, e.nextReset)
}

// closeBin closes the open bin at b (its end, or the span for the last one).
func (e *engine) closeBin(b int64) {
	s := &e.ser
	if len(s.busy)+s.ns > cap(s.busy) {
		s.grow()
	}
	for i := range e.queues {
		q := &e.queues[i]
		e.accrueQueue(q, b)
		s.qArea = append(s.qArea, q.binArea)
		q.binArea = 0
	}
	for i := range e.servers {
		sv := &e.servers[i]
		if sv.busy {
			e.accrueBusy(sv, b)
		} else if sv.mt != nil {
			e.mtSeries(sv, b)
		}
		s.busy = append(s.busy, sv.binBusy)
		sv.binBusy = 0
	}
	s.disp = append(s.disp, s.dispatch...)
	clear(s.dispatch)
	s.fails = append(s.fails, s.failOpen[:]...)
	clear(s.failOpen[:])
	s.counters = append(s.counters, e.counters...)
	if e.q != nil {
		s.mqArea = append(s.mqArea, e.qCloseBin(b)...)
	}
	s.markSeen(e.counters)
	s.nbins++
	s.lastEnd = b
	if s.nbins == s.maxBins {
		s.merge()
	}
	s.end = int64(s.nbins+1) * s.binUS
}

// grow makes room for more closed bins in every slice at once, by whole
// bins: firstBins at first (a short run needs no more), then autoMaxBins
// (all that an automatic width ever holds), then twice as many, never
// more than maxBins. append's growth, a quarter at a time for large
// slices, left a large model's series (tens of thousands of values a bin)
// with several times its size in garbage.
func (s *series) grow() {
	const firstBins = 30
	bins := firstBins
	if s.nbins > 0 {
		bins = max(2*s.nbins, autoMaxBins)
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
	s.fails = more(s.fails, numFailures)
	s.counters = more(s.counters, s.npair)
	s.mqArea = more(s.mqArea, s.nmq)
}

// merge halves the number of closed bins by adding neighbours (the counters
// keep the later value) and doubles the width.
func (s *series) merge() {
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
	s.fails = sum(s.fails, numFailures)
	s.mqArea = sum(s.mqArea, s.nmq)
	for k := 0; k < half; k++ {
		copy(s.counters[k*s.npair:(k+1)*s.npair], s.counters[(2*k+1)*s.npair:(2*k+2)*s.npair])
	}
	s.counters = s.counters[:half*s.npair]
	s.nbins = half
	s.binUS *= 2
}

// finishSeries closes every bin up to the span, the last one partial.
func (e *engine) finishSeries() {
	e.crossBoundaries(e.spanUS)
	if e.spanUS > e.ser.lastEnd || e.ser.nbins == 0 && e.spanUS > 0 {
		e.closeBin(e.spanUS)
	}
}

// build turns the closed bins into the result's Series.
func (s *series) build(e *engine) result.Series {
	out := result.Series{BinMS: usToMS(s.binUS), StartMS: []float64{}, Queue: []result.NamedSeries{},
		Util: []result.NamedSeries{}, Dispatch: []result.NamedSeries{}}
	dur := make([]float64, s.nbins)
	for k := 0; k < s.nbins; k++ {
		start := int64(k) * s.binUS
		out.StartMS = append(out.StartMS, usToMS(start))
		dur[k] = float64(min(s.binUS, s.lastEnd-start))
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
			v[k] = roundF(x)
		}
		return v
	}
	all := e.opt.AllSeries
	var sum *result.SeriesSummary
	qs := keptColumns(s.qArea, s.nq, nil, all)
	for _, j := range qs {
		out.Queue = append(out.Queue, result.NamedSeries{Name: e.m.Queues[j].Name, Values: col(s.qArea, s.nq, j, true)})
	}
	if len(qs) < s.nq {
		sum = &result.SeriesSummary{Limit: seriesLimit}
		sum.Queues = s.nq - len(qs)
		out.Queue = append(out.Queue, result.NamedSeries{Name: othersName, Values: s.othersCol(s.qArea, s.nq, qs, dur, 1)})
	}
	ss := keptColumns(s.busy, s.ns, s.disp, all)
	for _, j := range ss {
		id := e.m.Servers[j].ID
		out.Util = append(out.Util, result.NamedSeries{Name: id, Values: col(s.busy, s.ns, j, true)})
		out.Dispatch = append(out.Dispatch, result.NamedSeries{Name: id, Values: col(s.disp, s.ns, j, false)})
	}
	if len(ss) < s.ns {
		if sum == nil {
			sum = &result.SeriesSummary{Limit: seriesLimit}
		}
		sum.Servers = s.ns - len(ss)
		// utilization: the mean of the others'; dispatches: their sum
		out.Util = append(out.Util, result.NamedSeries{Name: othersName, Values: s.othersCol(s.busy, s.ns, ss, dur, sum.Servers)})
		out.Dispatch = append(out.Dispatch, result.NamedSeries{Name: othersName, Values: s.othersCol(s.disp, s.ns, ss, nil, 1)})
	}
	out.Summarised = sum
	if s.failed && e.life != nil {
		out.Failures = []result.NamedSeries{}
		for k := 0; k < numFailures; k++ {
			v := col(s.fails, numFailures, k, false)
			if slices.ContainsFunc(v, func(x float64) bool { return x > 0 }) {
				out.Failures = append(out.Failures, result.NamedSeries{Name: (reasonNoEnt + reason(k)).String(), Values: v})
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
		if len(seen) > seriesLimit && !all {
			// the counters that reached the highest values, in their order
			peak := make([]int64, s.npair)
			for k := 0; k < s.nbins; k++ {
				for _, j := range seen {
					peak[j] = max(peak[j], s.counters[k*s.npair+j])
				}
			}
			n := len(seen)
			seen = topColumns(seen, peak, nil, seriesLimit)
			if sum == nil {
				sum = &result.SeriesSummary{Limit: seriesLimit}
				out.Summarised = sum
			}
			sum.Counters = n - len(seen)
		}
		for _, j := range seen {
			out.Counters = append(out.Counters, result.CounterSeries{Machine: e.m.Machines[j/s.nq].LMID,
				Queue: e.m.Queues[j%s.nq].Name, Values: col(s.counters, s.npair, j, false)})
		}
		out.ResetsMS = []float64{}
		for _, r := range s.resets {
			out.ResetsMS = append(out.ResetsMS, usToMS(r))
		}
	}
	return out
}

// chosenTotals sets n[i] to the requests that chose server i over the whole
// run: the closed bins' and the open bin's.
func (s *series) chosenTotals(n []int64) {
	copy(n, s.dispatch)
	for k := 0; k < s.nbins; k++ {
		for i, c := range s.disp[k*s.ns : (k+1)*s.ns] {
			n[i] += c
		}
	}
}

func (s *series) markSeen(counters []int64) {
	for j, c := range counters {
		if c > 0 {
			s.seen[j] = true
		}
	}
}

// seriesLimit is how many lines of each kind a result's series keeps
// (queue lengths, utilizations and dispatches, MP counters) unless every
// line is asked for (RunOptions.AllSeries): past it, the busiest lines and
// one line of the others together (docs/engine.md, "Time series").
const seriesLimit = 64

// othersName names the line of the others together.
const othersName = "others"

// keptColumns returns the columns of xs (nbins x w, bin-major) a result
// shows: all of them when they are at most seriesLimit or all is set, else
// the seriesLimit with the largest totals over the run (ties: the larger
// total in ys when given, then the first), in column order.
func keptColumns(xs []int64, w int, ys []int64, all bool) []int {
	cols := make([]int, w)
	for j := range cols {
		cols[j] = j
	}
	if w <= seriesLimit || all {
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
	return topColumns(cols, total(xs), ty, seriesLimit)
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
func (s *series) othersCol(xs []int64, w int, kept []int, dur []float64, div int) []float64 {
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
		v[k] = roundF(x)
	}
	return v
}

// msgQueueSeries is /Q queue k's mean depth in each closed bin.
func (s *series) msgQueueSeries(k int) []float64 {
	out := make([]float64, s.nbins)
	for b := range out {
		if d := min(s.binUS, s.lastEnd-int64(b)*s.binUS); d > 0 {
			out[b] = roundF(float64(s.mqArea[b*s.nmq+k]) / float64(d))
		}
	}
	return out
}
