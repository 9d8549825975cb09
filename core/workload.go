package core

import "math"

// request is one service request as the workload issues it, with names
// resolved to indexes of the Model.
type request struct {
	Seq       int64  // 1-based issue order
	ID        string // the trace's id, "" when none (the dispatch log then shows Seq)
	TimeUS    int64  // issue time
	Service   int    // index into Model.Services
	Origin    int    // index into Model.Machines
	ServiceUS int64  // from the trace, -1 when not given
	Prio      int    // from the trace or stream, 0 when not given
	Key       uint64 // random key for this request's service-time draw: the same in every variant
	// Route is where the request's routing value falls, for a service with
	// a routing criterion: k > 0 is range k-1 of the criterion, RouteNone
	// (0) no value, RouteNoMatch (-1) a value no range holds. Services
	// without a criterion ignore it.
	Route int32
	// RouteVal is the routing value as written ("" when there is none, or
	// when a stream drew the number RouteNum).
	RouteVal string
	RouteNum float64
}

// The Route values that are not a range.
const (
	routeNone    int32 = 0
	routeNoMatch int32 = -1
)

// requestStream yields a workload's requests in issue order (time, then trace rows
// before generated ones, then row/stream order). It holds O(streams + trace rows)
// memory, never O(generated requests).
type requestStream interface {
	Next(r *request) bool
	Err() error
	Total() int64 // expected number of requests (exact for traces; an estimate with generation)
}

// openWorkload compiles the scenario's workload against the model and opens
// it with seed (a Plan compiles it once and opens it per run).
func openWorkload(m *Model, sc *Scenario, seed uint64, maxRequests int64) (requestStream, error) {
	cw, err := compileWorkload(newNames(m), &sc.Workload)
	if err != nil {
		return nil, err
	}
	return cw.open(seed, maxRequests)
}

// open starts a run of the compiled workload with seed: the trace, read and
// sorted once, is keyed by the seed as it is played; generated streams are
// drawn lazily as Next is called. maxRequests <= 0 means DefaultMaxRequests.
// open does not change cw, so one compiled workload may be played by several
// runs at once.
func (cw *compiledWorkload) open(seed uint64, maxRequests int64) (requestStream, error) {
	if maxRequests <= 0 {
		maxRequests = DefaultMaxRequests
	}
	total := int64(len(cw.trace)) + int64(math.Ceil(cw.expected))
	if cw.expected > float64(maxRequests) || total > maxRequests {
		return nil, overLimit(total, maxRequests)
	}
	return newMerger(cw, seed, maxRequests), nil
}

// overLimit is the error of a workload larger than the request limit.
func overLimit(n, limit int64) error {
	err := Errorf(ETOOLARGE, "workload: %d requests over the limit of %d", n, limit)
	err.Limit = LimitRequests
	return err
}

// compiledWorkload is a workload checked against its model: the sorted trace
// and the streams ready to be started. It does not depend on the seed.
type compiledWorkload struct {
	trace    []request // sorted by time; Key holds the row number (traceCSV)
	streams  []streamSpec
	expected float64 // expected number of generated requests
	note     string  // how a log given as trace_csv was read ("" for the trace format)
}

// compileWorkload checks w and resolves its names.
func compileWorkload(n *names, w *Workload) (*compiledWorkload, error) {
	cw := &compiledWorkload{}
	var err error
	switch {
	case w.TraceCSV != "" && w.Trace != nil:
		return nil, Errorf(EINVALID, "workload.trace: give trace_csv or trace, not both")
	case w.Columns != nil && w.TraceCSV == "":
		return nil, Errorf(EINVALID, "workload.columns: applies to trace_csv, which is missing")
	case w.TraceCSV != "":
		cw.trace, cw.note, err = traceCSV(n, w.TraceCSV, w.Columns)
	case w.Trace != nil:
		cw.trace, err = traceJSON(n, w.Trace)
	case w.Generate == nil:
		return nil, Errorf(EINVALID, "workload: empty (give trace_csv, trace or generate)")
	}
	if err != nil {
		return nil, err
	}
	if w.Generate != nil {
		if cw.streams, err = checkGenerate(n, w.Generate); err != nil {
			return nil, err
		}
		for i := range cw.streams {
			cw.expected += cw.streams[i].expected
		}
	}
	return cw, nil
}

// merger plays a compiled workload: a binary heap of sources (the trace and
// each stream) ordered by their next request's time, then source rank. A
// source's rank is its index in srcs, and each heap slot carries its source's
// next time, so comparisons never leave the heap slice.
type merger struct {
	srcs  []source
	heap  []mslot
	seq   int64
	limit int64
	total int64
	err   error
}

// mslot is one heap entry: a source's index (its rank) and its next request's time.
type mslot struct {
	t   int64
	src int
}

// before reports whether a's request comes before b's: by time, then rank.
func (a mslot) before(b mslot) bool {
	return a.t < b.t || (a.t == b.t && a.src < b.src)
}

// beforeInt is before as 1 or 0, computed without a branch (which child of a
// heap node comes first is a coin toss the processor would mispredict).
func (a mslot) beforeInt(b mslot) int {
	return b2i(a.t < b.t) | b2i(a.t == b.t)&b2i(a.src < b.src)
}

// source is one input of the merge: the trace (rank 0) or stream i (rank i+1).
type source struct {
	pending request
	trace   []request
	pos     int
	keyBase uint64 // the trace's keyBase(seed, 0)
	stream  *streamSource
}

// advance loads the source's next request into pending, reporting false at its end.
func (s *source) advance() bool {
	if s.stream != nil {
		return s.stream.next(&s.pending)
	}
	if s.pos >= len(s.trace) {
		return false
	}
	s.pending = s.trace[s.pos]
	s.pending.Key = mix64(s.keyBase ^ s.pending.Key) // requestKey(seed, 0, row)
	s.pos++
	return true
}

// newMerger starts playing cw with seed.
func newMerger(cw *compiledWorkload, seed uint64, limit int64) *merger {
	mg := &merger{limit: limit, total: int64(len(cw.trace)) + int64(math.Round(cw.expected))}
	mg.srcs = make([]source, 0, len(cw.streams)+1)
	mg.srcs = append(mg.srcs, source{trace: cw.trace, keyBase: keyBase(seed, 0)})
	for i := range cw.streams {
		mg.srcs = append(mg.srcs, source{stream: cw.streams[i].start(seed, i)})
	}
	mg.prime()
	return mg
}

// prime loads each source's first request and heaps the sources that have one.
func (mg *merger) prime() {
	for i := range mg.srcs {
		if mg.srcs[i].advance() {
			mg.push(mslot{t: mg.srcs[i].pending.TimeUS, src: i})
		}
	}
}

// Next fills r with the next request in issue order.
func (mg *merger) Next(r *request) bool {
	if len(mg.heap) == 0 || mg.err != nil {
		return false
	}
	if mg.seq >= mg.limit {
		mg.err = overLimit(mg.seq+1, mg.limit)
		return false
	}
	i := mg.heap[0].src
	top := &mg.srcs[i]
	*r = top.pending
	mg.seq++
	r.Seq = mg.seq
	if top.advance() {
		mg.down(mslot{t: top.pending.TimeUS, src: i})
	} else {
		last := len(mg.heap) - 1
		x := mg.heap[last]
		mg.heap = mg.heap[:last]
		if last > 0 {
			mg.down(x)
		}
	}
	return true
}

// Err returns the error that stopped the workload early, if any.
func (mg *merger) Err() error { return mg.err }

// Total returns the trace's rows plus the expected number of generated requests.
func (mg *merger) Total() int64 { return mg.total }

// push adds x, sifting it up with a hole.
func (mg *merger) push(x mslot) {
	mg.heap = append(mg.heap, x)
	i := len(mg.heap) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !x.before(mg.heap[p]) {
			break
		}
		mg.heap[i] = mg.heap[p]
		i = p
	}
	mg.heap[i] = x
}

// down puts x at the root, the old root being gone, and sifts it down with a
// hole: the smaller child (chosen without a branch) moves up until x fits.
// The heap must not be empty.
func (mg *merger) down(x mslot) {
	h := mg.heap
	n := len(h)
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n {
			m += h[r].beforeInt(h[l])
		}
		if !h[m].before(x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
}
