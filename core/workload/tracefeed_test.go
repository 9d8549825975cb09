package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/fixture"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// laterBefore counts, for each row, the rows before it of a later time:
// the rows the reorder heap must hold for it (worked out the long way).
func laterBefore(times []int64) int64 {
	var most int64
	for i, t := range times {
		var n int64
		for _, u := range times[:i] {
			if u > t {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}

// The window order.add asks for is at least what every row needs (the rows
// before it of a later time), and no more than the rows back to the first
// of them; past MaxReorderRows it says the log cannot be streamed.
func TestOrderWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 300; n++ {
		times := make([]int64, 1+rng.IntN(60))
		for i := range times {
			times[i] = int64(i/3) + int64(rng.IntN(1+n%7)) - int64(n%5) // small disorder, ties
		}
		var o order
		for i, at := range times {
			if !o.add(int64(i), at) {
				t.Fatalf("%v: row %d refused", times, i)
			}
		}
		if need := laterBefore(times); o.need < need {
			t.Fatalf("%v: window %d, want at least %d", times, o.need, need)
		}
	}
	var o order
	ok := o.add(0, 100)
	for i := int64(1); i <= MaxReorderRows; i++ {
		ok = ok && o.add(i, 100+i)
	}
	if !ok || o.need != 0 {
		t.Fatalf("growing times: ok %v, window %d; want ok and 0", ok, o.need)
	}
	if o.add(MaxReorderRows+1, 50) {
		t.Errorf("a row before %d rows of later times: accepted, want refused", MaxReorderRows+1)
	}
}

// sortedRows reads csv whole and sorts it by time, ties in row order: the
// trace a run must play.
func sortedRows(t *testing.T, csv string) []Request {
	t.Helper()
	n := NewNames(fixture.HandModel())
	var rows []Request
	lines := strings.Split(strings.TrimSpace(csv), "\n")[1:]
	for i, l := range lines {
		var ms int64
		var svc string
		fmt.Sscanf(strings.Replace(l, ",", " ", 1), "%d %s", &ms, &svc)
		s, _ := n.ServiceIndex(svc)
		rows = append(rows, Request{TimeUS: ms * 1000, Service: s, Origin: fixture.Site1, ServiceUS: -1, Key: uint64(i), Trace: true})
	}
	slices.SortStableFunc(rows, func(a, b Request) int { return int(a.TimeUS - b.TimeUS) })
	return rows
}

// A log out of time order is played in time order, ties in row order:
// streamed through the reorder heap when its rows are out of order by
// less than MaxReorderRows, else read whole and sorted.
func TestTraceOutOfOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	build := func(rows int, at func(i int) int) string {
		var b strings.Builder
		b.WriteString("time_ms,service\n")
		for i := 0; i < rows; i++ {
			fmt.Fprintf(&b, "%d,%s\n", at(i), []string{"TOUPPER", "TOLOWER"}[rng.IntN(2)])
		}
		return b.String()
	}
	for _, tc := range []struct {
		name     string
		csv      string
		streamed bool
	}{
		{"in order, ties", build(5000, func(i int) int { return i / 4 }), true},
		{"jittered", build(20000, func(i int) int { return i + rng.IntN(300) }), true},
		{"swapped pairs", build(2000, func(i int) int { return i ^ 1 }), true},
		{"reversed", build(MaxReorderRows+10, func(i int) int { return 1_000_000 - i }), false},
		{"one row late by more than the window", build(MaxReorderRows+10, func(i int) int {
			if i == MaxReorderRows+5 {
				return 0
			}
			return i + 1
		}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cw, err := Compile(NewNames(fixture.HandModel()), &scenario.Workload{TraceCSV: tc.csv})
			if err != nil {
				t.Fatal(err)
			}
			if streamed := cw.csv != nil; streamed != tc.streamed {
				t.Fatalf("streamed %v, want %v", streamed, tc.streamed)
			}
			want := sortedRows(t, tc.csv)
			for _, look := range []bool{false, true} {
				mg, err := cw.Open(1, 0)
				if err != nil {
					t.Fatal(err)
				}
				if look {
					mg.LookAhead(0)
				}
				got := drain(mg)
				if len(got) != len(want) || mg.Err() != nil {
					t.Fatalf("got %d requests (error %v), want %d", len(got), mg.Err(), len(want))
				}
				for i := range got {
					if got[i].TimeUS != want[i].TimeUS || got[i].Service != want[i].Service || got[i].Key != requestKey(1, 0, want[i].Key) {
						t.Fatalf("request %d: got time %d service %d, want time %d service %d (row %d)", i,
							got[i].TimeUS, got[i].Service, want[i].TimeUS, want[i].Service, want[i].Key+1)
					}
				}
			}
		})
	}
}

// Runs of one compiled trace_csv may play it at once (replications, a
// sweep's workers): each reads the text with its own reader and gives the
// same requests (go test -race checks they share nothing they write).
func TestTraceCSVRunsAtOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString("time_ms,service,origin,buftype,route\n")
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "%d,%s,site1,FML32,%d\n", i^3, []string{"TOUPPER", "TOLOWER"}[i%2], i)
	}
	cw, err := Compile(NewNames(fixture.HandModel()), &scenario.Workload{TraceCSV: b.String()})
	if err != nil {
		t.Fatal(err)
	}
	got := make([][]Request, 4)
	done := make(chan int)
	for k := range got {
		go func() {
			mg, err := cw.Open(7, 0)
			if err == nil {
				got[k] = drain(mg)
			}
			done <- k
		}()
	}
	for range got {
		<-done
	}
	for k := range got {
		if len(got[k]) != 3000 || !slices.Equal(got[k], got[0]) {
			t.Fatalf("run %d: %d requests, want the 3000 of run 0", k, len(got[k]))
		}
	}
}

// orderEager is order as it was first written, dropping the records out of
// the window at every row: the reference order's lazier dropping must agree
// with.
type orderEager struct {
	recT, recI []int64
	head       int
	dropped    int64
	need       int64
}

func (o *orderEager) add(i, t int64) bool {
	if i == 0 {
		o.dropped = math.MinInt64
	}
	for o.head < len(o.recI) && o.recI[o.head] < i-MaxReorderRows {
		o.dropped = o.recT[o.head]
		o.head++
	}
	live := o.recT[o.head:]
	last := o.dropped
	if len(live) > 0 {
		last = live[len(live)-1]
	}
	switch {
	case i == 0 || t > last:
		o.recT, o.recI = append(o.recT, t), append(o.recI, i)
		return true
	case t == last:
		return true
	}
	lo := sort.Search(len(live), func(m int) bool { return live[m] > t })
	if lo == len(live) || (lo == 0 && o.dropped > t) {
		return false
	}
	o.need = max(o.need, i-o.recI[o.head+lo])
	return true
}

// order, which drops the records out of the window only now and then, asks
// for the window and refuses the rows that the eager reference does, over
// logs long enough to drop many, that go back now and then by up to more
// than the window; it holds at most twice the window's records.
func TestOrderMatchesEager(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for n := 0; n < 40; n++ {
		var o order
		var ref orderEager
		tm := int64(rng.IntN(100))
		for i := int64(0); i < 30000; i++ {
			switch k := rng.IntN(1000); {
			case k < 1 && n%5 != 4: // back (times grow by about one every two rows; never in one log of five)
				tm -= int64(rng.IntN([]int{10, 300, 1000, 2500}[n%4]))
			case k < 500:
				tm += int64(rng.IntN(3))
			}
			got, want := o.add(i, tm), ref.add(i, tm)
			if got != want || o.need != ref.need {
				t.Fatalf("log %d row %d (time %d): %v, window %d; want %v, %d", n, i, tm, got, o.need, want, ref.need)
			}
			if held := len(o.recI) - o.head; held > 2*MaxReorderRows+1 {
				t.Fatalf("log %d row %d: %d records held, want at most %d", n, i, held, 2*MaxReorderRows+1)
			}
			if !got {
				break
			}
		}
	}
}
