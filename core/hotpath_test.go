package core

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	"github.com/tuxlb/tuxlb/core/internal/evq"
	"github.com/tuxlb/tuxlb/core/internal/fixture"
	"github.com/tuxlb/tuxlb/core/internal/hist"
	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/workload"
)

// TestSummaryFrontOverflow: every hist.FlushEvery completed requests,
// stats.complete adds every front (and the queues' zero waits counted
// apart) to its histogram before counting more, so that no 32-bit count can
// overflow; the histograms stay those of every value counted at once.
func TestSummaryFrontOverflow(t *testing.T) {
	e, err := newEngine(engSetup(fixture.HandModel()), &sliceRequests{}, simOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := &e.st
	r := rng.New(11, 2)
	var want hist.Acc
	sv := &e.servers[0]
	for k := range 3000 {
		v := int64(0) // a fifth zeros, the rest spread over the front and past it
		if r.IntN(5) > 0 {
			v = int64(r.Uint64() >> (64 - 1 - r.IntN(22)))
		}
		if k == 1000 { // as if 2^31 - 2000 more requests had completed
			st.completed += hist.FlushEvery - 2000
		}
		f := flight{req: workload.Request{TimeUS: 0, Service: fixture.SvcToLower}, counted: true, queue: 0,
			enqueueUS: 10, startUS: 10 + v, endUS: 10 + v, replyUS: 10 + v}
		st.complete(&f, sv)
		want.Add(v)
		// (its zero waits count apart until then)
		inFront := st.qWait[0].InFront() + int64(st.qs[0].zero)
		small := int64(b2i(v < hist.FrontMaxUS)) // v is in front, or past it
		if k == 1998 && inFront < 1000 {
			t.Fatalf("front was added to the histogram before %d requests", hist.FlushEvery)
		}
		if k == 1999 && inFront != small {
			t.Fatalf("at %d requests, front holds %d values, want %d (only the last)", hist.FlushEvery, inFront, small)
		}
	}
	st.addApart() // as the result's figures are read
	for _, a := range []*hist.Acc{&st.qWait[0], &st.svc[fixture.SvcToLower].wait} {
		if g, w := a.Hist(), want.Hist(); !reflect.DeepEqual(g, w) {
			t.Errorf("histogram: got %v, want %v", g, w)
		}
		if g, w := a.Summary(a.Hist()), want.Summary(want.Hist()); g != w {
			t.Errorf("summary: got %+v, want %+v", g, w)
		}
	}
}

// TestEnqueuedPastUint32: a queue's enqueues, counted in 32 bits in its
// state until the statistics add them up, lose none when 2^32 of them come
// between two flushes, and uncounted ones (before the warm-up) add nothing.
func TestEnqueuedPastUint32(t *testing.T) {
	e, err := newEngine(engSetup(fixture.HandModel()), &sliceRequests{}, simOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := &e.st
	st.qEnqueued[0], st.qs[0].enqueued = 5, 1<<32-2
	f := flight{counted: true, queue: 0}
	for range 3 { // to 2^32 - 1, over to 0, then 1
		st.enqueue(&f)
	}
	f.counted = false
	st.enqueue(&f)
	st.addApart()
	if got, want := st.qEnqueued[0], int64(5+1<<32+1); got != want {
		t.Errorf("enqueued %d, want %d", got, want)
	}
	if st.qs[0].enqueued != 0 {
		t.Errorf("the state's count is %d after addApart, want 0", st.qs[0].enqueued)
	}
}

// TestFlightReset: reset leaves a used record exactly as the composite
// literal it replaces, whatever the record held before (every byte but the
// request's set, so that a field added to flight but forgotten in reset
// fails here).
func TestFlightReset(t *testing.T) {
	f := flight{req: workload.Request{Seq: 9, ID: "old", TimeUS: 9, Service: 9, Origin: 9, ServiceUS: 9, Prio: 9, Key: 9}}
	ft := reflect.TypeOf(f)
	for i := range ft.NumField() {
		switch k := ft.Field(i).Type.Kind(); {
		case ft.Field(i).Name == "req":
		case k == reflect.Bool, k == reflect.Int32, k == reflect.Int64, k == reflect.Uint8, k == reflect.Uint64:
		default:
			t.Fatalf("field %s: kind %v; this test fills the fields but req with bytes", ft.Field(i).Name, k)
		}
	}
	all := unsafe.Slice((*byte)(unsafe.Pointer(&f)), unsafe.Sizeof(f))
	before, after := all[:unsafe.Offsetof(f.req)], all[unsafe.Offsetof(f.req)+unsafe.Sizeof(f.req):]
	r := workload.Request{Seq: 3, ID: "r3", TimeUS: 40, Service: 1, Origin: 2, ServiceUS: -1, Prio: 5, Key: 11}
	for _, counted := range []bool{false, true} {
		for _, b := range [][]byte{before, after} {
			for i := range b {
				b[i] = 0x01
			}
		}
		f.reset(&r, counted)
		if want := (flight{req: r, queue: -1, server: -1, chosen: -1, counted: counted}); f != want {
			t.Errorf("counted %v: got %+v, want %+v", counted, f, want)
		}
	}
}

// TestBindTo: bindTo leaves the binding a literal would (every field
// written, whatever the binding held), and set copies every field of a
// slot: each field of a slot filled with its own value, and the copy equal
// to it.
func TestBindTo(t *testing.T) {
	var a appState
	fill := func(sl *appSlot, base int64) {
		v := reflect.ValueOf(sl).Elem()
		for i := range v.NumField() {
			// (an unexported field is set through a pointer to it)
			f := reflect.NewAt(v.Field(i).Type(), unsafe.Pointer(v.Field(i).UnsafeAddr())).Elem()
			switch f.Kind() {
			case reflect.Bool:
				f.SetBool(true)
			case reflect.Int32, reflect.Int64:
				f.SetInt(base + int64(i))
			case reflect.Uint8:
				f.SetUint(uint64(base) + uint64(i))
			default:
				t.Fatalf("appSlot.%s: kind %v; this test fills bools and integers", v.Type().Field(i).Name, f.Kind())
			}
		}
	}
	fill(&a.bind, 40)
	if got, want := *a.bindTo(callerServer, 7, 9, 3), (appSlot{kind: callerServer, caller: 7, callerSeq: 9, awaited: -1, replyTo: -1, fwdFrom: -1, tran: 3}); got != want {
		t.Errorf("bindTo: %+v, want %+v", got, want)
	}
	var src, dst appSlot
	fill(&src, 1)
	fill(&dst, 60)
	if dst.set(&src); dst != src {
		t.Errorf("set: %+v, want %+v", dst, src)
	}
}

// TestClientsCalendarSize: the engine sizes the clients' calendar from the
// compiled client sets as the memory estimate does from the scenario
// (core/admission's TestClientsCalendarCost works the same two scenarios by
// hand): two sets of 128 clients thinking 100 ms come due 256 / 100 000 a
// µs, buckets of 256 µs (2^8), 2 048 of them to reach 400 ms; a 1 s backoff
// of one set stretches the reach to 4 s, 16 384 buckets.
func TestClientsCalendarSize(t *testing.T) {
	const ubbText = "*RESOURCES\nIPCKEY 1\nMASTER m0\nMODEL SHM\n*MACHINES\nh0 LMID=m0\n*GROUPS\nG0 LMID=m0 GRPNO=1\n*SERVERS\nsrv SRVGRP=G0 SRVID=1 CLOPT=\"-s L0 --\"\n"
	set := func(name, retry string) string {
		return fmt.Sprintf(`{"name": %q, "count": 128, "think": {"dist": "exp", "mean_ms": 100}, "services": [{"service": "L0"}]%s}`, name, retry)
	}
	for _, c := range []struct {
		retry   string
		buckets int
	}{{"", 2048}, {`, "retry": {"max": 1, "backoff": {"dist": "exp", "mean_ms": 1000}}`, 16384}} {
		sc, err := ParseScenario([]byte(fmt.Sprintf(`{"ubbconfig": %q, "services": {"L0": {"service_time": {"dist": "const", "ms": 1}}},
			"workload": {"generate": {"duration_ms": 20, "clients": [%s, %s]}}}`, ubbText, set("a", c.retry), set("b", ""))))
		if err != nil {
			t.Fatal(err)
		}
		setup, err := newSetup(sc, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if span, n := evq.WheelFor(setup.App.Timers()); span != 8 || n != c.buckets {
			t.Errorf("retry %q: buckets of 2^%d µs, %d of them; want 2^8 and %d", c.retry, span, n, c.buckets)
		}
	}
}
