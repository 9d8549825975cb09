package threads

import "testing"

// TestBooks works three threads' books by hand, warm-up 10 µs:
//
//	t  0: all free since 0; thread 0 takes slot 7 (Used 1)
//	t  4: thread 1 takes slot 8 (Used 2)
//	t  5: thread 0 ends: its busy 0–5 is before the warm-up (5 µs in the
//	      bin, none measured); freed, it is Pick
//	t 12: thread 1 holds its request for replies; its busy 4–12 counts 2 µs
//	t 20: the hold ends: 8 µs held; thread 1 freed at 25 (busy 12–25: 13 µs)
//
// LongestFree is the free thread free longest, the lowest on ties.
func TestBooks(t *testing.T) {
	m := New(3)
	if m.LongestFree() != 0 || m.Free != 3 {
		t.Fatalf("new: longest free %d, free %d", m.LongestFree(), m.Free)
	}
	m.Pick = 0
	if j := m.Start(7, 0); j != 0 || m.Cur[0] != 7 || m.Used != 1 {
		t.Fatalf("start: thread %d, cur %d, used %d", j, m.Cur[0], m.Used)
	}
	m.Due[0] = 5
	m.Pick = 1
	m.Start(8, 4)
	m.Due[1] = 30
	if m.Used != 2 || m.DueAt(5) != 0 || m.DueAt(30) != 1 || m.DueAt(6) != -1 {
		t.Fatalf("used %d, due at 5: %d, at 30: %d, at 6: %d", m.Used, m.DueAt(5), m.DueAt(30), m.DueAt(6))
	}
	if bin, measured := m.Accrue(0, 5, 10); bin != 5 || measured != 0 {
		t.Fatalf("thread 0 at 5: bin %d, measured %d; want 5, 0", bin, measured)
	}
	m.Release(0)
	m.Since[0] = 5
	if m.Free != 2 || m.Pick != 0 || m.Cur[0] != -1 || m.Due[0] != -1 || m.LongestFree() != 2 {
		t.Fatalf("released: free %d, pick %d, longest free %d", m.Free, m.Pick, m.LongestFree())
	}
	if _, measured := m.Accrue(1, 12, 10); measured != 2 {
		t.Fatalf("thread 1 at 12: measured %d, want 2", measured)
	}
	m.Hold(1, 12)
	if m.DueAt(30) != -1 {
		t.Fatal("a holding thread's work is due")
	}
	if d := m.StopHold(1, 20, 10); d != 8 || m.HeldUS[1] != 8 {
		t.Fatalf("held %d (%d), want 8", d, m.HeldUS[1])
	}
	if _, measured := m.Accrue(1, 25, 10); measured != 13 || m.BusyUS[1] != 15 {
		t.Fatalf("thread 1 at 25: measured %d, busy %d; want 13, 15", measured, m.BusyUS[1])
	}
	m.Release(1)
	m.Since[1] = 25
	if m.LastFree() != 25 || m.LongestFree() != 2 {
		t.Fatalf("last free %d, longest free %d; want 25, 2", m.LastFree(), m.LongestFree())
	}
	m.ComeUp(40)
	if m.LongestFree() != 0 || m.LastFree() != 40 {
		t.Fatalf("after a come-up: longest free %d (the lowest), last free %d", m.LongestFree(), m.LastFree())
	}
}
