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
// Seen in 20 calls or more, it is corrected: the calls are paired on
// node2's clock, as TestLatencySynthetic's, and the latency is again 2 ms
// give or take half a millisecond, from the 200 calls (the offset read,
// 5.25 ms or so, is not the exact 5, but a call that did not wait holds
// its execution with 2 ms to spare at either end).
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
	if !got.Offsets[0].Corrected || got.Samples != 200 || math.Abs(got.MS-2) > 0.5 {
		t.Errorf("latency %+v, want 2 ± 0.5 ms from 200 samples, the offset corrected", got)
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

// clockCalls writes n calls of svc from host from to host to, one a second
// from second at of 10:00:00: the call opens at +callMS and spans 10 ms on
// from's clock; its execution is written on to's clock from +execMS for 6
// ms.
func clockCalls(b *strings.Builder, n, at int, from, to, svc string, callMS, execMS int) {
	for k := at; k < at+n; k++ {
		fmt.Fprintf(b, "1000%02d.%03d.%s!c.1.1.0: TRACE:at: { tpcall(\"%s\", 0x0, 0, 0x0, 0x0, 0x0)\n", k, callMS, from, svc)
		fmt.Fprintf(b, "1000%02d.%03d.%s!s.2.1.1: TRACE:at: { tpservice({\"%s\"})\n", k, execMS, to, svc)
		fmt.Fprintf(b, "1000%02d.%03d.%s!s.2.1.1: TRACE:at: } tpservice\n", k, execMS+6, to)
		fmt.Fprintf(b, "1000%02d.%03d.%s!c.1.1.0: TRACE:at: } tpcall = 1\n", k, callMS+10, from)
	}
}

// b's clock runs 3 ms ahead of a's; the latency is 2 ms each way. 24 calls
// of X from a to b, one a second: opened at +0 ms and closed at +10 ms on
// a's clock, executed from +2 to +8 ms on a's clock, which b writes +5 and
// +11 ms. And 3 calls of Y from b to a, at +500 ms of the seconds 30 to
// 32 on a's clock: b writes them +503 to +513, a its executions +502 to
// +508.
//
// By hand. Offsets: a call of X has its midpoint at +5 ms, its execution
// at +8 on b's clock: 3 ms, the bin [3, 3.5), so 3.25 ms; every other
// execution near it is a whole second away, one to a bin, so the fullest
// bin holds the 24 calls (20 or more, and far over five times the average
// of bins a second apart): b 3.25 ms ahead of a, corrected. The 3 calls of
// Y show -3 ms (the bin [-3, -2.5): -2.75 ms), from 3 calls, fewer than
// the 5 to be reported. Pairing: uncorrected, X's execution [+5, +11] ends
// after its call's +10 and Y's [+502, +508] starts before its call's +503:
// nothing is paired, no latency. Corrected: X's call on b's clock spans
// [+3.25, +13.25], holding its execution [+5, +11]; Y's call on a's clock
// (b's stamps moved back by the opposite, 3.25 ms) spans [+499.75,
// +509.75], holding [+502, +508]. Each of the 27 pairs says span less
// execution, 10 - 6 = 4 ms (the offset moves both ends of one span: the
// figure is the same); all 27 in the window, on the millisecond grid: the
// median class [3.5, 4.5) holds all 27, 3.5 + (27/2 - 0)/27 · 1 = 4 ms, and
// the latency half of it, 2 ms.
func TestLatencyClockOffsetCorrected(t *testing.T) {
	var b strings.Builder
	clockCalls(&b, 24, 0, "a", "b", "X", 0, 5)
	clockCalls(&b, 3, 30, "b", "a", "Y", 503, 502)
	got := read1(t, b.String()).Latency(func(h string) string { return h })
	if len(got.Offsets) != 1 {
		t.Fatalf("offsets %+v, want one, a to b", got.Offsets)
	}
	if o := got.Offsets[0]; o.Caller != "a" || o.Server != "b" || o.MS != 3.25 || o.Calls != 24 || !o.Corrected {
		t.Errorf("offset %+v, want b 3.25 ms ahead of a in 24 calls, corrected", o)
	}
	if got.Samples != 27 || got.Window != 27 || math.Abs(got.MS-2) > 1e-9 {
		t.Errorf("latency %+v, want 2 ms from 27 samples", got)
	}
}

// The same 24 calls of X with b's clock 50 ms ahead: b writes the
// executions +52 to +58. By hand: midpoints +5 and +55 ms, 50 ms apart,
// the bin [50, 50.5): 50.25 ms, from 24 calls; corrected, the call spans
// [+50.25, +60.25] on b's clock, holding [+52, +58]: 24 pairs of 4 ms, 2 ms.
// The same again with X also run on a itself, 20 times a second for 1 ms,
// from +12 to +50 ms (every 2 ms): the 16 executions either side of a call
// looked at are b's (a's own cross nothing), so a's 20 between the call
// (midpoint +5) and its execution (+55) do not hide it; none of a's lies
// in [+0, +10], so the pairs are the same 24.
func TestLatencyClockOffsetLarge(t *testing.T) {
	var b strings.Builder
	clockCalls(&b, 24, 0, "a", "b", "X", 0, 52)
	var local strings.Builder
	for k := 0; k < 24; k++ {
		for ms := 12; ms <= 50; ms += 2 {
			fmt.Fprintf(&local, "1000%02d.%03d.a!s.3.1.1: TRACE:at: { tpservice({\"X\"})\n", k, ms)
			fmt.Fprintf(&local, "1000%02d.%03d.a!s.3.1.1: TRACE:at: } tpservice\n", k, ms+1)
		}
	}
	for _, text := range []string{b.String(), b.String() + local.String()} {
		lg, err := Read([]File{{Name: "ULOG.010226", Text: text}})
		if err != nil {
			t.Fatal(err)
		}
		got := lg.Latency(func(h string) string { return h })
		if len(got.Offsets) != 1 || got.Offsets[0].MS != 50.25 || got.Offsets[0].Calls != 24 || !got.Offsets[0].Corrected {
			t.Fatalf("offsets %+v, want b 50.25 ms ahead of a in 24 calls, corrected", got.Offsets)
		}
		if got.Samples != 24 || math.Abs(got.MS-2) > 1e-9 {
			t.Errorf("latency %+v, want 2 ms from 24 samples", got)
		}
	}
}

// Offsets that are not corrected. By hand, as above: 10 calls of X from a
// to b, b 3 ms ahead, pile up in [3, 3.5) — 10 calls, 5 or more to be
// reported, fewer than 20 to be corrected: reported, not corrected, and
// nothing paired (the executions end after their calls). Then 24 such
// calls, and 24 calls of Y from b to a (seconds 30 to 53) opened at +500
// on b's clock whose executions a writes +505 to +511: midpoints +505 and
// +508, a 3 ms "ahead" of b too (3.25 ms), where one clock 3.25 ms ahead
// of the other puts the other -3.25 ms from it: the two ways disagree by
// 6.5 ms, more than 1 ms, so neither is corrected, and nothing is paired.
func TestLatencyClockOffsetNotCorrected(t *testing.T) {
	var few strings.Builder
	clockCalls(&few, 10, 0, "a", "b", "X", 0, 5)
	got := read1(t, few.String()).Latency(func(h string) string { return h })
	if len(got.Offsets) != 1 || got.Offsets[0].MS != 3.25 || got.Offsets[0].Calls != 10 || got.Offsets[0].Corrected ||
		!strings.Contains(got.Offsets[0].Why, "fewer than 20 calls") {
		t.Errorf("offsets %+v, want b 3.25 ms ahead of a in 10 calls, not corrected", got.Offsets)
	}
	if got.Samples != 0 {
		t.Errorf("latency %+v, want no samples", got)
	}
	var both strings.Builder
	clockCalls(&both, 24, 0, "a", "b", "X", 0, 5)
	clockCalls(&both, 24, 30, "b", "a", "Y", 500, 505)
	got = read1(t, both.String()).Latency(func(h string) string { return h })
	if len(got.Offsets) != 2 {
		t.Fatalf("offsets %+v, want a to b and b to a", got.Offsets)
	}
	for _, o := range got.Offsets {
		if o.MS != 3.25 || o.Calls != 24 || o.Corrected || !strings.Contains(o.Why, "put it at -3.25 ms") {
			t.Errorf("offset %+v, want 3.25 ms in 24 calls, not corrected: the other way puts it at -3.25 ms", o)
		}
	}
	if got.Samples != 0 {
		t.Errorf("latency %+v, want no samples", got)
	}
}
