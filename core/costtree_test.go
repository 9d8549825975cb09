package core

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/costtree"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// costTreeScenario is an application of 160 instances, each its own queue,
// on one machine (SHM) or two (MP), overloaded so that most requests find no
// idle server and are dispatched by least cost; a routed service (its
// ranges to G1 and G2: sets of queues of their own), kills with restarts,
// a shutdown and boots (the candidates change), and for MP a short counter
// reset period.
func costTreeScenario(model string) string {
	site2, tuning, machines := "S1", "", `*MACHINES\nh1 LMID=S1\n`
	if model == "MP" {
		site2, tuning, machines = "S2", `"tuning": {"mp_reset_ms": 50},`, `*MACHINES\nh1 LMID=S1\nh2 LMID=S2\n`
	}
	ubb := `*RESOURCES\nIPCKEY 1\nMASTER S1\nMODEL ` + model + `\nLDBAL Y\nSCANUNIT 5\nSANITYSCAN 2\n` + machines +
		`*GROUPS\nG1 LMID=S1 GRPNO=1\nG2 LMID=` + site2 + ` GRPNO=2\n` +
		`*SERVERS\nDEFAULT: RESTART=Y MAXGEN=9 GRACE=0\n` +
		`srv SRVGRP=G1 SRVID=1 MIN=90 MAX=100 CLOPT=\"-s A,B,R\"\nsrv SRVGRP=G2 SRVID=1 MIN=70 MAX=80 CLOPT=\"-s B,C,R\"\n` +
		`*SERVICES\nA LOAD=50\nB LOAD=30\nC LOAD=70\nR ROUTING=ACCT\n` +
		`*ROUTING\nACCT FIELD=ACCT BUFTYPE=\"FML\" RANGES=\"1-499:G1,500-999:G2,*:*\"\n`
	return `{"ubbconfig": "` + ubb + `", ` + tuning + `
  "services": {"A": {"service_time": {"dist": "exp", "mean_ms": 20}}, "B": {"service_time": {"dist": "lognormal", "mean_ms": 12, "sd_ms": 20}},
               "C": {"service_time": {"dist": "const", "ms": 9}}, "R": {"service_time": {"dist": "exp", "mean_ms": 15}}},
  "events": [{"at_ms": 100, "kill": "G1/5"}, {"at_ms": 120, "kill": "group:G2"}, {"at_ms": 200, "shutdown": "G1/7"},
             {"at_ms": 250, "boot": "G1/91"}, {"at_ms": 300, "boot": "G1/7"}],
  "workload": {"generate": {"duration_ms": 600, "streams": [
    {"service": "A", "arrivals": "poisson", "rate_per_s": 6000},
    {"service": "B", "origin": "` + site2 + `", "arrivals": "poisson", "rate_per_s": 7000},
    {"service": "C", "arrivals": "bursty", "rate_per_s": 12000, "on_ms": 40, "off_ms": 60},
    {"service": "R", "arrivals": "poisson", "rate_per_s": 4000, "route": {"dist": "uniform", "min": 1, "max": 1200}}]}}}`
}

// TestCostTreesChooseAsTheScan: reading the least cost from the trees gives
// the bytes of the scan, result and dispatch log, for SHM and MP (for every
// service, routed sets included, whatever its number of queues: the trees
// are forced on from one queue), and the trees are in use there.
func TestCostTreesChooseAsTheScan(t *testing.T) {
	defer func(v int) { costTreeMin = v }(costTreeMin)
	for _, model := range []string{"SHM", "MP"} {
		t.Run(model, func(t *testing.T) {
			sc, err := ParseScenario([]byte(costTreeScenario(model)))
			if err != nil {
				t.Fatal(err)
			}
			var out [2][2]bytes.Buffer
			for i, min := range []int{1 << 30, 1} {
				costTreeMin = min
				res, err := Run(sc, RunOptions{Dispatch: &out[i][1]})
				if err != nil {
					t.Fatal(err)
				}
				out[i][0].Write(result.Encode(res))
				if i == 0 && res.Requests.Completed == 0 || res.Flows == nil {
					t.Fatalf("nothing ran: %+v", res.Requests)
				}
				if i == 0 {
					least := int64(0)
					for _, f := range res.Flows {
						if f.Reason == "least-load" {
							least += f.Requests
						}
					}
					if least < res.Requests.Issued/3 {
						t.Errorf("only %d of %d requests dispatched by least cost: the test would not exercise the trees", least, res.Requests.Issued)
					}
				}
			}
			for k, what := range []string{"result", "dispatch log"} {
				if !bytes.Equal(out[0][k].Bytes(), out[1][k].Bytes()) {
					t.Errorf("%s: the trees' %s differs from the scan's (%d vs %d bytes)", model, what, out[1][k].Len(), out[0][k].Len())
				}
			}
		})
	}
}

// TestCostTreeTies: equal costs go to the first queue in scan order, as the
// scan's strict test does, at every size of tree.
func TestCostTreeTies(t *testing.T) {
	for n := 1; n <= 9; n++ {
		e := &engine{alg: algSHM}
		sv := &svcInfo{}
		e.queues = make([]queueState, n)
		for k := 0; k < n; k++ {
			sv.queues = append(sv.queues, svcQueue{q: int32(k), load: 10, n: int64(1 + k%2)})
			e.queues[k].work = int64(10 * (1 + k%2)) // cost 20 for every queue
		}
		e.trees.Reset(n)
		sv.trees = &costSlots{t: make([]*costtree.Tree, 1)}
		if got := e.leastTree(sv, -1); got != 0 {
			t.Errorf("%d queues of one cost: got queue %d, want 0", n, got)
		}
		if n > 1 {
			e.queues[n-1].work -= 1 // the last is now cheaper
			e.costChanged(int32(n-1), -1)
			if got := e.leastTree(sv, -1); got != int32(n-1) {
				t.Errorf("%d queues, the last cheaper: got %d", n, got)
			}
		}
	}
}

// scanLeast is the scan's answer, written out for the tests: the index into
// sv.queues of the least cost, W(q) + L·n over n (SHM, m < 0) or C_m(q) +
// (L+N)·n over n (MP), the first of equals.
func scanLeast(e *engine, sv *svcInfo, m int) int32 {
	cost := func(k int) int64 {
		sq := &sv.queues[k]
		if m < 0 {
			return e.queues[sq.q].work + sq.load*sq.n
		}
		i := m*len(e.queues) + int(sq.q)
		return e.counters[i] + (sq.load+e.netFor[i])*sq.n
	}
	best := 0
	for k := 1; k < len(sv.queues); k++ {
		// k wins only when strictly cheaper: a/b < c/d as a·d < c·b
		if cost(k)*sv.queues[best].n < cost(best)*sv.queues[k].n {
			best = k
		}
	}
	return int32(best)
}

// TestCostTreeLazyAsScan: a tree that lists changes and repairs itself when
// read answers as the scan does after any sequence of changes, whether it
// is read after every change, after a few, or so seldom that it runs out
// of budget and goes stale (then it lists nothing more and is rebuilt at
// its next read); for MP also across counter resets. Costs are small
// integers, so ties are frequent.
func TestCostTreeLazyAsScan(t *testing.T) {
	for _, alg := range []algorithm{algSHM, algMP} {
		model := map[algorithm]string{algSHM: "SHM", algMP: "MP"}[alg]
		for _, n := range []int{1, 2, 3, 5, 8, 33, 100} {
			r := rand.New(rand.NewPCG(uint64(n), uint64(len(model))))
			e := &engine{alg: alg, m: &Model{Machines: make([]ubb.Machine, 2)}}
			e.queues = make([]queueState, n)
			machines, origins := 1, []int{-1}
			if alg == algMP {
				machines, origins = 2, []int{0, 1}
				e.counters = make([]int64, 2*n)
				e.netFor = make([]int64, 2*n)
				for i := range e.netFor {
					e.netFor[i] = int64(r.IntN(2) * 10)
				}
			}
			e.trees.Reset(n * machines)
			sv := &svcInfo{trees: &costSlots{t: make([]*costtree.Tree, machines)}}
			// scan order is not queue order: the leaves follow sv.queues
			for _, q := range r.Perm(n) {
				sv.queues = append(sv.queues, svcQueue{q: int32(q), load: 10 * int64(1+r.IntN(2)), n: int64(1 + r.IntN(3))})
			}
			stale := 0
			for step := 0; step < 9000; step++ {
				m := origins[r.IntN(len(origins))]
				// phases: reads after every change, after a few, almost never
				readEvery := []int{1, 4, 50 * n}[step/1500%3]
				switch {
				case r.IntN(readEvery) == 0:
					if got, want := e.leastTree(sv, m), scanLeast(e, sv, m); got != want {
						t.Fatalf("%s, %d queues, step %d, origin %d: tree %d, scan %d", model, n, step, m, got, want)
					}
				case alg == algMP && r.IntN(2000) == 0:
					clear(e.counters)
					e.trees.StaleAll()
					if e.trees.Live() != 0 {
						t.Fatalf("%d live trees after a reset", e.trees.Live())
					}
				default:
					q := int32(r.IntN(n))
					if m < 0 {
						e.queues[q].work = int64(10 * r.IntN(4))
					} else {
						e.counters[m*n+int(q)] += int64(10 * r.IntN(3))
					}
					live := e.trees.Live()
					e.costChanged(q, m)
					if e.trees.Live() < live {
						stale++
					}
				}
			}
			if stale == 0 {
				t.Errorf("%s, %d queues: no tree ran out of budget", model, n)
			}
		}
	}
}

// TestCostTreeStaleListsNothing: a tree out of budget lists no change (its
// list stays empty) and the engine counts no live tree, so a model whose
// requests find idle servers pays one test per change; its next read
// rebuilds it.
func TestCostTreeStaleListsNothing(t *testing.T) {
	const n = 8
	e := &engine{alg: algSHM}
	e.queues = make([]queueState, n)
	e.trees.Reset(n)
	sv := &svcInfo{trees: &costSlots{t: make([]*costtree.Tree, 1)}}
	for k := 0; k < n; k++ {
		sv.queues = append(sv.queues, svcQueue{q: int32(k), load: 10, n: 1})
	}
	if got := e.leastTree(sv, -1); got != 0 || e.trees.Live() != 1 {
		t.Fatalf("first read: queue %d, %d live trees; want 0, 1", got, e.trees.Live())
	}
	tr := sv.trees.t[0]
	for i := 0; i < costtree.Budget*n; i++ {
		e.queues[i%n].work += 5
		e.costChanged(int32(i%n), -1)
	}
	if tr.Stale() || tr.Listed() != costtree.Budget*n {
		t.Fatalf("within budget: stale %v, %d changes listed; want false, %d", tr.Stale(), tr.Listed(), costtree.Budget*n)
	}
	e.queues[3].work -= 100 // queue 3 is now the cheapest
	e.costChanged(3, -1)
	if !tr.Stale() || tr.Listed() != 0 || e.trees.Live() != 0 {
		t.Fatalf("past budget: stale %v, %d leaves listed, %d live trees; want true, 0, 0", tr.Stale(), tr.Listed(), e.trees.Live())
	}
	if got := e.leastTree(sv, -1); got != 3 || e.trees.Live() != 1 {
		t.Fatalf("read after going stale: queue %d, %d live trees; want 3, 1", got, e.trees.Live())
	}
}

// TestCostTreeShared: services with the same queues in the same order, each
// with one LOAD for all of them, share one tree, which chooses as each
// service's scan would (L is the same for every queue, so it does not
// change which is least; n differs between queues); a service whose LOAD
// differs between its queues, or is costtree.ShareMaxLoad or more, has a tree of its
// own. A shared tree that
// meets a cost of costtree.ShareMax or more is dropped, and from then on every
// service has trees of its own, still choosing as the scan.
func TestCostTreeShared(t *testing.T) {
	defer func(v int) { costTreeMin = v }(costTreeMin)
	costTreeMin = 1
	const n = 6
	e := &engine{alg: algSHM}
	e.queues = make([]queueState, n)
	mk := func(load int64) svcInfo {
		var sv svcInfo
		for k := 0; k < n; k++ {
			sv.queues = append(sv.queues, svcQueue{q: int32(k), load: load, n: int64(1 + k%3)})
		}
		return sv
	}
	e.svc = []svcInfo{mk(10), mk(700), mk(10), mk(costtree.ShareMaxLoad)}
	e.svc[2].queues[3].load = 20
	e.costTreesSetup()
	if e.svc[0].trees != e.svc[1].trees || !e.svc[0].trees.shared || e.svc[2].trees == e.svc[0].trees || e.svc[2].trees.shared ||
		e.svc[3].trees == e.svc[0].trees || e.svc[3].trees.shared {
		t.Fatalf("sharing: %p %p %p %p", e.svc[0].trees, e.svc[1].trees, e.svc[2].trees, e.svc[3].trees)
	}
	r := rand.New(rand.NewPCG(1, 2))
	check := func(when string) {
		t.Helper()
		for s := range e.svc {
			if got, want := e.leastTree(&e.svc[s], -1), scanLeast(e, &e.svc[s], -1); got != want {
				t.Fatalf("%s, service %d: tree %d, scan %d", when, s, got, want)
			}
		}
	}
	for step := 0; step < 2000; step++ {
		q := int32(r.IntN(n))
		e.queues[q].work = int64(10 * r.IntN(5))
		e.costChanged(q, -1)
		check("shared")
	}
	if e.trees.NoShare {
		t.Fatal("noShare before any cost reached ShareMax")
	}
	e.queues[2].work = costtree.ShareMax
	e.costChanged(2, -1)
	check("after ShareMax")
	if !e.trees.NoShare || e.svc[0].trees == e.svc[1].trees || e.svc[0].trees.shared {
		t.Fatalf("a cost of ShareMax: noShare %v, trees %p %p", e.trees.NoShare, e.svc[0].trees, e.svc[1].trees)
	}
	for step := 0; step < 500; step++ {
		q := int32(r.IntN(n))
		e.queues[q].work = int64(10 * r.IntN(5))
		e.costChanged(q, -1)
		check("unshared")
	}
}
