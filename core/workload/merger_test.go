package workload

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/fixture"

	"github.com/tuxlb/tuxlb/core/internal/mergetree"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// TestMergerMatchesSources plays workloads of a trace (with equal times) and
// streams (constant ones, whose times tie with the trace's and each other's)
// through the merger, with and without the look-ahead, and compares every
// request with a reference: each source played alone (the trace's rows keyed
// by their row, each stream from its own cursor), the whole stably sorted by
// time in source order, then numbered.
func TestMergerMatchesSources(t *testing.T) {
	const trace = "time_ms,service,id\n2,TOLOWER,b\n0,TOUPPER,a\n2,TOUPPER,c\n5,TOLOWER,d\n"
	constant := func(svc string, rate float64) scenario.Stream {
		return scenario.Stream{Service: svc, Arrivals: "constant", RatePerS: rate}
	}
	poisson := scenario.Stream{Service: "TOUPPER", Origin: "site2", Arrivals: "poisson", RatePerS: 3000, Prio: ip(7)}
	tests := []struct {
		name    string
		trace   string
		durMS   float64
		streams []scenario.Stream
	}{
		{"trace only", trace, 0, nil},
		{"one stream", "", 6, []scenario.Stream{constant("TOUPPER", 1000)}},
		{"streams only", "", 6, []scenario.Stream{constant("TOUPPER", 1000), poisson, constant("TOLOWER", 500)}},
		{"trace and streams", trace, 6, []scenario.Stream{constant("TOUPPER", 1000), poisson, constant("TOLOWER", 500)}},
		{"nine streams", trace, 4, []scenario.Stream{poisson, constant("TOUPPER", 1000), poisson, poisson, constant("TOLOWER", 2000),
			poisson, poisson, constant("TOLOWER", 1000), poisson}},
		// the largest times: a request at 0 and one 1 us before the 10^12 us bound
		{"largest time", "time_ms,service\n999999999.999,TOUPPER\n", 1e9, []scenario.Stream{constant("TOLOWER", 1/(1e9-0.001)*1000)}},
		{"many requests", trace, 10_000, []scenario.Stream{poisson, poisson}}, // more than the look-ahead holds
	}
	for _, tt := range tests {
		sc := &scenario.Scenario{Workload: scenario.Workload{TraceCSV: tt.trace}}
		if tt.streams != nil {
			sc.Workload.Generate = &scenario.Generator{DurationMS: tt.durMS, Streams: tt.streams}
		}
		cw, err := Compile(NewNames(fixture.HandModel()), &sc.Workload)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		const seed = 9
		held, err := cw.TraceRequests()
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Clone(held)
		for i := range want {
			want[i].Key = requestKey(seed, 0, want[i].Key)
			want[i].Trace = true
		}
		for i := range cw.streams {
			var s streamSource
			cw.streams[i].start(&s, seed, i)
			for us := s.next(nil, 0, 0); us != mergetree.NoMore; {
				var r Request
				us = s.next(&r, us, 0)
				want = append(want, r)
			}
		}
		slices.SortStableFunc(want, func(a, b Request) int { return int(a.TimeUS - b.TimeUS) })
		for i := range want {
			want[i].Seq = int64(i + 1)
		}
		if tt.name == "largest time" { // the trace's row first, then the stream's, both at the last microsecond
			if n := len(want); n != 3 || want[1].TimeUS != usec.Max-1 || want[2].TimeUS != usec.Max-1 ||
				want[1].Service != fixture.SvcToUpper || want[2].Service != fixture.SvcToLower {
				t.Fatalf("largest time: the reference is %+v, want 3 requests, the last two at %d us", want, int64(usec.Max-1))
			}
		}
		for _, look := range []bool{false, true} {
			mg, err := cw.Open(seed, 0)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if look {
				mg.LookAhead(0)
			}
			got := drain(mg)
			if mg.Err() != nil || len(got) != len(want) {
				t.Fatalf("%s (look-ahead %v): got %d requests and error %v, want %d and none", tt.name, look, len(got), mg.Err(), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s (look-ahead %v), request %d: got %+v, want %+v", tt.name, look, i, got[i], want[i])
				}
			}
		}
	}
}

// fixedSource is a source of another kind for TestAddedSource: requests of
// service svc at the given times (µs), their keys drawn from the seed.
type fixedSource struct {
	id    string
	svc   int
	times []int64
}

func (s fixedSource) Expected() float64 { return float64(len(s.times)) }

func (s fixedSource) Open(seed uint64) (Source, int64) {
	run := &fixedRun{spec: s, key: KeyBase(seed, 77)}
	if len(s.times) == 0 {
		return run, mergetree.NoMore
	}
	return run, s.times[0]
}

type fixedRun struct {
	spec fixedSource
	i    int
	key  uint64
}

func (r *fixedRun) Take(q *Request) int64 {
	*q = Request{TimeUS: r.spec.times[r.i], Service: r.spec.svc, ServiceUS: -1, Key: Mix64(r.key ^ uint64(r.i)), ID: r.spec.id}
	r.i++
	if r.i == len(r.spec.times) {
		return mergetree.NoMore
	}
	return r.spec.times[r.i]
}

// A source added to a compiled workload (the seam for new kinds of
// workload) merges with the trace and the streams by time: at one instant
// the trace's rows first, then the added sources' in the order added, then
// the streams'; its requests are numbered with the others, count in the
// expected total and the request limit, and each run of it is opened
// afresh (two runs give the same requests).
func TestAddedSource(t *testing.T) {
	sc := &scenario.Scenario{Workload: scenario.Workload{TraceCSV: "time_ms,service,id\n2,TOLOWER,t1\n5,TOLOWER,t2\n",
		Generate: &scenario.Generator{DurationMS: 6, Streams: []scenario.Stream{{Service: "TOUPPER", Arrivals: "constant", RatePerS: 400}}}}}
	cw, err := Compile(NewNames(fixture.HandModel()), &sc.Workload)
	if err != nil {
		t.Fatal(err)
	}
	cw.AddSource(fixedSource{id: "x", svc: 0, times: []int64{0, 2000, 2000, 7000}})
	cw.AddSource(fixedSource{id: "y", svc: 1, times: []int64{2000}})
	play := func() []string {
		mg, err := cw.Open(3, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		var r Request
		for mg.Next(&r) {
			who := r.ID
			if who == "" {
				who = "stream"
			}
			out = append(out, usec.FormatMS(r.TimeUS)+" "+who+" #"+strconv.FormatInt(r.Seq, 10))
		}
		if mg.Err() != nil {
			t.Fatal(mg.Err())
		}
		if want := 2 + int64(math.Round(cw.Expected+5)); mg.Total() != want { // the trace's rows, the stream's, the sources' 5
			t.Errorf("Total: %d, want %d", mg.Total(), want)
		}
		return out
	}
	got := play()
	want := []string{"0 x #1", "0 stream #2", "2 t1 #3", "2 x #4", "2 x #5", "2 y #6", "2.5 stream #7", "5 t2 #8", "5 stream #9", "7 x #10"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("merged:\n got %v\nwant %v", got, want)
	}
	if again := play(); strings.Join(again, ",") != strings.Join(got, ",") {
		t.Errorf("a second run gives %v", again)
	}
	if _, err := cw.Open(3, 9); err == nil || !strings.Contains(err.Error(), "over the limit of 9") {
		t.Errorf("a limit below the sources' requests: got %v", err)
	}
}

// TestRequestSet: Set copies every field of a request (each set to a value
// of its own, and the copy equal to it), whatever the copy held.
func TestRequestSet(t *testing.T) {
	fill := func(r *Request, base int64) {
		v := reflect.ValueOf(r).Elem()
		for i := range v.NumField() {
			switch f := v.Field(i); f.Kind() {
			case reflect.Bool:
				f.SetBool(true)
			case reflect.Int, reflect.Int32, reflect.Int64:
				f.SetInt(base + int64(i))
			case reflect.Uint64:
				f.SetUint(uint64(base) + uint64(i))
			case reflect.Float64:
				f.SetFloat(float64(base) + float64(i))
			case reflect.String:
				f.SetString(fmt.Sprint(base + int64(i)))
			default:
				t.Fatalf("Request.%s: kind %v; this test fills bools, numbers and strings", v.Type().Field(i).Name, f.Kind())
			}
		}
	}
	var src, dst Request
	fill(&src, 1)
	fill(&dst, 50)
	if dst.Set(&src); dst != src {
		t.Errorf("Set: %+v, want %+v", dst, src)
	}
}
