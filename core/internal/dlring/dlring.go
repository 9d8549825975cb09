// Package dlring holds core's rings of the clients awaiting a deadline
// (core/deadlines.go): one ring per deadline length, its members in the
// order they entered it, linked both ways through per-member links, with a
// sentinel entry per ring past the members so that linking and unlinking
// never test for an end.
package dlring

import (
	"slices"

	"github.com/tuxlb/tuxlb/core/internal/evq"
)

// Rings is the rings of members 0..n-1; a member is in one ring at most.
type Rings struct {
	prev, next []int32 // per member, then each ring's sentinel; prev is -1 for a member in none
	n          int32
}

// New returns empty rings: n members (fewer than 1<<evq.IdxBits), rings rings.
func New(n, rings int) Rings {
	r := Rings{prev: make([]int32, n+rings), next: make([]int32, n+rings), n: int32(n)}
	for g := range r.prev {
		r.prev[g], r.next[g] = -1, -1
	}
	for s := int32(n); s < int32(n+rings); s++ {
		r.prev[s], r.next[s] = s, s
	}
	return r
}

// In links member g, in no ring, last in ring k, and reports whether it is
// that ring's first.
func (r *Rings) In(k int, g int32) bool {
	s := r.n + int32(k)
	p := r.prev[s]
	r.prev[g], r.next[g] = p, s
	r.next[p], r.prev[s] = g, g
	return p == s
}

// Out takes member g out of its ring, if it is in one.
func (r *Rings) Out(g int32) {
	if p := r.prev[g]; p >= 0 {
		n := r.next[g]
		r.next[p], r.prev[n] = n, p
		r.prev[g] = -1
	}
}

// Linked reports whether member g is in a ring.
func (r *Rings) Linked(g int32) bool { return r.prev[g] >= 0 }

// First returns ring k's first member, -1 for none.
func (r *Rings) First(k int) int32 { return r.Next(r.n + int32(k)) }

// Next returns the member after g in its ring (g a member in one, or a
// ring's sentinel), -1 past the last.
func (r *Rings) Next(g int32) int32 {
	if n := r.next[g]; n < r.n {
		return n
	}
	return -1
}

// Add links the members of keys (evq.Event keys: an order, then the
// member) last in ring k, in the keys' order, and returns how many; it
// sorts keys.
func (r *Rings) Add(k int, keys []evq.Event) int {
	slices.Sort(keys)
	for _, key := range keys {
		r.In(k, key.Idx())
	}
	return len(keys)
}
