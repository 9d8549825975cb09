package workload

import (
	"fmt"
	"strings"

	"github.com/tuxlb/tuxlb/core/trace"
)

// failedRows counts, per service, the rows of a log whose status column
// says they failed: those replayed (trace.StatusFailed) and those not
// (trace.StatusNotSent), and of each, those whose observed response the
// validation leaves out.
type failedRows struct {
	n                  *Names
	failed, notSent    []int // rows, by service
	failedObs, sentObs int   // of them, rows with an observed response
}

// add counts row tr, which failed.
func (f *failedRows) add(tr *trace.Request) {
	if f.failed == nil {
		f.failed, f.notSent = make([]int, len(f.n.m.Services)), make([]int, len(f.n.m.Services))
	}
	if tr.Status == trace.StatusNotSent {
		f.notSent[tr.Service]++
		if tr.ObservedUS >= 0 {
			f.sentObs++
		}
		return
	}
	f.failed[tr.Service]++
	if tr.ObservedUS >= 0 {
		f.failedObs++
	}
}

// note adds to a log's note what was done with its failed rows; judged
// says the replay is validated (its rate not scaled).
func (f *failedRows) note(note string, judged bool) string {
	if f.failed == nil {
		return note
	}
	var says []string
	if n, by := f.byService(f.failed); n > 0 {
		s := fmt.Sprintf("%s failed (%s): replayed as requests, their load on the servers was real", rows(n), by)
		if judged && f.failedObs > 0 {
			s += fmt.Sprintf(", but their observed responses (%d) are left out of the validation", f.failedObs)
		}
		says = append(says, s)
	}
	if n, by := f.byService(f.notSent); n > 0 {
		s := fmt.Sprintf("%s failed before reaching a server (TPENOENT and the like; %s): not replayed", rows(n), by)
		if judged && f.sentObs > 0 {
			s += fmt.Sprintf(", their observed responses (%d) left out of the validation", f.sentObs)
		}
		says = append(says, s)
	}
	if note == "" {
		note = "trace_csv: "
	} else {
		note += "; "
	}
	return note + strings.Join(says, "; ")
}

// byService totals counts and words them by service, "QUOTE 10, PAY 2" in
// the model's order of services.
func (f *failedRows) byService(counts []int) (int, string) {
	total := 0
	var parts []string
	for s, c := range counts {
		if c > 0 {
			total += c
			parts = append(parts, fmt.Sprintf("%s %d", f.n.m.Services[s].Name, c))
		}
	}
	return total, strings.Join(parts, ", ")
}

// rows words n rows: "1 row", "2 rows".
func rows(n int) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}
