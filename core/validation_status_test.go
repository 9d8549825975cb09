package core

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// withRefused is log (truthLog's columns) with a status column and, after
// every 19th QA row, a QA row refused with TPENOENT at the same time,
// answered in 0.3 ms: 5% of the QA rows of the export, none of which
// reached a server. status false leaves the column out (the export as
// it was replayed before the column was read).
func withRefused(log string, status bool) (string, int) {
	lines := strings.Split(strings.TrimSuffix(log, "\n"), "\n")
	var b strings.Builder
	b.WriteString(lines[0])
	if status {
		b.WriteString(",status")
	}
	b.WriteString("\n")
	qa, refused := 0, 0
	for _, l := range lines[1:] {
		b.WriteString(l)
		if status {
			b.WriteString(",OK")
		}
		b.WriteString("\n")
		f := strings.Split(l, ",")
		if f[1] != "QA" {
			continue
		}
		if qa++; qa%19 == 0 {
			refused++
			fmt.Fprintf(&b, "%s,QA,x%d,0.300", f[0], refused)
			if status {
				b.WriteString(",TPENOENT")
			}
			b.WriteString("\n")
		}
	}
	return b.String(), refused
}

// TestValidationRefusedRows: a known truth's export with 5% of its QA rows
// refused with TPENOENT. Without the status column they are replayed (as
// load no server had) and judged (their 0.3 ms pull the observed mean
// down, and their load the simulated up); with it they are neither: the
// observed side is the truth's own, row for row, and the verdict passes.
func TestValidationRefusedRows(t *testing.T) {
	truth := truthLog(t)
	tol := &scenario.Tolerance{Default: f(0.15), P99: f(0.25)}
	qa := func(v *result.Validation) result.ValidationRow {
		for _, s := range v.Services {
			if s.Service == "QA" {
				return s
			}
		}
		t.Fatal("no QA row")
		return result.ValidationRow{}
	}
	want := qa(validate(t, truth, 1, 10, tol, nil))
	before, refused := withRefused(truth, false)
	after, _ := withRefused(truth, true)
	b, a := qa(validate(t, before, 1, 10, tol, nil)), qa(validate(t, after, 1, 10, tol, nil))
	for _, c := range []struct {
		name string
		row  result.ValidationRow
	}{{"truth", want}, {"without status", b}, {"with status", a}} {
		t.Logf("%-14s QA observed %d rows mean %.3f ms p50 %.3f, simulated %d mean %.3f ms (simulated/observed %+.4f), verdict %s",
			c.name, c.row.Observed.Count, c.row.Observed.Mean, c.row.Observed.P50, c.row.Simulated.Count, c.row.Simulated.Mean,
			c.row.Simulated.Mean/c.row.Observed.Mean-1, c.row.Verdict)
	}
	// the same rows observed; the same requests played, their service
	// times drawn by other row numbers (the refused rows take theirs), so
	// the simulated side is the truth's within its noise
	if a.Observed != want.Observed || a.Simulated.Count != want.Simulated.Count || a.Verdict != result.Pass ||
		math.Abs(a.Simulated.Mean/want.Simulated.Mean-1) > 0.02 {
		t.Errorf("with the status column: observed %+v simulated %+v %s, want the truth's %+v, %d simulated of mean %.3f ± 2%%, pass",
			a.Observed, a.Simulated, a.Verdict, want.Observed, want.Simulated.Count, want.Simulated.Mean)
	}
	if b.Observed.Count != want.Observed.Count+int64(refused) {
		t.Errorf("without it: %d observed rows, want the truth's %d and the %d refused", b.Observed.Count, want.Observed.Count, refused)
	}
	// the refused rows' share of the mean, by hand: (n·m + r·0.3)/(n + r)
	n, r := float64(want.Observed.Count), float64(refused)
	if m := (n*want.Observed.Mean + r*0.3) / (n + r); math.Abs(b.Observed.Mean-m) > 0.001 {
		t.Errorf("without it: observed mean %.4f, want (n·m + r·0.3)/(n + r) = %.4f", b.Observed.Mean, m)
	}
}
