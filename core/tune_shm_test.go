package core

import (
	"fmt"
	"strings"
	"testing"
)

// TestFirstIdle: the bit-set search for SHM's first idle candidate finds the
// candidate, and the queue, that testing every candidate in scan order finds,
// on 150 servers (three words of bits) on two machines with random busy
// servers.
func TestFirstIdle(t *testing.T) {
	var b strings.Builder
	b.WriteString("model SHM\nmachine site1 netload 0\nmachine site2 netload 0\ngroup G1 site1\ngroup G2 site2\n")
	for i := 1; i <= 75; i++ {
		svcs := "S"
		switch {
		case i%3 == 0:
			svcs = "S,T"
		case i%7 == 0:
			svcs = "U"
		}
		fmt.Fprintf(&b, "server G1 %d simpserv %s\nserver G2 %d simpserv %s\n", i, svcs, i, svcs)
	}
	m := engModel(t, b.String())
	e, err := newEngine(engSetup(m), nil, simOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRand(5, 0)
	for round := range 2000 {
		busyShare := round % 11 // 0/10 .. 10/10 of the servers busy
		for i := range e.servers {
			busy := r.IntN(10) < busyShare
			e.servers[i].busy = busy
			if busy {
				e.idleBits[i/64] &^= 1 << (i % 64)
			} else {
				e.idleBits[i/64] |= 1 << (i % 64)
			}
		}
		for s := range e.svc {
			sv := &e.svc[s]
			want, wantQ := int32(-1), int32(-1)
			for j, c := range sv.cands {
				if !e.servers[c].busy {
					want, wantQ = c, sv.candQ[j]
					break
				}
			}
			got := e.firstIdle(sv)
			if got != want {
				t.Fatalf("round %d, service %d: got server %d, want %d", round, s, got, want)
			}
			if want >= 0 && sv.queueOf[got] != wantQ {
				t.Fatalf("round %d, service %d: got queue %d for server %d, want %d", round, s, sv.queueOf[got], got, wantQ)
			}
		}
	}
}
