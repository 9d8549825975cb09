package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// validationFlags are the flags that judge a replay against its log's
// observed responses: run's and calibrate's.
type validationFlags struct {
	replications  int
	tolerance     string
	validateAfter string
	fs            *flag.FlagSet // where they were declared: a --replications 0 written is refused
}

// flags declares the flags on fs, --replications with its default
// (0: the scenario's).
func (v *validationFlags) flags(fs *flag.FlagSet, replications int) {
	v.fs = fs
	usage := fmt.Sprintf("runs with derived seeds, 1..%d (1: one run); with 2 or more every simulated validation figure gets its 95%% interval", core.MaxReplications)
	if replications == 0 {
		usage += " (default the scenario's)"
	}
	fs.IntVar(&v.replications, "replications", replications, usage)
	fs.StringVar(&v.tolerance, "tolerance", "", "relative tolerance of the validation's verdicts: `10%` (every figure), or per figure: p99=20%,mean=10% (keys default, mean, p50, p95, p99); without it 10% for the mean and p50, 15% for p95, 20% for p99")
	fs.StringVar(&v.validateAfter, "validate-after", "", "compare only the log's rows issued after `T`: milliseconds from the log's start, or a duration like 30s")
}

// given says whether a flag that needs a validation was given.
func (v *validationFlags) given() bool { return v.tolerance != "" || v.validateAfter != "" }

// apply writes the flags into the scenario: replications (when not 0) and
// validation.tolerance and validation.after_ms (when given).
func (v *validationFlags) apply(sc *scenario.Scenario) error {
	if v.replications < 0 || v.replications > core.MaxReplications || v.fs != nil && zeroGiven(v.fs, "replications", float64(v.replications)) {
		return fmt.Errorf("--replications: want 1..%d, got %d", core.MaxReplications, v.replications)
	}
	if v.replications > 0 {
		sc.Replications = v.replications
	}
	if !v.given() {
		return nil
	}
	if sc.Validation == nil {
		sc.Validation = &scenario.ValidationOptions{}
	}
	if v.tolerance != "" {
		t, err := parseTolerance(v.tolerance)
		if err != nil {
			return fmt.Errorf("--tolerance: %w", err)
		}
		sc.Validation.Tolerance = t
	}
	if v.validateAfter != "" {
		ms, err := parseAfter(v.validateAfter)
		if err != nil {
			return fmt.Errorf("--validate-after: %w", err)
		}
		sc.Validation.AfterMS = &ms
	}
	return nil
}

// parseTolerance reads "10%", "0.1", or "p99=20%,mean=10%" (keys default,
// mean, p50, p95, p99).
func parseTolerance(s string) (*scenario.Tolerance, error) {
	t := &scenario.Tolerance{}
	for _, part := range strings.Split(s, ",") {
		key, val, named := strings.Cut(strings.TrimSpace(part), "=")
		if !named {
			key, val = "default", key
		}
		x, err := parseRelative(val)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", part, err)
		}
		var dst **float64
		switch strings.TrimSpace(key) {
		case "default":
			dst = &t.Default
		case "mean":
			dst = &t.Mean
		case "p50":
			dst = &t.P50
		case "p95":
			dst = &t.P95
		case "p99":
			dst = &t.P99
		default:
			return nil, fmt.Errorf("%q: unknown figure %q (want default, mean, p50, p95 or p99)", part, key)
		}
		if *dst != nil {
			return nil, fmt.Errorf("%q: %s given twice", part, key)
		}
		*dst = &x
	}
	return t, nil
}

// parseRelative reads "10%" (0.1) or "0.1": above 0 and at most 10.
func parseRelative(s string) (float64, error) {
	s = strings.TrimSpace(s)
	pct := strings.HasSuffix(s, "%")
	x, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if pct {
		x /= 100
	}
	if err != nil || !(x > 0 && x <= 10) {
		return 0, fmt.Errorf("want a tolerance like 10%% or 0.1 (above 0, at most 1000%%)")
	}
	return x, nil
}

// parseAfter reads milliseconds ("30000") or a duration ("30s", "1m30s").
func parseAfter(s string) (float64, error) {
	ms := -1.0
	if x, err := strconv.ParseFloat(s, 64); err == nil && x >= 0 {
		ms = x
	} else if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		ms = float64(d.Microseconds()) / 1000
	}
	switch {
	case ms < 0:
		return 0, fmt.Errorf("%q: want milliseconds (30000) or a duration (30s)", s)
	case ms > core.MaxTimeUS/1000:
		return 0, fmt.Errorf("%q: past the longest simulated time (1e9 ms, about 11.6 days)", s)
	}
	return ms, nil
}

// Exit statuses of calibrate beyond 0 (every service passes), 1 (an error)
// and 2 (bad flags).
const (
	exitValidationFail         = 3 // a service fails
	exitValidationInconclusive = 4 // none fails, one is inconclusive
)

// verdictStatus is the exit status of a validation's verdict.
func verdictStatus(v *result.Validation) int {
	switch v.Verdict {
	case result.Fail:
		return exitValidationFail
	case result.Inconclusive:
		return exitValidationInconclusive
	}
	return 0
}

// writeValidation prints a validation as a table: per service and figure,
// the observed and simulated figure with their intervals, the relative
// interval and the verdict; then the KS tests and throughputs.
func writeValidation(w io.Writer, v *result.Validation) error {
	var from, to float64
	if v.FromMS != nil && v.ToMS != nil {
		from, to = *v.FromMS, *v.ToMS
	}
	tol := result.Tolerances{}
	if v.Tolerance != nil {
		tol = *v.Tolerance
	}
	if from > to { // the window starts after the log's last observed row
		fmt.Fprintf(w, "Validation: no row judged (the window starts at %s ms, the last observed row was issued at %s ms), %d replication(s): %s\n",
			fmtMS(from), fmtMS(to), v.Replications, strings.ToUpper(v.Verdict))
	} else {
		fmt.Fprintf(w, "Validation of rows issued from %s to %s ms, %d replication(s): %s\n",
			fmtMS(from), fmtMS(to), v.Replications, strings.ToUpper(v.Verdict))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "service\tfigure\tobserved ms\t95% interval\tsimulated ms\t95% interval\trelative\tinterval\ttolerance\tverdict")
	rows := append([]result.ValidationRow{}, v.Services...)
	var open []string // what would decide each inconclusive figure
	for _, r := range rows {
		var sci, oci, rci result.Intervals
		var verdicts result.FigureVerdicts
		for _, p := range []struct{ dst, src *result.Intervals }{{&sci, r.SimulatedCI}, {&oci, r.ObservedCI}, {&rci, r.RelativeCI}} {
			if p.src != nil {
				*p.dst = *p.src
			}
		}
		if r.Verdicts != nil {
			verdicts = *r.Verdicts
		}
		for _, f := range []struct {
			name     string
			obs, sim float64
			oci, s   *result.Interval
			rel      *float64
			relCI    *result.Interval
			tol      float64
			verdict  string
		}{
			{"mean", r.Observed.Mean, r.Simulated.Mean, oci.Mean, sci.Mean, r.RelativeError.Mean, rci.Mean, tol.Mean, verdicts.Mean},
			{"p50", r.Observed.P50, r.Simulated.P50, oci.P50, sci.P50, r.RelativeError.P50, rci.P50, tol.P50, verdicts.P50},
			{"p95", r.Observed.P95, r.Simulated.P95, oci.P95, sci.P95, r.RelativeError.P95, rci.P95, tol.P95, verdicts.P95},
			{"p99", r.Observed.P99, r.Simulated.P99, oci.P99, sci.P99, r.RelativeError.P99, rci.P99, tol.P99, verdicts.P99},
		} {
			rel := "-"
			if f.rel != nil {
				rel = fmtPct(*f.rel)
			}
			relCI := "-"
			if f.relCI != nil {
				relCI = "[" + fmtPct(f.relCI.Lo) + ", " + fmtPct(f.relCI.Hi) + "]"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t±%s\t%s\n", r.Service, f.name, fmtMS(f.obs), fmtInterval(f.oci),
				fmtMS(f.sim), fmtInterval(f.s), rel, relCI, fmtPct(f.tol), f.verdict)
			if f.verdict == result.Inconclusive && f.relCI != nil {
				open = append(open, undecided(r.Service, f.name, f.tol, f.obs, f.sim, f.oci, f.s, f.relCI))
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	const most = 5
	for k, line := range open {
		if k == most {
			fmt.Fprintf(w, "(and %d more inconclusive)\n", len(open)-most)
			break
		}
		fmt.Fprintln(w, line)
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nservice\trows observed\tcompleted\tthroughput/s observed\tsimulated\tKS D\tp-value\tbatches\tverdict")
	for _, r := range rows {
		ks, p, b := "-", "-", "-"
		if r.KS != nil {
			ks, p = strconv.FormatFloat(r.KS.Statistic, 'f', 3, 64), strconv.FormatFloat(r.KS.PValue, 'f', 4, 64)
			b = fmt.Sprintf("%d/%d", r.KS.ObservedBatches, r.KS.SimulatedBatches)
		}
		var tp result.Throughput
		if r.ThroughputPerS != nil {
			tp = *r.ThroughputPerS
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Service, r.Observed.Count, r.Simulated.Count,
			strconv.FormatFloat(tp.Observed, 'f', 2, 64), strconv.FormatFloat(tp.Simulated, 'f', 2, 64), ks, p, b, r.Verdict)
	}
	return tw.Flush()
}

// undecided says what would decide an inconclusive figure: the wider of
// its observed and simulated intervals (relative to their figures) is the
// one to narrow, by more rows or more replications; and the tolerance the
// rows and runs at hand can judge it within (its relative interval's
// farther end, rounded up to 5%).
func undecided(service, figure string, tol, obs, sim float64, oci, sci, rel *result.Interval) string {
	width := func(iv *result.Interval, x float64) float64 {
		if iv == nil || x <= 0 {
			return 0
		}
		return (iv.Hi - iv.Lo) / x
	}
	how := "more rows would narrow the observed interval, the wider (a longer log, or an earlier --validate-after)"
	switch {
	case sci == nil:
		how = "one replication gives the simulated figure no interval: run --replications 5 or more"
	case width(sci, sim) > width(oci, obs):
		how = "more replications would narrow the simulated interval, the wider (--replications)"
	}
	judge := "no tolerance the validation takes (up to 1000%) judges it with these rows and runs"
	if within := math.Ceil(max(-rel.Lo, rel.Hi)*20-1e-9) * 5; within <= 1000 {
		judge = fmt.Sprintf("these rows and runs judge it within ±%.0f%% (--tolerance %s=%.0f%%)", within, figure, within)
	}
	return fmt.Sprintf("%s %s is inconclusive (its relative interval straddles ±%s): %s; %s", service, figure, fmtPct(tol), how, judge)
}

func fmtMS(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

func fmtPct(x float64) string { return strconv.FormatFloat(x*100, 'f', 1, 64) + "%" }

func fmtInterval(iv *result.Interval) string {
	if iv == nil {
		return "-"
	}
	return "[" + fmtMS(iv.Lo) + ", " + fmtMS(iv.Hi) + "]"
}
