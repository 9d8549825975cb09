package core

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/workload"
)

// TestChooseAgainstRules: choose's MP and SHM rules give what a plain
// reading of docs/engine.md's table gives, computed here from the
// authoritative state (n(q) from the queue, N(q) from netLoadFor, every
// candidate tested in scan order), in random states: 156 servers (three words
// of idle bits) on three machines with different NETLOADs, queues of one to
// four instances (MSSQ), per-group LOADs, instances leaving and rejoining the
// candidates (rebuildCandidates, so n(q) changes under the precomputed
// service tables), random busy servers, waiting requests and W(q), and
// counters up to the int64 range so that the exact cross-multiplied
// comparison wraps as the rule's own int64 arithmetic does; with every
// reading of idle, netload and mp_counter.
func TestChooseAgainstRules(t *testing.T) {
	var b strings.Builder
	b.WriteString("model MP ldbal Y\nmachine site1 netload 0\nmachine site2 netload 100\nmachine site3 netload 37\n")
	b.WriteString("group G1 site1\ngroup G2 site2\ngroup G3 site3\n")
	b.WriteString("service S load 50 prio 50\nservice S load 20 prio 50 group G2\nservice T load 80 prio 60\n")
	srv := 0
	for i := 1; srv < 156; i++ {
		for _, g := range []string{"G1", "G2", "G3"} {
			svcs := "S"
			switch {
			case i%3 == 0:
				svcs = "S,T"
			case i%5 == 0:
				svcs = "T,U"
			}
			n := 1 + (i+len(g))%4 // MSSQ sets of 1..4 instances
			fmt.Fprintf(&b, "server %s %d simpserv %s rq=Q%s%d n=%d\n", g, 10*i, svcs, g, i, n)
			srv += n
		}
	}
	m := engModel(t, b.String())
	type reading struct{ idle, netload, counter string }
	readings := []reading{
		{"server", "server", "load+netload"},
		{"server", "origin", "load+netload"},
		{"server", "server", "load"},
		{"queue", "origin", "load"},
		{"queue", "server", "load+netload"},
	}
	for _, model := range []string{"MP", "SHM"} {
		for _, rd := range readings {
			t.Run(fmt.Sprintf("%s/idle=%s,netload=%s,counter=%s", model, rd.idle, rd.netload, rd.counter), func(t *testing.T) {
				mm := *m
				mm.Model = model
				setup := engSetup(&mm)
				setup.Tuning.Idle, setup.Tuning.NetLoad, setup.Tuning.MPCounter = rd.idle, rd.netload, rd.counter
				e, err := newEngine(setup, nil, simOptions{})
				if err != nil {
					t.Fatal(err)
				}
				checkChoose(t, e, rng.New(11, 0))
			})
		}
	}
}

func checkChoose(t *testing.T, e *engine, r *rng.PCG) {
	t.Helper()
	m := e.m
	states := []instState{stateUp, stateUp, stateUp, stateDown, stateRestarting, stateStopping, stateBooting, stateGone}
	for round := range 300 {
		// every 10th round, instances leave or rejoin the candidates
		if round%10 == 0 {
			for i := range e.servers {
				e.servers[i].state = states[r.IntN(len(states))]
			}
			e.rebuildCandidates()
		}
		setRandomBusy(e, r, round%11)
		for i := range e.servers {
			if st := e.servers[i].state; st != stateUp && st != stateDown {
				e.idleBits[i/64] &^= 1 << (i % 64) // as setState leaves them: never idle
			}
		}
		for qi := range e.queues {
			q := &e.queues[qi]
			q.wait.n = int32(r.IntN(3))
			q.work = int64(r.IntN(4) * 60) // few values: ties
		}
		for i := range e.counters {
			switch r.IntN(4) {
			case 0:
				e.counters[i] = int64(r.Uint64() >> 1) // near the top: the products wrap
			case 1:
				e.counters[i] = int64(r.IntN(4) * 60) // few values: ties
			default:
				e.counters[i] = int64(r.IntN(2000))
			}
		}
		for s := range e.svc {
			sv := &e.svc[s]
			if len(sv.cands) == 0 {
				continue
			}
			for origin := range m.Machines {
				f := &flight{req: workload.Request{Service: s, Origin: origin}}
				want := append([]int64(nil), e.counters...)
				wq, wc, wr := refChoose(e, sv, origin, want)
				sq, c, why := e.choose(f, sv)
				if sq.q != wq || c != wc || why != wr {
					t.Fatalf("round %d, service %d, origin %d: got queue %d, instance %d, %s; want queue %d, instance %d, %s",
						round, s, origin, sq.q, c, why, wq, wc, wr)
				}
				for i := range want {
					if e.counters[i] != want[i] {
						t.Fatalf("round %d, service %d, origin %d: counter %d is %d, want %d", round, s, origin, i, e.counters[i], want[i])
					}
				}
			}
		}
	}
}

// refChoose is the MP or SHM rule read plainly off docs/engine.md, charging
// the MP counters in counters.
func refChoose(e *engine, sv *svcInfo, origin int, counters []int64) (q int32, chosen int32, why reason) {
	mod := e.m
	idle := func(c int32) bool {
		st := &e.servers[c]
		if e.idleQueue {
			return st.state != stateRestarting && e.queues[st.queue].wait.n == 0
		}
		return !st.busy && (st.state == stateUp || st.state == stateDown)
	}
	n := func(q int32) int64 { // n(q), counted from its instances
		var k int64
		for _, i := range e.queues[q].servers {
			if e.servers[i].state.candidate() {
				k++
			}
		}
		return k
	}
	load := func(q int32) int64 { // L(s,q)
		return int64(mod.Services[sv.service].Params(mod.Queues[q].Group).Load)
	}
	net := func(q int32) int64 { // N(q)
		qm := mod.Queues[q].Machine
		switch {
		case qm == origin:
			return 0
		case e.netOrigin:
			return int64(mod.Machines[origin].NetLoad)
		}
		return int64(mod.Machines[qm].NetLoad)
	}
	nq := len(e.queues)
	mp := e.alg == algMP
	for _, c := range sv.cands {
		if (!mp || mod.Servers[c].Machine == origin) && idle(c) {
			q := int32(mod.Servers[c].QueueIdx)
			if mp {
				counters[origin*nq+int(q)] += load(q)
			}
			return q, c, reasonIdle
		}
	}
	best := -1
	var bn, bd int64
	for k, sq := range sv.queues {
		num := e.queues[sq.q].work + load(sq.q)*n(sq.q)
		if mp {
			num = counters[origin*nq+int(sq.q)] + (load(sq.q)+net(sq.q))*n(sq.q)
		}
		if best < 0 || num*bd < bn*n(sq.q) {
			best, bn, bd = k, num, n(sq.q)
		}
	}
	q = sv.queues[best].q
	if mp {
		charge := load(q) + net(q)
		if e.loadOnly {
			charge = load(q)
		}
		counters[origin*nq+int(q)] += charge
	}
	return q, sv.queues[best].first, reasonLeastLoad
}

// TestSvcQueueCopies: every candidate queue of every service, and of every
// routing group's candidate set, carries its queue's n(q) and machine, from
// the start and after instances leave and rejoin the candidates
// (rebuildCandidates), in a routed MP scenario with MSSQ sets.
func TestSvcQueueCopies(t *testing.T) {
	ubb := `*RESOURCES
IPCKEY 123456
MASTER site1
MODEL MP
LDBAL Y

*MACHINES
node1 LMID=site1
node2 LMID=site2 NETLOAD=40

*GROUPS
G1 LMID=site1 GRPNO=1
G2 LMID=site2 GRPNO=2
G3 LMID=site2 GRPNO=3

*SERVERS
a SRVGRP=G1 SRVID=1 MIN=3 MAX=3 RQADDR=QA CLOPT="-s S,T"
b SRVGRP=G1 SRVID=10 MIN=2 MAX=2 CLOPT="-s S"
c SRVGRP=G2 SRVID=1 MIN=4 MAX=4 RQADDR=QC CLOPT="-s S,T"
d SRVGRP=G3 SRVID=1 MIN=2 MAX=2 RQADDR=QD CLOPT="-s S"

*SERVICES
S ROUTING=ACCT

*ROUTING
ACCT FIELD=ACCOUNT_ID RANGES="1-10:G1,11-20:G2,*:G3"
`
	doc, err := json.Marshal(map[string]any{"ubbconfig": ubb,
		"workload": map[string]any{"trace_csv": "time_ms,service,service_ms,route\n0,S,1,5\n"}})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ParseScenario(doc)
	if err != nil {
		t.Fatal(err)
	}
	setup, err := newSetup(sc, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := newEngine(setup, nil, simOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.routeSets) == 0 {
		t.Fatal("the scenario has no routing groups: the test would check nothing of them")
	}
	check := func(round int) {
		sets := append([]*svcInfo(nil), e.routeSets...)
		for s := range e.svc {
			sets = append(sets, &e.svc[s])
		}
		for _, sv := range sets {
			for _, sq := range sv.queues {
				q := &e.queues[sq.q]
				if sq.n != int64(q.n) || sq.machine != q.machine {
					t.Fatalf("round %d, service %d, queue %d: copy has n %d, machine %d; the queue has %d, %d",
						round, sv.service, sq.q, sq.n, sq.machine, q.n, q.machine)
				}
			}
		}
	}
	check(0)
	r := rng.New(3, 0)
	states := []instState{stateUp, stateDown, stateRestarting, stateStopping, stateGone}
	for round := 1; round <= 200; round++ {
		for i := range e.servers {
			e.servers[i].state = states[r.IntN(len(states))]
		}
		e.rebuildCandidates()
		check(round)
	}
}
