package core

import (
	"testing"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// FuzzParseScenario checks that no document makes the reader panic, and that
// every rejection is an EINVALID error.
func FuzzParseScenario(f *testing.F) {
	f.Add([]byte(goodScenario))
	f.Add([]byte(`{"ubbconfig":"x","workload":{"trace":[{"time_ms":1,"service":"A"}]}}`))
	f.Add([]byte(`{"ubbconfig":"x","services":{"A":{"service_time":{"dist":"gamma","mean_ms":1,"shape":0.2}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := ParseScenario(data); err != nil && diag.ErrorCode(err) != diag.EINVALID {
			t.Fatalf("got %v (code %s), want an %s error", err, diag.ErrorCode(err), diag.EINVALID)
		}
	})
}

// FuzzTraceCSV checks that no trace text makes the reader panic.
func FuzzTraceCSV(f *testing.F) {
	f.Add("time_ms,service,origin,service_ms,prio,id\n0,TOUPPER,site1,1,5,a\n")
	f.Add("ts;service\n2026-11-29T10:00:00Z;TOUPPER\n")
	n := newNames(handModel())
	f.Fuzz(func(t *testing.T, text string) {
		if _, _, _, err := traceCSV(n, text, nil, false); err != nil && diag.ErrorCode(err) != diag.EINVALID {
			t.Fatalf("got %v, want an %s error", err, diag.EINVALID)
		}
		cm := &scenario.TraceMap{Time: "ts", TimeUnit: "rfc3339", Delimiter: ";"}
		if _, _, _, err := traceCSV(n, text, cm, true); err != nil && diag.ErrorCode(err) != diag.EINVALID {
			t.Fatalf("mapped: got %v, want an %s error", err, diag.EINVALID)
		}
	})
}
