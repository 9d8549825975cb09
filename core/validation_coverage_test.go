package core

import (
	"flag"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
)

var (
	valcovN     = flag.Int("valcov.n", 0, "logs per load the validation coverage test judges (0: skip it)")
	valcovTruth = flag.Float64("valcov.truth", 4000, "seconds of the long run that gives the coverage test its truth")
)

// truthFigures returns the true response figures (ms: mean, p50, p95,
// p99) of QA, QB and of both together, of the true scenario of service
// times × scale: those of one long run of its Poisson arrivals (100/s and
// 40/s) for seconds s after a warm-up of 30 s.
func truthFigures(t *testing.T, scale, s float64) map[string][4]float64 {
	t.Helper()
	sc := truthScenario(scale, "", 99)
	sc.Workload = scenario.Workload{Generate: &scenario.Generator{DurationMS: (s + 30) * 1000, Streams: []scenario.Stream{
		{Service: "QA", Arrivals: "poisson", RatePerS: 100}, {Service: "QB", Arrivals: "poisson", RatePerS: 40}}}}
	sc.WarmupMS = &scenario.Warmup{MS: 30000}
	res, err := Run(sc, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fig := func(x result.Summary) [4]float64 { return [4]float64{x.Mean, x.P50, x.P95, x.P99} }
	out := map[string][4]float64{"": fig(res.ResponseMS)}
	for _, sv := range res.Services {
		out[sv.Name] = fig(sv.ResponseMS)
	}
	return out
}

// TestValidationCoverage measures how often the observed intervals of a
// replay validation hold the truth, run with -valcov.n N: N logs of 60 s
// each (truthLogOf, arrivals and service times of their own seeds) at 60%
// and at 85% busy, each judged from 30 s (validation.after_ms) against the
// true scenario (one replication, for the observed intervals) and against
// one whose service times are 30% longer (5 replications, for the
// verdict). It logs, per row (QA, QB, all) and figure, the logs of N whose
// observed interval holds the true figure (truthFigures), and the mean
// width of the intervals relative to the truth (and how many of the
// misses fell short of it), and the verdicts. Each
// interval is labelled 95%: the test fails when a figure's count falls
// more than 3 standard deviations of a binomial(N, 0.95) below 0.95·N, or
// when the slow model passes any log or fails fewer than 95% of them.
func TestValidationCoverage(t *testing.T) {
	n := *valcovN
	if n <= 0 {
		t.Skip("run with -valcov.n N to measure the validation intervals' coverage")
	}
	floor := 0.95*float64(n) - 3*math.Sqrt(float64(n)*0.05*0.95)
	for _, busy := range []float64{0.6, 0.85} {
		scale := busy / 0.6
		truth := truthFigures(t, scale, *valcovTruth)
		names := []string{"QA", "QB", ""}
		held, above := map[string]*[4]int{}, map[string]*[4]int{}
		width := map[string]*[4]float64{}
		for _, nm := range names {
			held[nm], above[nm], width[nm] = &[4]int{}, &[4]int{}, &[4]float64{}
		}
		slowVerdicts := map[string]int{}
		batches := map[int]int{}
		for i := range n {
			log := truthLogOf(t, scale, uint64(1000+i), uint64(5000+i))
			v := validateSeed(t, log, scale, 1, nil, f(30000), uint64(9000+i))
			rows := append([]result.ValidationRow{v.Overall}, v.Services...)
			for _, r := range rows {
				tr, ok := truth[r.Service]
				if !ok {
					t.Fatalf("no truth for %q", r.Service)
				}
				batches[len(r.ObservedBatches)]++
				for k, iv := range []*result.Interval{r.ObservedCI.Mean, r.ObservedCI.P50, r.ObservedCI.P95, r.ObservedCI.P99} {
					if iv == nil {
						t.Fatalf("busy %v, log %d, %q: figure %d has no interval", busy, i, r.Service, k)
					}
					if iv.Lo <= tr[k] && tr[k] <= iv.Hi {
						held[r.Service][k]++
					} else if tr[k] > iv.Hi {
						above[r.Service][k]++
					}
					width[r.Service][k] += (iv.Hi - iv.Lo) / tr[k] / float64(n)
				}
			}
			slow := validateSeed(t, log, scale*1.3, 5, nil, f(30000), uint64(9000+i))
			slowVerdicts[slow.Verdict]++
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%.0f%% busy, %d logs, truth over %.0f s (mean, p50, p95, p99 ms):\n", busy*100, n, *valcovTruth)
		for _, nm := range names {
			tr := truth[nm]
			fmt.Fprintf(&b, "  %-3s truth %7.3f %7.3f %7.3f %7.3f  held %3d %3d %3d %3d of %d (truth above %d %d %d %d)  mean width %5.1f%% %5.1f%% %5.1f%% %5.1f%%\n",
				nm, tr[0], tr[1], tr[2], tr[3], held[nm][0], held[nm][1], held[nm][2], held[nm][3], n,
				above[nm][0], above[nm][1], above[nm][2], above[nm][3],
				100*width[nm][0], 100*width[nm][1], 100*width[nm][2], 100*width[nm][3])
			for k, h := range held[nm] {
				if float64(h) < floor {
					t.Errorf("%.0f%% busy, %q figure %d: the interval held the truth in %d of %d logs, below %.1f", busy*100, nm, k, h, n, floor)
				}
			}
		}
		fmt.Fprintf(&b, "  batches (rows × logs by count) %v; 30%% slow model's verdicts %v", batches, slowVerdicts)
		t.Log(b.String())
		if slowVerdicts[result.Pass] > 0 || float64(slowVerdicts[result.Fail]) < 0.95*float64(n) {
			t.Errorf("%.0f%% busy: a model 30%% slow judged %v over %d logs, want fail in 95%% or more and pass in none", busy*100, slowVerdicts, n)
		}
	}
}
