package core

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// traceUBB is one SHM machine with four instances of simpserv (TOUPPER).
const traceUBB = `*RESOURCES
IPCKEY 123456
MASTER SITE1
MODEL SHM
LDBAL Y
*MACHINES
"tuxhost" LMID=SITE1 APPDIR="/app" TUXCONFIG="/app/tuxconfig" TUXDIR="/opt/tuxedo"
*GROUPS
APPGRP LMID=SITE1 GRPNO=1
*SERVERS
simpserv SRVGRP=APPGRP SRVID=1 MIN=4 MAX=4 CLOPT="-A"
*SERVICES
TOUPPER LOAD=50
`

// traceScenarioJSON is a scenario whose workload is a CSV trace of rows
// requests on traceUBB, run reps times.
func traceScenarioJSON(b *testing.B, rows, reps int) []byte {
	var sb strings.Builder
	sb.WriteString("time_ms,service,origin,service_ms\n")
	for i := range rows {
		// out of order in blocks of ten, so the trace has to be sorted
		fmt.Fprintf(&sb, "%d.%03d,TOUPPER,SITE1,0.5\n", (i/10)*10+9-i%10, i%1000)
	}
	doc := map[string]any{
		"ubbconfig":    traceUBB,
		"replications": reps,
		"workload":     map[string]any{"trace_csv": sb.String()},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkTraceReplications parses and runs a scenario whose workload is a
// 10 000-row CSV trace with 3 replications, through the public entry points
// (ParseScenario and Run): reading, checking and sorting the trace is a large
// part of its cost, and it shows whether a run reads the trace once or once
// per check and replication.
func BenchmarkTraceReplications(b *testing.B) {
	data := traceScenarioJSON(b, 10_000, 3)
	b.ReportAllocs()
	for b.Loop() {
		sc, err := ParseScenario(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Run(sc, RunOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
