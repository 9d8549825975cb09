package batchmeans

import (
	"github.com/tuxlb/tuxlb/core/internal/ci"
	"github.com/tuxlb/tuxlb/core/internal/hist"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/result"
)

// Row is the validation row of a service (or, named "", of all of them):
// the observed responses obs beside the simulated sim, over the batches of
// side and a window of spanS seconds: their summaries, the observed
// figures' intervals, the batch means and the throughputs.
func (side *Side) Row(service string, obs, sim *hist.Acc, spanS float64) result.ValidationRow {
	oh := obs.Hist()
	row := result.ValidationRow{Service: service, Observed: obs.Summary(oh), Simulated: sim.Summary(sim.Hist()),
		ObservedBatches: side.Obs.Means(), SimulatedBatches: side.Sim.Means(),
		ObservedCI: &result.Intervals{}, ThroughputPerS: &result.Throughput{}}
	if spanS > 0 {
		*row.ThroughputPerS = result.Throughput{Observed: usec.Round6(float64(side.Obs.Done) / spanS), Simulated: usec.Round6(float64(side.Sim.Done) / spanS)}
	}
	if bm := row.ObservedBatches; len(bm) >= 2 {
		_, h := ci.Mean95(bm) // the batch means' spread; the interval is about the exact mean
		m := row.Observed.Mean
		row.ObservedCI.Mean = &result.Interval{Lo: usec.Round6(max(m-h, 0)), Hi: usec.Round6(m + h)}
	}
	for _, q := range []struct {
		p  float64
		iv **result.Interval
	}{{0.5, &row.ObservedCI.P50}, {0.95, &row.ObservedCI.P95}, {0.99, &row.ObservedCI.P99}} {
		l, u := ci.QuantileRanks(obs.N, q.p)
		if l > 0 {
			*q.iv = &result.Interval{Lo: usec.ToMS(min(oh.AtRank(l), obs.Max)), Hi: usec.ToMS(min(oh.AtRank(u), obs.Max))}
		}
	}
	return row
}
