package core

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/rng"
)

// TestFirstIdle: the bit-set search for SHM's first idle candidate finds the
// candidate, and the queue, that testing every candidate in scan order finds,
// on 150 servers (three words of bits) on two machines with random busy
// servers.
func TestFirstIdle(t *testing.T) {
	e := twoSiteEngine(t, "model SHM\nmachine site1 netload 0\nmachine site2 netload 0\n", svcsSTU, nil)
	r := rng.New(5, 0)
	for round := range 2000 {
		busyShare := round % 11 // 0/10 .. 10/10 of the servers busy
		setRandomBusy(e, r, busyShare)
		for s := range e.svc {
			sv := &e.svc[s]
			want, wantQ := int32(-1), int32(-1)
			for j, c := range sv.cands {
				if !e.servers[c].busy {
					want, wantQ = c, sv.candQ[j]
					break
				}
			}
			got := firstCommon(sv.candBits, e.idleBits)
			if got != want {
				t.Fatalf("round %d, service %d: got server %d, want %d", round, s, got, want)
			}
			if got := e.firstIdle(sv.cands); got != want {
				t.Fatalf("round %d, service %d: testing each candidate: got server %d, want %d", round, s, got, want)
			}
			if want >= 0 && sv.queueOf(got) != wantQ {
				t.Fatalf("round %d, service %d: got queue %d for server %d, want %d", round, s, sv.queueOf(got), got, wantQ)
			}
		}
	}
}

// TestFirstIdleLocal: the bit-set search for MP's first idle local candidate
// finds what testing each local candidate in scan order finds, on 150
// servers (three words of bits) with random busy servers.
func TestFirstIdleLocal(t *testing.T) {
	e := twoSiteEngine(t, "model MP ldbal Y\nmachine site1 netload 0\nmachine site2 netload 100\n", func(i int) string {
		if i%3 == 0 {
			return "S,T"
		}
		return "S"
	}, nil)
	r := rng.New(3, 0)
	for round := range 2000 {
		busyShare := round % 11 // 0/10 .. 10/10 of the servers busy
		setRandomBusy(e, r, busyShare)
		for s := range e.svc {
			sv := &e.svc[s]
			for mi := range e.m.Machines {
				want := int32(-1)
				for _, c := range sv.cands {
					if e.m.Servers[c].Machine == mi && !e.servers[c].busy {
						want = c
						break
					}
				}
				if got := firstCommon(sv.localBits[mi], e.idleBits); got != want {
					t.Fatalf("round %d, service %d, machine %d: got server %d, want %d", round, s, mi, got, want)
				}
				if got := e.firstIdle(sv.local[mi]); got != want {
					t.Fatalf("round %d, service %d, machine %d: testing each candidate: got server %d, want %d", round, s, mi, got, want)
				}
				if want >= 0 && sv.queues[sv.queueOf(want)].q != int32(e.m.Servers[want].QueueIdx) {
					t.Fatalf("service %d: queueOf(%d) is not its queue", s, want)
				}
			}
		}
	}
}

// TestQueueOfEveryCandidate: queueOf, which counts the candidates before a
// server in the candidates' bit set, gives every candidate of every service
// its own queue position (candQ), on 150 servers (three words of bits),
// also after random instances stopped being candidates.
func TestQueueOfEveryCandidate(t *testing.T) {
	e := twoSiteEngine(t, "model MP ldbal Y\nmachine site1 netload 0\nmachine site2 netload 100\n", svcsSTU,
		func(i int) int { return 1 + i%2 })
	r := rng.New(9, 0)
	for round := range 20 {
		if round > 0 { // some instances gone, the candidates rebuilt
			for i := range e.servers {
				e.servers[i].state = stateUp
				if r.IntN(4) == 0 {
					e.servers[i].state = stateGone
				}
			}
			e.rebuildCandidates()
		}
		checked := 0
		for s := range e.svc {
			sv := &e.svc[s]
			for j, c := range sv.cands {
				if got := sv.queueOf(c); got != sv.candQ[j] {
					t.Fatalf("round %d, service %d: queueOf(%d) = %d, want candQ[%d] = %d", round, s, c, got, j, sv.candQ[j])
				}
				checked++
			}
		}
		if checked < 100 {
			t.Fatalf("round %d: only %d candidates checked", round, checked)
		}
	}
}

// setRandomBusy makes each server busy with probability tenths/10, keeping
// the idle bit set in step, as start and complete do.
func setRandomBusy(e *engine, r *rng.PCG, tenths int) {
	for i := range e.servers {
		busy := r.IntN(10) < tenths
		e.servers[i].busy = busy
		if busy {
			e.idleBits[i/64] &^= 1 << (i % 64)
		} else {
			e.idleBits[i/64] |= 1 << (i % 64)
		}
	}
}

// twoSiteEngine is an engine on 150 servers (three words of idle bits): the
// model and machine lines of header, then 75 servers in group G1 on site1
// and 75 in G2 on site2; server i of each group advertises svcs(i), and G1's
// server i has n(i) instances (n nil: one, with no n= given).
func twoSiteEngine(t *testing.T, header string, svcs func(i int) string, n func(i int) int) *engine {
	t.Helper()
	var b strings.Builder
	b.WriteString(header + "group G1 site1\ngroup G2 site2\n")
	for i := 1; i <= 75; i++ {
		if n != nil {
			fmt.Fprintf(&b, "server G1 %d simpserv %s n=%d\n", i, svcs(i), n(i))
		} else {
			fmt.Fprintf(&b, "server G1 %d simpserv %s\n", i, svcs(i))
		}
		fmt.Fprintf(&b, "server G2 %d simpserv %s\n", i, svcs(i))
	}
	e, err := newEngine(engSetup(engModel(t, b.String())), nil, simOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// svcsSTU: every third server advertises S and T, every seventh U, the others S.
func svcsSTU(i int) string {
	switch {
	case i%3 == 0:
		return "S,T"
	case i%7 == 0:
		return "U"
	}
	return "S"
}
