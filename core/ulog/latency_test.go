package ulog

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// stamp writes microseconds of the day as a ULOG tag's hhmmss.mmm, the
// milliseconds truncated as Tuxedo writes them.
func stamp(us int64) string {
	ms := us / 1000
	s := ms / 1000
	return fmt.Sprintf("%02d%02d%02d.%03d", s/3600, s/60%60, s%60, ms%1000)
}

// A synthetic log whose latency is known: 2 ms each way. The client on
// node1 calls X on NODE2 200 times, 50 ms apart (plus a jitter below 1 ms);
// 7 calls in 10 wait nothing in X's queue, the others 0 to 10 ms; X works
// 3 to 8 ms. Times are drawn to the microsecond by a fixed LCG and written
// to the millisecond. Also 20 calls of X from node2 itself, which cross
// nothing.
//
// By hand: a call that did not wait gives (span - execution)/2 = 2 ms plus
// the stamps' error, which is symmetric and within ±1 ms; the smallest
// figure is near 1 ms, the window [smallest, smallest + 2 ms] holds every
// call that did not wait (about 140) and the few that waited under 2 ms
// (about 6% of them), so its median is 2 ms give or take half a
// millisecond (the figures are multiples of 0.5 ms). The 20 node2 calls are
// not samples: 200 samples.
func TestLatencySynthetic(t *testing.T) {
	lg, err := Read(latencyLog(0))
	if err != nil || lg.Malformed != 0 {
		t.Fatalf("%v %q", err, lg.MalformedExamples)
	}
	machine := func(h string) string { s, _, _ := strings.Cut(strings.ToLower(h), "."); return s }
	got := lg.Latency(machine)
	t.Logf("latency %+v", got)
	if got.Samples != 200 || math.Abs(got.MS-2) > 0.5 || got.Window < 100 {
		t.Errorf("latency %+v, want 2 ± 0.5 ms from 200 samples", got)
	}
	if len(got.Offsets) != 0 {
		t.Errorf("offsets %+v, want none: the clocks are in step", got.Offsets)
	}
	// Everything on one machine: nothing crosses, nothing measured.
	one := lg.Latency(func(string) string { return "m" })
	if one.Samples != 0 || one.MS != 0 {
		t.Errorf("one machine: %+v, want no samples", one)
	}
}

// Two executions inside one call's span make it ambiguous: not a sample.
func TestLatencyAmbiguous(t *testing.T) {
	lg := read1(t, `100000.000.a!c.1.1.0: TRACE:at: { tpcall("X", 0x0, 0, 0x0, 0x0, 0x0)
100000.002.b!s.2.1.1: TRACE:at: { tpservice({"X"})
100000.004.b!s.2.1.1: TRACE:at: } tpservice
100000.005.b!s.3.1.1: TRACE:at: { tpservice({"X"})
100000.006.b!s.3.1.1: TRACE:at: } tpservice
100000.010.a!c.1.1.0: TRACE:at: } tpcall = 1
100001.000.a!c.1.1.0: TRACE:at: { tpcall("X", 0x0, 0, 0x0, 0x0, 0x0)
100001.003.b!s.2.1.1: TRACE:at: { tpservice({"X"})
100001.007.b!s.2.1.1: TRACE:at: } tpservice
100001.010.a!c.1.1.0: TRACE:at: } tpcall = 1
`)
	// By hand: the first call holds two executions (left out); the second
	// one: (10 - 4) / 2 = 3 ms, one sample.
	got := lg.Latency(func(h string) string { return h })
	if got.Samples != 1 || got.MS != 3 {
		t.Errorf("latency %+v, want 3 ms from 1 sample", got)
	}
}

// latencyLog is the log of TestLatencySynthetic, NODE2's stamps skewUS
// ahead of node1's.
func latencyLog(skewUS int64) []File {
	const lat = 2000
	seed := uint64(42)
	next := func(n int64) int64 { // uniform in [0, n)
		seed = seed*6364136223846793005 + 1442695040888963407
		return int64((seed >> 33) % uint64(n))
	}
	var cl, sv strings.Builder
	base := int64(10 * 3600e6)
	for i := 0; i < 200; i++ {
		t1 := base + int64(i)*50000 + next(1000)
		w := int64(0)
		if next(10) >= 7 {
			w = next(10000)
		}
		start := t1 + lat + w
		end := start + 3000 + next(5000)
		t2 := end + lat
		fmt.Fprintf(&cl, "%s.node1.example.com!clt.100.1.0: TRACE:at: { tpcall(\"X\", 0x0, 0, 0x0, 0x0, 0x0)\n", stamp(t1))
		fmt.Fprintf(&cl, "%s.node1.example.com!clt.100.1.0: TRACE:at: } tpcall = 1\n", stamp(t2))
		fmt.Fprintf(&sv, "%s.NODE2!xsrv.200.1.1: TRACE:at: { tpservice({\"X\"})\n", stamp(start+skewUS))
		fmt.Fprintf(&sv, "%s.NODE2!xsrv.200.1.1: TRACE:at: } tpservice\n", stamp(end+skewUS))
		if i%10 == 0 {
			l1 := base + int64(i)*50000 + 25000
			fmt.Fprintf(&sv, "%s.NODE2!clt2.300.1.0: TRACE:at: { tpcall(\"X\", 0x0, 0, 0x0, 0x0, 0x0)\n", stamp(l1+skewUS))
			fmt.Fprintf(&sv, "%s.NODE2!xsrv.200.1.1: TRACE:at: { tpservice({\"X\"})\n", stamp(l1+1000+skewUS))
			fmt.Fprintf(&sv, "%s.NODE2!xsrv.200.1.1: TRACE:at: } tpservice\n", stamp(l1+5000+skewUS))
			fmt.Fprintf(&sv, "%s.NODE2!clt2.300.1.0: TRACE:at: } tpcall = 1\n", stamp(l1+6000+skewUS))
		}
	}
	return []File{{Name: "n1/ULOG.010226", Text: cl.String()}, {Name: "n2/ULOG.010226", Text: sv.String()}}
}

// The same log with NODE2's clock 5 ms ahead of node1's. By hand: a call
// that did not wait (7 in 10, about 140) has its execution's midpoint 5 ms
// after its own on the two clocks, give or take the stamps' error (under
// 1 ms either way), so the differences of midpoints pile up in the bins of
// [4, 6) ms; the other executions near each call are its neighbours', 50
// ms apart or more, one or two to a bin over some 1.6 s (16 either side).
// The fullest bin is one of [4, 6) ms: about 5 ms, from node1 to node2.
// (The calls of X from node2 itself cross nothing and are not looked at.)
// The latency, paired by time, is then wrong: the warning says so.
func TestLatencyClocksApart(t *testing.T) {
	lg, err := Read(latencyLog(5000))
	if err != nil || lg.Malformed != 0 {
		t.Fatalf("%v %q", err, lg.MalformedExamples)
	}
	machine := func(h string) string { s, _, _ := strings.Cut(strings.ToLower(h), "."); return s }
	got := lg.Latency(machine)
	if len(got.Offsets) != 1 {
		t.Fatalf("offsets %+v, want one, node1 to node2", got.Offsets)
	}
	if o := got.Offsets[0]; o.Caller != "node1" || o.Server != "node2" || math.Abs(o.MS-5) > 1 || o.Calls < 100 {
		t.Errorf("offset %+v, want node2 about 5 ms ahead of node1, seen in 100 calls or more", o)
	}
}

// Whole-millisecond figures are taken as classes of a millisecond each and
// the median interpolated in its class. Six calls from a to X on b, one a
// second: the call spans 10 ms each time, the execution 8, 8, 7, 7, 7 and
// 6 ms, so span less execution is 2, 2, 3, 3, 3 and 4 ms (all within 2 ms
// of the smallest, so all in the window). By hand: the median class is
// 3 ms, [2.5, 3.5), with 2 values below it and 3 in it; the median of 6
// is 2.5 + (6/2 − 2)/3 · 1 = 2.8333 ms, and the latency half of it,
// 1.41667 ms (the plain median, 3 ms, would give 1.5).
func TestLatencyGroupedMedian(t *testing.T) {
	var b strings.Builder
	for i, ex := range []int{8, 8, 7, 7, 7, 6} {
		fmt.Fprintf(&b, "10000%d.000.a!c.1.1.0: TRACE:at: { tpcall(\"X\", 0x0, 0, 0x0, 0x0, 0x0)\n", i)
		fmt.Fprintf(&b, "10000%d.001.b!s.2.1.1: TRACE:at: { tpservice({\"X\"})\n", i)
		fmt.Fprintf(&b, "10000%d.%03d.b!s.2.1.1: TRACE:at: } tpservice\n", i, 1+ex)
		fmt.Fprintf(&b, "10000%d.010.a!c.1.1.0: TRACE:at: } tpcall = 1\n", i)
	}
	got := read1(t, b.String()).Latency(func(h string) string { return h })
	if got.Samples != 6 || got.Window != 6 || math.Abs(got.MS-1.41667) > 1e-5 {
		t.Errorf("latency %+v, want 1.41667 ms from 6 samples", got)
	}
}
