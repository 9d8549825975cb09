package timeseries

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tuxlb/tuxlb/core/ubb"
)

// TestMergeAndBuild closes four bins of 10 µs (one queue, two servers, one
// failure code) with at most four bins: the fourth merges them into two of
// 20 µs, sums added. By hand: queue areas 10,30 | 50,70 → 40, 120 over
// 20 µs = 2, 6 waiting; server 0 busy 10,10 | 5,5 → 20, 10 over 20 µs = 1,
// 0.5; server 1 busy 0,20 | 0,0 → 20, 0 = 1, 0; chosen 1,2 | 3,4 → 3, 7;
// failures 0,1 | 0,0 → 1, 0. A fifth bin, partial (ends at 45), is 5 µs
// long: area 10 → 2; the next bin would end at 4 x 20 = 80. A /Q queue's
// depth x µs 20, 20 | 40, 0 | 5 is a mean depth of 2, 2, 1.
func TestMergeAndBuild(t *testing.T) {
	b := New(10, 4, Shape{Queues: 1, Servers: 2, Failures: 1, MsgQueues: 1})
	type bin struct{ area, b0, b1, c0, c1, fail, mq int64 }
	bins := []bin{{10, 10, 0, 1, 0, 0, 20}, {30, 10, 10, 0, 2, 1, 20}, {50, 5, 0, 3, 0, 0, 40}, {70, 5, 0, 0, 4, 0, 0}, {10, 0, 0, 0, 0, 0, 5}}
	end := int64(10)
	for k, x := range bins {
		qa, busy := b.Open()
		qa[0], busy[0], busy[1] = x.area, x.b0, x.b1
		if k == len(bins)-1 {
			end = 45
		}
		end = b.Close(end, []int64{x.c0, x.c1}, []int64{x.fail}, nil, []int64{x.mq})
	}
	if b.Width() != 20 || end != 80 {
		t.Fatalf("width %d, next end %d; want 20 and 80", b.Width(), end)
	}
	m := &ubb.Model{Queues: []ubb.Queue{{Name: "Q"}}, Servers: []ubb.Server{{ID: "G/1"}, {ID: "G/2"}}}
	s := b.Build(m, []string{"TPENOENT"}, false)
	if !slices.Equal(s.StartMS, []float64{0, 0.02, 0.04}) {
		t.Errorf("starts %v", s.StartMS)
	}
	if got := s.Queue[0].Values; !slices.Equal(got, []float64{2, 6, 2}) {
		t.Errorf("queue %v, want [2 6 2]", got)
	}
	if got := s.Util[0].Values; !slices.Equal(got, []float64{1, 0.5, 0}) {
		t.Errorf("util G/1 %v, want [1 0.5 0]", got)
	}
	if got := s.Dispatch[1].Values; !slices.Equal(got, []float64{2, 4, 0}) {
		t.Errorf("dispatch G/2 %v, want [2 4 0]", got)
	}
	if len(s.Failures) != 1 || !slices.Equal(s.Failures[0].Values, []float64{1, 0, 0}) {
		t.Errorf("failures %+v, want TPENOENT [1 0 0]", s.Failures)
	}
	if got := b.MsgQueue(0); !slices.Equal(got, []float64{2, 2, 1}) {
		t.Errorf("/Q depth %v, want [2 2 1]", got)
	}
	n := make([]int64, 2)
	b.AddChosen(n)
	if !slices.Equal(n, []int64{4, 6}) {
		t.Errorf("chosen %v, want [4 6]", n)
	}
}

// TestTopColumns: the n largest keys, ties to the larger second key then
// the first, given back in column order.
func TestTopColumns(t *testing.T) {
	cols := []int{0, 1, 2, 3, 4}
	key := []int64{5, 9, 5, 5, 1}
	if got := topColumns(cols, key, nil, 3); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("no second key: %v, want [0 1 2]", got)
	}
	if got := topColumns(cols, key, []int64{0, 0, 1, 2, 0}, 3); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("second key: %v, want [1 2 3]", got)
	}
}

// TestReset lists the first MaxResets reset times and counts them all.
func TestReset(t *testing.T) {
	b := New(1000, AutoMaxBins, Shape{Queues: 1, Servers: 1, Pairs: 1, Failures: 1})
	b.Reset(100, 100+100*(MaxResets+9), 100, []int64{0})
	if b.Resets() != MaxResets+10 || len(b.resets) != MaxResets || b.resets[1] != 200 {
		t.Errorf("%d resets, %d listed (second %d); want %d and %d", b.Resets(), len(b.resets), b.resets[1], MaxResets+10, MaxResets)
	}
	if b.seen[0] {
		t.Error("a counter at 0 marked seen")
	}
	b.Reset(200, 200, 100, []int64{3})
	if !b.seen[0] {
		t.Error("a counter above 0 not marked seen")
	}
}

// TestSized: the scenario's bin width as given, with as many bins as its
// horizon needs (at least AutoMaxBins, at most 4 million cells, even);
// without one, the horizon's 120th rounded up to 1-2-5 x 10^k, or 1 ms;
// either way, at most MaxCells numbers in all (CellBins).
func TestSized(t *testing.T) {
	sh := Shape{Queues: 3, Servers: 4, Pairs: 2, Failures: 5} // 3 + 2·4 + 2 + 1 = 14 columns
	for _, c := range []struct {
		bin, horizon, width int64
		maxBins             int
	}{
		{0, 0, 1000, AutoMaxBins},
		{0, 120_000, 1000, AutoMaxBins},
		{0, 130_000, 2000, AutoMaxBins},      // 1084 µs up to 2 ms
		{0, 7_000_000, 100_000, AutoMaxBins}, // 58 334 µs up to 100 ms
		{500, 0, 500, AutoMaxBins},           // no horizon: 2 x 120 planned
		{500, 1_000_000, 500, 4002},          // 2001 planned, twice that
		{1, 1e12, 1, 285_714},                // 4e6 / 14, made even
	} {
		b := Sized(c.bin, c.horizon, sh)
		if b.Width() != c.width || b.maxBins != c.maxBins {
			t.Errorf("bin %d, horizon %d: width %d, %d bins; want %d, %d", c.bin, c.horizon, b.Width(), b.maxBins, c.width, c.maxBins)
		}
	}
	// A model of 256 machines and 2 048 queues, one instance each: 2 048 +
	// 2·2 048 + 256·2 048 + 1 = 530 433 columns; AutoMaxBins of them would be
	// 127 million numbers (1 GB). 16e6 / 530 433 = 30.16: 30 bins, with or
	// without a bin width. One of 32 machines and 512 queues (17 921
	// columns, 4.3 million numbers in 240 bins) keeps AutoMaxBins.
	big := Shape{Queues: 2048, Servers: 2048, Pairs: 256 * 2048}
	for _, bin := range []int64{0, 500} {
		if b := Sized(bin, 7_000_000, big); b.maxBins != 30 {
			t.Errorf("256 machines, bin %d: %d bins, want 30", bin, b.maxBins)
		}
	}
	if b := Sized(0, 7_000_000, Shape{Queues: 512, Servers: 512, Pairs: 32 * 512}); b.maxBins != AutoMaxBins {
		t.Errorf("32 machines: %d bins, want %d", b.maxBins, AutoMaxBins)
	}
	// past 1 million columns, MinBins
	if got := CellBins(4_000_000); got != MinBins {
		t.Errorf("CellBins(4e6) = %d, want %d", got, MinBins)
	}
}

// TestMergeAheadAsClosing: a crossing in which nothing happens gives the
// same bins merged ahead (MergeAhead) as closed one by one and merged when
// full. The engine's bins are integrals of what it holds between events:
// here a queue of 1 waiting and an idle server until an event at c0, then 3
// waiting and the server busy, one request chosen at c0, and a counter of 2
// then 5 at each bin's end; the run ends at t, a last partial bin.
func TestMergeAheadAsClosing(t *testing.T) {
	integral := func(lo, hi, c0, before, after int64) int64 {
		if hi <= c0 {
			return before * (hi - lo)
		}
		if lo >= c0 {
			return after * (hi - lo)
		}
		return before*(c0-lo) + after*(hi-c0)
	}
	run := func(c0, span int64, maxBins int, ahead bool) (s string, merged int) {
		b := New(10, maxBins, Shape{Queues: 1, Servers: 1, Pairs: 1})
		start, end := int64(0), int64(10)
		closeAt := func(at int64) {
			qa, busy := b.Open()
			qa[0], busy[0] = integral(start, at, c0, 1, 3), integral(start, at, c0, 0, 1)
			disp, counter := int64(0), int64(2)
			if start <= c0 && c0 < at {
				disp = 1
			}
			if at > c0 {
				counter = 5
			}
			start = at
			end = b.Close(at, []int64{disp}, nil, []int64{counter}, nil)
		}
		cross := func(to int64) {
			for end <= to {
				if ahead {
					if e := b.MergeAhead(to); e > 0 {
						end = e
						merged++
						continue
					}
				}
				closeAt(end)
			}
		}
		cross(c0)
		cross(span)
		if b.Closes(span) {
			closeAt(span)
		}
		m := &ubb.Model{Queues: []ubb.Queue{{Name: "Q"}}, Servers: []ubb.Server{{ID: "G/1"}},
			Machines: []ubb.Machine{{LMID: "S"}}}
		return fmt.Sprintf("%+v", b.Build(m, nil, true)), merged
	}
	aheads := 0
	for _, c := range []struct {
		c0, span int64
		max      int
	}{{0, 5, 4}, {15, 95, 4}, {35, 1000, 4}, {40, 10_000, 8}, {5, 123_457, 8}, {995, 1000, 8}, {70, 71, 4}, {0, 1_000_000, 240}, {77_777, 1_000_003, 240}} {
		want, _ := run(c.c0, c.span, c.max, false)
		got, merged := run(c.c0, c.span, c.max, true)
		aheads += merged
		if got != want {
			t.Errorf("c0 %d, span %d, %d bins: merged ahead %d times\n got  %s\n want %s", c.c0, c.span, c.max, merged, got, want)
		}
	}
	if aheads == 0 {
		t.Error("no case merged ahead")
	}
}
