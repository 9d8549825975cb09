package main

import (
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/result"
)

// TestWriteValidationSaysWhatWouldDecide: under the table, each
// inconclusive figure gets a line saying which interval is the wider and
// so what would decide it, and the tolerance the rows and runs at hand can
// judge it within. By hand: A's p99 observed 12.855 in [12.079, 17.311]
// (relative width 0.407) against simulated 13.577 in [13.027, 14.127]
// (0.081), relative interval [−24.7%, 17.0%] against ±20%: more rows, and
// within 24.7% rounded up to 5%: 25%. B's mean observed 10 in [9.8, 10.2]
// (0.04) against simulated 11 in [9, 13] (0.364), relative [−11.8%,
// 32.7%] against ±10%: more replications, within 35%. C's p50, from one
// replication (no simulated interval): replications, within 20%. D's p95,
// relative [−50%, 1200%]: past the largest tolerance, 1000%, it says so.
// A passing figure gets no line.
func TestWriteValidationSaysWhatWouldDecide(t *testing.T) {
	iv := func(lo, hi float64) *result.Interval { return &result.Interval{Lo: lo, Hi: hi} }
	from, to := 0.0, 60000.0
	v := &result.Validation{FromMS: &from, ToMS: &to, Replications: 5, Verdict: result.Inconclusive,
		Tolerance: &result.Tolerances{Mean: 0.1, P50: 0.1, P95: 0.15, P99: 0.2},
		Services: []result.ValidationRow{
			{Service: "A", Observed: result.Summary{Mean: 6, P99: 12.855}, Simulated: result.Summary{Mean: 6, P99: 13.577},
				ObservedCI:  &result.Intervals{Mean: iv(5.9, 6.1), P99: iv(12.079, 17.311)},
				SimulatedCI: &result.Intervals{Mean: iv(5.95, 6.05), P99: iv(13.027, 14.127)},
				RelativeCI:  &result.Intervals{Mean: iv(-0.03, 0.03), P99: iv(-0.247, 0.17)},
				Verdicts:    &result.FigureVerdicts{Mean: result.Pass, P99: result.Inconclusive}},
			{Service: "B", Observed: result.Summary{Mean: 10}, Simulated: result.Summary{Mean: 11},
				ObservedCI:  &result.Intervals{Mean: iv(9.8, 10.2)},
				SimulatedCI: &result.Intervals{Mean: iv(9, 13)},
				RelativeCI:  &result.Intervals{Mean: iv(-0.118, 0.327)},
				Verdicts:    &result.FigureVerdicts{Mean: result.Inconclusive}},
			{Service: "C", Observed: result.Summary{P50: 4}, Simulated: result.Summary{P50: 4.5},
				ObservedCI: &result.Intervals{P50: iv(3.9, 4.1)},
				RelativeCI: &result.Intervals{P50: iv(0.097, 0.154)},
				Verdicts:   &result.FigureVerdicts{P50: result.Inconclusive}},
			{Service: "D", Observed: result.Summary{P95: 1}, Simulated: result.Summary{P95: 9},
				ObservedCI:  &result.Intervals{P95: iv(0.1, 1.2)},
				SimulatedCI: &result.Intervals{P95: iv(8, 10)},
				RelativeCI:  &result.Intervals{P95: iv(-0.5, 12)},
				Verdicts:    &result.FigureVerdicts{P95: result.Inconclusive}},
		}}
	var b strings.Builder
	if err := writeValidation(&b, v); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"A p99 is inconclusive (its relative interval straddles ±20.0%): more rows would narrow the observed interval, the wider (a longer log, or an earlier --validate-after); these rows and runs judge it within ±25% (--tolerance p99=25%)\n",
		"B mean is inconclusive (its relative interval straddles ±10.0%): more replications would narrow the simulated interval, the wider (--replications); these rows and runs judge it within ±35% (--tolerance mean=35%)\n",
		"C p50 is inconclusive (its relative interval straddles ±10.0%): one replication gives the simulated figure no interval: run --replications 5 or more; these rows and runs judge it within ±20% (--tolerance p50=20%)\n",
		"D p95 is inconclusive (its relative interval straddles ±15.0%): more rows would narrow the observed interval, the wider (a longer log, or an earlier --validate-after); no tolerance the validation takes (up to 1000%) judges it with these rows and runs\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "A mean is") || strings.Count(out, " is inconclusive (") != 4 {
		t.Errorf("a line for a figure that is not inconclusive, or one too many:\n%s", out)
	}
}
