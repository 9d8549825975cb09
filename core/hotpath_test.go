package core

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/tuxlb/tuxlb/core/internal/fixture"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/ubb"
	"github.com/tuxlb/tuxlb/core/workload"
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
		{"mixed", []int64{0, 7, 0, 0, 9000, 0, 1, histMaxUS + 5, 0}},
		{"mostly zeros", append(make([]int64, 97), 3, 40, 50000)},
		{"around the front's end", []int64{frontMaxUS - 1, frontMaxUS, frontMaxUS + 1, frontMaxUS - 1, 2047, 2048, 4095, 4096}},
		{"random", randomDurations(20_000)},
		{"random, few", randomDurations(37)},
		{"one value", []int64{123}},
		{"past the front only", []int64{frontMaxUS, 3 * frontMaxUS, histMaxUS}},
		{"one bucket, many times", slices.Repeat([]int64{5}, 12_295)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parts := make([]summaryAcc, 3) // the values spread over the first two
			want := &refAcc{}
			for i, v := range c.vals {
				parts[i%2].record(v)
				want.add(v)
			}
			var got summaryAcc // every value in one acc
			for _, v := range c.vals {
				got.record(v)
			}
			hs := readHists(parts)
			merged := mergeHists(hs)
			if g, w := merged.bins, refBins(want.h); !reflect.DeepEqual(g, w) {
				t.Errorf("merged histogram: got %v, want %v", g, w)
			}
			if g, w := merged.total, int64(len(c.vals)); g != w {
				t.Errorf("merged histogram's total: got %d, want %d", g, w)
			}
			h := got.hist()
			if g, w := h.bins, refBins(want.h); !reflect.DeepEqual(g, w) {
				t.Errorf("histogram: got %v, want %v", g, w)
			}
			if g, w := got.summary(h), want.summary(); g != w {
				t.Errorf("summary: got %+v, want %+v", g, w)
			}
			if g, w := (&summaryAcc{n: want.n, sum: want.sum, max: want.max}).summary(merged), want.summary(); g != w {
				t.Errorf("merged summary: got %+v, want %+v", g, w)
			}
			if g, w := chartHistogram(&got, h), want.chart(); !reflect.DeepEqual(g, w) {
				t.Errorf("chart histogram: got %+v, want %+v", g, w)
			}
			if g, w := h.total, int64(len(c.vals)); g != w {
				t.Errorf("histogram count: got %d, want %d", g, w)
			}
		})
	}
	var empty summaryAcc
	if g := empty.summary(empty.hist()); g != (result.Summary{}) {
		t.Errorf("empty summary: got %+v, want zeros", g)
	}
	if g := mergeHists(readHists(make([]summaryAcc, 2))); g.total != 0 || len(g.bins) != 0 {
		t.Errorf("merge of empty histograms: got %+v, want empty", g)
	}
}

// TestPercentiles: the percentiles read from the buckets are HdrHistogram's
// ValueAtQuantile for random histograms of 1 to 3000 values, where rounding
// the rank matters most.
func TestPercentiles(t *testing.T) {
	t.Parallel()
	r := rng.New(5, 9)
	for n := 1; n <= 3000; n += 1 + n/50 {
		h := hdrhistogram.New(1, histMaxUS, histDigits)
		var a summaryAcc
		for range n {
			v := int64(r.Uint64() >> (64 - 1 - r.IntN(24)))
			a.record(v)
			_ = h.RecordValue(v)
		}
		got := a.hist().percentiles()
		for k, q := range []float64{50, 95, 99} {
			if w := h.ValueAtQuantile(q); got[k] != w {
				t.Errorf("%d values: p%g = %d, want %d", n, q, got[k], w)
			}
		}
	}
}

// refBins reads a histogram's buckets with HdrHistogram's own functions: the
// reference the readers above must equal (refAcc has the summary and chart).
func refBins(h *hdrhistogram.Histogram) []bin {
	var out []bin
	for i, c := range h.Export().Counts {
		if c != 0 {
			out = append(out, bin{int32(i), c})
		}
	}
	return out
}

// TestSummaryFrontOverflow: every frontFlushEvery completed requests,
// stats.complete adds every front to its histogram before counting more, so
// that no 32-bit count can overflow; the histograms stay those of every
// value.
func TestSummaryFrontOverflow(t *testing.T) {
	e, err := newEngine(engSetup(fixture.HandModel()), &sliceRequests{}, simOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := &e.st
	vals := randomDurations(3000)
	want := &refAcc{}
	sv := &e.servers[0]
	for k, v := range vals {
		if k == 1000 { // as if 2^31 - 2000 more requests had completed
			st.completed += frontFlushEvery - 2000
		}
		f := flight{req: workload.Request{TimeUS: 0, Service: fixture.SvcToLower}, counted: true, queue: 0,
			enqueueUS: 10, startUS: 10 + v, endUS: 10 + v, replyUS: 10 + v}
		st.complete(&f, sv)
		want.add(v)
		var inFront int64
		for _, c := range st.qWait[0].front {
			inFront += int64(c)
		}
		small := b2i(v < frontMaxUS) // v is in front, or past it
		if k == 1998 && inFront < 1000 {
			t.Fatalf("front was added to the histogram before %d requests", frontFlushEvery)
		}
		if k == 1999 && inFront != int64(small) {
			t.Fatalf("at %d requests, front holds %d values, want %d (only the last)", frontFlushEvery, inFront, small)
		}
	}
	for _, a := range []*summaryAcc{&st.qWait[0], &st.svc[fixture.SvcToLower].wait} {
		if g, w := a.hist().bins, refBins(want.h); !reflect.DeepEqual(g, w) {
			t.Errorf("histogram: got %v, want %v", g, w)
		}
		if g, w := a.summary(a.hist()), want.summary(); g != w {
			t.Errorf("summary: got %+v, want %+v", g, w)
		}
	}
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

// TestHistIndex: histIndex gives the bucket index the histogram itself
// uses, for every value around each bucket's edges, and histValue maps every
// index of the front back to it.
func TestHistIndex(t *testing.T) {
	index := func(v int64) int { // the index the histogram counts v at
		h := hdrhistogram.New(1, histMaxUS, histDigits)
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
			if got, want := histIndex(v), index(v); got != want {
				t.Errorf("histIndex(%d) = %d, want %d", v, got, want)
			}
		}
	}
	// every value of the front and past it: in the same bucket as the value
	// its index maps back to (so at the histogram's index, by the edges above
	// and the round trip below)
	h := hdrhistogram.New(1, histMaxUS, histDigits)
	for v := int64(0); v < frontMaxUS+5000; v++ {
		if w := histValue(histIndex(v)); !h.ValuesAreEquivalent(v, w) || w > v {
			t.Fatalf("histIndex(%d) = %d, whose lowest value %d is not in v's bucket", v, histIndex(v), w)
		}
	}
	for i := range frontLen {
		if got := histIndex(histValue(i)); got != i {
			t.Fatalf("histIndex(histValue(%d) = %d) = %d, want %d", i, histValue(i), got, i)
		}
	}
	if got := histIndex(frontMaxUS - 1); got != frontLen-1 {
		t.Errorf("the front's last value is at index %d, want frontLen-1 = %d", got, frontLen-1)
	}
}

// TestEventHeapRandom: completions pushed and popped in a random
// interleaving come out in (time, scan index) order, each exactly once.
func TestEventHeapRandom(t *testing.T) {
	r := rng.New(5, 1)
	var h eventHeap
	h.init()
	var last *event
	pushed, popped := 0, 0
	after := func(a, b *event) bool { // a runs after b
		return a.t() > b.t() || a.t() == b.t() && a.idx() > b.idx()
	}
	count := map[event]int{} // pushed minus popped, per key
	for step := range 200_000 {
		if h.len() == 0 || (step < 150_000 && r.IntN(3) > 0) {
			// after the last pop, at few distinct times and indexes, so
			// that indexes decide often
			base := int64(0)
			if last != nil {
				base = last.t() + 1
			}
			ev := completionKey(base+int64(r.IntN(4)), int32(r.IntN(8)))
			h.push(ev)
			count[ev]++
			pushed++
			continue
		}
		e := h.pop()
		count[e]--
		popped++
		if last != nil && after(last, &e) {
			t.Fatalf("pop %d: got %+v after %+v", popped, e, *last)
		}
		last = &e
	}
	for h.len() > 0 {
		e := h.pop()
		count[e]--
		popped++
		if after(last, &e) {
			t.Fatalf("pop %d: got %+v after %+v", popped, e, *last)
		}
		last = &e
	}
	if popped != pushed {
		t.Errorf("popped %d events, want %d", popped, pushed)
	}
	for ev, n := range count {
		if n != 0 {
			t.Errorf("event (t %d, index %d): popped %d times fewer than pushed", ev.t(), ev.idx(), n)
		}
	}
}

// TestFlightReset: reset leaves a used record exactly as the composite
// literal it replaces, whatever the record held before (every byte after the
// request set, so that a field added to flight but forgotten in reset fails
// here).
func TestFlightReset(t *testing.T) {
	f := flight{req: workload.Request{Seq: 9, ID: "old", TimeUS: 9, Service: 9, Origin: 9, ServiceUS: 9, Prio: 9, Key: 9}}
	ft := reflect.TypeOf(f)
	for i := 1; i < ft.NumField(); i++ {
		switch k := ft.Field(i).Type.Kind(); k {
		case reflect.Bool, reflect.Int32, reflect.Int64, reflect.Uint8, reflect.Uint64:
		default:
			t.Fatalf("field %s: kind %v; this test fills the fields after req with bytes", ft.Field(i).Name, k)
		}
	}
	rest := unsafe.Slice((*byte)(unsafe.Pointer(&f)), unsafe.Sizeof(f))[unsafe.Sizeof(f.req):]
	r := workload.Request{Seq: 3, ID: "r3", TimeUS: 40, Service: 1, Origin: 2, ServiceUS: -1, Prio: 5, Key: 11}
	for _, counted := range []bool{false, true} {
		for i := range rest {
			rest[i] = 0x01
		}
		f.reset(&r, counted)
		if want := (flight{req: r, queue: -1, server: -1, chosen: -1, counted: counted}); f != want {
			t.Errorf("counted %v: got %+v, want %+v", counted, f, want)
		}
	}
}

// TestDoneCountsSearch: in both layouts (a dense table, and the sparse
// blocks whose branch-free search finds each advertised service's counter in
// blocks of every size from 0 to 40, counting services a server does not
// advertise apart), the counts and LOAD sums per (server, service) and per
// server equal a plain map's.
func TestDoneCountsSearch(t *testing.T) {
	const nsvc, nsrv = 64, 41
	for _, dense := range []bool{true, false} {
		t.Run(fmt.Sprintf("dense=%v", dense), func(t *testing.T) {
			r := rng.New(17, 4)
			m := &Model{Services: make([]ubb.Service, nsvc), Servers: make([]ubb.Server, nsrv)}
			for s := range m.Services {
				m.Services[s].Name = fmt.Sprintf("S%02d", s)
			}
			for i := range m.Servers { // server i advertises i distinct services at random
				for _, s := range perm(r, nsvc)[:i] {
					m.Servers[i].Services = append(m.Servers[i].Services, m.Services[s].Name)
				}
			}
			var d doneCounts
			d.initUpTo(m, map[bool]int64{true: nsvc * nsrv, false: nsvc*nsrv - 1}[dense])
			if d.dense != dense {
				t.Fatalf("dense: got %v, want %v", d.dense, dense)
			}
			want := map[[2]int32]int64{}
			wantReq, wantLoad := make([]int64, nsrv), make([]int64, nsrv)
			for range 50_000 {
				i, k := int32(r.IntN(nsrv)), int32(r.IntN(nsvc))
				load := int64(r.IntN(100))
				d.add(i, k, load)
				want[[2]int32{i, k}]++
				wantReq[i]++
				wantLoad[i] += load
			}
			got := map[[2]int32]int64{}
			for i, counts := range d.perServer() {
				for j, c := range counts {
					got[[2]int32{int32(i), c.svc}] = c.n
					if j > 0 && counts[j-1].svc >= c.svc {
						t.Errorf("server %d: services not in order: %v", i, counts)
					}
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("counts per (server, service) differ from a plain map's (%d against %d entries)", len(got), len(want))
			}
			gotReq, gotLoad := make([]int64, nsrv), make([]int64, nsrv)
			d.perServerTotals(gotReq, gotLoad)
			if !reflect.DeepEqual(gotReq, wantReq) || !reflect.DeepEqual(gotLoad, wantLoad) {
				t.Errorf("per server: got requests %v load %v, want %v %v", gotReq, gotLoad, wantReq, wantLoad)
			}
			if dense {
				if len(d.more) != 0 || len(d.c) != nsvc*nsrv {
					t.Errorf("dense: got %d counters and %d apart, want %d and 0", len(d.c), len(d.more), nsvc*nsrv)
				}
				return
			}
			if len(d.more) == 0 {
				t.Error("no request of a service its server does not advertise was counted apart; want some")
			}
			for key := range d.more { // only those: an advertised one has its counter
				i, k := key/nsvc, key%nsvc
				if slices.Contains(m.Servers[i].Services, m.Services[k].Name) {
					t.Fatalf("server %d's requests of its advertised service %d were counted apart, not in its block", i, k)
				}
			}
		})
	}
}

// TestDoneCountsMemory: a large model (10 000 instances x 200 services) gets
// counters per advertisement, not per (server, service) pair.
func TestDoneCountsMemory(t *testing.T) {
	m := &Model{Services: make([]ubb.Service, 200), Servers: make([]ubb.Server, 10_000)}
	for s := range m.Services {
		m.Services[s].Name = fmt.Sprintf("S%d", s)
	}
	for i := range m.Servers {
		m.Servers[i].Services = []string{m.Services[i%200].Name, m.Services[(i+1)%200].Name}
	}
	var d doneCounts
	d.init(m)
	if d.dense || len(d.c) != 20_000 {
		t.Errorf("got dense %v with %d counters, want sparse with 20000", d.dense, len(d.c))
	}
	d.add(9_999, 0, 5) // server 9999 advertises S199 and S0
	d.add(9_999, 7, 5) // ... not S7: counted apart
	req, load := make([]int64, 10_000), make([]int64, 10_000)
	d.perServerTotals(req, load)
	if req[9_999] != 2 || load[9_999] != 10 || len(d.more) != 1 {
		t.Errorf("server 9999: got %d requests, load %d, %d apart; want 2, 10, 1", req[9_999], load[9_999], len(d.more))
	}
}

// add counts a request as stats.complete does (tests only).
func (d *doneCounts) add(i, k int32, load int64) {
	if d.dense {
		d.addDense(i, k, load)
	} else {
		d.addSparse(i, k, load)
	}
}

// record counts v as stats.complete does (tests only).
func (a *summaryAcc) record(v int64) {
	if !a.note(v, histIndex(v)) {
		a.spill(v)
	}
}

// perm returns a random permutation of 0..n-1 (tests only).
func perm(r *rng.PCG, n int) []int {
	p := make([]int, n)
	for i := range p {
		j := r.IntN(i + 1)
		p[i], p[j] = p[j], i
	}
	return p
}
