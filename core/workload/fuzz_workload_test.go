package workload

import (
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/fixture"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// FuzzTraceCSV checks that no trace text makes the reader panic.
func FuzzTraceCSV(f *testing.F) {
	f.Add("time_ms,service,origin,service_ms,prio,id\n0,TOUPPER,site1,1,5,a\n")
	f.Add("ts;service\n2026-11-29T10:00:00Z;TOUPPER\n")
	n := NewNames(fixture.HandModel())
	f.Fuzz(func(t *testing.T, text string) {
		if _, _, _, _, err := traceCSV(n, text, nil, false, 1); err != nil && diag.ErrorCode(err) != diag.EINVALID {
			t.Fatalf("got %v, want an %s error", err, diag.EINVALID)
		}
		cm := &scenario.TraceMap{Time: "ts", TimeUnit: "rfc3339", Delimiter: ";"}
		if _, _, _, _, err := traceCSV(n, text, cm, true, 1); err != nil && diag.ErrorCode(err) != diag.EINVALID {
			t.Fatalf("mapped: got %v, want an %s error", err, diag.EINVALID)
		}
	})
}
