package batchmeans

import (
	"slices"
	"testing"

	"github.com/tuxlb/tuxlb/core/workload"
)

// TestBounds: 45 rows of one service at 0, 10, ..., 440 ms make 20
// batches whose first rows are rows ⌊b·45/20⌋ (b = 1..19): rows 2, 4, 6,
// 9, ...; a log out of time order is batched the same once sorted.
func TestBounds(t *testing.T) {
	var obs []workload.ObservedRow
	for i := range 45 {
		obs = append(obs, workload.ObservedRow{Service: 0, TimeUS: int64(i) * 10_000, US: 1000})
	}
	var want []int64
	for b := 1; b < 20; b++ {
		want = append(want, int64(b*45/20)*10_000)
	}
	sorted := Bounds(obs, 1, 0)
	if !slices.Equal(sorted[0], want) || !slices.Equal(sorted[1], want) {
		t.Errorf("in time order: bounds %v, want %v", sorted[0], want)
	}
	rev := slices.Clone(obs)
	slices.Reverse(rev)
	if got := Bounds(rev, 1, 0); !slices.Equal(got[0], want) || !slices.Equal(got[1], want) {
		t.Errorf("out of time order: bounds %v, want %v", got[0], want)
	}
	// from 100 ms: rows 10..44, 35 rows in 17 batches
	held := Bounds(obs, 1, 100_000)
	if n := len(held[0]) + 1; n != 17 || held[0][0] != 120_000 {
		t.Errorf("from 100 ms: %d batches from %v, want 17, the second from 120 ms (row 10 + ⌊35/17⌋)", n, held[0])
	}
}

// TestBoundsPerService: two services interleaved, A at even rows and B at
// odd ones, 8 rows each: each is cut into 4 batches of 2 of its own rows
// (fewer than 40 rows: n/2), and all 16 together into 8 batches of 2.
func TestBoundsPerService(t *testing.T) {
	var obs []workload.ObservedRow
	for i := range 16 {
		obs = append(obs, workload.ObservedRow{Service: int32(i % 2), TimeUS: int64(i) * 1000})
	}
	got := Bounds(obs, 2, 0)
	if !slices.Equal(got[0], []int64{4000, 8000, 12000}) || !slices.Equal(got[1], []int64{5000, 9000, 13000}) {
		t.Errorf("per service: %v and %v, want A from 4, 8, 12 ms and B from 5, 9, 13 ms", got[0], got[1])
	}
	if !slices.Equal(got[2], []int64{2000, 4000, 6000, 8000, 10000, 12000, 14000}) {
		t.Errorf("all together: %v, want every 2 ms from 2 ms", got[2])
	}
}

// TestWindowBatches: 45 rows of one service at 0, 10, ..., 440 ms,
// from 100 ms: rows 10..44, the 35 observed responses added up in the
// batches (TestBounds checks where the batches start).
func TestWindowBatches(t *testing.T) {
	var obs []workload.ObservedRow
	for i := range 45 {
		obs = append(obs, workload.ObservedRow{Service: 0, TimeUS: int64(i) * 10_000, US: 1000})
	}
	held := NewWindow(obs, 1, 100_000)
	if n := len(held.Svc[0].Obs.n); n != 17 {
		t.Errorf("from 100 ms: %d batches, want 17", n)
	}
	if got := held.Svc[0].Obs.n; sumInts(got) != 35 || sumInts(held.All.Obs.sum) != 35*1000 {
		t.Errorf("from 100 ms: %d rows in the batches, summing %d us; want 35 and 35000", sumInts(got), sumInts(held.All.Obs.sum))
	}
}

func sumInts(xs []int64) (n int64) {
	for _, x := range xs {
		n += x
	}
	return n
}
