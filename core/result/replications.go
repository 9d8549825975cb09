package result

import "github.com/tuxlb/tuxlb/core/internal/ci"

func maxUtilization(r *Result) float64 {
	var m float64
	for _, s := range r.Servers {
		m = max(m, s.Utilization)
	}
	return m
}

// CombineReplications returns the first result carrying the mean and 95%
// confidence half-width of the replicated figures of the figures table over
// all of them (results in replication order), read from their headlines.
func CombineReplications(results []*Result) *Result {
	rep := &Replications{K: len(results), Figures: map[string]MeanCI{}}
	for _, res := range results {
		rep.Seeds = append(rep.Seeds, res.Seed)
	}
	xs := make([]float64, len(results))
	for _, f := range figureTable {
		if !f.Replicated {
			continue
		}
		for i, res := range results {
			xs[i] = res.Headline[f.Name]
		}
		rep.Figures[f.Name] = meanCI(xs)
	}
	first := results[0]
	first.Replications = rep
	combineValidation(results)
	return first
}

// ReplicationSummary keeps of r what CombineReplications reads of a
// replication after the first (its seed, headline and validation), so that
// a runner of k replications holds one whole result, not k.
func ReplicationSummary(r *Result) *Result {
	return &Result{Seed: r.Seed, Headline: r.Headline, Validation: r.Validation}
}

// meanCI is the mean and the half-width of its 95% confidence interval
// (ci.Mean95).
func meanCI(xs []float64) MeanCI {
	mean, half := ci.Mean95(xs)
	return MeanCI{Mean: mean, HalfWidth: half}
}
