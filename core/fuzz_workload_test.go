package core

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseScenario checks that no document makes the reader panic, and that
// every rejection is an EINVALID error.
func FuzzParseScenario(f *testing.F) {
	f.Add([]byte(goodScenario))
	f.Add([]byte(`{"ubbconfig":"x","workload":{"trace":[{"time_ms":1,"service":"A"}]}}`))
	f.Add([]byte(`{"ubbconfig":"x","services":{"A":{"service_time":{"dist":"gamma","mean_ms":1,"shape":0.2}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := ParseScenario(data); err != nil && ErrorCode(err) != EINVALID {
			t.Fatalf("got %v (code %s), want an %s error", err, ErrorCode(err), EINVALID)
		}
	})
}

// FuzzMSToUS checks MSToUS against strconv on plain decimals: the result is
// within half a microsecond of the parsed value.
func FuzzMSToUS(f *testing.F) {
	for _, s := range []string{"1.0005", "0", "-2.5e-3", "999999999.9995", "1e-400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		us, err := msToUS(s)
		if err != nil {
			return
		}
		v, perr := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if perr != nil {
			t.Fatalf("MSToUS(%q) = %d, but strconv cannot read it: %v", s, us, perr)
		}
		if d := float64(us) - v*1000; d > 0.5000001 || d < -0.5000001 {
			if v*1000 < 1e12 && v*1000 > -1e12 {
				t.Fatalf("MSToUS(%q) = %d, want within 0.5 of %v", s, us, v*1000)
			}
		}
	})
}

// FuzzTraceCSV checks that no trace text makes the reader panic.
func FuzzTraceCSV(f *testing.F) {
	f.Add("time_ms,service,origin,service_ms,prio,id\n0,TOUPPER,site1,1,5,a\n")
	f.Add("ts;service\n2026-11-29T10:00:00Z;TOUPPER\n")
	n := newNames(handModel())
	f.Fuzz(func(t *testing.T, text string) {
		if _, _, err := traceCSV(n, text, nil); err != nil && ErrorCode(err) != EINVALID {
			t.Fatalf("got %v, want an %s error", err, EINVALID)
		}
		cm := &TraceMap{Time: "ts", TimeUnit: "rfc3339", Delimiter: ";"}
		if _, _, err := traceCSV(n, text, cm); err != nil && ErrorCode(err) != EINVALID {
			t.Fatalf("mapped: got %v, want an %s error", err, EINVALID)
		}
	})
}
