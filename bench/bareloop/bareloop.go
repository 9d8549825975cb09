// Package bareloop is the reference for the physical limit of simulating the
// standard MP scenario on a given machine: the same model as
// bench/scenarios/mp-standard.json (2 machines × 8 servers, a queue each, 4
// services advertised everywhere, 8 Poisson streams at 320 requests/s, 80%
// load, exponential service times of means 2/4/8/6 ms, 0.5 ms network
// latency, MP counters reset every 120 s) played by the barest discrete-event
// loop one would write for it: a binary heap of events, Go's
// rand.ExpFloat64, first-idle-local / least-load dispatch, a FIFO per queue
// and no statistics at all (no histograms, no series, no dispatch log, no
// priorities, no input checks).
//
// docs/benchmarks.md reports every figure of `go tool task bench` as a
// ratio to this loop's requests per second measured in the same run.
package bareloop

import (
	"math/bits"
	"math/rand/v2"
)

// The model of mp-standard.json.
const (
	machines   = 2
	perMachine = 8
	nservers   = machines * perMachine
	nservices  = 4
	nstreams   = machines * nservices // one per (origin, service)
	ratePerMS  = 0.32                 // requests per ms of each stream
	latencyMS  = 0.5                  // one network crossing
	netload    = 100                  // NETLOAD of both machines
	resetMS    = 120_000              // MP counters reset
)

var (
	meanMS = [nservices]float64{2, 4, 8, 6}
	load   = [nservices]int64{50, 50, 80, 30}
)

// Event kinds.
const (
	evArrival  = iota // stream idx issues a request
	evRemote          // request idx reaches its queue on the other machine
	evComplete        // server idx finishes its request
)

type event struct {
	t    float64 // ms
	idx  int32
	kind int32
}

// heap is a binary min-heap of events by time.
type heap []event

func (h *heap) push(e event) {
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].t <= e.t {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = e
}

func (h *heap) pop() event {
	s := *h
	top := s[0]
	last := len(s) - 1
	x := s[last]
	s = s[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= last {
			break
		}
		if r := l + 1; r < last && s[r].t < s[l].t {
			l = r
		}
		if x.t <= s[l].t {
			break
		}
		s[i] = s[l]
		i = l
	}
	if last > 0 {
		s[i] = x
	}
	*h = s
	return top
}

type request struct {
	svc, origin, server int32
}

// fifo is one server's queue: a ring of request slots.
type fifo struct {
	buf        []int32
	head, size int
}

func (q *fifo) push(s int32) {
	if q.size == len(q.buf) {
		nb := make([]int32, max(16, 2*len(q.buf)))
		for i := 0; i < q.size; i++ {
			nb[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.size)%len(q.buf)] = s
	q.size++
}

func (q *fifo) pop() int32 {
	s := q.buf[q.head]
	q.head = (q.head + 1) % len(q.buf)
	q.size--
	return s
}

// Result is what a run did, for a sanity check of the model.
type Result struct {
	Issued, Completed, Crossings int64
	BusyMS, SpanMS               float64
}

// Utilization is the servers' mean busy fraction over the run.
func (r Result) Utilization() float64 { return r.BusyMS / (nservers * r.SpanMS) }

type sim struct {
	rng      *rand.Rand
	h        heap
	reqs     []request
	free     []int32
	queues   [nservers]fifo
	idle     uint32          // bit i: server i is idle
	cur      [nservers]int32 // the request each busy server processes
	counters [machines][nservers]int64
	nextRst  float64
	res      Result
}

// Run issues n requests (seed picks the random stream), plays the model until
// every one has completed and returns what it did.
func Run(n int64, seed uint64) Result {
	s := &sim{rng: rand.New(rand.NewPCG(seed, 0x6261726c)), idle: 1<<nservers - 1, nextRst: resetMS}
	for i := range nstreams {
		s.h.push(event{t: s.rng.ExpFloat64() / ratePerMS, idx: int32(i), kind: evArrival})
	}
	for len(s.h) > 0 {
		e := s.h.pop()
		for e.t >= s.nextRst {
			s.counters = [machines][nservers]int64{}
			s.nextRst += resetMS
		}
		switch e.kind {
		case evArrival:
			if s.res.Issued >= n {
				continue // the workload has ended: drain
			}
			s.res.Issued++
			s.issue(e.idx, e.t)
			s.h.push(event{t: e.t + s.rng.ExpFloat64()/ratePerMS, idx: e.idx, kind: evArrival})
		case evRemote:
			s.enter(e.idx, e.t)
		case evComplete:
			s.complete(e.idx, e.t)
		}
	}
	return s.res
}

// issue chooses a server for a new request of stream st: the first idle one
// on its origin machine, else the least C_m(q) + L + N(q), charged to the
// origin's counters.
func (s *sim) issue(st int32, t float64) {
	svc, origin := st%nservices, st/nservices
	var r int32
	if k := len(s.free); k > 0 {
		r = s.free[k-1]
		s.free = s.free[:k-1]
	} else {
		s.reqs = append(s.reqs, request{})
		r = int32(len(s.reqs) - 1)
	}
	s.reqs[r] = request{svc: svc, origin: origin}
	local := uint32(1<<perMachine-1) << (origin * perMachine)
	if x := s.idle & local; x != 0 {
		srv := int32(bits.TrailingZeros32(x))
		s.counters[origin][srv] += load[svc]
		s.reqs[r].server = srv
		s.enter(r, t)
		return
	}
	row := &s.counters[origin]
	best, bestLoad := int32(0), int64(0)
	for q := range int32(nservers) {
		l := row[q] + load[svc]
		if q/perMachine != origin {
			l += netload
		}
		if q == 0 || l < bestLoad {
			best, bestLoad = q, l
		}
	}
	row[best] = bestLoad
	s.reqs[r].server = best
	if best/perMachine != origin {
		s.res.Crossings++
		s.h.push(event{t: t + latencyMS, idx: r, kind: evRemote})
		return
	}
	s.enter(r, t)
}

// enter puts request r into its server's queue, starting it if the server
// is idle.
func (s *sim) enter(r int32, t float64) {
	srv := s.reqs[r].server
	if s.idle&(1<<srv) != 0 {
		s.start(srv, r, t)
		return
	}
	s.queues[srv].push(r)
}

func (s *sim) start(srv, r int32, t float64) {
	s.idle &^= 1 << srv
	d := meanMS[s.reqs[r].svc] * s.rng.ExpFloat64()
	s.res.BusyMS += d
	s.h.push(event{t: t + d, idx: srv, kind: evComplete})
	s.reqs[r].server = srv
	// the request's slot is kept until it completes: the server's current
	// request is the one it started, found again through cur
	s.cur[srv] = r
}

func (s *sim) complete(srv int32, t float64) {
	s.res.Completed++
	s.res.SpanMS = t
	s.free = append(s.free, s.cur[srv])
	if q := &s.queues[srv]; q.size > 0 {
		s.start(srv, q.pop(), t)
		return
	}
	s.idle |= 1 << srv
}
