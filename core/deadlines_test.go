package core

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The callers' deadlines of one length stay about twice those still
// awaited, however many were issued: 8 servers, each holding a request,
// call 100 000 children in turn, each call settling the server's previous
// child as it issues the next. What the queue holds from its head on is
// every awaited deadline, in order.
func TestDeadlineQueueSweepsSettled(t *testing.T) {
	const callers = 8
	e := &engine{app: &appState{slots: make([]appSlot, callers), outs: make([][]int64, callers),
		dl: []deadlineQueue{{lim: 1000}}, dlOf: []int32{0}, dlLo: noTime}, servers: make([]serverState, callers)}
	a := e.app
	for p := range int32(callers) {
		s := e.pool.Add()
		e.pool.At(s).req.Seq, e.pool.At(s).server = int64(p)+1, p
		e.servers[p].busy, e.servers[p].cur = true, s
		a.slots[s].holding = true
	}
	q := &a.dl[0]
	most := 0
	for seq := int64(1); seq <= 100_000; seq++ {
		p := int32(seq % callers)
		// its previous child is settled; this one is due at seq + 1000
		a.outs[p] = append(a.outs[p][:0], seq)
		e.deadlineFor(0, seq, seq, callerServer, p, int64(p)+1)
		most = max(most, len(q.evs))
	}
	if most > 2*callers+1024+1 {
		t.Errorf("the queue reached %d deadlines for %d awaited; want at most %d", most, callers, 2*callers+1024+1)
	}
	var awaited []int64
	for _, ev := range q.evs[q.head:] {
		if !e.settled(&ev) {
			awaited = append(awaited, ev.awaited)
		}
	}
	if len(awaited) != callers || awaited[0] != 100_000-callers+1 || !slices.IsSorted(awaited) {
		t.Errorf("awaited deadlines left: %v; want the last %d issued, in order", awaited, callers)
	}
	if a.dlLo > 1001 {
		t.Errorf("dlLo %d: want at most the first deadline pushed, 1001", a.dlLo)
	}
}

// The clients' deadlines, in rings: 50 clients issue requests of three
// services (two of BLOCKTIME 1 s, one of 3 s, one without) and see their
// outcomes in random order, 20 000 steps. After each step each ring holds
// exactly the clients awaiting a deadline of its length, in issue order,
// its first the earliest of them, and dlLo is at most that first
// deadline.
func TestClientDeadlineRings(t *testing.T) {
	const clients = 50
	a := &appState{dlOf: []int32{0, 1, 0, -1}, dl: []deadlineQueue{{lim: 1_000_000, sent: clients}, {lim: 3_000_000, sent: clients + 1}},
		dlLo: noTime, cl: make([]clientState, clients+2)}
	for k := range a.dl {
		s := a.dl[k].sent
		a.cl[s].prev, a.cl[s].next = s, s
	}
	type wait struct {
		g   int32
		at  int64
		seq int64
	}
	var want [2][]wait // per ring: the clients awaiting, in issue order
	r := rand.New(rand.NewPCG(1, 2))
	for g := range a.cl[:clients] {
		a.cl[g].dlAt = noTime
	}
	now := int64(0)
	for seq := int64(1); seq <= 20_000; seq++ {
		now += r.Int64N(3000)
		g := int32(r.IntN(clients))
		c := &a.cl[g]
		if c.waiting == 0 { // it issues
			c.waiting, c.service = seq, int32(r.IntN(len(a.dlOf)))
			a.clientDeadline(g, int(c.service), now)
			if k := a.dlOf[c.service]; k >= 0 {
				want[k] = append(want[k], wait{g, now + a.dl[k].lim, seq})
			}
		} else { // its outcome
			a.unwait(c)
			c.waiting = 0
			for k := range want {
				want[k] = slices.DeleteFunc(want[k], func(w wait) bool { return w.g == g })
			}
		}
		for k := range a.dl {
			var got []wait
			for h := a.cl[a.dl[k].sent].next; h != a.dl[k].sent; h = a.cl[h].next {
				got = append(got, wait{h, a.cl[h].dlAt, a.cl[h].waiting})
				if len(got) > clients {
					t.Fatalf("step %d: ring %d does not close", seq, k)
				}
			}
			if !slices.Equal(got, want[k]) {
				t.Fatalf("step %d: ring %d holds %v; want %v", seq, k, got, want[k])
			}
			if len(got) > 0 && a.dlLo > got[0].at {
				t.Fatalf("step %d: dlLo %d is after ring %d's first deadline %d", seq, a.dlLo, k, got[0].at)
			}
		}
	}
}
