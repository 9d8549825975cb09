package core

import "math"

// Request is one service request as the workload issues it, with names
// resolved to indexes of the Model.
type Request struct {
	Seq       int64  // 1-based issue order
	ID        string // the trace's id, "" when none (the dispatch log then shows Seq)
	TimeUS    int64  // issue time
	Service   int    // index into Model.Services
	Origin    int    // index into Model.Machines
	ServiceUS int64  // from the trace, -1 when not given
	Prio      int    // from the trace or stream, 0 when not given
	Key       uint64 // random key for this request's service-time draw: the same in every variant
}

// Requests yields a workload's requests in issue order (time, then trace rows
// before generated ones, then row/stream order). It holds O(streams + trace rows)
// memory, never O(generated requests).
type Requests interface {
	Next(r *Request) bool
	Err() error
	Total() int64 // expected number of requests (exact for traces; an estimate with generation)
}

// OpenWorkload compiles the scenario's workload against the model. A trace is
// read and sorted up front; generated streams are drawn lazily as Next is
// called. maxRequests <= 0 means DefaultMaxRequests.
func OpenWorkload(m *Model, sc *Scenario, seed uint64, maxRequests int64) (Requests, error) {
	if maxRequests <= 0 {
		maxRequests = DefaultMaxRequests
	}
	cw, err := compileWorkload(newNames(m), &sc.Workload, seed)
	if err != nil {
		return nil, err
	}
	total := int64(len(cw.trace)) + int64(math.Ceil(cw.expected))
	if cw.expected > float64(maxRequests) || total > maxRequests {
		return nil, overLimit(total, maxRequests)
	}
	return newMerger(cw, maxRequests), nil
}

// overLimit is the error of a workload larger than the request limit.
func overLimit(n, limit int64) error {
	return Errorf(ETOOLARGE, "workload: %d requests over the limit of %d", n, limit)
}

// compiledWorkload is a workload checked against its model: the sorted trace
// and the streams ready to be started.
type compiledWorkload struct {
	trace    []Request
	streams  []streamSpec
	seed     uint64
	expected float64 // expected number of generated requests
}

// compileWorkload checks w and resolves its names.
func compileWorkload(n *names, w *Workload, seed uint64) (*compiledWorkload, error) {
	cw := &compiledWorkload{seed: seed}
	var err error
	switch {
	case w.TraceCSV != "" && w.Trace != nil:
		return nil, Errorf(EINVALID, "workload.trace: give trace_csv or trace, not both")
	case w.Columns != nil && w.TraceCSV == "":
		return nil, Errorf(EINVALID, "workload.columns: applies to trace_csv, which is missing")
	case w.TraceCSV != "":
		cw.trace, err = traceCSV(n, w.TraceCSV, w.Columns, seed)
	case w.Trace != nil:
		cw.trace, err = traceJSON(n, w.Trace, seed)
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
// each stream) ordered by their next request's time, then source rank.
type merger struct {
	srcs  []source
	heap  []int // indexes into srcs
	seq   int64
	limit int64
	total int64
	err   error
}

// source is one input of the merge: the trace (rank 0) or stream i (rank i+1).
type source struct {
	rank    int
	pending Request
	trace   []Request
	pos     int
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
	s.pos++
	return true
}

func newMerger(cw *compiledWorkload, limit int64) *merger {
	mg := &merger{limit: limit, total: int64(len(cw.trace)) + int64(math.Round(cw.expected))}
	mg.srcs = make([]source, 0, len(cw.streams)+1)
	mg.srcs = append(mg.srcs, source{rank: 0, trace: cw.trace})
	for i := range cw.streams {
		mg.srcs = append(mg.srcs, source{rank: i + 1, stream: cw.streams[i].start(cw.seed, i)})
	}
	for i := range mg.srcs {
		if mg.srcs[i].advance() {
			mg.heap = append(mg.heap, i)
			mg.up(len(mg.heap) - 1)
		}
	}
	return mg
}

// Next fills r with the next request in issue order.
func (mg *merger) Next(r *Request) bool {
	if len(mg.heap) == 0 || mg.err != nil {
		return false
	}
	if mg.seq >= mg.limit {
		mg.err = overLimit(mg.seq+1, mg.limit)
		return false
	}
	top := &mg.srcs[mg.heap[0]]
	*r = top.pending
	mg.seq++
	r.Seq = mg.seq
	if top.advance() {
		mg.down(0)
	} else {
		last := len(mg.heap) - 1
		mg.heap[0] = mg.heap[last]
		mg.heap = mg.heap[:last]
		mg.down(0)
	}
	return true
}

// Err returns the error that stopped the workload early, if any.
func (mg *merger) Err() error { return mg.err }

// Total returns the trace's rows plus the expected number of generated requests.
func (mg *merger) Total() int64 { return mg.total }

func (mg *merger) less(i, j int) bool {
	a, b := &mg.srcs[mg.heap[i]], &mg.srcs[mg.heap[j]]
	if a.pending.TimeUS != b.pending.TimeUS {
		return a.pending.TimeUS < b.pending.TimeUS
	}
	return a.rank < b.rank
}

func (mg *merger) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !mg.less(i, p) {
			return
		}
		mg.heap[i], mg.heap[p] = mg.heap[p], mg.heap[i]
		i = p
	}
}

func (mg *merger) down(i int) {
	n := len(mg.heap)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && mg.less(c+1, c) {
			c++
		}
		if !mg.less(c, i) {
			return
		}
		mg.heap[i], mg.heap[c] = mg.heap[c], mg.heap[i]
		i = c
	}
}
