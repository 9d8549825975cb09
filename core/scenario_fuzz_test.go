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

// TestTraceLogThroughScenario runs a log's note into the setup's warnings.
func TestTraceLogThroughScenario(t *testing.T) {
	sc := &scenario.Scenario{
		UBBConfig: "*RESOURCES\nMODEL SHM\nLDBAL Y\n*MACHINES\nh LMID=site1\n*GROUPS\nG1 LMID=site1 GRPNO=1\n*SERVERS\nsimpserv SRVGRP=G1 SRVID=1 CLOPT=\"-s TOUPPER\"\n",
		Services:  map[string]scenario.ServiceSpec{"TOUPPER": {ServiceTime: &scenario.Dist{Dist: "const", MS: f(1)}}},
		Workload:  scenario.Workload{TraceCSV: "timestamp,svc,user\n2026-11-29 10:00:00,TOUPPER,ann\n"},
	}
	st, err := newSetup(sc, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `trace_csv: read as a log: time_ms from column "timestamp" (date-times, counted from the first row), service from column "svc"; ignored: user; ` +
		`times without a zone read as UTC (give tz=ZONE, e.g. tz=Europe/Paris, for local times)`
	if len(st.Warnings) == 0 || st.Warnings[len(st.Warnings)-1] != want {
		t.Errorf("got warnings %q, want the last one %q", st.Warnings, want)
	}
}
