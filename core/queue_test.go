package core

import (
	"testing"
	"unsafe"

	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/internal/paged"
	"github.com/tuxlb/tuxlb/core/plan"
)

const oneServer = `
model SHM ldbal N
machine site1 netload 0
group G1 site1
server G1 1 simpserv S,T
service S load 50 prio 50
service T load 50 prio 80`

// Hand-worked cases for queue order, event order, network, gateways.
var queueCases = []dispatchCase{
	{
		// R1 is hand-off 1. At 100 ms the queue holds R2 (prio 10) and R3..R11
		// (prio 90). Hand-offs 2..9 take R3..R10 by priority; hand-off 10
		// takes the oldest, R2; hand-off 11 takes R11.
		name:  "priority order and every 10th hand-off takes the oldest",
		model: oneServer,
		reqs: `
0 S site1 100 50
1 S site1 1 10
2 S site1 1 90
3 S site1 1 90
4 S site1 1 90
5 S site1 1 90
6 S site1 1 90
7 S site1 1 90
8 S site1 1 90
9 S site1 1 90
10 S site1 1 90`,
		want: `
1,S,site1,0,G1/1,G1/1,0,0,100000,100000,first
2,S,site1,1000,G1/1,G1/1,1000,108000,109000,109000,first
3,S,site1,2000,G1/1,G1/1,2000,100000,101000,101000,first
4,S,site1,3000,G1/1,G1/1,3000,101000,102000,102000,first
5,S,site1,4000,G1/1,G1/1,4000,102000,103000,103000,first
6,S,site1,5000,G1/1,G1/1,5000,103000,104000,104000,first
7,S,site1,6000,G1/1,G1/1,6000,104000,105000,105000,first
8,S,site1,7000,G1/1,G1/1,7000,105000,106000,106000,first
9,S,site1,8000,G1/1,G1/1,8000,106000,107000,107000,first
10,S,site1,9000,G1/1,G1/1,9000,107000,108000,108000,first
11,S,site1,10000,G1/1,G1/1,10000,109000,110000,110000,first`,
	},
	{
		// Without a trace prio, a request has its service's PRIO: T (80)
		// overtakes S (50) waiting before it.
		name:  "service PRIO orders the queue",
		model: oneServer,
		reqs: `
0 S site1 10
1 S site1 1
2 T site1 1`,
		want: `
1,S,site1,0,G1/1,G1/1,0,0,10000,10000,first
2,S,site1,1000,G1/1,G1/1,1000,11000,12000,12000,first
3,T,site1,2000,G1/1,G1/1,2000,10000,11000,11000,first`,
	},
	{
		// Latency 1 ms. At 3 ms: R1 completes, then R2 arrives from the network
		// and starts at once, then the new local R3 finds the server busy.
		name: "same instant: completion, then network arrival, then new request; latency both ways",
		model: `
model SHM ldbal N
machine site1 netload 0
machine site2 netload 0
group G2 site2
server G2 1 simpserv S`,
		tweak: func(s *plan.Setup) { s.LatencyUS = 1000 },
		reqs: `
0 S site1 2
2 S site1 1
3 S site2 1`,
		want: `
1,S,site1,0,G2/1,G2/1,1000,1000,3000,4000,first
2,S,site1,2000,G2/1,G2/1,3000,3000,4000,5000,first
3,S,site2,3000,G2/1,G2/1,3000,4000,5000,5000,first`,
	},
	{
		// A 0 us service completes before the next request of the same instant,
		// so G1/1 is idle again for R2.
		name:  "a completion created at this instant runs before the next new request",
		model: twoSHM,
		reqs: `
0 S site1 0
0 S site1 0`,
		want: `
1,S,site1,0,G1/1,G1/1,0,0,0,0,idle
2,S,site1,0,G1/1,G1/1,0,0,0,0,idle`,
	},
	{
		// The gateway is busy 100 us per request (service_ms does not apply),
		// the remote domain answers 20 ms later. R3 comes while both are busy:
		// 0/1+50 each, tie to G1/1. R4: the gateway is idle again.
		name: "a domain gateway competes with a local server",
		model: `
model SHM ldbal Y
machine site1 netload 0
group G1 site1
group GW site1
server G1 1 simpserv RSVC
server GW 1 GWTDOMAIN RSVC gateway`,
		tweak: func(s *plan.Setup) { s.RemoteTime[0] = fixedMS(20) },
		reqs: `
0 RSVC site1 5
1 RSVC site1 5
1.05 RSVC site1 5
2 RSVC site1 5`,
		want: `
1,RSVC,site1,0,G1/1,G1/1,0,0,5000,5000,idle
2,RSVC,site1,1000,GW/1,GW/1,1000,1000,1100,21100,idle
3,RSVC,site1,1050,G1/1,G1/1,1050,5000,10000,10000,least-load
4,RSVC,site1,2000,GW/1,GW/1,2000,2000,2100,22100,idle`,
	},
	{
		// No server advertises T: TPENOENT, empty server and time columns.
		name: "TPENOENT when no candidate",
		model: `
model SHM ldbal N
machine site1 netload 0
group G1 site1
server G1 1 simpserv S
service T load 50 prio 50`,
		reqs: `
0 T site1 1
0 S site1 1`,
		want: `
1,T,site1,0,,,,,,,TPENOENT
2,S,site1,0,G1/1,G1/1,0,0,1000,1000,first`,
	},
	{
		// site2 runs at speed 2: 3 us -> 1.5 -> 2 (halves away from zero);
		// the sampler's 2.5 ms on site1 -> 2500 us.
		name: "machine speed and sampled service times round to whole us",
		model: `
model SHM ldbal N
machine site1 netload 0
machine site2 netload 0
group G2 site2
group G1 site1
server G2 1 simpserv S
server G1 1 simpserv T`,
		tweak: func(s *plan.Setup) {
			s.Speed[1] = 2
			s.ServiceTime[1] = []dist.Sampler{nil, fixedMS(2.5)}
		},
		reqs: `
0 S site2 0.003
0 T site1 -`,
		want: `
1,S,site2,0,G2/1,G2/1,0,0,2,2,first
2,T,site1,0,G1/1,G1/1,0,0,2500,2500,first`,
	},
}

// TestBlockTime: a reply later than BLOCKTIME counts as TPETIME but the
// request still completes and keeps its row.
func TestBlockTime(t *testing.T) {
	m := engModel(t, oneServer)
	setup := engSetup(m)
	setup.BlockUS = 10000
	// R1 replies after 6 ms; R2 waits 5 ms and replies after 11 ms > 10 ms.
	res, rows := runLog(t, setup, engRequests(t, m, "0 S site1 6\n1 S site1 6"))
	want := []string{
		"1,S,site1,0,G1/1,G1/1,0,0,6000,6000,first",
		"2,S,site1,1000,G1/1,G1/1,1000,6000,12000,12000,first",
	}
	diffRows(t, rows, want)
	got := res.Requests
	if got.Issued != 2 || got.Completed != 2 || got.TimedOut != 1 || len(got.Failed) != 0 {
		t.Errorf("requests: got %+v, want issued 2, completed 2, timed_out 1, no failures", got)
	}
}

func TestTPENOENTCounts(t *testing.T) {
	m := engModel(t, queueCases[5].model)
	res, _ := runLog(t, engSetup(m), engRequests(t, m, queueCases[5].reqs))
	if got := res.Requests; got.Issued != 2 || got.Completed != 1 || got.Failed["TPENOENT"] != 1 {
		t.Errorf("requests: got %+v, want issued 2, completed 1, failed TPENOENT 1", got)
	}
}

func TestWaitQueueOrder(t *testing.T) {
	pool := &flightPool{}
	prios := []uint8{50, 10, 90, 90, 50, 100}
	q, lv := waitQueue{q: 1}, &levels{fifos: make([]fifo, prioLevels*2), nq: 2}
	for i, p := range prios {
		pool.Add()
		pool.At(int32(i)).prio, pool.At(int32(i)).enqSeq = p, uint64(i)
		q.push(pool, lv, int32(i))
	}
	var got []int32
	got = append(got, q.popHighest(pool, lv), q.popOldest(pool, lv), q.popHighest(pool, lv), q.popOldest(pool, lv))
	want := []int32{5, 0, 2, 1} // prio 100; oldest (#0); prio 90 first in; oldest left (#1)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("pop order: got %v, want %v", got, want)
		}
	}
	if q.n != 2 {
		t.Errorf("left: got %d, want 2", q.n)
	}
}

func TestDispatchLogQuotesIDs(t *testing.T) {
	m := engModel(t, oneServer)
	reqs := engRequests(t, m, "0 S site1 1\n0 S site1 1")
	reqs.rs[0].ID, reqs.rs[1].ID = `a,b`, `say "hi"`
	_, rows := runLog(t, engSetup(m), reqs)
	want := []string{`"a,b",S,site1,0,G1/1,G1/1,0,0,1000,1000,first`, `"say ""hi""",S,site1,0,G1/1,G1/1,0,1000,2000,2000,first`}
	diffRows(t, rows, want)
}

// TestHandOffEveryTenth: a queue's hand-offs, counted modulo oldestEvery,
// make the 10th, 20th, ... take the oldest waiting request, as a count of
// all its hand-offs would.
func TestHandOffEveryTenth(t *testing.T) {
	var q waitQueue
	for k := 1; k <= 1000; k++ {
		if got, want := q.handOff(), k%oldestEvery == 0; got != want {
			t.Fatalf("hand-off %d: oldest %v, want %v", k, got, want)
		}
	}
}

// TestQueueStateLayout: what a request that does not wait reads and writes
// of its queue (its waiting requests, their LOAD, its busy and total
// threads, its one instance, its enqueues and zero waits) lies in the
// first 64 bytes of the queue's state, and the state is two whole cache
// lines, so that such a request touches one line of its queue's
// (e.queues' elements start at multiples of 64 bytes: every allocation
// size class a slice of them falls in is a multiple of 64).
func TestQueueStateLayout(t *testing.T) {
	var q queueState
	checkLayout(t, "a queue's state", unsafe.Sizeof(q), 128, 64, []field{
		{"wait", unsafe.Offsetof(q.wait), unsafe.Sizeof(q.wait)},
		{"work", unsafe.Offsetof(q.work), unsafe.Sizeof(q.work)},
		{"enqueued", unsafe.Offsetof(q.enqueued), unsafe.Sizeof(q.enqueued)},
		{"one", unsafe.Offsetof(q.one), unsafe.Sizeof(q.one)},
		{"zero", unsafe.Offsetof(q.zero), unsafe.Sizeof(q.zero)},
		{"inService", unsafe.Offsetof(q.inService), unsafe.Sizeof(q.inService)},
		{"threads", unsafe.Offsetof(q.threads), unsafe.Sizeof(q.threads)},
	})
}

// TestClientStateLayout: a client's state is two whole cache lines, and
// the first holds what the check of its think timer reads and most of what
// its issue and outcome do (the clients' states, appState.cl, start at a
// multiple of 64 bytes when there are enough of them to miss the caches:
// an allocation above 32 KB starts a page).
func TestClientStateLayout(t *testing.T) {
	var c clientState
	checkLayout(t, "a client's state", unsafe.Sizeof(c), 128, 64, []field{
		{"dlAt", unsafe.Offsetof(c.dlAt), unsafe.Sizeof(c.dlAt)},
		{"key", unsafe.Offsetof(c.key), unsafe.Sizeof(c.key)},
		{"rng", unsafe.Offsetof(c.rng), unsafe.Sizeof(c.rng)},
		{"waiting", unsafe.Offsetof(c.waiting), unsafe.Sizeof(c.waiting)},
		{"issueUS", unsafe.Offsetof(c.issueUS), unsafe.Sizeof(c.issueUS)},
		{"acc", unsafe.Offsetof(c.acc), unsafe.Sizeof(c.acc)},
	})
}

// field is where a struct's field lies: its name, offset and size.
type field struct {
	name      string
	off, size uintptr
}

// checkLayout checks that a struct (what) of size bytes is want bytes,
// whole cache lines, and that each of fields ends within its first hot
// bytes.
func checkLayout(t *testing.T, what string, size, want, hot uintptr, fields []field) {
	t.Helper()
	if size != want {
		t.Errorf("%s is %d bytes, want %d", what, size, want)
	}
	for _, f := range fields {
		if f.off+f.size > hot {
			t.Errorf("%s ends at byte %d of %s, past its first %d", f.name, f.off+f.size, what, hot)
		}
	}
}

// TestFlightLayout: a request's record is three whole cache lines, each
// record of a page starts a line, and what a waiting request's start and
// its completion read (the times, its queue, load and flags, its
// request's service, times, key, origin and number) lies in the first two.
func TestFlightLayout(t *testing.T) {
	var f flight
	r := unsafe.Offsetof(f.req)
	checkLayout(t, "a request's record", unsafe.Sizeof(f), 192, 128, []field{
		{"next", unsafe.Offsetof(f.next), unsafe.Sizeof(f.next)},
		{"load", unsafe.Offsetof(f.load), unsafe.Sizeof(f.load)},
		{"queue", unsafe.Offsetof(f.queue), unsafe.Sizeof(f.queue)},
		{"enqSeq", unsafe.Offsetof(f.enqSeq), unsafe.Sizeof(f.enqSeq)},
		{"unanswered", unsafe.Offsetof(f.unanswered), unsafe.Sizeof(f.unanswered)},
		{"noReply", unsafe.Offsetof(f.noReply), unsafe.Sizeof(f.noReply)},
		{"req.ServiceUS", r + unsafe.Offsetof(f.req.ServiceUS), unsafe.Sizeof(f.req.ServiceUS)},
		{"req.Key", r + unsafe.Offsetof(f.req.Key), unsafe.Sizeof(f.req.Key)},
		{"req.TimeUS", r + unsafe.Offsetof(f.req.TimeUS), unsafe.Sizeof(f.req.TimeUS)},
		{"req.Origin", r + unsafe.Offsetof(f.req.Origin), unsafe.Sizeof(f.req.Origin)},
		{"req.Seq", r + unsafe.Offsetof(f.req.Seq), unsafe.Sizeof(f.req.Seq)},
	})
	var pool flightPool
	for range 3 * paged.Page {
		pool.Add()
	}
	for _, s := range []int32{0, 1, paged.Page - 1, paged.Page, 2*paged.Page + 7} {
		if at := uintptr(unsafe.Pointer(pool.At(s))); at%64 != 0 {
			t.Errorf("record %d starts at %#x, not a cache line's start", s, at)
		}
	}
}
