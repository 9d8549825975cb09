// Package workload is what a scenario issues: its trace (a log's rows or
// the trace's own rows, read and sorted once) and its generated streams
// (Poisson, constant, bursty, MMPP, rate profiles), with their routing
// values and buffer types, merged into one stream of requests in issue
// order with names resolved to the model's indexes. The engine plays the
// stream; nothing here knows how a request is dispatched.
package workload

import (
	"math"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/internal/mergetree"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/trace"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// Request is one service Request as the workload issues it, with names
// resolved to indexes of the Model.
type Request struct {
	// (what a request's start reads first, then what its completion
	// reads: the engine's record of a request begins with them)
	Service   int    // index into Model.Services
	ServiceUS int64  // from the trace, -1 when not given
	Key       uint64 // random key for this request's service-time draw: the same in every variant
	TimeUS    int64  // issue time
	Origin    int    // index into Model.Machines
	Seq       int64  // 1-based issue order
	Prio      int    // from the trace or stream, 0 when not given
	ID        string // the trace's id, "" when none (the dispatch log then shows Seq)
	// Route is where the request's routing value falls, for a service with
	// a routing criterion: k > 0 is range k-1 of the criterion, [RouteNone]
	// (0) no value, [RouteNoMatch] (-1) a value no range holds. Services
	// without a criterion ignore it.
	Route int32
	// Buf is the request's buffer type, numbered by the run's [BufTable]:
	// 0 none given, -1 one that no BUFTYPE lists. It picks the *ROUTING
	// entry of a criterion whose entries differ by BUFTYPE, and a nested
	// request inherits it.
	Buf int32
	// RouteVal is the routing value as written ("" when there is none, or
	// when a stream drew the number RouteNum).
	RouteVal string
	RouteNum float64
	Trace    bool // a trace row (not a generated request)
	// Observed marks a trace row whose log gave the response it observed:
	// its simulated response is counted in the result's validation.
	Observed bool
	// Queue is the /Q queue an enqueue stores its message in: k > 0 is
	// Model.MsgQueues[k-1] (Service is then its queue space's service); 0
	// for a request that is no enqueue.
	Queue int32
}

// The Route values that are not a range.
const (
	RouteNone    int32 = 0
	RouteNoMatch int32 = -1
	RouteNoBuf   int32 = -2 // a buffer type that no entry of the criterion holds
)

// Stream yields a workload's requests in issue order (time, then trace rows
// before generated ones, then row/stream order). It holds O(streams + trace rows)
// memory, never O(generated requests).
type Stream interface {
	Next(r *Request) bool
	Err() error
	Total() int64 // expected number of requests (exact for traces; an estimate with generation)
}

// DefaultMaxRequests bounds the size of one run unless the caller says otherwise.
const DefaultMaxRequests = 20_000_000

// StreamRouteValue is the random stream, derived from a request's key, of a
// generated request's routing value (the engine numbers its own streams
// apart from it).
const StreamRouteValue = 2

// ArrivalNames lists the arrival processes by the names a scenario gives them.
func ArrivalNames() []string { return arrivalKinds.List() }

// RouteDistNames lists the distributions of generated routing values.
func RouteDistNames() []string { return routeDists.List() }

// Open compiles the scenario's workload against the model and opens
// it with seed (a Plan compiles it once and opens it per run).
func Open(m *ubb.Model, sc *scenario.Scenario, seed uint64, maxRequests int64) (Stream, error) {
	cw, err := Compile(NewNames(m), &sc.Workload)
	if err != nil {
		return nil, err
	}
	mg, err := cw.Open(seed, maxRequests)
	if err != nil {
		return nil, err
	}
	return mg, nil
}

// Open starts a run of the compiled workload with seed: the trace, read and
// sorted once, is keyed by the seed as it is played; generated streams are
// drawn lazily as Next is called. maxRequests <= 0 means DefaultMaxRequests.
// Open does not change cw, so one compiled workload may be played by several
// runs at once.
func (cw *Compiled) Open(seed uint64, maxRequests int64) (*Merger, error) {
	if maxRequests <= 0 {
		maxRequests = DefaultMaxRequests
	}
	total := cw.TraceRows() + int64(math.Ceil(cw.Expected+cw.sourced()))
	if cw.Expected > float64(maxRequests) || total > maxRequests {
		return nil, overLimit(total, maxRequests)
	}
	return newMerger(cw, seed, maxRequests), nil
}

// overLimit is the error of a workload larger than the request limit.
func overLimit(n, limit int64) error {
	err := diag.Errorf(diag.ETOOLARGE, "workload: %d requests over the limit of %d", n, limit)
	err.Limit = diag.LimitRequests
	return err
}

// Compiled is a workload checked against its model: the sorted trace
// and the streams ready to be started. It does not depend on the seed.
type Compiled struct {
	// Trace holds the trace's rows sorted by time, Key holding the row
	// number (traceCSV), when they are held: the JSON rows of
	// workload.trace, or a trace_csv too far out of order to stream. A
	// trace_csv otherwise stays its text (csv), read by each run.
	Trace    []Request
	csv      *csvTrace
	names    *Names
	streams  []streamSpec
	Expected float64 // expected number of generated requests
	// clients is a rough count of the client sets' requests (each client
	// issuing once per mean think plus 10 ms), for progress only: it is no
	// part of the up-front request limit, since a client's pace depends on
	// its answers
	clients float64
	Note    string // how a log given as trace_csv was read ("" for the trace format)
	// sources are the workload's sources of other kinds (AddSource), in
	// the order added
	sources []SourceSpec
	// Info is what reading trace_csv found (rows, skipped rows); traced
	// says the workload has a trace (trace_csv or trace rows).
	Info   trace.Info
	Traced bool
	// Observed holds the trace rows whose log gave an Observed response,
	// in the log's order, when trace_rate_scale is 1.
	Observed []ObservedRow
}

// ObservedRow is a trace row's observed response: its service, its issue
// time (as the run plays it) and the response the log observed.
type ObservedRow struct {
	Service int32
	TimeUS  int64
	US      int64
}

// maxTraceRateScale bounds workload.trace_rate_scale, and its inverse from
// below: a trace's times (at most usec.Max) divided by it stay far inside
// int64.
const maxTraceRateScale = 1000.0

// Compile checks w and resolves its names.
func Compile(n *Names, w *scenario.Workload) (*Compiled, error) {
	cw := &Compiled{names: n}
	var err error
	switch {
	case w.TraceCSV != "" && w.Trace != nil:
		return nil, diag.FieldErrorf("workload.trace", "give trace_csv or trace, not both")
	case w.Columns != nil && w.TraceCSV == "":
		return nil, diag.FieldErrorf("workload.columns", "applies to trace_csv, which is missing")
	case w.TraceSkipBad && w.TraceCSV == "":
		return nil, diag.FieldErrorf("workload.trace_skip_bad", "applies to trace_csv, which is missing")
	case w.TraceRateScale != nil && w.TraceCSV == "" && w.Trace == nil:
		return nil, diag.FieldErrorf("workload.trace_rate_scale", "applies to a trace (trace_csv or trace), which is missing")
	case w.TraceRateScale != nil && !(*w.TraceRateScale >= 1/maxTraceRateScale && *w.TraceRateScale <= maxTraceRateScale):
		return nil, diag.FieldErrorf("workload.trace_rate_scale", "must be between 0.001 and 1000, got %v", *w.TraceRateScale)
	case w.TraceCSV != "":
		scale := 1.0
		if f := w.TraceRateScale; f != nil {
			scale = *f
		}
		cw.csv, cw.Trace, cw.Observed, cw.Info, err = traceCSV(n, w.TraceCSV, w.Columns, w.TraceSkipBad, scale)
		cw.Note = cw.Info.Note
	case w.Trace != nil:
		cw.Trace, err = traceJSON(n, w.Trace)
		cw.Info.Rows = len(w.Trace)
		if f := w.TraceRateScale; err == nil && f != nil && *f < 1 {
			err = firstScaledPast(cw.Trace, *f)
		}
	case w.Generate == nil:
		return nil, diag.FieldErrorf("workload", "empty (give trace_csv, trace or generate)")
	}
	if err != nil {
		return nil, err
	}
	if cw.Info.Rows == 0 && cw.Info.Skipped > 0 {
		return nil, diag.FieldErrorf("workload.trace_skip_bad", "every row of the trace was skipped as unreadable (%d rows; the first: %s)",
			cw.Info.Skipped, cw.Info.Examples[0])
	}
	cw.Traced = w.TraceCSV != "" || w.Trace != nil
	if f := w.TraceRateScale; f != nil && *f != 1 {
		// the responses a log observed were those of its own rate: there is
		// nothing to compare a scaled replay with
		scaleTrace(cw.Trace, *f)
		for i := range cw.Trace {
			cw.Trace[i].Observed = false
		}
		cw.Observed = nil
	}
	if w.Generate != nil {
		if cw.streams, err = CheckGenerate(n, w.Generate); err != nil {
			return nil, err
		}
		for i := range cw.streams {
			cw.Expected += cw.streams[i].expected
		}
		cw.clients = ClientRequests(w)
	}
	return cw, nil
}

// ClientRequests is a rough count of the requests of w's client sets: each
// client issuing once per mean think time plus 10 ms, over the generated
// duration. A client's pace depends on its answers, so it is no bound of a
// run (which stops at its request limit); it sizes progress, and the work of
// many runs before they start.
func ClientRequests(w *scenario.Workload) float64 {
	if w.Generate == nil {
		return 0
	}
	n := 0.0
	for i := range w.Generate.Clients {
		cs := &w.Generate.Clients[i]
		think := 0.0
		if cs.Think != nil {
			if smp, err := dist.New(cs.Think, ""); err == nil {
				think = smp.MeanMS()
			}
		}
		n += float64(cs.Count) * w.Generate.DurationMS / (think + 10)
	}
	return n
}

// TraceRows is the number of the trace's rows.
func (cw *Compiled) TraceRows() int64 {
	if cw.csv != nil {
		return cw.csv.rows
	}
	return int64(len(cw.Trace))
}

// TraceRequests returns the trace's requests in time order, as a run
// plays them (before the seed keys them): Trace, or the log read whole.
func (cw *Compiled) TraceRequests() ([]Request, error) {
	if cw.csv == nil {
		return cw.Trace, nil
	}
	var f traceFeed
	out := make([]Request, 0, cw.csv.rows)
	for t := f.open(cw); t != mergetree.NoMore; {
		var r Request
		t = f.take(&r)
		out = append(out, r)
	}
	return out, f.err
}

// SourceSpec is a kind of open-loop workload source beyond the two the
// merger plays itself (a trace, generated streams): compiled once from the
// scenario, opened by each run. A new kind of source (a workload fitted to
// a ULOG, a recorded arrival process...) implements it and is added to the
// compiled workload with [Compiled.AddSource]; docs/architecture.md,
// "Adding a workload source", has the recipe.
type SourceSpec interface {
	// Expected is how many requests a run issues from it (for the request
	// limit, checked before the run, and progress).
	Expected() float64
	// Open starts a run of it with seed, and returns the run's source and
	// the time of its first request (mergetree.NoMore: none). Runs of one
	// compiled workload may be played at once: Open must not change the
	// spec.
	Open(seed uint64) (Source, int64)
}

// Source is one run of a SourceSpec: its requests in time order, one at a
// time.
type Source interface {
	// Take writes its pending request into r (every field but Seq, which
	// the merger numbers; Key is the request's random key, drawn from the
	// run's seed) and returns the time of the one after it
	// (mergetree.NoMore: none).
	Take(r *Request) int64
}

// AddSource adds a source of another kind to the compiled workload. Its
// requests merge with the trace's and the streams' by time; at one instant
// the trace's come first, then the added sources' in the order added, then
// the streams'.
func (cw *Compiled) AddSource(s SourceSpec) {
	cw.sources = append(cw.sources, s)
}

// sourced is the expected number of requests of the added sources.
func (cw *Compiled) sourced() float64 {
	n := 0.0
	for _, s := range cw.sources {
		n += s.Expected()
	}
	return n
}

// Merger plays a compiled workload: a winner tree (mergetree.Tree) picks the
// source of the next request by time, then rank. The leaves are the trace,
// when it has rows, then the added sources (AddSource), then the streams in
// order. The trace and the streams, the sources of almost every run, are
// called directly; an added source through its interface. A source holds only its next
// time: Next writes the request itself into the caller's record, with no
// copy in between. The first requests, read by lookAhead, are replayed from
// look.
type Merger struct {
	look    []Request // the look-ahead, replayed before the sources
	li      int       // the next request of look to replay
	tree    mergetree.Tree
	trace   traceFeed
	keyBase uint64 // the trace's keyBase(seed, 0)
	first   int    // the streams' first leaf: the trace's and the added sources' leaves come before
	traced  int    // the added sources' first leaf: 1 when the trace has rows, else 0
	extra   []Source
	streams []streamSource
	seq     int64
	limit   int64
	total   int64
	err     error
}

// newMerger starts playing cw with seed.
func newMerger(cw *Compiled, seed uint64, limit int64) *Merger {
	mg := &Merger{limit: limit, total: cw.TraceRows() + int64(math.Round(cw.Expected+cw.clients+cw.sourced())),
		keyBase: KeyBase(seed, 0), streams: make([]streamSource, len(cw.streams))}
	times := make([]int64, 0, len(cw.streams)+len(cw.sources)+1)
	if cw.TraceRows() > 0 {
		mg.traced = 1
		times = append(times, mg.trace.open(cw))
	}
	for _, spec := range cw.sources {
		s, t := spec.Open(seed)
		mg.extra = append(mg.extra, s)
		times = append(times, t)
	}
	mg.first = mg.traced + len(mg.extra)
	for i := range cw.streams {
		s := &mg.streams[i]
		cw.streams[i].start(s, seed, i)
		times = append(times, s.next(nil, 0, 0))
	}
	mg.tree = mergetree.New(times)
	return mg
}

// Next fills r with the next request in issue order.
func (mg *Merger) Next(r *Request) bool {
	if mg.li < len(mg.look) {
		*r = mg.look[mg.li]
		if mg.li++; mg.li == len(mg.look) {
			giveLookBuf(mg.look)
			mg.look, mg.li = nil, 0
		}
		return true
	}
	wt, wleaf := mg.tree.Top()
	if wt == mergetree.NoMore {
		return false
	}
	if mg.seq >= mg.limit { // and so on every later call: no test of err on the way
		if mg.err == nil {
			mg.err = overLimit(mg.seq+1, mg.limit)
		}
		return false
	}
	mg.seq++
	t := mergetree.NoMore
	if wleaf < mg.first {
		if wleaf >= mg.traced { // an added source
			t = mg.extra[wleaf-mg.traced].Take(r)
			r.Seq = mg.seq
			mg.tree.Set(wleaf, t)
			return true
		}
		t = mg.trace.take(r)
		r.Seq, r.Key, r.Trace = mg.seq, Mix64(mg.keyBase^r.Key), true // requestKey(seed, 0, row)
		if t == mergetree.NoMore && mg.trace.err != nil && mg.err == nil {
			mg.err = mg.trace.err // the text read differently from when it was compiled: it cannot
		}
	} else {
		t = mg.streams[wleaf-mg.first].next(r, wt, mg.seq)
	}
	mg.tree.Set(wleaf, t)
	return true
}

// Err returns the error that stopped the workload early, if any.
func (mg *Merger) Err() error { return mg.err }

// Total returns the trace's rows plus the expected number of generated requests.
func (mg *Merger) Total() int64 { return mg.total }

// Set makes r a copy of s field by field: a request just written field by
// field is read so, where a copy of the whole would wait for its stores.
func (r *Request) Set(s *Request) {
	r.Service, r.ServiceUS, r.Key, r.TimeUS, r.Origin, r.Seq, r.Prio, r.ID = s.Service, s.ServiceUS, s.Key, s.TimeUS, s.Origin, s.Seq, s.Prio, s.ID
	r.Route, r.Buf, r.RouteVal, r.RouteNum, r.Trace, r.Observed, r.Queue = s.Route, s.Buf, s.RouteVal, s.RouteNum, s.Trace, s.Observed, s.Queue
}

// Pick is a weighted draw's index: the first i whose cumulative weight
// cum[i] is above u, or the last when none is (u uniform in [0, the total),
// cum never decreasing; a weight of 0 is never drawn). A long list (a
// client's hundreds of services, a routing field's thousands of values) is
// halved down to a few entries, which are scanned: the same index in about
// log2 steps.
func Pick(cum []float64, u float64) int {
	i, hi := 0, len(cum)-1 // the index is in [i, hi]
	for hi-i > 8 {
		if m := int(uint(i+hi) >> 1); u >= cum[m] {
			i = m + 1
		} else {
			hi = m
		}
	}
	for i < hi && u >= cum[i] {
		i++
	}
	return i
}
