package starter

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/ulog"
)

// A ULOG of an application with /Q, fitted and run with no hand edit: the
// clients' tpenqueues become a stream of enqueues, a service's tpenqueue an
// enqueue step, the TMQUEUE's executions the queue space's time per enqueue,
// and the TMQFORWARD's tpcalls are not arrivals (the messages' enqueues
// were); the scenario names every queue enqueued to or forwarded from.
func TestFitULOGWithQ(t *testing.T) {
	ubbText := `*RESOURCES
IPCKEY 123456
MASTER site1
MODEL SHM
*MACHINES
"h" LMID=site1 TUXDIR="/opt/tux" APPDIR="/app" TUXCONFIG="/app/tuxconfig"
*GROUPS
APP LMID=site1 GRPNO=1
QG LMID=site1 GRPNO=2
*SERVERS
ship SRVGRP=APP SRVID=1 CLOPT="-s SHIP"
TMQUEUE SRVGRP=QG SRVID=1 CLOPT="-s QS:TMQUEUE"
TMQFORWARD SRVGRP=QG SRVID=2 CLOPT="-- -q SHIP -i 1"
*SERVICES
SHIP
AUDIT
`
	var b strings.Builder
	for s := 0; s < 20; s++ { // one order a second for 20 s
		at := func(ms int) string { return fmt.Sprintf("%d%02d%02d.%03d", 10, 0, s, ms) }
		for _, l := range []string{
			at(0) + `.h!clt.1.1.1: TRACE:at: { tpenqueue("QS", "SHIP", 0x1, 0x2, 0, 0x0)`,
			at(1) + `.h!TMQUEUE.7.1.1: TRACE:at: { tpservice({"QS"})`,
			at(3) + `.h!TMQUEUE.7.1.1: TRACE:at: } tpservice`,
			at(4) + `.h!clt.1.1.1: TRACE:at: } tpenqueue = 1`,
			at(100) + `.h!TMQFORWARD.8.1.1: TRACE:at: { tpcall("SHIP", 0x0, 0, 0x0, 0x0, 0x0)`,
			at(101) + `.h!ship.9.1.1: TRACE:at: { tpservice({"SHIP"})`,
			at(110) + `.h!ship.9.1.1: TRACE:at: { tpenqueue("QS", "AUDIT", 0x1, 0x2, 0, 0x0)`,
			at(111) + `.h!TMQUEUE.7.1.1: TRACE:at: { tpservice({"QS"})`,
			at(113) + `.h!TMQUEUE.7.1.1: TRACE:at: } tpservice`,
			at(114) + `.h!ship.9.1.1: TRACE:at: } tpenqueue = 1`,
			at(120) + `.h!ship.9.1.1: TRACE:at: } tpservice`,
			at(121) + `.h!TMQFORWARD.8.1.1: TRACE:at: } tpcall = 1`,
		} {
			b.WriteString(l + "\n")
		}
	}
	rep, err := Fit(FitSources{UBBConfig: &ubbText, ULOG: []ulog.File{{Name: "ULOG.120626", Text: b.String()}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rep.Arrivals.Services["SHIP"]; ok || rep.Arrivals.Services["QS:SHIP"] == nil {
		t.Fatalf("arrivals %v: want the enqueues of QS:SHIP, not the forwards of SHIP", rep.Arrivals.Services)
	}
	if qs := rep.Services["QS"]; qs == nil || qs.MeanMS == nil || *qs.MeanMS != 2 {
		t.Errorf("QS (the time per enqueue): %+v", qs)
	}
	sc, warn, err := FromFit(Files{UBBConfig: &ubbText}, rep)
	if err != nil {
		t.Fatal(err)
	}
	g := sc.Workload.Generate
	if len(g.Streams) != 1 || g.Streams[0].Enqueue != "QS:SHIP" || g.Streams[0].Service != "" {
		t.Errorf("streams %+v: want one of enqueues to QS:SHIP", g.Streams)
	}
	if calls := sc.Services["SHIP"].Calls; len(calls) != 1 || calls[0].Enqueue != "QS:AUDIT" {
		t.Errorf("SHIP's calls %+v: want its enqueue to QS:AUDIT", calls)
	}
	if q := sc.QSpaces["QS"].Queues; len(q) != 2 {
		t.Errorf("qspaces %+v: want SHIP and AUDIT", sc.QSpaces)
	}
	if !strings.Contains(strings.Join(warn, "\n"), "/Q queues QS:AUDIT, QS:SHIP: a ULOG does not say their retries") {
		t.Errorf("warnings %q: want the queues' retries named as unknown", warn)
	}
	res, err := core.Run(sc, core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ship, audit int64
	for _, q := range res.QSpaces[0].Queues {
		switch q.Name {
		case "SHIP":
			ship = q.Forwarded
		case "AUDIT":
			audit = q.Enqueued
		}
	}
	if ship < 5 || audit < 5 || len(res.Requests.Failed) != 0 {
		t.Errorf("run: SHIP forwarded %d, AUDIT enqueued %d, failed %v", ship, audit, res.Requests.Failed)
	}
}

// A cycle of calls through two services (A calls B, which calls A back in
// half its executions): the step that closes it is left out of the
// scenario, which a run would refuse, and the executions it caused become
// a stream of their own.
func TestFitULOGCycle(t *testing.T) {
	ubbText := `*RESOURCES
IPCKEY 123456
MASTER site1
MODEL SHM
*MACHINES
"h" LMID=site1 TUXDIR="/opt/tux" APPDIR="/app" TUXCONFIG="/app/tuxconfig"
*GROUPS
APP LMID=site1 GRPNO=1
*SERVERS
sa SRVGRP=APP SRVID=1 MIN=2 CLOPT="-s A"
sb SRVGRP=APP SRVID=3 CLOPT="-s B"
*SERVICES
A
B
`
	var b strings.Builder
	for s := 0; s < 20; s++ { // a client's call of A each second for 20 s
		at := func(ms int) string { return fmt.Sprintf("%d%02d%02d.%03d", 10, 0, s, ms) }
		lines := []string{
			at(0) + `.h!clt.1.1.1: TRACE:at: { tpcall("A", 0x0, 0, 0x0, 0x0, 0x0)`,
			at(1) + `.h!sa.2.1.1: TRACE:at: { tpservice({"A"})`,
			at(2) + `.h!sa.2.1.1: TRACE:at:   { tpcall("B", 0x0, 0, 0x0, 0x0, 0x0)`,
			at(3) + `.h!sb.4.1.1: TRACE:at: { tpservice({"B"})`,
		}
		if s%2 == 0 { // B calls A back
			lines = append(lines,
				at(4)+`.h!sb.4.1.1: TRACE:at:   { tpcall("A", 0x0, 0, 0x0, 0x0, 0x0)`,
				at(5)+`.h!sa.3.1.1: TRACE:at: { tpservice({"A"})`,
				at(7)+`.h!sa.3.1.1: TRACE:at: } tpservice`,
				at(8)+`.h!sb.4.1.1: TRACE:at:   } tpcall = 1`)
		}
		lines = append(lines,
			at(10)+`.h!sb.4.1.1: TRACE:at: } tpservice`,
			at(11)+`.h!sa.2.1.1: TRACE:at:   } tpcall = 1`,
			at(12)+`.h!sa.2.1.1: TRACE:at: } tpservice`,
			at(13)+`.h!clt.1.1.1: TRACE:at: } tpcall = 1`)
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	rep, err := Fit(FitSources{UBBConfig: &ubbText, ULOG: []ulog.File{{Name: "ULOG.120626", Text: b.String()}}})
	if err != nil {
		t.Fatal(err)
	}
	sc, warn, err := FromFit(Files{UBBConfig: &ubbText}, rep)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: A ran 30 times (20 called by the client, 10 by B) and
	// called B in 20 (p 0.667); B ran 20 times and called A in 10 (p 0.5).
	// In the order of the names, A is visited first, then B, whose call of
	// A closes the cycle A -> B -> A: left out. The log spans 19 s (the
	// client's calls from 10:00:00 to 10:00:19): A's stream is 20 / 19 =
	// 1.05 a second, and the cut step's 20 executions of B × 0.5 / 19 =
	// 0.526 a second of A.
	if calls := sc.Services["A"].Calls; len(calls) != 1 || calls[0].Service != "B" || calls[0].P == nil || *calls[0].P != 0.667 {
		t.Errorf("A's calls %+v, want B with p 0.667", calls)
	}
	if calls := sc.Services["B"].Calls; len(calls) != 0 {
		t.Errorf("B's calls %+v, want none", calls)
	}
	var rates []float64
	for _, st := range sc.Workload.Generate.Streams {
		if st.Service != "A" {
			t.Errorf("stream %+v, want only A's", st)
		}
		rates = append(rates, st.RatePerS)
	}
	if !slices.Equal(rates, []float64{1.05, 0.526}) {
		t.Errorf("A's streams %v, want 1.05 and 0.526", rates)
	}
	found := false
	for _, w := range warn {
		found = found || strings.HasPrefix(w, "B: its tpcall of A closes a cycle of calls (A -> B -> A), which a run refuses: that step is left out, and the executions of A it caused are a stream of their own (0.526 a second")
	}
	if !found {
		t.Errorf("warnings %q", warn)
	}
	pr, err := core.Prepare(sc, core.RunOptions{})
	if err == nil {
		_, err = pr.Compile(core.RunOptions{}) // where a cycle is refused
	}
	if err != nil {
		t.Errorf("the scenario does not run: %v", err)
	}
}
