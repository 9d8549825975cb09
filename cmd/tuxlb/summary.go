package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/tuxlb/tuxlb/core/result"
)

// writeSummary prints a result for a terminal: warnings first, then the
// headline figures, then per machine its utilization, the requests it served
// and what it sent and received across the network; with a replay's
// validation, its table of verdicts.
func writeSummary(w io.Writer, r *result.Result) error {
	var b strings.Builder
	for _, warn := range r.Warnings {
		fmt.Fprintf(&b, "%s\n", warningLine(warn))
	}
	if len(r.Warnings) > 0 {
		b.WriteString("\n")
	}
	if r.Name != "" {
		fmt.Fprintf(&b, "%s\n", r.Name)
	}
	ldbal := "N"
	if r.LDBAL {
		ldbal = "Y"
	}
	fmt.Fprintf(&b, "%s, LDBAL %s, policy %s, seed %d: %s ms simulated (engine %s)\n\n",
		r.Model, ldbal, r.Policy, r.Seed, num(r.SpanMS), r.EngineVersion)
	h := result.HeadlineOf(r)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.DiscardEmptyColumns)
	fmt.Fprintf(tw, "requests\tissued %d\tcompleted %d\tfailed %d%s\ttimed out %d\t\n",
		h.Issued, h.Completed, h.Failed, failedDetail(r.Requests.Failed), h.TimedOut)
	for _, row := range []struct {
		name string
		s    result.Summary
	}{{"wait ms", r.WaitMS}, {"response ms", r.ResponseMS}} {
		fmt.Fprintf(tw, "%s\tmean %s\tp50 %s\tp95 %s\tp99 %s\tmax %s\t\n", row.name,
			num(row.s.Mean), num(row.s.P50), num(row.s.P95), num(row.s.P99), num(row.s.Max))
	}
	tw.Flush()
	fmt.Fprintf(&b, "%-13s%s\n", "balance", fmt.Sprintf("max utilization %.2f, Jain %.3f", h.UtilizationMax, h.Jain))
	fmt.Fprintf(&b, "%-13s%d of %d requests crossed it (%.1f%%)\n", "network", h.NetworkSent, h.Issued, h.NetworkShare*100)
	if h.SaturatedMachines > 0 {
		fmt.Fprintf(&b, "%-13s%d machine(s): see the warnings\n", "saturated", h.SaturatedMachines)
	}
	b.WriteString("\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "machine\tutilization\tissued\tserved\tlocal\tsent\treceived\t")
	for _, m := range r.Machines {
		fmt.Fprintf(tw, "%s\t%.2f\t%d\t%d\t%d\t%d\t%d\t\n", m.LMID, m.Utilization, m.Issued, m.Served, m.Local, m.Sent, m.Received)
	}
	tw.Flush()
	if r.Validation != nil { // a replay of a log with observed responses: its verdicts
		b.WriteString("\n")
		if err := writeValidation(&b, r.Validation); err != nil {
			return err
		}
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n"))
	return err
}

// num prints a figure with up to 3 decimals, without trailing zeros.
func num(v float64) string {
	s := strings.TrimRight(fmt.Sprintf("%.3f", v), "0")
	return strings.TrimSuffix(s, ".")
}

// failedDetail lists the failure reasons: " (TPENOENT 3)".
func failedDetail(m map[string]int64) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// warningLine is how a result's warning is printed: "warning: " and the
// warning, but a configuration's positioned diagnostic
// (ubbconfig:16:1: warning: ...) says so itself and is printed as it is.
func warningLine(w string) string {
	if at, _, ok := strings.Cut(w, ": warning: "); ok && at != "" && !strings.ContainsAny(at, " \t") && strings.Contains(at, ":") {
		return w
	}
	return "warning: " + w
}
