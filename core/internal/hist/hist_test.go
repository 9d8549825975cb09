package hist

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/result"
)

// TestSummaryFront: counting values in the front (and past it in the
// histogram), then reading the histogram out, must give the summary, the chart
// histogram and a merged histogram HdrHistogram gives when every value is
// recorded in it (refAcc, refBins).
func TestSummaryFront(t *testing.T) {
	cases := []struct {
		name string
		vals []int64
	}{
		{"only zeros", []int64{0, 0, 0}},
		{"no zeros", []int64{5, 2047, 2048, 123456}},
		{"mixed", []int64{0, 7, 0, 0, 9000, 0, 1, MaxUS + 5, 0}},
		{"mostly zeros", append(make([]int64, 97), 3, 40, 50000)},
		{"around the front's end", []int64{FrontMaxUS - 1, FrontMaxUS, FrontMaxUS + 1, FrontMaxUS - 1, 2047, 2048, 4095, 4096}},
		{"random", randomDurations(20_000)},
		{"random, few", randomDurations(37)},
		{"one value", []int64{123}},
		{"past the front only", []int64{FrontMaxUS, 3 * FrontMaxUS, MaxUS}},
		{"one bucket, many times", slices.Repeat([]int64{5}, 12_295)},
	}
	for _, c := range cases {
		for _, few := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/few=%v", c.name, few), func(t *testing.T) { summaryFront(t, c.vals, few) })
		}
	}
	var empty Acc
	if g := empty.Summary(empty.Hist()); g != (result.Summary{}) {
		t.Errorf("empty summary: got %+v, want zeros", g)
	}
	if g := Merge(Read(make([]Acc, 2))); g.Total != 0 || len(g.Bins) != 0 {
		t.Errorf("merge of empty histograms: got %+v, want empty", g)
	}
}

// summaryFront is TestSummaryFront's case of vals, in distributions that
// keep their first values in few or not.
func summaryFront(t *testing.T, vals []int64, few bool) {
	parts := make([]Acc, 3) // the values spread over the first two
	var got Acc             // every value in one acc
	if few {
		got.keepFew = true
		parts = KeepingFew(3)
	}
	want := &refAcc{}
	for i, v := range vals {
		parts[i%2].Add(v)
		want.add(v)
	}
	for _, v := range vals {
		got.Add(v)
	}
	hs := Read(parts)
	merged := Merge(hs)
	if g, w := merged.Bins, refBins(want.h); !reflect.DeepEqual(g, w) {
		t.Errorf("merged histogram: got %v, want %v", g, w)
	}
	if g, w := merged.Total, int64(len(vals)); g != w {
		t.Errorf("merged histogram's total: got %d, want %d", g, w)
	}
	h := got.Hist()
	if g, w := h.Bins, refBins(want.h); !reflect.DeepEqual(g, w) {
		t.Errorf("histogram: got %v, want %v", g, w)
	}
	if g, w := got.Summary(h), want.summary(); g != w {
		t.Errorf("summary: got %+v, want %+v", g, w)
	}
	if g, w := (&Acc{N: want.n, Sum: want.sum, Max: want.max}).Summary(merged), want.summary(); g != w {
		t.Errorf("merged summary: got %+v, want %+v", g, w)
	}
	if g, w := got.Chart(h), want.chart(); !reflect.DeepEqual(g, w) {
		t.Errorf("chart histogram: got %+v, want %+v", g, w)
	}
	if g, w := h.Total, int64(len(vals)); g != w {
		t.Errorf("histogram count: got %d, want %d", g, w)
	}
}

// TestPercentiles: the percentiles read from the buckets are HdrHistogram's
// ValueAtQuantile for random histograms of 1 to 3000 values, where rounding
// the rank matters most; AtRank gives the same values at their ranks.
func TestPercentiles(t *testing.T) {
	t.Parallel()
	r := rng.New(5, 9)
	for n := 1; n <= 3000; n += 1 + n/50 {
		h := hdrhistogram.New(1, MaxUS, Digits)
		var a Acc
		for range n {
			v := int64(r.Uint64() >> (64 - 1 - r.IntN(24)))
			a.Add(v)
			_ = h.RecordValue(v)
		}
		hs := a.Hist()
		got := hs.Percentiles()
		for k, q := range []float64{50, 95, 99} {
			if w := h.ValueAtQuantile(q); got[k] != w {
				t.Errorf("%d values: p%g = %d, want %d", n, q, got[k], w)
			}
			if g := hs.AtRank(PercentileRank(q, int64(n))); g != got[k] {
				t.Errorf("%d values: AtRank of p%g's rank = %d, want %d", n, q, g, got[k])
			}
		}
	}
}

// refAcc records every value as the engine once did: the exact figures and
// an HdrHistogram.
type refAcc struct {
	n, sum, max int64
	h           *hdrhistogram.Histogram
}

func (a *refAcc) add(v int64) {
	if a.h == nil {
		a.h = hdrhistogram.New(1, MaxUS, Digits)
	}
	a.n++
	a.sum += v
	a.max = max(a.max, v)
	_ = a.h.RecordValue(min(v, MaxUS))
}

func (a *refAcc) summary() result.Summary {
	if a.n == 0 {
		return result.Summary{}
	}
	q := func(p float64) float64 { return usec.ToMS(min(a.h.ValueAtQuantile(p), a.max)) }
	return result.Summary{Count: a.n, Mean: usec.Round6(float64(a.sum) / float64(a.n) / 1000),
		P50: q(50), P95: q(95), P99: q(99), Max: usec.ToMS(a.max)}
}

// chart is a service's response-time chart as the engine once built it,
// from HdrHistogram's distribution.
func (a *refAcc) chart() result.Histogram {
	h := result.Histogram{BoundsMS: []float64{}, Counts: []int64{}}
	if a.n == 0 {
		return h
	}
	p99 := min(a.h.ValueAtQuantile(99), a.max)
	width := NiceUp(max((p99+19)/20, 1))
	nb := min((a.max+width)/width, 40)
	h.Counts = make([]int64, nb)
	for _, bar := range a.h.Distribution() {
		if bar.Count > 0 {
			h.Counts[min(bar.From/width, nb-1)] += bar.Count
		}
	}
	for i := int64(0); i < nb; i++ {
		h.BoundsMS = append(h.BoundsMS, usec.ToMS((i+1)*width))
	}
	h.BoundsMS[nb-1] = usec.ToMS(max(a.max, nb*width))
	return h
}

// refBins reads a histogram's buckets with HdrHistogram's own functions: the
// reference the readers above must equal (refAcc has the summary and chart).
func refBins(h *hdrhistogram.Histogram) []Bin {
	var out []Bin
	for i, c := range h.Export().Counts {
		if c != 0 {
			out = append(out, Bin{int32(i), c})
		}
	}
	return out
}

// randomDurations returns n values spread over every bucket of the front and
// beyond it, a fifth of them zeros.
func randomDurations(n int) []int64 {
	r := rng.New(11, 2)
	out := make([]int64, n)
	for i := range out {
		if r.IntN(5) > 0 {
			out[i] = int64(r.Uint64() >> (64 - 1 - r.IntN(22))) // 0 .. 2^21
		}
	}
	return out
}

// TestIndex: Index gives the bucket index the histogram itself uses, for
// every value around each bucket's edges, and Value maps every index of the
// front back to it.
func TestIndex(t *testing.T) {
	index := func(v int64) int { // the index the histogram counts v at
		h := hdrhistogram.New(1, MaxUS, Digits)
		_ = h.RecordValue(v)
		for i, c := range h.Export().Counts {
			if c != 0 {
				return i
			}
		}
		return -1
	}
	for b := 0; b <= frontBuckets+2; b++ {
		for _, v := range []int64{2048<<b - 1, 2048 << b, 2048<<b + 1, 1536 << b, 1024<<b + 1} {
			if got, want := Index(v), index(v); got != want {
				t.Errorf("Index(%d) = %d, want %d", v, got, want)
			}
		}
	}
	// every value of the front and past it: in the same bucket as the value
	// its index maps back to (so at the histogram's index, by the edges above
	// and the round trip below)
	h := hdrhistogram.New(1, MaxUS, Digits)
	for v := int64(0); v < FrontMaxUS+5000; v++ {
		if w := Value(Index(v)); !h.ValuesAreEquivalent(v, w) || w > v {
			t.Fatalf("Index(%d) = %d, whose lowest value %d is not in v's bucket", v, Index(v), w)
		}
	}
	for i := range frontLen {
		if got := Index(Value(i)); got != i {
			t.Fatalf("Index(Value(%d) = %d) = %d, want %d", i, Value(i), got, i)
		}
	}
	if got := Index(FrontMaxUS - 1); got != frontLen-1 {
		t.Errorf("the front's last value is at index %d, want frontLen-1 = %d", got, frontLen-1)
	}
}

// TestFrontGrows: a distribution's front holds what it has been given and
// no more than four times that (from frontMinLen counts), and keeps every count
// as it grows: the histogram read out equals one counting every value in a
// full-length front.
func TestFrontGrows(t *testing.T) {
	t.Parallel()
	var a, full Acc
	full.front = make([]uint32, frontLen)
	record := func(v int64) {
		if i := Index(v); !a.Note(v, i) {
			a.Spill(v)
		}
		if i := Index(v); !full.Note(v, i) {
			full.Spill(v)
		}
	}
	for range 1000 {
		record(0)
	}
	if len(a.front) != frontMinLen {
		t.Fatalf("after zeros only, the front is %d counts long, want %d", len(a.front), frontMinLen)
	}
	steps := []struct {
		v    int64
		want int
	}{{255, 256}, {256, 1024}, {1000, 1024}, {2047, 4096}, {5000, 4096}, {20_000, frontLen}, {100_000, frontLen}, {200_000, frontLen}, {FrontMaxUS - 1, frontLen}, {FrontMaxUS, frontLen}}
	for _, s := range steps {
		record(s.v)
		record(s.v / 2)
		if len(a.front) != s.want {
			t.Errorf("after %d µs, the front is %d counts long, want %d", s.v, len(a.front), s.want)
		}
	}
	if n := a.InFront(); n != 1000+2*int64(len(steps))-1 { // all but FrontMaxUS
		t.Errorf("InFront: %d values in front, want %d", n, 1000+2*len(steps)-1)
	}
	if g, w := a.Hist(), full.Hist(); !reflect.DeepEqual(g, w) {
		t.Errorf("histogram with a growing front %v, with a full one %v", g, w)
	}
	if a.low != nil {
		t.Error("reading the histogram made a 64-bit copy of the front")
	}
	a.FlushFront()
	if n := a.InFront(); n != 0 {
		t.Errorf("after FlushFront, %d values in front, want 0", n)
	}
	if g, w := a.Hist(), full.Hist(); !reflect.DeepEqual(g, w) {
		t.Errorf("histogram after FlushFront %v, want %v", g, w)
	}
	a.ReleaseFront()
	if a.front != nil {
		t.Error("ReleaseFront left the front")
	}
}

// TestFrontReusedEmpty: a full front handed back with counts in it comes
// back to the next distribution with none (fronts are zeroed when taken).
func TestFrontReusedEmpty(t *testing.T) {
	for round := range 20 {
		var a Acc
		for v := int64(0); v < FrontMaxUS; v += 997 {
			a.Add(v)
		}
		if len(a.front) != frontLen {
			t.Fatalf("round %d: front %d counts long, want %d", round, len(a.front), frontLen)
		}
		if n := a.InFront(); n != a.N {
			t.Fatalf("round %d: front holds %d values, want %d: a front taken again kept counts", round, n, a.N)
		}
		a.ReleaseFront()
	}
}

// TestFew: a distribution that keeps its first values in few (KeepingFew)
// keeps up to fewMax of them there and makes no array; the next value moves
// them to the arrays, as does a flush; the histogram read out is the same
// at every step as one counting every value in its arrays from the first
// (full), and reading it twice gives the same.
func TestFew(t *testing.T) {
	r := rng.New(3, 7)
	var full Acc
	few := KeepingFew(2)
	a, flushed := &few[0], &few[1]
	full.front = make([]uint32, frontLen)
	for k := range fewMax + 1 {
		v := int64(r.Uint64() >> (64 - 1 - r.IntN(30))) // 0 .. 2^29: in the front and past it
		for _, acc := range []*Acc{a, flushed, &full} {
			if i := Index(v); !acc.Note(v, i) {
				acc.Spill(v)
			}
		}
		if k == 100 {
			flushed.FlushFront()
			if len(flushed.few) != 0 || flushed.low == nil {
				t.Fatalf("after FlushFront, %d values in few, low %v", len(flushed.few), flushed.low != nil)
			}
		}
		if k == fewMax-1 {
			if a.front != nil || a.far != nil || a.low != nil || len(a.few) != fewMax {
				t.Fatalf("after %d values: arrays %v %v %v, %d in few; want none, %d", fewMax, a.front != nil, a.far != nil, a.low != nil, len(a.few), fewMax)
			}
		}
		if k == 7 || k == fewMax-1 || k == fewMax {
			for range 2 {
				if g, w := a.Hist(), full.Hist(); !reflect.DeepEqual(g, w) {
					t.Fatalf("after %d values: histogram %v, want %v", k+1, g, w)
				}
			}
			if g, w := flushed.Hist(), full.Hist(); !reflect.DeepEqual(g, w) {
				t.Fatalf("after %d values, flushed at 101: histogram %v, want %v", k+1, g, w)
			}
			if n := a.InFront(); k < fewMax && n != a.N {
				t.Fatalf("after %d values: InFront %d, want all %d (in few)", k+1, n, a.N)
			}
		}
	}
	if len(a.few) != 0 || a.front == nil && a.far == nil {
		t.Errorf("after %d values: %d in few, arrays %v %v; want them in the arrays", fewMax+1, len(a.few), a.front != nil, a.far != nil)
	}
	var dense Acc // one not told to keep them makes its arrays at once
	dense.Add(5)
	if len(dense.few) != 0 || dense.front == nil {
		t.Errorf("a distribution not told to keep few: %d in few, front %v", len(dense.few), dense.front != nil)
	}
}

// TestSortFew: the radix sort of bucket indices orders lists of every
// length as slices.Sort does, whatever their spread.
func TestSortFew(t *testing.T) {
	r := rng.New(5, 9)
	for round := range 300 {
		few := make([]uint16, r.IntN(3*fewMax/2))
		top := 1 + r.IntN(1<<16) // indices below top: a few buckets or every one
		for i := range few {
			few[i] = uint16(r.IntN(top))
		}
		want := slices.Clone(few)
		slices.Sort(want)
		if sortFew(few); !slices.Equal(few, want) {
			t.Fatalf("round %d: %d indices below %d sorted wrong", round, len(few), top)
		}
	}
}

func TestNiceUp(t *testing.T) {
	for _, c := range [][2]int64{{1, 1}, {3, 5}, {6, 10}, {11, 20}, {20, 20}, {21, 50}, {120001, 200000}} {
		if got := NiceUp(c[0]); got != c[1] {
			t.Errorf("NiceUp(%d): got %d, want %d", c[0], got, c[1])
		}
	}
}

// TestAddZeros: zeros counted apart and added with AddZeros, at any
// moment, even before the first value (no front yet) and after a flush,
// give the distribution that adding each zero where it came gives: the
// same count, sum, maximum, histogram and summary.
func TestAddZeros(t *testing.T) {
	r := rng.New(11, 2)
	for round := range 200 {
		var each, apart Acc
		if round%4 < 2 { // its first values in few (KeepingFew: the engine's queues)
			apart.keepFew = true
		}
		var zeros uint32
		for k := range 1 + r.IntN(3000) {
			v := int64(0)
			if r.IntN(4) == 0 {
				v = int64(r.Uint64() >> (64 - 1 - r.IntN(25))) // 0 .. 2^24: in the front and past it
			}
			each.Add(v)
			if v == 0 {
				zeros++
			} else {
				apart.Add(v)
			}
			if r.IntN(500) == 0 || k == 0 && round%2 == 0 {
				apart.AddZeros(zeros)
				zeros = 0
			}
			if r.IntN(1000) == 0 {
				each.FlushFront()
				apart.FlushFront()
			}
		}
		apart.AddZeros(zeros)
		if each.N != apart.N || each.Sum != apart.Sum || each.Max != apart.Max {
			t.Fatalf("round %d: (N, Sum, Max) = (%d, %d, %d), want (%d, %d, %d)", round, apart.N, apart.Sum, apart.Max, each.N, each.Sum, each.Max)
		}
		if g, w := apart.Hist(), each.Hist(); !reflect.DeepEqual(g, w) {
			t.Fatalf("round %d: histogram %v, want %v", round, g, w)
		}
		if g, w := apart.Summary(apart.Hist()), each.Summary(each.Hist()); g != w {
			t.Fatalf("round %d: summary %+v, want %+v", round, g, w)
		}
	}
	var none Acc
	none.AddZeros(0)
	if none.N != 0 || none.front != nil {
		t.Errorf("AddZeros(0) counted %d values, front %v", none.N, none.front)
	}
}

// TestBatch: values noted for many distributions through a batch, counted
// when it fills and when flushed at random moments, leave every
// distribution as counting each value at once does: the same count, sum,
// maximum and histogram, values of every size up to MaxUS included.
func TestBatch(t *testing.T) {
	r := rng.New(13, 4)
	const n = BatchMin
	direct, batched := KeepingFew(n), KeepingFew(n)
	b := BatchFor(batched)
	for k := range 3*batchLen + 777 {
		i := int32(r.IntN(n))
		if k%5 == 0 {
			i = int32(k % 7) // a few distributions past fewMax, into their arrays
		}
		v := int64(r.Uint64() >> (64 - 1 - r.IntN(40)))
		if k == 1000 {
			v = MaxUS
		}
		if a := &direct[i]; !a.Note(v, Index(v)) {
			a.Spill(v)
		}
		b.Note(i, v)
		if r.IntN(20000) == 0 {
			b.Flush()
		}
	}
	b.Flush()
	b.Flush() // an empty batch counts nothing, and so does none
	if BatchFor(batched[:n-1]) != nil {
		t.Errorf("a batch for %d distributions, fewer than BatchMin", n-1)
	}
	BatchFor(batched[:n-1]).Flush()
	for i := range direct {
		d, g := &direct[i], &batched[i]
		if d.N != g.N || d.Sum != g.Sum || d.Max != g.Max || !reflect.DeepEqual(d.Hist(), g.Hist()) {
			t.Fatalf("distribution %d: batched %d values (sum %d, max %d), want %d (%d, %d), or histograms differ", i, g.N, g.Sum, g.Max, d.N, d.Sum, d.Max)
		}
	}
}
