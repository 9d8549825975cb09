package batchmeans

import (
	"math"

	"github.com/tuxlb/tuxlb/core/internal/ci"
	"github.com/tuxlb/tuxlb/core/internal/hist"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/workload"
)

// Rows returns the window's validation rows, overall and of each service
// s with an observed row in it (named name(s), in service order): the
// observed responses of the log's rows obs issued in the window beside the
// run's, sim per service and simAll overall.
func (w *Window) Rows(obs []workload.ObservedRow, name func(s int) string, sim []hist.Acc, simAll *hist.Acc) (result.ValidationRow, []result.ValidationRow) {
	ns := len(w.Svc)
	accs := make([]hist.Acc, ns+1) // per service, then all
	for _, o := range obs {
		if o.TimeUS >= w.FromUS {
			accs[o.Service].Add(o.US)
			accs[ns].Add(o.US)
		}
	}
	hs := make([]hist.Hist, ns+1)
	qs := make([][3]int64, ns+1)
	for s := range accs {
		hs[s] = accs[s].Hist()
		qs[s] = hs[s].Percentiles()
	}
	below := w.below(obs, qs)
	spanS := float64(w.ToUS-w.FromUS) / 1e6
	overall := w.All.row("", &accs[ns], hs[ns], below[ns], simAll, spanS)
	rows := []result.ValidationRow{}
	for s := range ns {
		if accs[s].N > 0 {
			rows = append(rows, w.Svc[s].row(name(s), &accs[s], hs[s], below[s], &sim[s], spanS))
		}
	}
	return overall, rows
}

// below counts, batch by batch, the window's rows of each service (and of
// all, last) whose response is at most each of its observed percentiles qs
// (p50, p95, p99): in one pass over the rows.
func (w *Window) below(obs []workload.ObservedRow, qs [][3]int64) [][3][]int64 {
	ns := len(w.Svc)
	out := make([][3][]int64, ns+1)
	for s := range out {
		side := &w.All
		if s < ns {
			side = &w.Svc[s]
		}
		for k := range out[s] {
			out[s][k] = make([]int64, len(side.Obs.n))
		}
	}
	count := func(s int, side *Side, o workload.ObservedRow) {
		b := side.Obs.batch(o.TimeUS)
		for k, q := range qs[s] {
			if o.US <= q {
				out[s][k][b]++
			}
		}
	}
	for _, o := range obs {
		if o.TimeUS >= w.FromUS {
			count(int(o.Service), &w.Svc[o.Service], o)
			count(ns, &w.All, o)
		}
	}
	return out
}

// row is the validation row of a service (or, named "", of all of them):
// the observed responses obs (oh their histogram; below, batch by batch,
// the rows at most each observed percentile) beside the simulated sim,
// over the side's batches and a window of spanS seconds: their summaries,
// the observed figures' intervals, the batch means and the throughputs.
// The p99's upper end, where the batches widen it past the largest
// response, is the exponential tail's fitted to the largest responses
// (tailQuantile) at the fraction the widening asked for, at most
// ci.TailCap: the order statistics cannot reach above the largest, and a
// calm window's largest often lies below a busy system's true p99.
func (side *Side) row(service string, obs *hist.Acc, oh hist.Hist, below [3][]int64, sim *hist.Acc, spanS float64) result.ValidationRow {
	row := result.ValidationRow{Service: service, Observed: obs.Summary(oh), Simulated: sim.Summary(sim.Hist()),
		ObservedBatches: side.Obs.Means(), SimulatedBatches: side.Sim.Means(),
		ObservedCI: &result.Intervals{}, ThroughputPerS: &result.Throughput{}}
	if spanS > 0 {
		*row.ThroughputPerS = result.Throughput{Observed: usec.Round6(float64(side.Obs.Done) / spanS), Simulated: usec.Round6(float64(side.Sim.Done) / spanS)}
	}
	if bm := row.ObservedBatches; len(bm) >= 2 {
		h := ci.BatchMeans95(bm) // the batch means' spread and correlation; the interval is about the exact mean
		m := row.Observed.Mean
		row.ObservedCI.Mean = &result.Interval{Lo: usec.Round6(max(m-h, 0)), Hi: usec.Round6(m + h)}
	}
	for k, q := range []struct {
		p    float64
		iv   **result.Interval
		tail bool // past the largest response, the upper end is the fitted tail's
	}{{0.5, &row.ObservedCI.P50, false}, {0.95, &row.ObservedCI.P95, false}, {0.99, &row.ObservedCI.P99, true}} {
		l, u, top := side.Obs.quantileRanks(obs.N, q.p, below[k])
		if l == 0 {
			continue
		}
		iv := &result.Interval{Lo: usec.ToMS(min(oh.AtRank(l), obs.Max)), Hi: usec.ToMS(min(oh.AtRank(u), obs.Max))}
		if q.tail && u >= obs.N {
			if x, ok := tailQuantile(oh, obs.Max, q.p, min(top, ci.TailCap(q.p))); ok {
				iv.Hi = max(iv.Hi, usec.ToMS(usec.Round(x)))
			}
		}
		*q.iv = iv
	}
	return row
}

// tailQuantile returns the q-quantile (µs) of the exponential tail fitted
// to the largest k = ci.TailK(n, p) of the histogram h's n responses
// (maxUS the exact largest): the threshold x(n−k) and the mean excess of
// the k largest over it (ci.ExpTailQuantile), the values read from the
// histogram as the percentiles are. Not ok with fewer than 2·k responses
// (the threshold would not lie in the tail) or q below the threshold's
// quantile 1 − k/n.
func tailQuantile(h hist.Hist, maxUS int64, p, q float64) (float64, bool) {
	n := h.Total
	k := ci.TailK(n, p)
	if n < 2*k || q < 1-float64(k)/float64(n) {
		return 0, false
	}
	u := float64(min(h.AtRank(n-k), maxUS))
	var sum float64
	left := k
	for i := len(h.Bins) - 1; i >= 0 && left > 0; i-- { // the k largest, from the top bin down
		c := min(h.Bins[i].N, left)
		sum += float64(c) * float64(min(hist.Highest(int(h.Bins[i].I)), maxUS))
		left -= c
	}
	return ci.ExpTailQuantile(u, sum/float64(k)-u, k, n, q), true
}

// quantileRanks returns the ranks l ≤ u of the order statistics that bound
// the interval of the p-quantile of the n observed responses: the
// distribution-free interval of independent observations
// (ci.QuantileRanks), widened by the batches when they spread more. The
// fraction of a batch's rows at most the observed p-quantile (below[b] of
// its n[b]) varies from batch to batch as much as the responses are
// correlated in time (a busy spell lifts a whole batch's tail); the 95%
// half-width h of their mean (ci.BatchMeans95, as the mean's interval)
// gives the ranks (p ± h)·n. The wider of the two is kept. top is the
// fraction the upper end asked for, p + h (p when the batches do not
// widen it), which may pass 1 where u is cut to n.
func (b *Sums) quantileRanks(n int64, p float64, below []int64) (l, u int64, top float64) {
	l, u = ci.QuantileRanks(n, p)
	top = p
	fs := []float64{}
	for k, nk := range b.n {
		if nk > 0 {
			fs = append(fs, float64(below[k])/float64(nk))
		}
	}
	if l == 0 || len(fs) < 2 {
		return l, u, top
	}
	h := ci.BatchMeans95(fs)
	lo := int64(math.Floor(float64(p-h) * float64(n)))
	hi := int64(math.Ceil(float64(p+h)*float64(n))) + 1
	return min(l, max(lo, 1)), max(u, min(hi, n)), max(top, p+h)
}
