package deque

import (
	"slices"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/rng"
)

// TestDequeMatchesSlice: random pushes at either end and takes at any
// position leave the items a plain slice edited the same way holds.
func TestDequeMatchesSlice(t *testing.T) {
	r := rng.New(3, 7)
	var d Deque[int]
	var want []int
	for step := range 20_000 {
		switch k := r.IntN(6); {
		case k < 2:
			d.PushTail(step)
			want = append(want, step)
		case k == 2:
			d.PushHead(step)
			want = slices.Insert(want, 0, step)
		case len(want) > 0:
			i := r.IntN(len(want))
			if got := d.TakeAt(i); got != want[i] {
				t.Fatalf("step %d: TakeAt(%d) = %d, want %d", step, i, got, want[i])
			}
			want = slices.Delete(want, i, i+1)
		}
		if d.Len() != len(want) {
			t.Fatalf("step %d: Len = %d, want %d", step, d.Len(), len(want))
		}
		if len(want) > 0 {
			if i := r.IntN(len(want)); *d.At(i) != want[i] {
				t.Fatalf("step %d: At(%d) = %d, want %d", step, i, *d.At(i), want[i])
			}
		}
	}
}

// TestDequeReusesRoom: items pushed at the tail and taken at the head, a
// few at a time, keep the slice bounded by what is held, not by what
// passed through.
func TestDequeReusesRoom(t *testing.T) {
	var d Deque[int]
	for k := range 100_000 {
		d.PushTail(k)
		if k%2 == 1 {
			d.TakeAt(0)
			d.TakeAt(0)
		}
	}
	if c := cap(d.items); c > 64 {
		t.Errorf("after 100 000 items through a deque of at most 2: capacity %d, want at most 64", c)
	}
}
