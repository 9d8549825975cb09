package ulog

import (
	"reflect"
	"strings"
	"testing"
)

// A hand-worked ULOG of one machine with the newer application features:
//
//   - PAY (AUTOTRAN) runs 100.000 to 100.019: it enqueues ORDQS:SHIP from
//     .002 to .006 (4 ms waiting for the TMQUEUE), returns at .009, and
//     Tuxedo commits its transaction inside tpreturn, traced as iatmi
//     (`TRACE:ia: { tpcommit`) from .009 to .019 (10 ms waiting for the TMS
//     servers). Its own work is 19 − 4 − 10 = 5 ms, three differences of
//     stamps (the span, less two waits), and its commit span 10 ms.
//   - The TMQFORWARD dequeues the message (`tpdequeue`, the TMQUEUE's second
//     execution of ORDQS) and forwards it to SHIP: neither execution is an
//     arrival (the dequeue is /Q's, the forward's message was enqueued).
//   - QUOTE runs 6 times: 3 called by a traced client, 3 by nobody traced
//     (workstation clients, whose WSH calls Tuxedo itself as iatmi): 3
//     surplus executions of 6, so each of the 6 counts as an arrival of
//     weight 3/6 = 0.5 at the host that served it, 3 in all beside the
//     client's 3 calls.
//   - The TMS's own lines (ia tpservice, xa) and the WSH's (ia tpacall) are
//     no calls: ignored.
func TestCommitDequeueAndUntracedCallers(t *testing.T) {
	lines := []string{
		`100000.000.n1!clt.1.1.0: TRACE:at: { tpcall("PAY", 0x0, 0, 0x0, 0x0, 0x0)`,
		`100000.000.n1!paysrv.2.1.0: gtrid x0 x1 x1: TRACE:at: { tpservice({"PAY", 0x0, 0x0, 0, 0, 0, {0, -2, -1}})`,
		`100000.000.n1!paysrv.2.1.0: gtrid x0 x1 x1: TRACE:xa: { xa_start(0x0, 1, 0x0)`,
		`100000.002.n1!paysrv.2.1.0: gtrid x0 x1 x1: TRACE:at:   { tpenqueue("ORDQS", "SHIP", 0x0, 0x0, 0, 0x0)`,
		`100000.003.n1!TMQUEUE.3.1.0: TRACE:at: { tpservice({"ORDQS", 0x0, 0x0, 0, 0, 0, {0, -2, -1}})`,
		`100000.005.n1!TMQUEUE.3.1.0: TRACE:at: } tpservice`,
		`100000.006.n1!paysrv.2.1.0: gtrid x0 x1 x1: TRACE:at:   } tpenqueue = 1`,
		`100000.009.n1!paysrv.2.1.0: gtrid x0 x1 x1: TRACE:at:   { tpreturn(2, 0, 0x0, 0, 0x0)`,
		`100000.009.n1!paysrv.2.1.0: gtrid x0 x1 x1: TRACE:ia: { tpcommit(0x0)`,
		`100000.010.n1!TMS.4.1.0: TRACE:ia: { tpservice({"TMS", 0x0, 0x0, 0, 0, 0, {0, -2, -1}})`,
		`100000.010.n1!TMS.4.1.0: TRACE:xa: { xa_commit(0x0, 1, 0x0)`,
		`100000.018.n1!TMS.4.1.0: TRACE:xa: } xa_commit = 0`,
		`100000.018.n1!TMS.4.1.0: TRACE:ia: } tpservice`,
		`100000.019.n1!paysrv.2.1.0: gtrid x0 x1 x1: TRACE:ia: } tpcommit = 1`,
		`100000.019.n1!paysrv.2.1.0: gtrid x0 x1 x1: TRACE:at: } tpservice`,
		`100000.020.n1!clt.1.1.0: TRACE:at: } tpcall = 1`,
		`100000.030.n1!TMQFORWARD.5.1.0: gtrid x0 x2 x2: TRACE:at: { tpbegin(30, 0x0)`,
		`100000.030.n1!TMQFORWARD.5.1.0: gtrid x0 x2 x2: TRACE:at: } tpbegin = 1`,
		`100000.030.n1!TMQFORWARD.5.1.0: gtrid x0 x2 x2: TRACE:at: { tpdequeue("ORDQS", "SHIP", 0x0, 0x0, 0x0, 0x0)`,
		`100000.031.n1!TMQUEUE.3.1.0: TRACE:at: { tpservice({"ORDQS", 0x0, 0x0, 0, 0, 0, {0, -2, -1}})`,
		`100000.032.n1!TMQUEUE.3.1.0: TRACE:at: } tpservice`,
		`100000.033.n1!TMQFORWARD.5.1.0: gtrid x0 x2 x2: TRACE:at: } tpdequeue = 1`,
		`100000.033.n1!TMQFORWARD.5.1.0: gtrid x0 x2 x2: TRACE:at: { tpcall("SHIP", 0x0, 0, 0x0, 0x0, 0x0)`,
		`100000.034.n1!shipsrv.6.1.0: TRACE:at: { tpservice({"SHIP", 0x0, 0x0, 0, 0, 0, {0, -2, -1}})`,
		`100000.040.n1!shipsrv.6.1.0: TRACE:at: } tpservice`,
		`100000.041.n1!TMQFORWARD.5.1.0: gtrid x0 x2 x2: TRACE:at: } tpcall = 1`,
		`100000.041.n1!TMQFORWARD.5.1.0: gtrid x0 x2 x2: TRACE:at: { tpcommit(0x0)`,
		`100000.045.n1!TMQFORWARD.5.1.0: gtrid x0 x2 x2: TRACE:at: } tpcommit = 1`,
	}
	for i := 0; i < 6; i++ { // QUOTE at .100, .110, ...: the even ones a traced client's
		at := func(ms int) string {
			return "100000." + string(rune('1'+i/10)) + string(rune('0'+i%10)) + string(rune('0'+ms)) + ".n1!"
		}
		if i%2 == 0 {
			lines = append(lines, at(0)+`qclt.7.1.0: TRACE:at: { tpcall("QUOTE", 0x0, 0, 0x0, 0x0, 0x0)`)
		} else {
			lines = append(lines, at(0)+`WSH.8.1.0: TRACE:ia: { tpacall("QUOTE", 0x0, 0, 0x0)`)
		}
		lines = append(lines, at(1)+`quotesrv.9.1.0: TRACE:at: { tpservice({"QUOTE", 0x0, 0x0, 0, 0, 0, {0, -2, -1}})`,
			at(3)+`quotesrv.9.1.0: TRACE:at: } tpservice`)
		if i%2 == 0 {
			lines = append(lines, at(4)+`qclt.7.1.0: TRACE:at: } tpcall = 1`)
		}
	}
	lg, err := Read([]File{{Name: "ULOG.120726", Text: strings.Join(lines, "\n") + "\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if lg.Malformed != 0 {
		t.Fatalf("malformed %d: %q", lg.Malformed, lg.MalformedExamples)
	}
	pay := lg.Services["PAY"]
	if !reflect.DeepEqual(pay.OwnUS, []int64{5000}) || !reflect.DeepEqual(pay.OwnSpans, []int{3}) || pay.Commits != 1 || pay.CommitUS != 10000 {
		t.Errorf("PAY: own %v (want [5000]), differences %v (want [3]), %d commits of %d µs (want 1 of 10000)", pay.OwnUS, pay.OwnSpans, pay.Commits, pay.CommitUS)
	}
	if want := []Step{{"ORDQS:SHIP", "tpenqueue", 1, false}}; !reflect.DeepEqual(pay.Calls, want) {
		t.Errorf("PAY's calls %+v, want %+v", pay.Calls, want)
	}
	if q := lg.Services["ORDQS"]; q.Executions != 2 || q.Nested != 1 || lg.Dequeues != 1 {
		t.Errorf("ORDQS: %d executions, %d enqueued by services, %d dequeues; want 2, 1, 1", q.Executions, q.Nested, lg.Dequeues)
	}
	if lg.Forwards != 1 {
		t.Errorf("forwards %d, want 1", lg.Forwards)
	}
	sum := map[string]float64{}
	for _, a := range lg.Arrivals {
		sum[lg.Name(a.Service)] += a.Weight
	}
	if want := map[string]float64{"PAY": 1, "QUOTE": 6}; !reflect.DeepEqual(sum, want) {
		t.Errorf("arrivals by weight %v, want %v (no ORDQS, no SHIP; QUOTE's 3 client calls and 6 executions of weight 0.5)", sum, want)
	}
	if w := strings.Join(lg.Warnings, "\n"); !strings.Contains(w, "QUOTE: 3 of its 6 executions were called by no traced process, beside 3 calls of traced clients") {
		t.Errorf("warnings %q: want QUOTE's untraced callers said", w)
	}
	// ignored: the xa lines (3), the TMS's ia tpservice (2), the WSH's ia
	// tpacall (3); the ia tpcommit lines (2) are read
	if lg.Ignored != 8 {
		t.Errorf("ignored %d, want 8", lg.Ignored)
	}
}
