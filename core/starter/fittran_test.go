package starter

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/ulog"
)

// A ULOG of one machine whose PAY service (AUTOTRAN=Y, group APP with a
// TMS) enqueues to queue space QS (group QG, with a TMS too), fitted into a
// scenario, worked by hand:
//
//   - PAY's two executions span 20 and 22 ms; each waits 2 ms in its
//     tpenqueue and commits inside tpreturn (ia tpcommit) for 10 and 12 ms:
//     own work 8 ms both times, commits 2 of mean 11 ms.
//   - Its transaction has two participants, APP and QG (the enqueue's),
//     both on PAY's machine: two rounds (prepare, then commit), no latency,
//     so one TMS request takes 11 / 2 = 5.5 ms: transactions.tms_time is
//     const 5.5, a measured figure of 2 commits, and a warning says so.
//   - The TMQUEUE's executions of QS (1 ms each) are the queue space's time
//     per enqueue: qspaces.QS.enqueue_time is const 1 in the scenario (it
//     was left out, with "QS: no local server of the UBBCONFIG offers it"),
//     a measured figure.
func TestFitULOGTransactionsAndQ(t *testing.T) {
	ubbText := `*RESOURCES
IPCKEY 123456
MASTER site1
MODEL SHM
*MACHINES
"h" LMID=site1 TUXDIR="/opt/tux" APPDIR="/app" TUXCONFIG="/app/tuxconfig"
*GROUPS
APP LMID=site1 GRPNO=1 TMSNAME=TMS_SQL TMSCOUNT=2
QG LMID=site1 GRPNO=2 TMSNAME=TMS_QM TMSCOUNT=2
*SERVERS
pay SRVGRP=APP SRVID=1 CLOPT="-s PAY"
ship SRVGRP=APP SRVID=2 CLOPT="-s SHIP"
TMQUEUE SRVGRP=QG SRVID=1 CLOPT="-s QS:TMQUEUE"
TMQFORWARD SRVGRP=QG SRVID=2 CLOPT="-- -q SHIP -i 1"
*SERVICES
PAY AUTOTRAN=Y
SHIP
`
	var b strings.Builder
	for i, commit := range []int{10, 12} {
		at := func(ms int) string { return fmt.Sprintf("10000%d.%03d.h!", i, ms) }
		end := 10 + commit
		for _, l := range []string{
			at(0) + `clt.1.1.0: TRACE:at: { tpcall("PAY", 0x0, 0, 0x0, 0x0, 0x0)`,
			at(0) + `pay.2.1.0: TRACE:at: { tpservice({"PAY"})`,
			at(3) + `pay.2.1.0: TRACE:at: { tpenqueue("QS", "SHIP", 0x1, 0x2, 0, 0x0)`,
			at(4) + `TMQUEUE.7.1.0: TRACE:at: { tpservice({"QS"})`,
			at(5) + `TMQUEUE.7.1.0: TRACE:at: } tpservice`,
			at(5) + `pay.2.1.0: TRACE:at: } tpenqueue = 1`,
			at(10) + `pay.2.1.0: TRACE:at: { tpreturn(2, 0, 0x0, 0, 0x0)`,
			at(10) + `pay.2.1.0: TRACE:ia: { tpcommit(0x0)`,
			at(end) + `pay.2.1.0: TRACE:ia: } tpcommit = 1`,
			at(end) + `pay.2.1.0: TRACE:at: } tpservice`,
			at(end+1) + `clt.1.1.0: TRACE:at: } tpcall = 1`,
		} {
			b.WriteString(l + "\n")
		}
	}
	rep, err := Fit(FitSources{UBBConfig: &ubbText, ULOG: []ulog.File{{Name: "ULOG.120626", Text: b.String()}}})
	if err != nil {
		t.Fatal(err)
	}
	pay := rep.Services["PAY"]
	if pay.MeanMS == nil || *pay.MeanMS != 8 || pay.Commits != 2 || pay.CommitMeanMS == nil || *pay.CommitMeanMS != 11 {
		t.Fatalf("PAY: mean %v commits %d of %v ms, want 8 ms, 2 of 11 ms", pay.MeanMS, pay.Commits, pay.CommitMeanMS)
	}
	figs := map[string]Figure{}
	for _, f := range rep.Figures {
		figs[f.Figure] = f
	}
	if f := figs["transactions.tms_time"]; f.Source != "measured" || f.Samples != 2 || !strings.HasPrefix(f.Note, "const 5.5 ms") {
		t.Errorf("tms_time figure %+v: want measured from 2 commits, const 5.5 ms", f)
	}
	if f := figs["workload.generate.streams[PAY from site1].rate_per_s"]; f.Samples != 2 || f.Note != "" {
		t.Errorf("PAY's stream figure %+v: want 2 requests, all traced clients' calls", f)
	}
	if f := figs["qspaces.QS.enqueue_time"]; f.Source != "measured" || f.Samples != 2 {
		t.Errorf("enqueue_time figure %+v: want measured from 2 executions", f)
	}
	sc, warn, err := FromFit(Files{UBBConfig: &ubbText}, rep)
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(warn, "\n")
	if strings.Contains(w, "no local server") || !strings.Contains(w, "transactions.tms_time: const 5.5 ms, estimated from 2 commits' spans") {
		t.Errorf("warnings %q: want the tms_time estimate said, and the queue space's time kept", w)
	}
	if tr := sc.Transactions; tr == nil || tr.TMSTime == nil || tr.TMSTime.Dist != "const" || *tr.TMSTime.MS != 5.5 {
		t.Errorf("transactions %+v: want tms_time const 5.5", sc.Transactions)
	}
	if e := sc.QSpaces["QS"].EnqueueTime; e == nil || e.Dist != "const" || *e.MS != 1 {
		t.Errorf("qspaces.QS.enqueue_time %+v: want const 1", e)
	}
}

// The same log traced with atmi alone (TMTRACE=atmi:ulog) has no ia
// tpcommit lines: PAY's own work then holds its commits (20 − 2 and
// 22 − 2 ms: 19 ms on average, where it is 8), and nothing in the log
// says so; the UBBCONFIG does (AUTOTRAN=Y in a group with a TMS), so a
// warning names it.
func TestFitULOGAutotranWithoutCommitLines(t *testing.T) {
	ubbText := `*RESOURCES
IPCKEY 123456
MASTER site1
MODEL SHM
*MACHINES
"h" LMID=site1 TUXDIR="/opt/tux" APPDIR="/app" TUXCONFIG="/app/tuxconfig"
*GROUPS
APP LMID=site1 GRPNO=1 TMSNAME=TMS_SQL TMSCOUNT=2
*SERVERS
pay SRVGRP=APP SRVID=1 CLOPT="-s PAY"
inq SRVGRP=APP SRVID=2 CLOPT="-s INQ"
*SERVICES
PAY AUTOTRAN=Y
INQ
`
	var b strings.Builder
	for i, end := range []int{20, 22} {
		at := func(ms int) string { return fmt.Sprintf("10000%d.%03d.h!", i, ms) }
		for _, l := range []string{
			at(0) + `clt.1.1.0: TRACE:at: { tpcall("PAY", 0x0, 0, 0x0, 0x0, 0x0)`,
			at(0) + `pay.2.1.0: TRACE:at: { tpservice({"PAY"})`,
			at(3) + `pay.2.1.0: TRACE:at: { tpcall("INQ", 0x0, 0, 0x0, 0x0, 0x0)`,
			at(3) + `inq.3.1.0: TRACE:at: { tpservice({"INQ"})`,
			at(5) + `inq.3.1.0: TRACE:at: } tpservice`,
			at(5) + `pay.2.1.0: TRACE:at: } tpcall = 1`,
			at(end) + `pay.2.1.0: TRACE:at: } tpservice`,
			at(end+1) + `clt.1.1.0: TRACE:at: } tpcall = 1`,
		} {
			b.WriteString(l + "\n")
		}
	}
	rep, err := Fit(FitSources{UBBConfig: &ubbText, ULOG: []ulog.File{{Name: "ULOG.120626", Text: b.String()}}})
	if err != nil {
		t.Fatal(err)
	}
	if pay := rep.Services["PAY"]; pay.MeanMS == nil || *pay.MeanMS != 19 || pay.Commits != 0 {
		t.Errorf("PAY: mean %v, %d commits; want 19 ms, none", pay.MeanMS, pay.Commits)
	}
	w := strings.Join(rep.Warnings, "\n")
	if !strings.Contains(w, "PAY: AUTOTRAN=Y, but no commit in its executions") || strings.Contains(w, "INQ: AUTOTRAN") {
		t.Errorf("warnings %q: want PAY's commits said to be missing, not INQ's", w)
	}
}

// Streams' figures count the requests behind them: INQ runs 6 times on
// host h, 3 called by a traced client there and 3 by nobody traced (a
// workstation handler's calls are Tuxedo's own): the 3 surplus executions
// are arrivals of weight 3/6 each over the 6, so the stream from site1 has
// 3 + 6 × 0.5 = 6 requests behind it, and its note says some are
// executions no traced process called. A client's enqueues to QS:SHIP are a
// stream of their own, listed too.
func TestFitFiguresCountInferredArrivals(t *testing.T) {
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
inq SRVGRP=APP SRVID=1 CLOPT="-s INQ"
TMQUEUE SRVGRP=QG SRVID=1 CLOPT="-s QS:TMQUEUE"
*SERVICES
INQ
`
	var b strings.Builder
	for i := 0; i < 6; i++ {
		at := func(ms int) string { return fmt.Sprintf("10000%d.%03d.h!", i, ms) }
		if i%2 == 0 {
			b.WriteString(at(0) + `clt.1.1.0: TRACE:at: { tpcall("INQ", 0x0, 0, 0x0, 0x0, 0x0)` + "\n")
		}
		b.WriteString(at(1) + `inq.2.1.0: TRACE:at: { tpservice({"INQ"})` + "\n" + at(3) + `inq.2.1.0: TRACE:at: } tpservice` + "\n")
		if i%2 == 0 {
			b.WriteString(at(4) + `clt.1.1.0: TRACE:at: } tpcall = 1` + "\n")
		}
		b.WriteString(at(10) + `clt.1.1.0: TRACE:at: { tpenqueue("QS", "SHIP", 0x1, 0x2, 0, 0x0)` + "\n" +
			at(11) + `TMQUEUE.7.1.0: TRACE:at: { tpservice({"QS"})` + "\n" + at(12) + `TMQUEUE.7.1.0: TRACE:at: } tpservice` + "\n" +
			at(13) + `clt.1.1.0: TRACE:at: } tpenqueue = 1` + "\n")
	}
	rep, err := Fit(FitSources{UBBConfig: &ubbText, ULOG: []ulog.File{{Name: "ULOG.120626", Text: b.String()}}})
	if err != nil {
		t.Fatal(err)
	}
	figs := map[string]Figure{}
	for _, f := range rep.Figures {
		figs[f.Figure] = f
	}
	if f := figs["workload.generate.streams[INQ from site1].rate_per_s"]; f.Samples != 6 || !strings.Contains(f.Note, "executions no traced process called") {
		t.Errorf("INQ's stream figure %+v: want 6 requests, some inferred", f)
	}
	if f := figs["workload.generate.streams[QS:SHIP from site1].rate_per_s"]; f.Source != "measured" || f.Samples != 6 {
		t.Errorf("the enqueues' stream figure %+v: want measured, 6 requests", f)
	}
}
