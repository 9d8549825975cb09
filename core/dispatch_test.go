package core

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/plan"
)

// Every expected dispatch log below was worked out by hand from docs/engine.md;
// the comments show the arithmetic.
type dispatchCase struct {
	name  string
	model string
	tweak func(*plan.Setup)
	reqs  string
	want  string
}

const twoSHM = `
model SHM ldbal Y
machine site1 netload 0
group G1 site1
server G1 1 simpserv S
server G1 2 simpserv S`

const twoMP = `
model MP ldbal Y
machine site1 netload 0
machine site2 netload 100
group G1 site1
group G2 site2
server G1 1 simpserv S
server G2 1 simpserv S`

var dispatchCases = []dispatchCase{
	{
		name: "LDBAL=N sends everything to the first candidate, busy or not",
		model: `
model SHM ldbal N
machine site1 netload 0
group G1 site1
server G1 1 simpserv S
server G1 2 simpserv S`,
		reqs: `
0 S site1 10
1 S site1 10
2 S site1 10`,
		want: `
1,S,site1,0,G1/1,G1/1,0,0,10000,10000,first
2,S,site1,1000,G1/1,G1/1,1000,10000,20000,20000,first
3,S,site1,2000,G1/1,G1/1,2000,20000,30000,30000,first`,
	},
	{
		// R1, R2: first idle. R3: both busy, costs 0/1+50 = 50 each: tie to G1/1.
		name:  "SHM idle first, then least load with a tie",
		model: twoSHM,
		reqs: `
0 S site1 10
1 S site1 10
2 S site1 10`,
		want: `
1,S,site1,0,G1/1,G1/1,0,0,10000,10000,idle
2,S,site1,1000,G1/2,G1/2,1000,1000,11000,11000,idle
3,S,site1,2000,G1/1,G1/1,2000,10000,20000,20000,least-load`,
	},
	{
		// R1-R3 idle. R4: QA 0/2+50 = 50, G2/10 0/1+50 = 50: tie, QA (W=50).
		// R5: QA 50/2+50 = 75, G2/10 50 -> G2/10 (W=50).
		// R6: QA 75, G2/10 50/1+50 = 100 -> QA. G1/1 frees at 10 ms and takes
		// R4, then R6 at 15 ms; G2/10 takes R5 at 30 ms.
		name: "SHM least load divides an MSSQ queue's work by n(q)",
		model: `
model SHM ldbal Y
machine site1 netload 0
group G1 site1
group G2 site1
server G1 1 simpserv S rq=QA n=2
server G2 10 simpserv S`,
		reqs: `
0 S site1 10
0 S site1 20
0 S site1 30
1 S site1 5
2 S site1 5
3 S site1 5`,
		want: `
1,S,site1,0,G1/1,QA,0,0,10000,10000,idle
2,S,site1,0,G1/2,QA,0,0,20000,20000,idle
3,S,site1,0,G2/10,G2/10,0,0,30000,30000,idle
4,S,site1,1000,G1/1,QA,1000,10000,15000,15000,least-load
5,S,site1,2000,G2/10,G2/10,2000,30000,35000,35000,least-load
6,S,site1,3000,G1/1,QA,3000,15000,20000,20000,least-load`,
	},
	{
		// R1 site2: local G2/1 idle. R2 site2: G1/1 0/1+50+100 = 150, G2/1
		// 50/1+50 = 100 -> G2/1 (C=100). R3 site2: 150 vs 150: tie to G1/1
		// (remote, idle, starts at once; latency 0). R4 site1: G1/1 busy;
		// site1's counters are its own: G1/1 0+50 = 50, G2/1 0+50+100 -> G1/1.
		name: "MP local idle first, own counters per machine, NETLOAD",
		model: `
model MP ldbal Y
machine site1 netload 100
machine site2 netload 100
group G1 site1
group G2 site2
server G1 1 simpserv S
server G2 1 simpserv S`,
		reqs: `
0 S site2 10
1 S site2 10
2 S site2 10
3 S site1 5`,
		want: `
1,S,site2,0,G2/1,G2/1,0,0,10000,10000,idle
2,S,site2,1000,G2/1,G2/1,1000,10000,20000,20000,least-load
3,S,site2,2000,G1/1,G1/1,2000,2000,12000,12000,least-load
4,S,site1,3000,G1/1,G1/1,3000,12000,17000,17000,least-load`,
	},
	{
		// Counters: R1 idle, C(G1/1)=50. R2: 100 vs 0+50+100 = 150 -> G1/1
		// (100). R3: 150 vs 150 tie -> G1/1 (150). R4: 200 vs 150 -> G2/1,
		// charged 50+100: C(G2/1)=150. R5: 200 vs 300 -> G1/1 (200).
		// R6: 250 vs 300 -> G1/1.
		name:  "MP counters grow by LOAD+NETLOAD (default)",
		model: twoMP,
		reqs: `
0 S site1 1000
1 S site1 1000
2 S site1 1000
3 S site1 1000
4 S site1 1000
5 S site1 1000`,
		want: `
1,S,site1,0,G1/1,G1/1,0,0,1000000,1000000,idle
2,S,site1,1000,G1/1,G1/1,1000,1000000,2000000,2000000,least-load
3,S,site1,2000,G1/1,G1/1,2000,2000000,3000000,3000000,least-load
4,S,site1,3000,G2/1,G2/1,3000,3000,1003000,1003000,least-load
5,S,site1,4000,G1/1,G1/1,4000,3000000,4000000,4000000,least-load
6,S,site1,5000,G1/1,G1/1,5000,4000000,5000000,5000000,least-load`,
	},
	{
		// As above, but R4 charges G2/1 only 50. R5: 200 vs 50+150 = 200,
		// tie -> G1/1 (250). R6: 250 vs 200 -> G2/1.
		name:  "MP counters grow by LOAD only (mp_counter load)",
		model: twoMP,
		tweak: func(s *plan.Setup) { s.Tuning.MPCounter = "load" },
		reqs: `
0 S site1 1000
1 S site1 1000
2 S site1 1000
3 S site1 1000
4 S site1 1000
5 S site1 1000`,
		want: `
1,S,site1,0,G1/1,G1/1,0,0,1000000,1000000,idle
2,S,site1,1000,G1/1,G1/1,1000,1000000,2000000,2000000,least-load
3,S,site1,2000,G1/1,G1/1,2000,2000000,3000000,3000000,least-load
4,S,site1,3000,G2/1,G2/1,3000,3000,1003000,1003000,least-load
5,S,site1,4000,G1/1,G1/1,4000,3000000,4000000,4000000,least-load
6,S,site1,5000,G2/1,G2/1,5000,1003000,2003000,2003000,least-load`,
	},
	{
		// site1 NETLOAD 10, site2 100. R2 from site1: G1/1 50+50 = 100;
		// G2/1 0+50+N. netload "server": N = 100 -> 150, G1/1 wins.
		name:  "MP netload server reading: NETLOAD of the queue's machine",
		model: strings.Replace(twoMP, "site1 netload 0", "site1 netload 10", 1),
		reqs: `
0 S site1 1000
1 S site1 1000`,
		want: `
1,S,site1,0,G1/1,G1/1,0,0,1000000,1000000,idle
2,S,site1,1000,G1/1,G1/1,1000,1000000,2000000,2000000,least-load`,
	},
	{
		// netload "origin": N = NETLOAD of site1 = 10 -> 60, G2/1 wins.
		name:  "MP netload origin reading: NETLOAD of the origin",
		model: strings.Replace(twoMP, "site1 netload 0", "site1 netload 10", 1),
		tweak: func(s *plan.Setup) { s.Tuning.NetLoad = "origin" },
		reqs: `
0 S site1 1000
1 S site1 1000`,
		want: `
1,S,site1,0,G1/1,G1/1,0,0,1000000,1000000,idle
2,S,site1,1000,G2/1,G2/1,1000,1000,1001000,1001000,least-load`,
	},
	{
		// NETLOAD 0 everywhere, reset every 10 ms. R2: 100 vs 50 -> G2/1 (50).
		// R3: 100 vs 100 tie -> G1/1 (100). R4 at exactly 10 ms: the reset
		// runs first, 0+50 vs 0+50, tie -> G1/1. (Without it: 150 vs 100 -> G2/1.)
		name: "MP reset at k x mp_reset_ms runs before a request of that instant",
		model: `
model MP ldbal Y
machine site1 netload 0
machine site2 netload 0
group G1 site1
group G2 site2
server G1 1 simpserv S
server G2 1 simpserv S`,
		tweak: func(s *plan.Setup) { s.ResetUS = 10000 },
		reqs: `
0 S site1 1000
1 S site1 1000
5 S site1 1000
10 S site1 1000`,
		want: `
1,S,site1,0,G1/1,G1/1,0,0,1000000,1000000,idle
2,S,site1,1000,G2/1,G2/1,1000,1000,1001000,1001000,least-load
3,S,site1,5000,G1/1,G1/1,5000,1000000,2000000,2000000,least-load
4,S,site1,10000,G1/1,G1/1,10000,2000000,3000000,3000000,least-load`,
	},
	{
		// idle "queue": G1/1 is busy but its queue holds nothing, so it counts
		// as idle and R2 waits behind R1 there.
		name:  "idle queue reading",
		model: twoSHM,
		tweak: func(s *plan.Setup) { s.Tuning.Idle = "queue" },
		reqs: `
0 S site1 10
1 S site1 10`,
		want: `
1,S,site1,0,G1/1,G1/1,0,0,10000,10000,idle
2,S,site1,1000,G1/1,G1/1,1000,10000,20000,20000,idle`,
	},
	{
		name:  "idle server reading (default) for comparison",
		model: twoSHM,
		reqs: `
0 S site1 10
1 S site1 10`,
		want: `
1,S,site1,0,G1/1,G1/1,0,0,10000,10000,idle
2,S,site1,1000,G1/2,G1/2,1000,1000,11000,11000,idle`,
	},
	{
		name: "round_robin rotates over candidate instances",
		model: `
model SHM ldbal N
machine site1 netload 0
group G1 site1
server G1 1 simpserv S
server G1 2 simpserv S,T
server G1 3 simpserv S`,
		tweak: func(s *plan.Setup) { s.Policy = plan.PolicyRoundRobin },
		reqs: `
0 S site1 1
10 S site1 1
20 T site1 1
30 S site1 1
40 S site1 1`,
		want: `
1,S,site1,0,G1/1,G1/1,0,0,1000,1000,round_robin
2,S,site1,10000,G1/2,G1/2,10000,10000,11000,11000,round_robin
3,T,site1,20000,G1/2,G1/2,20000,20000,21000,21000,round_robin
4,S,site1,30000,G1/3,G1/3,30000,30000,31000,31000,round_robin
5,S,site1,40000,G1/1,G1/1,40000,40000,41000,41000,round_robin`,
	},
	{
		// jsq: R1 0 vs 0 -> G1/1; R2 1 vs 0 -> G1/2; R3 1 vs 1 -> G1/1;
		// R4 (1 waiting + 1 in service) = 2 vs 1 -> G1/2.
		name:  "jsq counts waiting plus in service",
		model: twoSHM,
		tweak: func(s *plan.Setup) { s.Policy = plan.PolicyJSQ },
		reqs: `
0 S site1 10
1 S site1 10
2 S site1 10
3 S site1 10`,
		want: `
1,S,site1,0,G1/1,G1/1,0,0,10000,10000,jsq
2,S,site1,1000,G1/2,G1/2,1000,1000,11000,11000,jsq
3,S,site1,2000,G1/1,G1/1,2000,10000,20000,20000,jsq
4,S,site1,3000,G1/2,G1/2,3000,11000,21000,21000,jsq`,
	},
}

func TestDispatchRules(t *testing.T) {
	for _, tc := range append(dispatchCases, queueCases...) {
		t.Run(tc.name, func(t *testing.T) {
			m := engModel(t, tc.model)
			setup := engSetup(m)
			if tc.tweak != nil {
				tc.tweak(setup)
			}
			_, got := runLog(t, setup, engRequests(t, m, tc.reqs))
			diffRows(t, got, strings.Split(strings.TrimSpace(tc.want), "\n"))
		})
	}
}

// TestP2CAndRandom: with two candidates p2c draws both, so the shorter queue
// always wins and only ties depend on the draw; random spreads uniformly.
// Both depend on the seed alone.
func TestP2CAndRandom(t *testing.T) {
	m := engModel(t, twoSHM)
	firsts := map[string]int{}
	for seed := uint64(1); seed <= 20; seed++ {
		setup := engSetup(m)
		setup.Policy, setup.Seed = plan.PolicyP2C, seed
		_, rows := runLog(t, setup, engRequests(t, m, "0 S site1 10\n1 S site1 10"))
		a, b := strings.Split(rows[0], ","), strings.Split(rows[1], ",")
		if a[4] == b[4] {
			t.Errorf("seed %d: p2c sent R2 to busy %s while the other queue was empty", seed, b[4])
		}
		firsts[a[4]]++
	}
	if len(firsts) != 2 {
		t.Errorf("p2c ties: got first choices %v over 20 seeds, want both servers", firsts)
	}
	setup := engSetup(m)
	setup.Policy = plan.PolicyRandom
	var reqs strings.Builder
	for i := 0; i < 200; i++ {
		reqs.WriteString(fmt.Sprintf("%d S site1 1\n", i*10))
	}
	res, rows := runLog(t, setup, engRequests(t, m, reqs.String()))
	_, again := runLog(t, setup, engRequests(t, m, reqs.String()))
	diffRows(t, again, rows)
	for _, s := range res.Servers {
		if s.Requests < 70 || s.Requests > 130 {
			t.Errorf("random: %s got %d of 200 requests, want about 100", s.ID, s.Requests)
		}
	}
}
