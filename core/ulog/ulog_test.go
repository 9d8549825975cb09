package ulog

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func readBank(t *testing.T) *Log {
	t.Helper()
	var files []File
	for _, n := range []string{"testdata/bank/node1/ULOG.120126", "testdata/bank/node2/ULOG.120126"} {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, File{Name: n, Text: string(b)})
	}
	lg, err := Read(files)
	if err != nil {
		t.Fatal(err)
	}
	return lg
}

// The figures of testdata/bank/NOTES.md, known by construction.
func TestBank(t *testing.T) {
	lg := readBank(t)
	if !lg.Millis || lg.Files != 2 || lg.Lines != 177 || lg.TraceLines != 171 || lg.Malformed != 2 || lg.Unfinished != 0 {
		t.Errorf("millis %v files %d lines %d trace %d malformed %d unfinished %d, want true 2 177 171 2 0",
			lg.Millis, lg.Files, lg.Lines, lg.TraceLines, lg.Malformed, lg.Unfinished)
	}
	if len(lg.MalformedExamples) != 2 || !strings.HasPrefix(lg.MalformedExamples[0], "testdata/bank/node2/ULOG.120126:80: ") ||
		!strings.Contains(lg.MalformedExamples[1], "closes nothing") {
		t.Errorf("examples %q", lg.MalformedExamples)
	}
	us := func(ms ...int64) []int64 {
		for i := range ms {
			ms[i] *= 1000
		}
		return ms
	}
	spans := func(n, k int) []int { // n executions of k differences of stamps each
		s := make([]int, n)
		for i := range s {
			s[i] = k
		}
		return s
	}
	// TRANSFER's own work is its span less its two tpcalls: three
	// differences of stamps; the others make no calls: one.
	want := map[string]*Service{
		"TRANSFER": {Name: "TRANSFER", Executions: 10, Timed: 10, OwnUS: us(2, 3, 4, 2, 3, 4, 2, 3, 4, 2), OwnSpans: spans(10, 3),
			Calls: []Step{{"WITHDRAWAL", "tpcall", 1, false}, {"DEPOSIT", "tpcall", 1, false}, {"AUDIT", "tpacall", 0.3, false}}},
		"WITHDRAWAL": {Name: "WITHDRAWAL", Executions: 10, Timed: 10, OwnUS: us(5, 6, 5, 6, 5, 6, 5, 6, 5, 6), OwnSpans: spans(10, 1), Nested: 10, Calls: []Step{}},
		"DEPOSIT":    {Name: "DEPOSIT", Executions: 10, Timed: 10, OwnUS: us(4, 4, 4, 4, 4, 4, 4, 4, 4, 4), OwnSpans: spans(10, 1), Nested: 10, Calls: []Step{}},
		"AUDIT":      {Name: "AUDIT", Executions: 3, Timed: 3, OwnUS: us(2, 2, 2), OwnSpans: spans(3, 1), Nested: 3, Calls: []Step{}},
	}
	if !reflect.DeepEqual(lg.Services, want) {
		for n, s := range lg.Services {
			t.Errorf("%s: %+v\nwant %+v", n, s, want[n])
		}
	}
	if len(lg.Arrivals) != 10 {
		t.Fatalf("%d arrivals, want the client's 10 TRANSFER calls", len(lg.Arrivals))
	}
	const day = 1796083200 * 1e6 // 2026-12-01 00:00 UTC
	for i, a := range lg.Arrivals {
		wantUS := int64(day + (10*3600+int64(i))*1e6 + 100_000)
		if lg.Name(a.Service) != "TRANSFER" || lg.Name(a.Host) != "node1" || a.Weight != 1 || a.TimeUS != wantUS {
			t.Errorf("arrival %d: %+v, want TRANSFER from node1 at %d", i, a, wantUS)
		}
	}
}

// Whole-second stamps: calls and counts, no service times, a warning.
func TestWholeSeconds(t *testing.T) {
	text := `100000.host1!srv.100.1.1: TRACE:at: { tpservice({"A", 0x0, 0x0, 0, 0, 0, {0, -2, -1}})
100000.host1!srv.100.1.1: TRACE:at:   { tpcall("B", 0x0, 0, 0x0, 0x0, 0x0)
100001.host1!srv.100.1.1: TRACE:at:   } tpcall = 1
100001.host1!srv.100.1.1: TRACE:at: } tpservice
`
	lg, err := Read([]File{{Name: "ULOG", Text: text}})
	if err != nil {
		t.Fatal(err)
	}
	a := lg.Services["A"]
	if lg.Millis || a == nil || a.Executions != 1 || len(a.OwnUS) != 0 || !reflect.DeepEqual(a.Calls, []Step{{"B", "tpcall", 1, false}}) {
		t.Errorf("got millis %v, A %+v", lg.Millis, a)
	}
	if len(lg.Warnings) != 2 || !strings.Contains(lg.Warnings[0], "mmddyy") || !strings.Contains(lg.Warnings[1], "ULOGMILLISEC=Y") {
		t.Errorf("warnings %q", lg.Warnings)
	}
	// A service called twice an execution, the second time in half of them:
	// two steps, p 1 and 0.5.
	text = `100000.000.h!s.1.1.1: TRACE:at: { tpservice({"A"})
100000.001.h!s.1.1.1: TRACE:at: { tpcall("B")
100000.002.h!s.1.1.1: TRACE:at: } tpcall = 1
100000.003.h!s.1.1.1: TRACE:at: { tpcall("B")
100000.004.h!s.1.1.1: TRACE:at: } tpcall = 1
100000.005.h!s.1.1.1: TRACE:at: } tpservice
100001.000.h!s.1.1.1: TRACE:at: { tpservice({"A"})
100001.001.h!s.1.1.1: TRACE:at: { tpcall("B")
100001.002.h!s.1.1.1: TRACE:at: } tpcall = 1
100001.005.h!s.1.1.1: TRACE:at: } tpservice
`
	lg, _ = Read([]File{{Name: "x/ULOG.010226", Text: text}})
	if got := lg.Services["A"].Calls; !reflect.DeepEqual(got, []Step{{"B", "tpcall", 1, false}, {"B", "tpcall", 0.5, false}}) {
		t.Errorf("calls %+v", got)
	}
	if got := lg.Services["A"].OwnUS; !reflect.DeepEqual(got, []int64{3000, 4000}) {
		t.Errorf("own %v, want 3 ms (5 less two 1 ms calls) and 4 ms", got)
	}
	// B was called by A each time and by no client: no arrivals of B; A
	// was called by nothing traced: its executions are arrivals at h.
	if len(lg.Arrivals) != 2 || lg.Name(lg.Arrivals[0].Service) != "A" || lg.Name(lg.Arrivals[0].Host) != "h" {
		t.Errorf("arrivals %+v", lg.Arrivals)
	}
}

func TestMalformed(t *testing.T) {
	for _, line := range []string{
		"1000.h!s.1.1.1: TRACE:at: { tpcall(\"B\")",
		"100000.h: TRACE:at: { tpcall(\"B\")",
		"100000.000.h!s.1.1.1: TRACE:at: { tpcall(B)",
		"100000.000.h!s.1.1.1: TRACE:at: nothing",
		"996000.000.h!s.1.1.1: TRACE:at: { tpcall(\"B\")",
	} {
		// beside a line that reads (a log of malformed lines alone is an error)
		good := "\n100000.000.h!s.1.1.2: TRACE:at: { tpcall(\"A\")\n100000.001.h!s.1.1.2: TRACE:at: } tpcall = 1\n"
		lg, err := Read([]File{{Name: "ULOG.010226", Text: line + good}})
		if err != nil || lg.Malformed != 1 {
			t.Errorf("%q: error %v, want the line counted malformed", line, err)
		}
		if _, err := Read([]File{{Name: "ULOG.010226", Text: line}}); err == nil || !strings.Contains(err.Error(), "every TRACE line is malformed (1; ") {
			t.Errorf("%q alone: error %v, want every line malformed", line, err)
		}
	}
	if _, err := Read(nil); err == nil {
		t.Error("no file: want an error")
	}
}

// A tpforward whose close the log does not have ends with its service: the
// service's close still closes it, and the forward is a call.
func TestForwardWithoutClose(t *testing.T) {
	text := `100000.000.h!s.1.1.1: TRACE:at: { tpservice({"A"})
100000.002.h!s.1.1.1: TRACE:at:   { tpforward("B", 0x0, 0, 0)
100000.003.h!s.1.1.1: TRACE:at: } tpservice
`
	lg, _ := Read([]File{{Name: "ULOG.010226", Text: text}})
	a := lg.Services["A"]
	if lg.Malformed != 0 || a == nil || a.Executions != 1 || !reflect.DeepEqual(a.Calls, []Step{{"B", "tpforward", 1, false}}) ||
		!reflect.DeepEqual(a.OwnUS, []int64{3000}) {
		t.Errorf("malformed %d, A %+v", lg.Malformed, a)
	}
}

// /Q in a ULOG: a client's tpenqueue is an arrival naming "QSPACE:QNAME";
// a service's tpenqueue is a step of mode tpenqueue, its time a wait (not
// the service's own work); the TMQUEUE's executions of the queue space's
// service are called by those enqueues, and the TMQFORWARD's tpcalls are
// forwards, neither counted as arrivals.
func TestEnqueuesAndForwards(t *testing.T) {
	text := `100000.000.h!clt.1.1.1: TRACE:at: { tpenqueue("QS", "SHIP", 0x1, 0x2, 0, 0x0)
100000.001.h!TMQUEUE.7.1.1: TRACE:at: { tpservice({"QS"})
100000.002.h!TMQUEUE.7.1.1: TRACE:at: } tpservice
100000.003.h!clt.1.1.1: TRACE:at: } tpenqueue = 1
100000.010.h!/opt/tux/bin/TMQFORWARD.8.1.1: TRACE:at: { tpcall("SHIP", 0x0, 0, 0x0, 0x0, 0x0)
100000.011.h!ship.9.1.1: TRACE:at: { tpservice({"SHIP"})
100000.013.h!ship.9.1.1: TRACE:at: { tpenqueue("QS", "AUDIT", 0x1, 0x2, 0, 0x0)
100000.014.h!TMQUEUE.7.1.1: TRACE:at: { tpservice({"QS"})
100000.015.h!TMQUEUE.7.1.1: TRACE:at: } tpservice
100000.016.h!ship.9.1.1: TRACE:at: } tpenqueue = 1
100000.020.h!ship.9.1.1: TRACE:at: } tpservice
100000.021.h!/opt/tux/bin/TMQFORWARD.8.1.1: TRACE:at: } tpcall = 1
`
	lg, err := Read([]File{{Name: "ULOG.120626", Text: text}})
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.Arrivals) != 1 || lg.Name(lg.Arrivals[0].Service) != "QS:SHIP" || lg.Arrivals[0].Weight != 1 {
		t.Fatalf("arrivals %+v, want one: the client's enqueue of QS:SHIP", lg.Arrivals)
	}
	if lg.Forwards != 1 {
		t.Errorf("forwards %d, want 1", lg.Forwards)
	}
	ship := lg.Services["SHIP"]
	if ship == nil || ship.Executions != 1 || !reflect.DeepEqual(ship.Calls, []Step{{"QS:AUDIT", "tpenqueue", 1, false}}) ||
		!reflect.DeepEqual(ship.OwnUS, []int64{6000}) { // 9 ms, less the 3 ms of its enqueue
		t.Errorf("SHIP: %+v", ship)
	}
	if qs := lg.Services["QS"]; qs == nil || qs.Executions != 2 || qs.Nested != 1 {
		t.Errorf("QS (the TMQUEUE's service): %+v", qs)
	}
	if lg.Services["QS:SHIP"] != nil || lg.Services["QS:AUDIT"] != nil {
		t.Errorf("an enqueue's target made a service: %v", lg.Services)
	}
}

// Stamps of six digits after the second are microseconds. By hand: A runs
// from 10:00:00.004123 to .009623 (5 500 µs) and waits in its tpcall of B
// from .005000 to .007250 (2 250 µs): its own work is 3 250 µs, of two
// differences of stamps, on host node2 (not "004123.node2", which a tag
// read as whole seconds would give, every line its own host and thread).
func TestMicroseconds(t *testing.T) {
	text := `100000.004123.node2!srv.100.1.1: TRACE:at: { tpservice({"A", 0x0, 0x0, 0, 0, 0, {0, -2, -1}})
100000.005000.node2!srv.100.1.1: TRACE:at:   { tpcall("B", 0x0, 0, 0x0, 0x0, 0x0)
100000.007250.node2!srv.100.1.1: TRACE:at:   } tpcall = 1
100000.009623.node2!srv.100.1.1: TRACE:at: } tpservice
`
	lg, err := Read([]File{{Name: "ULOG.010226", Text: text}})
	if err != nil {
		t.Fatal(err)
	}
	a := lg.Services["A"]
	if !lg.Millis || lg.Malformed != 0 || a == nil || !reflect.DeepEqual(a.OwnUS, []int64{3250}) || !reflect.DeepEqual(a.OwnSpans, []int{2}) {
		t.Errorf("millis %v malformed %d (%q), A %+v: want A's own work 3250 µs of 2 differences", lg.Millis, lg.Malformed, lg.MalformedExamples, a)
	}
	if _, ok := lg.Servers["node2!srv"]; !ok || len(lg.Servers) != 1 {
		t.Errorf("servers %v, want node2!srv", lg.Servers)
	}
}
