package core

import (
	"slices"
	"testing"
)

// The callers' deadlines of one length stay about twice those still
// awaited, however many were issued: 8 clients send 100 000 requests in
// turn, each settling its previous deadline as it issues the next. What
// the queue holds from its head on is every awaited deadline, in order.
func TestDeadlineQueueSweepsSettled(t *testing.T) {
	const clients = 8
	e := &engine{app: &appState{cl: make([]clientState, clients), dl: []deadlineQueue{{lim: 1000}}, dlOf: []int32{0}, dlLo: noTime}}
	a := e.app
	q := &a.dl[0]
	most := 0
	for seq := int64(1); seq <= 100_000; seq++ {
		g := int32(seq % clients)
		// its previous deadline is settled; this one is due at seq + 1000
		a.cl[g].waiting = seq
		e.deadlineFor(0, seq, seq, callerClient, g, 0)
		most = max(most, len(q.evs))
	}
	if most > 2*clients+1024+1 {
		t.Errorf("the queue reached %d deadlines for %d awaited; want at most %d", most, clients, 2*clients+1024+1)
	}
	var awaited []int64
	for _, ev := range q.evs[q.head:] {
		if !e.settled(&ev) {
			awaited = append(awaited, ev.awaited)
		}
	}
	if len(awaited) != clients || awaited[0] != 100_000-clients+1 || !slices.IsSorted(awaited) {
		t.Errorf("awaited deadlines left: %v; want the last %d issued, in order", awaited, clients)
	}
	if a.dlLo > 1001 {
		t.Errorf("dlLo %d: want at most the first deadline pushed, 1001", a.dlLo)
	}
}
