package core

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/dlring"
	"github.com/tuxlb/tuxlb/core/plan"
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
// clients awaiting a deadline of its length, in issue order, the first of
// them (those out of it issued later, its unl at most the first of those);
// after link with a horizon past them all, exactly those; and dlLo is at
// most the first deadline awaited. Linked every 8 steps or so, the rings
// turn eager (the clients enter as they issue); every 500, they stay lazy.
func TestClientDeadlineRings(t *testing.T) {
	for _, every := range []int{8, 500} {
		t.Run(strconv.Itoa(every), func(t *testing.T) { testClientDeadlineRings(t, every) })
	}
}

func testClientDeadlineRings(t *testing.T, every int) {
	const clients = 50
	a := &appState{plan: &plan.App{NClient: clients}, dlOf: []int32{0, 1, 0, -1},
		dl:   []deadlineQueue{{lim: 1_000_000, unl: noTime}, {lim: 3_000_000, unl: noTime}},
		dlLo: noTime, cl: make([]clientState, clients)}
	a.rings = dlring.New(clients, len(a.dl))
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
			c.waiting, c.issueUS, c.service = seq, now, int32(r.IntN(len(a.dlOf)))
			a.clientDeadline(g, int(c.service), now)
			if k := a.dlOf[c.service]; k >= 0 {
				want[k] = append(want[k], wait{g, now + a.dl[k].lim, seq})
			}
		} else { // its outcome
			a.rings.Out(g)
			c.waiting = 0
			for k := range want {
				want[k] = slices.DeleteFunc(want[k], func(w wait) bool { return w.g == g })
			}
		}
		all := r.IntN(every) == 0
		for k := range a.dl {
			if all {
				a.link(&a.dl[k], k, seq)
			}
			var got []wait
			for h := a.rings.First(k); h >= 0; h = a.rings.Next(h) {
				got = append(got, wait{h, a.cl[h].dlAt, a.cl[h].waiting})
				if len(got) > clients {
					t.Fatalf("step %d: ring %d does not close", seq, k)
				}
			}
			if all && len(got) != len(want[k]) || len(got) > len(want[k]) || !slices.Equal(got, want[k][:len(got)]) {
				t.Fatalf("step %d: ring %d holds %v; want %v (all: %v)", seq, k, got, want[k], all)
			}
			if len(got) < len(want[k]) && a.dl[k].unl > want[k][len(got)].at {
				t.Fatalf("step %d: ring %d's unl %d is after the first deadline out of it %d", seq, k, a.dl[k].unl, want[k][len(got)].at)
			}
			if len(want[k]) > 0 && a.dlLo > want[k][0].at {
				t.Fatalf("step %d: dlLo %d is after ring %d's first deadline %d", seq, a.dlLo, k, want[k][0].at)
			}
		}
	}
	for k := range a.dl {
		if a.dl[k].eager != (every == 8) {
			t.Errorf("ring %d: eager %v, linked every %d steps or so", k, a.dl[k].eager, every)
		}
	}
}
