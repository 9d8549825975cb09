package core

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// TestSummaryZerosApart: counting zeros apart from the histogram must leave
// the summary, the chart histogram and a merged histogram exactly as if every
// value had been recorded in the histogram.
func TestSummaryZerosApart(t *testing.T) {
	cases := []struct {
		name string
		vals []int64
	}{
		{"only zeros", []int64{0, 0, 0}},
		{"no zeros", []int64{5, 2047, 2048, 123456}},
		{"mixed", []int64{0, 7, 0, 0, 9000, 0, 1, histMaxUS + 5, 0}},
		{"mostly zeros", append(make([]int64, 97), 3, 40, 50000)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parts := make([]summaryAcc, 2)
			got := &parts[0]
			want := summaryAcc{h: hdrhistogram.New(1, histMaxUS, histDigits)}
			for _, v := range c.vals {
				got.record(v)
				want.recordExact(v)
				_ = want.h.RecordValue(min(v, histMaxUS))
			}
			var merged summaryAcc
			merged.mergeHist(parts)
			if g, w := merged.h.Export().Counts, want.h.Export().Counts; !reflect.DeepEqual(g, w) {
				t.Errorf("merged histogram: counts differ from recording every value")
			}
			if g, w := got.summary(), want.summary(); g != w {
				t.Errorf("summary: got %+v, want %+v", g, w)
			}
			if g, w := chartHistogram(got), chartHistogram(&want); !reflect.DeepEqual(g, w) {
				t.Errorf("chart histogram: got %+v, want %+v", g, w)
			}
			if g, w := got.h.TotalCount(), int64(len(c.vals)); g != w {
				t.Errorf("histogram count: got %d, want %d", g, w)
			}
		})
	}
}

// TestEventHeapRandom: events pushed and popped in a random interleaving
// come out in before order, each exactly once.
func TestEventHeapRandom(t *testing.T) {
	r := NewRand(5, 1)
	var h eventHeap
	var last *event
	pushed, popped := 0, 0
	for step := range 200_000 {
		if h.len() == 0 || (step < 150_000 && r.IntN(3) > 0) {
			// after the last pop, at few distinct times, so that classes
			// and keys decide often
			base := int64(0)
			if last != nil {
				base = last.t + 1
			}
			h.push(event{t: base + int64(r.IntN(4)), cls: uint8(1 + r.IntN(2)), key: int64(pushed), idx: int32(pushed)})
			pushed++
			continue
		}
		e := h.pop()
		popped++
		if last != nil && e.before(last) {
			t.Fatalf("pop %d: got %+v after %+v", popped, e, *last)
		}
		last = &e
	}
	for h.len() > 0 {
		e := h.pop()
		popped++
		if e.before(last) {
			t.Fatalf("pop %d: got %+v after %+v", popped, e, *last)
		}
		last = &e
	}
	if popped != pushed {
		t.Errorf("popped %d events, want %d", popped, pushed)
	}
}

// TestFlightReset: reset leaves a used record exactly as the composite
// literal it replaces, whatever the record held before (every byte after the
// request set, so that a field added to flight but forgotten in reset fails
// here).
func TestFlightReset(t *testing.T) {
	f := flight{req: request{Seq: 9, ID: "old", TimeUS: 9, Service: 9, Origin: 9, ServiceUS: 9, Prio: 9, Key: 9}}
	ft := reflect.TypeOf(f)
	for i := 1; i < ft.NumField(); i++ {
		switch k := ft.Field(i).Type.Kind(); k {
		case reflect.Bool, reflect.Int32, reflect.Int64, reflect.Uint8, reflect.Uint64:
		default:
			t.Fatalf("field %s: kind %v; this test fills the fields after req with bytes", ft.Field(i).Name, k)
		}
	}
	rest := unsafe.Slice((*byte)(unsafe.Pointer(&f)), unsafe.Sizeof(f))[unsafe.Sizeof(f.req):]
	r := request{Seq: 3, ID: "r3", TimeUS: 40, Service: 1, Origin: 2, ServiceUS: -1, Prio: 5, Key: 11}
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
