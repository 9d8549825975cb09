package core

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMergerOrderRandom plays random sorted traces, one per source, through
// the merger's heap and compares the order with a plain reference: every
// request sorted by time, then source, then position in its source.
func TestMergerOrderRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 300 {
		nsrc := 1 + rng.IntN(12)
		span := int64(1 + rng.IntN(50)) // small spans make many ties
		mg := &merger{limit: 1 << 40}
		var want []request
		for s := range nsrc {
			n := rng.IntN(40) // some sources are empty, some end early
			tr := make([]request, n)
			for j := range tr {
				tr[j] = request{TimeUS: rng.Int64N(span), ID: fmt.Sprintf("s%d-%d", s, j)}
			}
			slices.SortStableFunc(tr, func(a, b request) int { return int(a.TimeUS - b.TimeUS) })
			for j := range tr {
				tr[j].ID = fmt.Sprintf("s%d-%d", s, j)
			}
			want = append(want, tr...)
			mg.srcs = append(mg.srcs, source{trace: tr})
		}
		// concatenated in source order, a stable sort by time is the reference
		slices.SortStableFunc(want, func(a, b request) int { return int(a.TimeUS - b.TimeUS) })
		mg.prime()
		var r request
		for i := range want {
			if !mg.Next(&r) {
				t.Fatalf("trial %d: Next stopped after %d requests, want %d", trial, i, len(want))
			}
			if r.ID != want[i].ID || r.TimeUS != want[i].TimeUS || r.Seq != int64(i+1) {
				t.Fatalf("trial %d, request %d: got %s at %d (seq %d), want %s at %d (seq %d)",
					trial, i, r.ID, r.TimeUS, r.Seq, want[i].ID, want[i].TimeUS, i+1)
			}
		}
		if mg.Next(&r) {
			t.Fatalf("trial %d: got %s after the last of %d requests, want the end", trial, r.ID, len(want))
		}
	}
}
