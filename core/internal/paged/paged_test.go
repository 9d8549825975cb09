package paged

import "testing"

// TestPoolKeepsAddresses: slots are handed out in order, each record zero
// when handed out, and a record's address and value stay through the pages
// added after it.
func TestPoolKeepsAddresses(t *testing.T) {
	var p Pool[[3]int64]
	const n = 3*Page + 17
	ptrs := make([]*[3]int64, n)
	for i := range n {
		s := p.Add()
		if int(s) != i || p.Len() != i+1 {
			t.Fatalf("add %d: slot %d, len %d", i, s, p.Len())
		}
		r := p.At(s)
		if *r != ([3]int64{}) {
			t.Fatalf("slot %d handed out with %v", s, *r)
		}
		r[0], r[2] = int64(i), -int64(i)
		ptrs[i] = r
	}
	for i := range n {
		if r := p.At(int32(i)); r != ptrs[i] || r[0] != int64(i) || r[2] != -int64(i) {
			t.Fatalf("slot %d: %p %v, want %p [%d 0 %d]", i, r, *r, ptrs[i], i, -i)
		}
	}
}
