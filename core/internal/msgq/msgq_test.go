package msgq

import "testing"

// TestStoreFigures works one queue's figures out by hand, warm-up 10 µs:
//
//	t  0: two messages stored (depth 2; before the warm-up: no largest)
//	t  5: message 0 taken (depth 1)
//	t 15: message 0 put back at the head, not ready (depth 2: largest 2)
//	t 30: the series bin closes: 2·5 + 1·10 + 2·15 = 50 depth·µs
//	t 35: message 1 taken and forwarded (stored at 0: 35 µs in the queue)
//	t 40: the run ends: 1·5 (10–15) + 2·20 (15–35) + 1·5 (35–40) = 50
//	      depth·µs over the 30 µs measured, a mean depth of 5/3
func TestStoreFigures(t *testing.T) {
	s := New(2, 10)
	s.Add(1, Msg{Key: 7}, 0)
	s.Add(1, Msg{Key: 8}, 0)
	if s.Held != 2 || s.FirstReady(1) != 0 || s.FirstReady(0) != -1 {
		t.Fatalf("held %d, first ready %d and %d; want 2, 0, -1", s.Held, s.FirstReady(1), s.FirstReady(0))
	}
	m0 := s.TakeAt(1, 0, 5)
	if m0.N != 0 || m0.Key != 7 || m0.StoredUS != 0 || !m0.Ready {
		t.Fatalf("first taken: %+v", m0)
	}
	m0.Ready = false
	s.PutBack(1, m0, 15)
	if i := s.FirstReady(1); i != 1 {
		t.Fatalf("first ready with message 0 waiting out its delay: %d, want 1", i)
	}
	if bins := s.CloseBins(30); bins[0] != 0 || bins[1] != 50 {
		t.Fatalf("bins %v, want [0 50]", bins)
	}
	m1 := s.TakeAt(1, 1, 35)
	s.Forwarded(1, &m1, 35)
	s.MakeReady(1, 0)
	if s.FirstReady(1) != 0 || s.Held != 1 {
		t.Fatalf("after MakeReady: first ready %d, held %d; want 0, 1", s.FirstReady(1), s.Held)
	}
	st := s.Stats(1, "Q", 40, 30)
	if st.Name != "Q" || st.Forwarded != 1 || st.Depth.Max != 2 || st.Depth.Mean != 1.666667 || st.TimeInQueueMS.Mean != 0.035 {
		t.Errorf("stats %+v: want forwarded 1, depth max 2, mean 1.666667, time in queue 0.035 ms", st)
	}
}
