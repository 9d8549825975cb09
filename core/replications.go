package core

import "math"

// MaxReplications bounds Scenario.Replications.
const MaxReplications = 100

// replicationFigures are the headline figures replications report, and how
// to read each from a Result.
var replicationFigures = []struct {
	name string
	get  func(*Result) float64
}{
	{"wait_ms.mean", func(r *Result) float64 { return r.WaitMS.Mean }},
	{"wait_ms.p95", func(r *Result) float64 { return r.WaitMS.P95 }},
	{"response_ms.mean", func(r *Result) float64 { return r.ResponseMS.Mean }},
	{"response_ms.p95", func(r *Result) float64 { return r.ResponseMS.P95 }},
	{"response_ms.p99", func(r *Result) float64 { return r.ResponseMS.P99 }},
	{"utilization.max", func(r *Result) float64 { return maxUtilization(r) }},
	{"balance.jain_utilization", func(r *Result) float64 { return r.Balance.JainUtilization }},
	{"requests.timed_out", func(r *Result) float64 { return float64(r.Requests.TimedOut) }},
}

func maxUtilization(r *Result) float64 {
	var m float64
	for _, s := range r.Servers {
		m = max(m, s.Utilization)
	}
	return m
}

// replicationSeed derives the seed of replication i (0-based) from the
// scenario's seed: replication 0 uses the seed itself, the others a
// SplitMix64 step of seed + i, so the streams are unrelated.
func replicationSeed(seed uint64, i int) uint64 {
	if i == 0 {
		return seed
	}
	z := seed + uint64(i)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// CombineReplications returns the first result carrying the mean and 95%
// confidence half-width of the headline figures over all of them (results in
// replication order).
func CombineReplications(results []*Result) *Result {
	rep := &Replications{K: len(results), Figures: map[string]MeanCI{}}
	values := make([][]float64, len(replicationFigures))
	for _, res := range results {
		rep.Seeds = append(rep.Seeds, res.Seed)
		for j, f := range replicationFigures {
			values[j] = append(values[j], f.get(res))
		}
	}
	for j, f := range replicationFigures {
		rep.Figures[f.name] = meanCI(values[j])
	}
	first := results[0]
	first.Replications = rep
	return first
}

// ReplicationSummary keeps of r what CombineReplications reads of a
// replication after the first (its seed and headline figures), so that a
// runner of k replications holds one whole result, not k.
func ReplicationSummary(r *Result) *Result {
	return &Result{Seed: r.Seed, WaitMS: r.WaitMS, ResponseMS: r.ResponseMS, Balance: r.Balance,
		Requests: RequestCounts{TimedOut: r.Requests.TimedOut},
		Servers:  []ServerStats{{Utilization: maxUtilization(r)}}}
}

// meanCI is the mean and the half-width of its 95% confidence interval
// (Student's t with k-1 degrees of freedom).
func meanCI(xs []float64) MeanCI {
	n := float64(len(xs))
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / n
	var ss float64
	for _, x := range xs {
		ss += float64((x - mean) * (x - mean)) // no fused multiply-add
	}
	if len(xs) < 2 {
		return MeanCI{Mean: roundF(mean)}
	}
	sd := math.Sqrt(ss / (n - 1))
	return MeanCI{Mean: roundF(mean), HalfWidth: roundF(studentT975(len(xs)-1) * sd / math.Sqrt(n))}
}

// studentT975 is the 97.5% quantile of Student's t with df degrees of freedom.
func studentT975(df int) float64 {
	table := [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	switch {
	case df <= len(table):
		return table[df-1]
	case df <= 40:
		return 2.021
	case df <= 60:
		return 2.000
	default:
		return 1.984
	}
}
