package life

import (
	"slices"
	"testing"
)

// TestHeapOrder: items pop by time, then phase (notices, aborts and the
// DBBL's notices; come-ups; alarms), then scan order, whatever the order
// they were pushed in.
func TestHeapOrder(t *testing.T) {
	want := []Item{
		{T: 5, Srv: 2, Kind: ItemAbort}, {T: 5, Srv: 3, Kind: ItemNotice}, {T: 5, Srv: 0, Kind: ItemUp}, {T: 5, Srv: 4, Kind: ItemUp},
		{T: 5, Srv: 1, Kind: ItemDecay}, {T: 6, Srv: 0, Kind: ItemDecay}, {T: 9, Srv: 7, Kind: ItemDBBL},
	}
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6}, {6, 5, 4, 3, 2, 1, 0}, {3, 6, 0, 4, 1, 5, 2}} {
		var h Heap
		for _, k := range order {
			h.Push(want[k])
		}
		var got []Item
		for len(h) > 0 {
			got = append(got, h.Pop())
		}
		if !slices.Equal(got, want) {
			t.Errorf("pushed in order %v: popped %v, want %v", order, got, want)
		}
	}
}

func TestScanAtOrAfter(t *testing.T) {
	for _, c := range [][3]int64{{0, 10, 10}, {1, 10, 10}, {10, 10, 10}, {11, 10, 20}, {-5, 10, 10}, {2_000_000, 2_000_000, 2_000_000}} {
		if got := ScanAtOrAfter(c[0], c[1]); got != c[2] {
			t.Errorf("ScanAtOrAfter(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
	if got := Causes.Name(SvcTimeout); got != "SVCTIMEOUT" {
		t.Errorf("SvcTimeout's name: %q", got)
	}
}

// TestUpTimes: time running between from = 10 and to = 100, worked by hand.
// Instance 0 runs from 0, stops at 30 and runs again from 50 to the end:
// 10–30 and 50–100, 70. Instance 1 starts at 5 and stops at 8, before
// from: 0. Instance 2 runs from 0 and stops at 120, after to: 10–100, 90.
// Instance 3 starts at 95: 95–100, 5.
func TestUpTimes(t *testing.T) {
	runs := []Run{{T: 5, Srv: 1, Runs: true}, {T: 8, Srv: 1}, {T: 30, Srv: 0}, {T: 50, Srv: 0, Runs: true},
		{T: 95, Srv: 3, Runs: true}, {T: 120, Srv: 2}}
	got := UpTimes([]bool{true, false, true, false}, slices.Values(runs), 10, 100)
	if want := []int64{70, 0, 90, 5}; !slices.Equal(got, want) {
		t.Errorf("UpTimes = %v, want %v", got, want)
	}
}
