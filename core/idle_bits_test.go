package core

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/bitset"
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
			got := bitset.FirstCommonOf(sv.candBits, sv.candSum, e.idleBits, e.idleSum)
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
				if got := bitset.FirstCommonOf(sv.localBits[mi], sv.localSum[mi], e.idleBits, e.idleSum); got != want {
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
			e.markBusy(int32(i))
		} else {
			e.markIdle(int32(i))
		}
	}
}

// TestFirstCommonSummary: with candidate and idle sets of up to 20 000
// servers (313 words, five summary words), sparse and dense, kept by
// markIdle and markBusy, bitset.FirstCommonOf finds the smallest server in
// both, as testing every server in order does, and the summaries stay
// those of their words.
func TestFirstCommonSummary(t *testing.T) {
	t.Parallel()
	r := rng.New(9, 1)
	for round := range 300 {
		n := 1 + r.IntN(20_000)
		words := (n + 63) / 64
		e := &engine{idleBits: make([]uint64, words), idleSum: make([]uint64, (words+63)/64), sums: true}
		cands, candSum := make([]uint64, words), make([]uint64, (words+63)/64)
		pc, pi := r.IntN(1000), r.IntN(1000) // per mille: candidates, idle servers
		if round%3 == 0 {
			pc, pi = r.IntN(10), r.IntN(10) // sparse: most words empty
		}
		for i := range n {
			if r.IntN(1000) < pc {
				cands[i/64] |= 1 << (i % 64)
			}
			e.markIdle(int32(i)) // every server idle, then some busy: markBusy's summary
			if r.IntN(1000) >= pi {
				e.markBusy(int32(i))
			}
		}
		bitset.Summarise(candSum, cands)
		want := int32(-1)
		for i := range n {
			if cands[i/64]&e.idleBits[i/64]&(1<<(i%64)) != 0 {
				want = int32(i)
				break
			}
		}
		if got := bitset.FirstCommonOf(cands, candSum, e.idleBits, e.idleSum); got != want {
			t.Fatalf("round %d (%d servers): got %d, want %d", round, n, got, want)
		}
		sum := make([]uint64, len(e.idleSum))
		bitset.Summarise(sum, e.idleBits)
		if !slices.Equal(sum, e.idleSum) {
			t.Fatalf("round %d: markIdle and markBusy left a summary that is not the idle bits'", round)
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
