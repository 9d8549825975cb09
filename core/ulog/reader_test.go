package ulog

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func read1(t *testing.T, text string) *Log {
	t.Helper()
	lg, err := Read([]File{{Name: "ULOG.010226", Text: text}})
	if err != nil {
		t.Fatal(err)
	}
	return lg
}

// Only TRACE:at: lines are the application's calls. Tuxedo writes the ATMI
// calls it makes itself (here the tpacall of a tpforward's implementation)
// as TRACE:ia:; those, and tr and xa lines, are ignored, never malformed.
func TestOnlyAtCategory(t *testing.T) {
	lg := read1(t, `100000.000.h!SRV.1.1.1: TRACE:at: { tpservice({"A"})
100000.001.h!SRV.1.1.1: TRACE:at:   { tpforward("B", 0x0, 0, 0)
100000.002.h!SRV.1.1.1: TRACE:ia:     { tpacall("PRICE", 0x0, 0, 0x0)
100000.003.h!SRV.1.1.1: TRACE:ia:     } tpacall = 1
100000.004.h!SRV.1.1.1: TRACE:at: } tpservice
100000.005.h!SRV.1.1.1: TRACE:xa: xa_end(0x1, 0)
100000.006.h!SRV.1.1.1: TRACE:tr: } tpcall
100000.007.h!SRV.1.1.1: TRACE:iatm: { tpcall("Q")
`)
	// By hand: A's one execution calls B by tpforward and nothing else (the
	// ia tpacall of PRICE is Tuxedo's own); its own work is 4 ms (0 to 4, no
	// tpcall); the five lines of ia (two), xa, tr and iatm are ignored, none
	// malformed; PRICE and Q are no services of the log.
	a := lg.Services["A"]
	if a == nil || !reflect.DeepEqual(a.Calls, []Step{{"B", "tpforward", 1, false}}) || !reflect.DeepEqual(a.OwnUS, []int64{4000}) {
		t.Errorf("A %+v, want one tpforward of B and 4 ms", a)
	}
	if lg.Ignored != 5 || lg.Malformed != 0 || lg.TraceLines != 8 {
		t.Errorf("ignored %d malformed %d trace lines %d, want 5 0 8 (%q)", lg.Ignored, lg.Malformed, lg.TraceLines, lg.MalformedExamples)
	}
	if lg.Services["PRICE"] != nil || lg.Services["Q"] != nil {
		t.Errorf("services %v: PRICE and Q come from ia and iatm lines", lg.Services)
	}
}

// A call opened while the thread has a call open is part of that call.
func TestCallInsideCall(t *testing.T) {
	lg := read1(t, `100000.000.h!S.1.1.1: TRACE:at: { tpservice({"A"})
100000.001.h!S.1.1.1: TRACE:at:   { tpcall("B", 0x0, 0, 0x0, 0x0, 0x0)
100000.002.h!S.1.1.1: TRACE:at:     { tpcall("C", 0x0, 0, 0x0, 0x0, 0x0)
100000.004.h!S.1.1.1: TRACE:at:     } tpcall = 1
100000.007.h!S.1.1.1: TRACE:at:   } tpcall = 1
100000.010.h!S.1.1.1: TRACE:at: } tpservice
100001.000.c!CLT.9.1.0: TRACE:at: { tpcall("A", 0x0, 0, 0x0, 0x0, 0x0)
100001.001.c!CLT.9.1.0: TRACE:at:   { tpacall("Z", 0x0, 0, 0x0)
100001.002.c!CLT.9.1.0: TRACE:at:   } tpacall = 1
100001.003.c!CLT.9.1.0: TRACE:at: } tpcall = 1
`)
	// By hand: A spans 10 ms and waits inside its one step, B's tpcall, from
	// 1 to 7 (C's call, 2 to 4, is inside it and not counted twice): own
	// work 10 - 6 = 4 ms. The client's tpacall of Z inside its open tpcall
	// of A is part of that call: one arrival, of A.
	a := lg.Services["A"]
	if a == nil || !reflect.DeepEqual(a.Calls, []Step{{"B", "tpcall", 1, false}}) || !reflect.DeepEqual(a.OwnUS, []int64{4000}) {
		t.Errorf("A %+v, want one step (B) and 4 ms", a)
	}
	if len(lg.Arrivals) != 1 || lg.Name(lg.Arrivals[0].Service) != "A" || lg.Services["C"] != nil || lg.Services["Z"] != nil {
		t.Errorf("arrivals %+v services %v, want one arrival of A and no C or Z", lg.Arrivals, lg.Services)
	}
	// The call spans are the top-level tpcalls: B's (from h) and the
	// client's A (from c), in the order they ended.
	const day = 1767312000 * 1e6 // ULOG.010226: 2026-01-02 00:00 UTC
	at := func(ms int64) int64 { return day + 10*3600e6 + ms*1000 }
	want := []namedSpan{{"B", "h", at(1), at(7)}, {"A", "c", at(1000), at(1003)}}
	if got := namedSpans(lg, lg.CallSpans); !reflect.DeepEqual(got, want) {
		t.Errorf("call spans %+v, want %+v", got, want)
	}
}

// tpacall's fourth argument: TPNOREPLY (0x4) in any of the forms a log
// writes makes a noreply step; a tpacall's own span is never waiting, and a
// tpgetrply is.
func TestNoReply(t *testing.T) {
	lg := read1(t, `100000.000.h!S.1.1.1: TRACE:at: { tpservice({"A"})
100000.001.h!S.1.1.1: TRACE:at:   { tpacall("N", 0x0, 0, 0x00000004)
100000.003.h!S.1.1.1: TRACE:at:   } tpacall = 0
100000.004.h!S.1.1.1: TRACE:at:   { tpacall("M", 0x0, 0, 0x1)
100000.005.h!S.1.1.1: TRACE:at:   } tpacall = 3
100000.006.h!S.1.1.1: TRACE:at:   { tpacall("L", 0x0, 0, TPNOREPLY|TPNOTRAN)
100000.007.h!S.1.1.1: TRACE:at:   } tpacall = 0
100000.008.h!S.1.1.1: TRACE:at:   { tpacall("K", 0x0, 0, 12)
100000.009.h!S.1.1.1: TRACE:at:   } tpacall = 0
100000.010.h!S.1.1.1: TRACE:at:   { tpacall("J", 0x0, 0, 0x4)
100000.010.h!S.1.1.1: TRACE:at:   } tpacall = 0
100000.010.h!S.1.1.1: TRACE:at:   { tpgetrply(0x7ffd, 0x0, 0x0, 0x0)
100000.013.h!S.1.1.1: TRACE:at:   } tpgetrply = 1
100000.020.h!S.1.1.1: TRACE:at: } tpservice
`)
	// By hand: N (0x00000004), L (symbolic), K (12 = 0x8|0x4) and J (0x4)
	// are noreply, M (0x1, TPNOBLOCK) is not. Own work: 20 ms less the
	// tpgetrply's 3 = 17 ms; the tpacalls' spans (2+1+1+1+0) are not waiting.
	a := lg.Services["A"]
	want := []Step{{"N", "tpacall", 1, true}, {"M", "tpacall", 1, false}, {"L", "tpacall", 1, true}, {"K", "tpacall", 1, true}, {"J", "tpacall", 1, true}}
	if a == nil || !reflect.DeepEqual(a.Calls, want) || !reflect.DeepEqual(a.OwnUS, []int64{17000}) {
		t.Errorf("A %+v\nwant calls %+v and 17 ms", a, want)
	}
	for _, c := range []struct {
		flags string
		want  bool
	}{{"0x4", true}, {"0X00000004", true}, {"4", true}, {"0x0", false}, {"8", false}, {"TPNOTRAN", false}, {"tpnoreply", true}, {"", false}} {
		if got := noReply(c.flags); got != c.want {
			t.Errorf("noReply(%q) = %v, want %v", c.flags, got, c.want)
		}
	}
}

// The walk looks at a bounded number of frames per line, however deep a
// thread's stack: a service that opens n tpacalls the log never closes,
// then a tpgetrply per call, then closes. Each opening line looks at the
// frame below it once and each closing line at the top frame once, so the
// frames looked at are at most the lines: n+1 openings + n tpgetrply pairs
// + the close = 3n+2. The old walk scanned the stack for the open service
// on every line: about 2n² frames.
func TestWalkLinear(t *testing.T) {
	run := func(n int) (int, *Log) {
		var b strings.Builder
		b.WriteString("100000.000.h!S.1.1.1: TRACE:at: { tpservice({\"A\"})\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "100000.001.h!S.1.1.1: TRACE:at: { tpacall(\"X\", 0x0, 0, 0x0)\n")
		}
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "100000.002.h!S.1.1.1: TRACE:at: { tpgetrply(0x0)\n100000.003.h!S.1.1.1: TRACE:at: } tpgetrply = 1\n")
		}
		b.WriteString("100000.009.h!S.1.1.1: TRACE:at: } tpservice\n")
		lg := read1(t, b.String())
		return lg.inspected, lg
	}
	for _, n := range []int{1000, 2000, 4000} {
		got, lg := run(n)
		if got > 3*n+2 {
			t.Errorf("n=%d: %d frames looked at, want at most 3n+2 = %d", n, got, 3*n+2)
		}
		// The calls inside the first open tpacall are part of it: one step.
		if a := lg.Services["A"]; a == nil || a.Executions != 1 || len(a.Calls) != 1 || lg.Malformed != 0 {
			t.Errorf("n=%d: A %+v malformed %d", n, a, lg.Malformed)
		}
	}
}

// What each server process ran, per host, whatever its pid.
func TestServers(t *testing.T) {
	lg := read1(t, `100000.000.h!SRV.1.1.1: TRACE:at: { tpservice({"A"})
100000.001.h!SRV.1.1.1: TRACE:at: } tpservice
100000.002.h!SRV.2.1.1: TRACE:at: { tpservice({"C"})
100000.003.h!SRV.2.1.1: TRACE:at: } tpservice
100000.004.h2!SRV.7.1.1: TRACE:at: { tpservice({"A"})
100000.005.h2!SRV.7.1.1: TRACE:at: } tpservice
100000.006.h2!my.srv.8.1.1: TRACE:at: { tpservice({"B"})
100000.007.h2!my.srv.8.1.1: TRACE:at: } tpservice
100000.008.h2!OPEN.9.1.1: TRACE:at: { tpservice({"D"})
`)
	// By hand: SRV on h ran A (pid 1) and C (pid 2); SRV on h2 ran A; the
	// process "my.srv" (a dotted name) on h2 ran B; OPEN's D never ended.
	want := map[string]*Server{
		"h!SRV":     {Host: "h", Name: "SRV", Services: []string{"A", "C"}},
		"h2!SRV":    {Host: "h2", Name: "SRV", Services: []string{"A"}},
		"h2!my.srv": {Host: "h2", Name: "my.srv", Services: []string{"B"}},
	}
	if !reflect.DeepEqual(lg.Servers, want) {
		for k, v := range lg.Servers {
			t.Errorf("%s: %+v", k, v)
		}
	}
}

// BenchmarkDeepStack reads a service that leaves 50 000 tpacalls open (the
// shape that took the old walk 10 s): `go test ./core/ulog -bench Deep`.
func BenchmarkDeepStack(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("100000.000.h!S.1.1.1: TRACE:at: { tpservice({\"A\"})\n")
	for i := 0; i < 50000; i++ {
		sb.WriteString("100000.001.h!S.1.1.1: TRACE:at: { tpacall(\"X\", 0x0, 0, 0x0)\n")
	}
	sb.WriteString("100000.009.h!S.1.1.1: TRACE:at: } tpservice\n")
	files := []File{{Name: "ULOG.010226", Text: sb.String()}}
	b.ResetTimer()
	for range b.N {
		if _, err := Read(files); err != nil {
			b.Fatal(err)
		}
	}
}

// threeExecutions is a log of three executions of S starting at
// 10:00:00.000, .010 and .020, 5 ms each.
const threeExecutions = `100000.000.h!srv.1.1.0: TRACE:at: { tpservice({"S", 0x0, 0x0, 0, 0, 0, {0, 0, 0}})
100000.005.h!srv.1.1.0: TRACE:at: } tpservice
100000.010.h!srv.1.1.0: TRACE:at: { tpservice({"S", 0x0, 0x0, 0, 0, 0, {0, 0, 0}})
100000.015.h!srv.1.1.0: TRACE:at: } tpservice
100000.020.h!srv.1.1.0: TRACE:at: { tpservice({"S", 0x0, 0x0, 0, 0, 0, {0, 0, 0}})
100000.025.h!srv.1.1.0: TRACE:at: } tpservice
`

// ReadBefore keeps the lines stamped less than its cut after the first: of
// three executions of S starting at 10:00:00.000, .010 and .020 (5 ms each),
// a cut at 15 ms keeps the first whole, the second open (not counted: its
// close at .015 is cut), and none of the third.
func TestReadBefore(t *testing.T) {
	text := threeExecutions
	whole, err := Read([]File{{Name: "ULOG.010226", Text: text}})
	if err != nil {
		t.Fatal(err)
	}
	cut, err := ReadBefore([]File{{Name: "ULOG.010226", Text: text}}, 15_000)
	if err != nil {
		t.Fatal(err)
	}
	if w, c := whole.Services["S"].Executions, cut.Services["S"].Executions; w != 3 || c != 1 || cut.Unfinished != 1 {
		t.Errorf("executions: %d whole, %d before 15 ms with %d unfinished; want 3, 1 and 1", w, c, cut.Unfinished)
	}
	if cut.LastUS-cut.FirstUS != 10_000 {
		t.Errorf("the cut log spans %d µs, want 10 000 (its last line at .010)", cut.LastUS-cut.FirstUS)
	}
}

// ReadCut cuts at an instant when the files' names give their day: the
// three executions of TestReadBefore's log, on 1 February 2026, cut at
// 10:00:00.012 keep the first whole and the second open; a name without
// its day cannot be cut at an instant, so the cut falls back to beforeUS
// after the first line (here 25 ms: all three), with a warning.
func TestReadCut(t *testing.T) {
	text := threeExecutions
	at := time.Date(2026, 2, 1, 10, 0, 0, 12e6, time.UTC).UnixMicro()
	cut, err := ReadCut([]File{{Name: "ULOG.020126", Text: text}}, 30_000, at)
	if err != nil {
		t.Fatal(err)
	}
	if c := cut.Services["S"].Executions; c != 1 || cut.Unfinished != 1 || strings.Contains(strings.Join(cut.Warnings, "|"), "hold-out") {
		t.Errorf("cut at 10:00:00.012: %d executions, %d unfinished, warnings %q; want 1, 1 and none of the cut", c, cut.Unfinished, cut.Warnings)
	}
	undated, err := ReadCut([]File{{Name: "ULOG", Text: text}}, 25_000, at)
	if err != nil {
		t.Fatal(err)
	}
	want := "a name without its day: the hold-out cut is 25ms after the ULOG's first line, not the export's time"
	if c := undated.Services["S"].Executions; c != 2 || !slices.Contains(undated.Warnings, want) {
		t.Errorf("undated: %d executions, warnings %q; want 2 (the third's close at 25 ms is cut) and %q", c, undated.Warnings, want)
	}
}

// A file without TRACE lines (tracing was off, or it is no ULOG) is an
// error naming it when it is the only one; beside a traced file, a warning.
func TestNoTraceLines(t *testing.T) {
	untraced := File{Name: "node9/ULOG.120126", Text: "095955.000.node9!bankclt.4001.1.0: LIBTUX_CAT:262: INFO: Std main starting\n"}
	_, err := Read([]File{untraced})
	if err == nil || !strings.HasPrefix(err.Error(), "node9/ULOG.120126: no TRACE lines") {
		t.Errorf("an untraced ULOG alone: error %v, want one naming it", err)
	}
	if _, err := Read([]File{{Name: "garbage", Text: "\x00\xff\x10 not a log"}}); err == nil {
		t.Errorf("garbage: no error")
	}
	traced := File{Name: "node1/ULOG.120126", Text: `100000.000.h!srv.1.1.0: TRACE:at: { tpservice({"S", 0x0, 0x0, 0, 0, 0, {0, 0, 0}})
100000.005.h!srv.1.1.0: TRACE:at: } tpservice
`}
	lg, err := Read([]File{traced, untraced})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(lg.Warnings, "node9/ULOG.120126: no TRACE lines (was tracing on there?)") {
		t.Errorf("warnings %q, want one naming the untraced file", lg.Warnings)
	}
}

// A message about many files names a few and counts the rest, so that
// what it says of them is not cut with a long list: 300 untraced ULOGs
// once made a problem detail of their names alone.
func TestManyFilesNamedInShort(t *testing.T) {
	var files []File
	for i := range 300 {
		files = append(files, File{Name: fmt.Sprintf("node%03d/ULOG.120126", i), Text: "095955.000.h!clt.1.1.0: LIBTUX_CAT:262: INFO: Std main starting\n"})
	}
	_, err := Read(files)
	want := "node000/ULOG.120126, node001/ULOG.120126, node002/ULOG.120126 and 297 more files: no TRACE lines: "
	if err == nil || !strings.HasPrefix(err.Error(), want) || len(err.Error()) > 300 {
		t.Errorf("error %.400v, want it to start %q", err, want)
	}
	if got := Names(files[:5]); got != "node000/ULOG.120126, node001/ULOG.120126, node002/ULOG.120126, node003/ULOG.120126, node004/ULOG.120126" {
		t.Errorf("five files: %q, want every name", got)
	}
}

// A file without its day beside dated ones is taken as of their day (the
// first dated file's), with a warning naming it: its lines and theirs then
// interleave by time, as one day's do.
func TestUndatedBesideDated(t *testing.T) {
	dated := File{Name: "node1/ULOG.020126", Text: threeExecutions}
	undated := File{Name: "node2/ulog.txt", Text: strings.ReplaceAll(threeExecutions, "100000.0", "100001.0")}
	lg, err := Read([]File{dated, undated})
	if err != nil {
		t.Fatal(err)
	}
	want := "node2/ulog.txt: the name does not end in .mmddyy (ULOGPFX.mmddyy): its times are taken as of the other files' day, 2026-02-01"
	if !slices.Contains(lg.Warnings, want) {
		t.Errorf("warnings %q, want %q", lg.Warnings, want)
	}
	// both files on 1 February 2026: the log spans 10:00:00.000 to 10:00:01.025
	if first := time.UnixMicro(lg.FirstUS).UTC(); first != time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC) || lg.LastUS-lg.FirstUS != 1_025_000 {
		t.Errorf("the log spans %v + %d µs, want 2026-02-01 10:00:00 + 1 025 000", first, lg.LastUS-lg.FirstUS)
	}
}

// A ULOG whose every TRACE line is malformed gives nothing to fit from: an
// error naming it and the first line's problem, not an empty fit.
func TestEveryTraceLineMalformed(t *testing.T) {
	bad := File{Name: "node1/ULOG.020126", Text: "100000.000.h!srv.1.1.0: TRACE:at: garbled\n100000.005.h!srv.1.1.0: TRACE:at: also garbled\n"}
	_, err := Read([]File{bad})
	if err == nil || !strings.HasPrefix(err.Error(), "node1/ULOG.020126: every TRACE line is malformed (2; the first: node1/ULOG.020126:1: ") {
		t.Errorf("error %v, want one naming the file and the first problem", err)
	}
}

// What the hold-out cut leaves open is said to be open at the cut, not at
// the end of the log; a cut at or before the first line (an export on
// another clock: UTC beside the ULOGs' local time) reads nothing, and a
// warning says so with both times.
func TestReadCutSaysWhere(t *testing.T) {
	files := []File{{Name: "ULOG.020126", Text: threeExecutions}}
	at := time.Date(2026, 2, 1, 10, 0, 0, 12e6, time.UTC).UnixMicro()
	cut, err := ReadCut(files, 30_000, at)
	if err != nil {
		t.Fatal(err)
	}
	if want := "1 executions still open at the cut (where the judged rows start) are not counted"; !slices.Contains(cut.Warnings, want) {
		t.Errorf("warnings %q, want %q", cut.Warnings, want)
	}
	early := time.Date(2026, 2, 1, 9, 0, 0, 12e6, time.UTC).UnixMicro()
	none, err := ReadCut(files, 30_000, early)
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(none.Warnings, "|")
	if none.Services["S"] != nil || !strings.Contains(w, "the hold-out cut, 2026-02-01 09:00:00.012 (the export's first row plus the window, on the ULOGs' wall clock), "+
		"is not after the ULOG's first line, 2026-02-01 10:00:00.000: nothing is read before it") {
		t.Errorf("cut an hour early: services %v, warnings %q; want none and the warning of the cut", none.Services, none.Warnings)
	}
}

// A call that returns -1 names its tperrno on its closing line. One whose
// request never reached a server (TPENOENT, TPELIMIT...) is neither an
// arrival nor a step; one that ran (TPESVCFAIL, TPETIME) is counted, and
// only a call that got its reply is a span of a request.
func TestFailedCalls(t *testing.T) {
	lg := read1(t, `100000.000.c!CLT.9.1.0: TRACE:at: { tpcall("A", 0x0, 0, 0x0, 0x0, 0x0)
100000.001.h!S.1.1.1: TRACE:at: { tpservice({"A"})
100000.002.h!S.1.1.1: TRACE:at:   { tpcall("B", 0x0, 0, 0x0, 0x0, 0x0)
100000.003.h!S.1.1.1: TRACE:at:   } tpcall = -1 [tperrno TPENOENT]
100000.004.h!S.1.1.1: TRACE:at:   { tpreturn(2, 0, 0x0, 0, 0x0)
100000.004.h!S.1.1.1: TRACE:at: } tpservice
100000.005.c!CLT.9.1.0: TRACE:at: } tpcall = 1
100001.000.c!CLT.9.1.0: TRACE:at: { tpcall("A", 0x0, 0, 0x0, 0x0, 0x0)
100001.000.c!CLT.9.1.0: TRACE:at: } tpcall = -1 [tperrno 6]
100002.000.c!CLT.9.1.0: TRACE:at: { tpcall("A", 0x0, 0, 0x0, 0x0, 0x0)
100002.001.h!S.1.1.1: TRACE:at: { tpservice({"A"})
100002.002.h!S.1.1.1: TRACE:at:   { tpcall("B", 0x0, 0, 0x0, 0x0, 0x0)
100002.003.h!T.2.1.1: TRACE:at: { tpservice({"B"})
100002.012.h!S.1.1.1: TRACE:at:   } tpcall = -1 [tperrno TPETIME]
100002.013.h!S.1.1.1: TRACE:at:   { tpreturn(TPFAIL, 0, 0x0, 0, 0x0)
100002.013.h!S.1.1.1: TRACE:at: } tpservice
100002.014.c!CLT.9.1.0: TRACE:at: } tpcall = -1 [TPESVCFAIL]
100002.020.h!T.2.1.1: TRACE:at: } tpservice
`)
	// By hand: A ran twice (at 0.001 and 2.001 s), so its arrivals are the
	// first and third client calls; the second failed with tperrno 6,
	// TPENOENT, and no server ran it. Its first execution's call of B
	// failed with TPENOENT too: not a step. Its second execution's call of
	// B timed out (TPETIME) after B had started: a step, in one of A's two
	// executions (p 0.5), its 10 ms (2 to 12) waiting. A's own work: its
	// span less the time in its calls, failed or not: 4 - 1 - 1 = 2 ms and
	// 13 - 1 - 10 = 2 ms. Failed: A's calls TPENOENT 1 and
	// TPESVCFAIL 1, B's TPENOENT 1 and TPETIME 1; A returned TPFAIL once.
	// The call spans are those that got their reply: the first client
	// call (0 to 5) and the third's (TPESVCFAIL is a reply), not B's.
	a, b := lg.Services["A"], lg.Services["B"]
	if a == nil || !reflect.DeepEqual(a.Calls, []Step{{"B", "tpcall", 0.5, false}}) || !reflect.DeepEqual(a.OwnUS, []int64{2000, 2000}) {
		t.Fatalf("A %+v, want one step of B (p 0.5) and 2, 2 ms", a)
	}
	if !reflect.DeepEqual(a.Failed, map[string]int{"TPENOENT": 1, "TPESVCFAIL": 1}) || a.TPFail != 1 {
		t.Errorf("A failed %v tpfail %d, want TPENOENT 1 TPESVCFAIL 1, tpfail 1", a.Failed, a.TPFail)
	}
	if b == nil || !reflect.DeepEqual(b.Failed, map[string]int{"TPENOENT": 1, "TPETIME": 1}) || b.Nested != 1 || b.Executions != 1 {
		t.Errorf("B %+v, want failed TPENOENT 1 TPETIME 1, one nested call, one execution", b)
	}
	const day = 1767312000 * 1e6 // ULOG.010226
	at := func(ms int64) int64 { return day + 10*3600e6 + ms*1000 }
	var arr []int64
	for _, x := range lg.Arrivals {
		if lg.Name(x.Service) == "A" {
			arr = append(arr, x.TimeUS)
		}
	}
	if !reflect.DeepEqual(arr, []int64{at(0), at(2000)}) {
		t.Errorf("arrivals of A at %v, want %v", arr, []int64{at(0), at(2000)})
	}
	want := []namedSpan{{"A", "c", at(0), at(5)}, {"A", "c", at(2000), at(2014)}}
	if got := namedSpans(lg, lg.CallSpans); !reflect.DeepEqual(got, want) {
		t.Errorf("call spans %+v, want %+v", got, want)
	}
	for _, x := range lg.Arrivals {
		if lg.Name(x.Service) == "B" {
			t.Errorf("an arrival of B %+v: B was only called by A", x)
		}
	}
}

// A day of which no file has a TRACE line, between the first and the last
// day of the files' names, is a gap: a file not given, not a day without
// requests. A machine without lines on a day others have is warned of.
func TestMissingDay(t *testing.T) {
	line := func(host string) string {
		return "100000.000." + host + "!CLT.9.1.0: TRACE:at: { tpcall(\"A\", 0x0, 0, 0x0, 0x0, 0x0)\n" +
			"100000.005." + host + "!CLT.9.1.0: TRACE:at: } tpcall = 1\n"
	}
	var files []File
	for _, f := range []struct{ host, day string }{{"a", "010226"}, {"a", "010426"}, {"a", "010626"},
		{"b", "010226"}, {"b", "010326"}, {"b", "010426"}, {"b", "010626"}} {
		files = append(files, File{Name: f.host + "/ULOG." + f.day, Text: line(f.host)})
	}
	lg, err := Read(files)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: days 01/02 to 01/06 of 2026; 01/05 has no file at all: one
	// gap, [2026-01-05 00:00, 2026-01-06 00:00) UTC. Host a has no line on
	// 01/03, which b has: a warning names a and that day. 01/05 is no
	// day a lacks beside b.
	const jan5 = int64(1767571200) * 1e6
	if !reflect.DeepEqual(lg.Gaps, [][2]int64{{jan5, jan5 + 86400e6}}) {
		t.Errorf("gaps %v, want [[%d %d]]", lg.Gaps, jan5, jan5+86400e6)
	}
	var gap, host []string
	for _, w := range lg.Warnings {
		switch {
		case strings.HasPrefix(w, "no TRACE line on 01/05/26, between the files of 01/02/26 and 01/06/26"):
			gap = append(gap, w)
		case strings.HasPrefix(w, "a: no TRACE line on 01/03/26, when other machines have some"):
			host = append(host, w)
		default:
			t.Errorf("warning %q", w)
		}
	}
	if len(gap) != 1 || len(host) != 1 {
		t.Errorf("warnings %q, want one of the gap and one of host a", lg.Warnings)
	}
}

// A service that calls itself would make a cycle of the scenario's calls,
// which a run refuses: the call is an arrival of the service, from the
// caller's machine, not a step.
func TestSelfCall(t *testing.T) {
	lg := read1(t, `100000.000.c!CLT.9.1.0: TRACE:at: { tpcall("R", 0x0, 0, 0x0, 0x0, 0x0)
100000.001.h!S.1.1.1: TRACE:at: { tpservice({"R"})
100000.002.h!S.1.1.1: TRACE:at:   { tpcall("R", 0x0, 0, 0x0, 0x0, 0x0)
100000.003.h!S.2.1.1: TRACE:at: { tpservice({"R"})
100000.004.h!S.2.1.1: TRACE:at:   { tpcall("D", 0x0, 0, 0x0, 0x0, 0x0)
100000.005.h!D.3.1.1: TRACE:at: { tpservice({"D"})
100000.007.h!D.3.1.1: TRACE:at: } tpservice
100000.008.h!S.2.1.1: TRACE:at:   } tpcall = 1
100000.010.h!S.2.1.1: TRACE:at: } tpservice
100000.011.h!S.1.1.1: TRACE:at:   } tpcall = 1
100000.014.h!S.1.1.1: TRACE:at: } tpservice
100000.015.c!CLT.9.1.0: TRACE:at: } tpcall = 1
`)
	// By hand: R ran twice: called by the client at 0 (from c) and by
	// itself at 2 (from h): two arrivals of R, no step of R. Its calls:
	// D's tpcall, in one of the two executions (p 0.5). Own work: the
	// outer 14 - 1 - 9 (2 to 11, waiting for itself) = 4 ms; the inner
	// 10 - 3 - 4 = 3 ms. D was called by a service: no arrival.
	r := lg.Services["R"]
	if r == nil || !reflect.DeepEqual(r.Calls, []Step{{"D", "tpcall", 0.5, false}}) || !reflect.DeepEqual(r.OwnUS, []int64{3000, 4000}) {
		t.Fatalf("R %+v, want one step (D, p 0.5) and 3, 4 ms", r)
	}
	var got []string
	for _, a := range lg.Arrivals {
		got = append(got, fmt.Sprintf("%s@%s w%g", lg.Name(a.Service), lg.Name(a.Host), a.Weight))
	}
	if want := []string{"R@c w1", "R@h w1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("arrivals %v, want %v", got, want)
	}
	if len(lg.Warnings) != 1 || !strings.HasPrefix(lg.Warnings[0], "R: calls itself (1 calls in its 2 executions)") {
		t.Errorf("warnings %q", lg.Warnings)
	}
}

// A conversation: the caller's tpconnect is its call (an arrival from a
// client, a tpcall step from a service, whose tprecvs then wait for the
// callee); the conversational service's time is the whole conversation,
// waits for the other side included, and its tprecv time is counted.
func TestConversation(t *testing.T) {
	lg := read1(t, `100000.000.c!CLT.9.1.0: TRACE:at: { tpconnect("CONV", 0x0, 0, TPSENDONLY)
100000.001.h!CS.1.1.1: TRACE:at: { tpservice({"CONV", 0x400, 0x0, 0, 5, 1, {0, -2, -1}})
100000.001.h!CS.1.1.1: TRACE:at:   { tprecv(5, 0x0, 0x0, 0x0, 0x0)
100000.002.c!CLT.9.1.0: TRACE:at: } tpconnect = 5
100000.050.c!CLT.9.1.0: TRACE:at: { tpsend(5, 0x0, 48, TPRECVONLY, 0x0)
100000.050.c!CLT.9.1.0: TRACE:at: } tpsend = 1
100000.050.c!CLT.9.1.0: TRACE:at: { tprecv(5, 0x0, 0x0, 0x0, 0x0)
100000.051.h!CS.1.1.1: TRACE:at:   } tprecv = 1
100000.054.h!CS.1.1.1: TRACE:at:   { tpsend(5, 0x0, 48, 0x0, 0x0)
100000.054.h!CS.1.1.1: TRACE:at:   } tpsend = 1
100000.054.h!CS.1.1.1: TRACE:at:   { tpreturn(TPSUCCESS, 0, 0x0, 0, 0x0)
100000.054.h!CS.1.1.1: TRACE:at: } tpservice
100000.055.c!CLT.9.1.0: TRACE:at: } tprecv = -1 [tperrno TPEEVENT]
100001.000.h!P.2.1.1: TRACE:at: { tpservice({"PAY"})
100001.002.h!P.2.1.1: TRACE:at:   { tpconnect("CONV", 0x0, 0, TPSENDONLY)
100001.003.h!CS.1.1.1: TRACE:at: { tpservice({"CONV", 0x400, 0x0, 0, 5, 1, {0, -2, -1}})
100001.003.h!P.2.1.1: TRACE:at:   } tpconnect = 3
100001.003.h!P.2.1.1: TRACE:at:   { tpsend(3, 0x0, 48, TPRECVONLY, 0x0)
100001.003.h!P.2.1.1: TRACE:at:   } tpsend = 1
100001.003.h!CS.1.1.1: TRACE:at:   { tprecv(5, 0x0, 0x0, 0x0, 0x0)
100001.004.h!P.2.1.1: TRACE:at:   { tprecv(3, 0x0, 0x0, 0x0, 0x0)
100001.004.h!CS.1.1.1: TRACE:at:   } tprecv = 1
100001.010.h!CS.1.1.1: TRACE:at:   { tpreturn(TPSUCCESS, 0, 0x0, 0, 0x0)
100001.010.h!CS.1.1.1: TRACE:at: } tpservice
100001.011.h!P.2.1.1: TRACE:at:   } tprecv = -1 [tperrno TPEEVENT]
100001.015.h!P.2.1.1: TRACE:at: } tpservice
`)
	// By hand: CONV ran twice, both conversational: 1 to 54 = 53 ms (50 of
	// them in tprecv, waiting for the client) and 3 to 10 = 7 ms (1 in
	// tprecv); its conversations' tprecv time 51 ms. The client's
	// tpconnect is an arrival of CONV (at 0, from c); PAY's is a tpcall
	// step of CONV, and PAY's own work is 0 to 15 less its tpconnect (2 to
	// 3) and its tprecv (4 to 11): 15 - 1 - 7 = 7 ms, of 3 differences.
	cv, pay := lg.Services["CONV"], lg.Services["PAY"]
	if cv == nil || !reflect.DeepEqual(cv.OwnUS, []int64{53000, 7000}) || cv.Conversations != 2 || cv.ConvRecvUS != 51000 || cv.Nested != 1 {
		t.Fatalf("CONV %+v, want 53 and 7 ms, 2 conversations with 51 ms in tprecv, 1 nested call", cv)
	}
	if pay == nil || !reflect.DeepEqual(pay.Calls, []Step{{"CONV", "tpcall", 1, false}}) || !reflect.DeepEqual(pay.OwnUS, []int64{7000}) ||
		!reflect.DeepEqual(pay.OwnSpans, []int{3}) || pay.Conversations != 0 {
		t.Errorf("PAY %+v, want a tpcall step of CONV and 7 ms of 3 differences", pay)
	}
	// PAY, called by no traced process, is an arrival of its own (from h).
	if len(lg.Arrivals) != 2 || lg.Name(lg.Arrivals[0].Service) != "CONV" || lg.Name(lg.Arrivals[0].Host) != "c" || lg.Arrivals[0].Weight != 1 || lg.Name(lg.Arrivals[1].Service) != "PAY" || lg.Malformed != 0 {
		t.Errorf("arrivals %+v malformed %d, want one of CONV from c, then PAY", lg.Arrivals, lg.Malformed)
	}
}

// What is open on a thread before a missing day closed in that day's file:
// it is dropped when the thread's next line comes after the gap, so that the
// thread's later calls are not taken as parts of it.
func TestOpenBeforeMissingDay(t *testing.T) {
	lg, err := Read([]File{
		{Name: "c/ULOG.010226", Text: "235959.990.c!CLT.9.1.0: TRACE:at: { tpcall(\"A\", 0x0, 0, 0x0, 0x0, 0x0)\n"},
		{Name: "h/ULOG.010226", Text: "235959.991.h!S.1.1.1: TRACE:at: { tpservice({\"A\"})\n"},
		{Name: "c/ULOG.010426", Text: "100000.000.c!CLT.9.1.0: TRACE:at: { tpcall(\"A\", 0x0, 0, 0x0, 0x0, 0x0)\n" +
			"100000.009.c!CLT.9.1.0: TRACE:at: } tpcall = 1\n"},
		{Name: "h/ULOG.010426", Text: "100000.001.h!S.1.1.1: TRACE:at: { tpservice({\"A\"})\n" +
			"100000.004.h!S.1.1.1: TRACE:at: } tpservice\n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	// By hand: 01/03 is missing. The client's call of A and A's execution
	// opened at 23:59:59.99 on 01/02 closed on 01/03: dropped (one
	// execution, one call), with a warning; the call was made, and stays
	// an arrival of A from c. On 01/04 the client's call at 10:00:00.000 is
	// a second (with the call of 01/02 kept open below it, it was part of
	// that call: not counted), and A's execution, 1 to 4, is 3 ms.
	a := lg.Services["A"]
	if a == nil || a.Executions != 1 || !reflect.DeepEqual(a.OwnUS, []int64{3000}) {
		t.Fatalf("A %+v, want one execution of 3 ms", a)
	}
	const jan3, jan4 = int64(1767398400) * 1e6, int64(1767484800) * 1e6
	var got []string
	for _, a := range lg.Arrivals {
		got = append(got, fmt.Sprintf("%d %s@%s w%g", a.TimeUS, lg.Name(a.Service), lg.Name(a.Host), a.Weight))
	}
	if want := []string{fmt.Sprintf("%d A@c w1", jan3-10e3), fmt.Sprintf("%d A@c w1", jan4+36000e6)}; !reflect.DeepEqual(got, want) {
		t.Errorf("arrivals %q, want %q", got, want)
	}
	if !slices.Contains(lg.Warnings, "1 executions and 1 calls open before a missing day are not counted (their ends were in its file)") {
		t.Errorf("warnings %q", lg.Warnings)
	}
}

// A line stamped just before the clock was set back but written just
// after a line stamped after it (each process stamps its line a moment
// before writing it) is read in its place before the step: not an hour
// later, whence the next line would look set back once more (an hour
// more for each such line: a minute of log read as hours).
func TestClockSetBackLineWrittenLate(t *testing.T) {
	lg := read1(t, `015959.900.h!S.1.1.1: TRACE:at: { tpservice({"A"})
010000.000.h!S.2.1.1: TRACE:at: { tpservice({"B"})
015959.990.h!S.1.1.1: TRACE:at: } tpservice
010000.004.h!S.2.1.1: TRACE:at: } tpservice
015959.995.h!S.3.1.1: TRACE:at: { tpservice({"C"})
010000.010.h!S.3.1.1: TRACE:at: } tpservice
010001.000.h!S.1.1.1: TRACE:at: { tpservice({"A"})
010001.002.h!S.1.1.1: TRACE:at: } tpservice
`)
	// By hand: the second line goes back from 01:59:59.900 to 01:00:00.000:
	// the clock set back an hour, read as 02:00:00.000, and h's lines
	// after it an hour later. The third, 01:59:59.990, an hour later
	// 02:59:59.990, is an hour ahead of the latest (02:00:00.000) and 90
	// ms after the latest before the step (01:59:59.900), within the
	// minute: stamped before the step, read at 01:59:59.990. So is the
	// fifth, 01:59:59.995. A: 01:59:59.900 to .990, 90 ms, then 02:00:01.000
	// to .002, 2 ms; B: 02:00:00.000 to .004, 4 ms; C: 01:59:59.995 to
	// 02:00:00.010, 15 ms. One step, the log from 01:59:59.900 to
	// 02:00:01.002 (of 01/02/26, the file's day).
	const day = int64(1767312000) * 1e6
	hms := func(h, m, s, ms int64) int64 { return day + ((h*60+m)*60+s)*1e6 + ms*1000 }
	a, b, c := lg.Services["A"], lg.Services["B"], lg.Services["C"]
	if a == nil || b == nil || c == nil || !reflect.DeepEqual(a.OwnUS, []int64{90000, 2000}) || !reflect.DeepEqual(b.OwnUS, []int64{4000}) ||
		!reflect.DeepEqual(c.OwnUS, []int64{15000}) || lg.Malformed != 0 {
		t.Fatalf("A %+v B %+v C %+v malformed %q, want A 90 and 2 ms, B 4 ms, C 15 ms", a, b, c, lg.MalformedExamples)
	}
	if lg.FirstUS != hms(1, 59, 59, 900) || lg.LastUS != hms(2, 0, 1, 2) {
		t.Errorf("log from %d to %d, want %d to %d", lg.FirstUS, lg.LastUS, hms(1, 59, 59, 900), hms(2, 0, 1, 2))
	}
	if want := []string{"ULOG.010226:2: the time goes back from 01:59:59.900 to 01:00:00.000: read as the clock set back (summer time ended?), this line and those of h after it 1h0m0s later"}; !reflect.DeepEqual(lg.Warnings, want) {
		t.Errorf("warnings %q, want %q", lg.Warnings, want)
	}
}

// A file's stamps going back by more than half an hour are the clock set
// back at the end of summer time (an hour, read on from the hour it
// repeats as an hour later) or the next day in a file of several days.
func TestClockSetBack(t *testing.T) {
	lg := read1(t, `025959.990.c!CLT.9.1.0: TRACE:at: { tpcall("A", 0x0, 0, 0x0, 0x0, 0x0)
025959.995.h!S.1.1.1: TRACE:at: { tpservice({"A"})
020000.005.h!S.1.1.1: TRACE:at: } tpservice
020000.010.c!CLT.9.1.0: TRACE:at: } tpcall = 1
023000.000.c!CLT.9.1.0: TRACE:at: { tpcall("A", 0x0, 0, 0x0, 0x0, 0x0)
023000.001.h!S.1.1.1: TRACE:at: { tpservice({"A"})
023000.005.h!S.1.1.1: TRACE:at: } tpservice
023000.006.c!CLT.9.1.0: TRACE:at: } tpcall = 1
`)
	// By hand: the third line goes back from 02:59:59.995 to 02:00:00.005,
	// 59 min 59.99 s: an hour (to the half hour), so it and h's lines after
	// it are read an hour later; so are c's from the fourth line on (from
	// 02:59:59.990 to 02:00:00.010). A's executions: 02:59:59.995 to
	// 03:00:00.005, 10 ms, and 03:30:00.001 to .005, 4 ms; its arrivals
	// at 02:59:59.990 and 03:30:00.000 (of 01/02/26, the file's day).
	const day = int64(1767312000) * 1e6
	hms := func(h, m, s, ms int64) int64 { return day + ((h*60+m)*60+s)*1e6 + ms*1000 }
	a := lg.Services["A"]
	if a == nil || !reflect.DeepEqual(a.OwnUS, []int64{10000, 4000}) || lg.Malformed != 0 {
		t.Fatalf("A %+v malformed %q, want 10 and 4 ms", a, lg.MalformedExamples)
	}
	if len(lg.Arrivals) != 2 || lg.Arrivals[0].TimeUS != hms(2, 59, 59, 990) || lg.Arrivals[1].TimeUS != hms(3, 30, 0, 0) {
		t.Errorf("arrivals %+v", lg.Arrivals)
	}
	if want := []string{"ULOG.010226:3: the time goes back from 02:59:59.995 to 02:00:00.005: read as the clock set back (summer time ended?), this line and those of h after it 1h0m0s later",
		"ULOG.010226:4: the time goes back from 02:59:59.990 to 02:00:00.010: read as the clock set back (summer time ended?), this line and those of c after it 1h0m0s later"}; !reflect.DeepEqual(lg.Warnings, want) {
		t.Errorf("warnings %q, want %q", lg.Warnings, want)
	}
	// A file of two days under one name: 23:59:59 then 00:00:01, the next
	// day: the span of the two calls is 2 s, not 23 h 59 min 58 s.
	lg, err := Read([]File{{Name: "ULOG", Text: `235959.000.c!CLT.9.1.0: TRACE:at: { tpcall("A", 0x0, 0, 0x0, 0x0, 0x0)
235959.001.c!CLT.9.1.0: TRACE:at: } tpcall = 1
000001.000.c!CLT.9.1.0: TRACE:at: { tpcall("A", 0x0, 0, 0x0, 0x0, 0x0)
000001.001.c!CLT.9.1.0: TRACE:at: } tpcall = 1
`}})
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.Arrivals) != 2 || lg.Arrivals[1].TimeUS-lg.Arrivals[0].TimeUS != 2e6 {
		t.Errorf("arrivals %+v, want two 2 s apart", lg.Arrivals)
	}
	// A file two machines share, one's clock an hour behind: each host's
	// lines are in order, nothing is moved.
	lg = read1(t, `100000.000.x!CLT.9.1.0: TRACE:at: { tpcall("A", 0x0, 0, 0x0, 0x0, 0x0)
090000.001.y!S.1.1.1: TRACE:at: { tpservice({"A"})
090000.004.y!S.1.1.1: TRACE:at: } tpservice
100000.006.x!CLT.9.1.0: TRACE:at: } tpcall = 1
`)
	if a := lg.Services["A"]; a == nil || !reflect.DeepEqual(a.OwnUS, []int64{3000}) || len(lg.Warnings) != 0 || len(lg.Arrivals) != 1 {
		t.Errorf("shared file: A %+v arrivals %+v warnings %q, want 3 ms, one arrival, no warning", a, lg.Arrivals, lg.Warnings)
	}
}

// A tpacall whose reply the service cancels (tpcancel of the descriptor it
// returned) is a step nobody waits for: a no-reply step.
func TestCancelledReply(t *testing.T) {
	lg := read1(t, `100000.000.h!S.1.1.1: TRACE:at: { tpservice({"R"})
100000.001.h!S.1.1.1: TRACE:at:   { tpacall("D", 0x0, 0, 0x0)
100000.001.h!S.1.1.1: TRACE:at:   } tpacall = 3
100000.002.h!S.1.1.1: TRACE:at:   { tpacall("E", 0x0, 0, 0x0)
100000.002.h!S.1.1.1: TRACE:at:   } tpacall = 4
100000.003.h!S.1.1.1: TRACE:at:   { tpcancel(3)
100000.003.h!S.1.1.1: TRACE:at:   } tpcancel = 1
100000.004.h!S.1.1.1: TRACE:at:   { tpgetrply(0x0, 0x0, 0x0, TPGETANY)
100000.009.h!S.1.1.1: TRACE:at:   } tpgetrply = 1
100000.010.h!S.1.1.1: TRACE:at: } tpservice
`)
	// By hand: D's tpacall returned descriptor 3, which R cancels: a
	// no-reply step; E's (4) is waited for (the TPGETANY tpgetrply, 4 to
	// 9): a tpacall step. R's own work: 10 - 5 = 5 ms, of 2 differences.
	r := lg.Services["R"]
	want := []Step{{"D", "tpacall", 1, true}, {"E", "tpacall", 1, false}}
	if r == nil || !reflect.DeepEqual(r.Calls, want) || !reflect.DeepEqual(r.OwnUS, []int64{5000}) || lg.Malformed != 0 {
		t.Errorf("R %+v, want steps %+v and 5 ms", r, want)
	}
}

// ULOGMILLISEC is each process's environment: a client started without it
// writes whole seconds beside servers writing milliseconds. The servers'
// executions are timed; the client's calls are arrivals, not spans.
func TestMixedResolution(t *testing.T) {
	lg := read1(t, `100000.c!CLT.9.1.0: TRACE:at: { tpcall("A", 0x0, 0, 0x0, 0x0, 0x0)
100000.101.h!S.1.1.1: TRACE:at: { tpservice({"A"})
100000.102.h!S.1.1.1: TRACE:at:   { tpcall("B", 0x0, 0, 0x0, 0x0, 0x0)
100000.103.g!T.2.1.1: TRACE:at: { tpservice({"B"})
100000.105.g!T.2.1.1: TRACE:at: } tpservice
100000.108.h!S.1.1.1: TRACE:at:   } tpcall = 1
100000.110.h!S.1.1.1: TRACE:at: } tpservice
100000.c!CLT.9.1.0: TRACE:at: } tpcall = 1
`)
	// By hand: A runs 101 to 110 less its call of B (102 to 108): 3 ms; B
	// 103 to 105: 2 ms. The one call span is A's call of B (from h); the
	// client's call, in whole seconds, is an arrival of A and no span.
	// Two of the eight lines are whole seconds, of one process name.
	if a, b := lg.Services["A"], lg.Services["B"]; a == nil || b == nil || !reflect.DeepEqual(a.OwnUS, []int64{3000}) || !reflect.DeepEqual(b.OwnUS, []int64{2000}) {
		t.Fatalf("A %+v B %+v, want 3 and 2 ms", a, b)
	}
	const day = int64(1767312000) * 1e6
	at := func(ms int64) int64 { return day + 36000e6 + ms*1000 }
	if got, want := namedSpans(lg, lg.CallSpans), []namedSpan{{"B", "h", at(102), at(108)}}; !reflect.DeepEqual(got, want) {
		t.Errorf("call spans %+v, want %+v", got, want)
	}
	if len(lg.Arrivals) != 1 || lg.Name(lg.Arrivals[0].Host) != "c" || lg.Millis || lg.WholeSecondLines != 2 {
		t.Errorf("arrivals %+v millis %v whole-second lines %d, want one from c, false, 2", lg.Arrivals, lg.Millis, lg.WholeSecondLines)
	}
	if len(lg.Warnings) != 1 || !strings.HasPrefix(lg.Warnings[0], "2 TRACE lines of 1 process names (c!CLT) have whole-second stamps") {
		t.Errorf("warnings %q", lg.Warnings)
	}
}

// A file given twice (or a copy of its start, taken earlier in the day) is
// read once: read twice, its executions and arrivals counted twice, and
// its lines' opens closed by their copies.
func TestFileGivenTwice(t *testing.T) {
	text := `100000.000.c!CLT.9.1.0: TRACE:at: { tpcall("A", 0x0, 0, 0x0, 0x0, 0x0)
100000.001.h!S.1.1.1: TRACE:at: { tpservice({"A"})
100000.004.h!S.1.1.1: TRACE:at: } tpservice
100000.005.c!CLT.9.1.0: TRACE:at: } tpcall = 1
`
	more := text + `100001.000.c!CLT.9.1.0: TRACE:at: { tpcall("A", 0x0, 0, 0x0, 0x0, 0x0)
100001.001.h!S.1.1.1: TRACE:at: { tpservice({"A"})
100001.003.h!S.1.1.1: TRACE:at: } tpservice
100001.005.c!CLT.9.1.0: TRACE:at: } tpcall = 1
`
	lg, err := Read([]File{{Name: "n1/ULOG.010226", Text: text}, {Name: "copy/ULOG.010226", Text: more}, {Name: "n1/ULOG.010226", Text: text},
		{Name: "n1/ULOG.010326", Text: text}})
	if err != nil {
		t.Fatal(err)
	}
	// By hand: the first and third files are the start of the second (the
	// same day): read once, as the second, two executions of A (3 and 2
	// ms); the fourth, of the next day, holds the same text and is read:
	// a third execution (3 ms), three arrivals.
	a := lg.Services["A"]
	if a == nil || !reflect.DeepEqual(a.OwnUS, []int64{3000, 2000, 3000}) || len(lg.Arrivals) != 3 || lg.Malformed != 0 || lg.Files != 4 {
		t.Fatalf("A %+v arrivals %d malformed %d files %d, want 3, 2, 3 ms, 3 arrivals, none malformed, 4 files", a, len(lg.Arrivals), lg.Malformed, lg.Files)
	}
	want := []string{"n1/ULOG.010226: the start of copy/ULOG.010226: read once (a file given twice would count its lines twice)",
		"n1/ULOG.010226: the start of copy/ULOG.010226: read once (a file given twice would count its lines twice)"}
	if !reflect.DeepEqual(lg.Warnings, want) {
		t.Errorf("warnings %q, want %q", lg.Warnings, want)
	}
}

// A file whose size says less than its text (a gzipped day of members
// joined: its trailer is the last member's size) is still found to be the
// whole of which a copy given beside it is the start: the texts are
// compared, not the sizes.
func TestFileGivenTwiceSizeSaysLess(t *testing.T) {
	start := `100000.000.c!CLT.9.1.0: TRACE:at: { tpcall("A", 0x0, 0, 0x0, 0x0, 0x0)
100000.001.h!S.1.1.1: TRACE:at: { tpservice({"A"})
100000.004.h!S.1.1.1: TRACE:at: } tpservice
100000.005.c!CLT.9.1.0: TRACE:at: } tpcall = 1
`
	whole := start + `100001.000.c!CLT.9.1.0: TRACE:at: { tpcall("A", 0x0, 0, 0x0, 0x0, 0x0)
100001.001.h!S.1.1.1: TRACE:at: { tpservice({"A"})
100001.003.h!S.1.1.1: TRACE:at: } tpservice
100001.005.c!CLT.9.1.0: TRACE:at: } tpcall = 1
`
	open := func(name, text string, size int64) File {
		return File{Name: name, Size: size, Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(text)), nil }}
	}
	// the whole day's file says 50 bytes (its last member's), the copy
	// of its start its 4 lines' own
	for _, order := range [][2]int{{0, 1}, {1, 0}} {
		files := []File{open("n1/ULOG.010226", start, int64(len(start))), open("n1/ULOG.010226.gz", whole, 50)}
		lg, err := Read([]File{files[order[0]], files[order[1]]})
		if err != nil {
			t.Fatal(err)
		}
		// By hand: the copy is the start of the whole, read once as the
		// whole: two executions of A (3 and 2 ms), two arrivals, nothing
		// malformed. Read twice, the copy's lines would be a third
		// execution and arrival, its closes closing the whole's opens.
		a := lg.Services["A"]
		if a == nil || !reflect.DeepEqual(a.OwnUS, []int64{3000, 2000}) || len(lg.Arrivals) != 2 || lg.Malformed != 0 {
			t.Errorf("order %v: A %+v arrivals %d malformed %d, want 3 and 2 ms, 2 arrivals, none malformed", order, a, len(lg.Arrivals), lg.Malformed)
		}
		want := []string{"n1/ULOG.010226: the start of n1/ULOG.010226.gz: read once (a file given twice would count its lines twice)"}
		if !reflect.DeepEqual(lg.Warnings, want) {
			t.Errorf("order %v: warnings %q, want %q", order, lg.Warnings, want)
		}
	}
	// the same text, the size saying less: the same text, not its start
	lg, err := Read([]File{open("n1/ULOG.010226", whole, int64(len(whole))), open("n1/ULOG.010226.gz", whole, 50)})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"n1/ULOG.010226.gz: the same text as n1/ULOG.010226: read once (a file given twice would count its lines twice)"}; !reflect.DeepEqual(lg.Warnings, want) {
		t.Errorf("same text: warnings %q, want %q", lg.Warnings, want)
	}
}

// A day one machine's files lack (others have it) drops what that
// machine's threads had open before it, as a day all lack does.
func TestOpenBeforeHostMissingDay(t *testing.T) {
	lg, err := Read([]File{
		{Name: "c/ULOG.010226", Text: "235959.990.c!CLT.9.1.0: TRACE:at: { tpcall(\"A\", 0x0, 0, 0x0, 0x0, 0x0)\n"},
		{Name: "h/ULOG.010226", Text: "235959.991.h!S.1.1.1: TRACE:at: { tpservice({\"A\"})\n"},
		{Name: "h/ULOG.010326", Text: "000000.002.h!S.1.1.1: TRACE:at: } tpservice\n"},
		{Name: "c/ULOG.010426", Text: "100000.000.c!CLT.9.1.0: TRACE:at: { tpcall(\"A\", 0x0, 0, 0x0, 0x0, 0x0)\n" +
			"100000.009.c!CLT.9.1.0: TRACE:at: } tpcall = 1\n"},
		{Name: "h/ULOG.010426", Text: "100000.001.h!S.1.1.1: TRACE:at: { tpservice({\"A\"})\n" +
			"100000.004.h!S.1.1.1: TRACE:at: } tpservice\n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	// By hand: c has no file of 01/03, which h has. A's execution on h
	// from 23:59:59.991 ends in h's file of 01/03, at 00:00:00.002: 11 ms;
	// the one of 01/04, 3 ms. The client's call of 01/02 ended in c's
	// missing file: dropped at c's next line, on 01/04, whose call is an
	// arrival (kept open, the call of 01/02 took it as its part).
	a := lg.Services["A"]
	if a == nil || !reflect.DeepEqual(a.OwnUS, []int64{11000, 3000}) {
		t.Fatalf("A %+v, want 11 and 3 ms", a)
	}
	if len(lg.Arrivals) != 2 || lg.Name(lg.Arrivals[1].Host) != "c" || len(lg.Gaps) != 0 {
		t.Errorf("arrivals %+v gaps %v, want two from c and no gap of every machine", lg.Arrivals, lg.Gaps)
	}
	if !slices.Contains(lg.Warnings, "0 executions and 1 calls open before a missing day are not counted (their ends were in its file)") {
		t.Errorf("warnings %q", lg.Warnings)
	}
}

// A file saved with a byte-order mark and CRLF line ends (an editor on
// Windows) reads as the plain file does.
func TestByteOrderMarkAndCRLF(t *testing.T) {
	text := "\ufeff100000.000.c!CLT.9.1.0: TRACE:at: { tpcall(\"A\", 0x0, 0, 0x0, 0x0, 0x0)\r\n" +
		"100000.001.h!S.1.1.1: TRACE:at: { tpservice({\"A\"})\r\n100000.004.h!S.1.1.1: TRACE:at: } tpservice\r\n" +
		"100000.005.c!CLT.9.1.0: TRACE:at: } tpcall = 1\r\n"
	lg := read1(t, text)
	// By hand: the first line's stamp is 10:00:00.000 once the mark is
	// taken off (with it, the line was malformed and the call no arrival);
	// A ran 3 ms, called by the client.
	if a := lg.Services["A"]; a == nil || !reflect.DeepEqual(a.OwnUS, []int64{3000}) || lg.Malformed != 0 || len(lg.Arrivals) != 1 || lg.Name(lg.Arrivals[0].Host) != "c" {
		t.Errorf("A %+v malformed %q arrivals %+v, want 3 ms, none malformed, one arrival from c", a, lg.MalformedExamples, lg.Arrivals)
	}
}

// namedSpan is a Span with its names' texts, for comparing.
type namedSpan struct {
	Service, Host  string
	StartUS, EndUS int64
}

func namedSpans(lg *Log, spans []Span) []namedSpan {
	out := make([]namedSpan, len(spans))
	for i, s := range spans {
		out[i] = namedSpan{lg.Name(s.Service), lg.Name(s.Host), s.StartUS, s.EndUS}
	}
	return out
}
