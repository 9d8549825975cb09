package workload

import (
	"math"

	"github.com/tuxlb/tuxlb/core/diag"

	"github.com/tuxlb/tuxlb/core/internal/mergetree"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/trace"
)

// MaxReorderRows is how far out of time order a trace_csv row may be and
// still be streamed: a row may come after at most this many rows of later
// times (the rows of the run's reorder heap). A log further out of order is
// read whole and sorted (see traceCSV).
const MaxReorderRows = 4096

// csvTrace is a trace_csv kept as its text: each run reads it again, in
// time order, holding a row and the reorder heap, never the log.
type csvTrace struct {
	text    string
	cols    *trace.Columns
	skipBad bool
	scale   float64 // trace_rate_scale, 1 for none
	window  int     // the reorder heap's rows: 0 for a log in time order
	rows    int64
}

// traceFeed is a run's trace: the compiled rows (the trace's JSON rows, or
// a log too far out of order) or a csvTrace read as the run goes.
type traceFeed struct {
	rows []Request
	pos  int

	rd   *trace.Reader
	tr   trace.Request // the row read: in a log in time order, the next request as read
	n    *Names
	ct   *csvTrace
	heap []Request // by (TimeUS, Key): the reorder window
	eof  bool
	cur  Request // the next request, of a log out of order (from the heap)
	has  bool
	err  error
}

// open starts the feed; it returns the first request's time, NoMore when
// there is none.
func (f *traceFeed) open(cw *Compiled) int64 {
	if cw.csv == nil {
		f.rows = cw.Trace
		if len(f.rows) == 0 {
			return mergetree.NoMore
		}
		return f.rows[0].TimeUS
	}
	f.ct, f.n = cw.csv, cw.names
	f.rd, f.err = trace.NewReader(f.ct.text, f.ct.cols, trace.Options{SkipBad: f.ct.skipBad}, f.n)
	if f.err == nil && f.ct.window > 0 {
		f.heap = make([]Request, 0, f.ct.window+1)
	}
	return f.advance()
}

// take writes the next request into r and returns the time of the one
// after it, NoMore when there is none.
func (f *traceFeed) take(r *Request) int64 {
	if f.ct == nil {
		*r = f.rows[f.pos]
		if f.pos++; f.pos < len(f.rows) {
			return f.rows[f.pos].TimeUS
		}
		return mergetree.NoMore
	}
	if f.ct.window == 0 { // the row read ahead is f.tr: made into r where it is
		f.n.fillFromTrace(r, &f.tr, false)
		if s := f.ct.scale; s != 1 {
			r.TimeUS = int64(math.Round(float64(r.TimeUS) / s))
			r.Observed = false
		}
		return f.ahead()
	}
	*r = f.cur
	return f.advance()
}

// ahead reads the log's next row into f.tr (a log in time order) and
// returns its time as the run plays it, NoMore at the end.
func (f *traceFeed) ahead() int64 {
	if f.eof || f.err != nil {
		f.has = false
		return mergetree.NoMore
	}
	ok, err := f.next()
	if f.has = ok; !ok {
		f.eof, f.err = true, err
		return mergetree.NoMore
	}
	if s := f.ct.scale; s != 1 {
		return int64(math.Round(float64(f.tr.TimeUS) / s))
	}
	return f.tr.TimeUS
}

// next reads the log's next played row into f.tr: a row whose failure
// says it never reached a server (trace.StatusNotSent) is passed over.
func (f *traceFeed) next() (bool, error) {
	for {
		ok, err := f.rd.Next(&f.tr)
		if !ok || f.tr.Status != trace.StatusNotSent {
			return ok, err
		}
	}
}

// read reads the log's next row into r.
func (f *traceFeed) read(r *Request) bool {
	if f.eof || f.err != nil {
		return false
	}
	ok, err := f.next()
	if !ok {
		f.eof, f.err = true, err
		return false
	}
	f.n.fillFromTrace(r, &f.tr, false)
	if s := f.ct.scale; s != 1 {
		r.TimeUS = int64(math.Round(float64(r.TimeUS) / s))
		r.Observed = false
	}
	return true
}

// advance makes cur the next request in time order and returns its time.
func (f *traceFeed) advance() int64 {
	if f.ct.window == 0 {
		return f.ahead()
	}
	for len(f.heap) <= f.ct.window {
		var r Request
		if !f.read(&r) {
			break
		}
		f.push(r)
	}
	if len(f.heap) == 0 {
		f.has = false
		return mergetree.NoMore
	}
	f.cur, f.has = f.pop(), true
	return f.cur.TimeUS
}

func before(a, b *Request) bool {
	return a.TimeUS < b.TimeUS || a.TimeUS == b.TimeUS && a.Key < b.Key
}

func (f *traceFeed) push(r Request) {
	h := append(f.heap, r)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !before(&h[i], &h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	f.heap = h
}

func (f *traceFeed) pop() Request {
	h := f.heap
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && before(&h[l], &h[m]) {
			m = l
		}
		if l+1 < n && before(&h[l+1], &h[m]) {
			m = l + 1
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	f.heap = h
	return top
}

// fromTrace is the request of a log's row. Its Key holds the row number
// (0-based): the merger turns it into the random key of the run's seed
// (requestKey), so the trace is the same for every seed. intern numbers a
// buffer type no BUFTYPE lists (as the trace is compiled); a run only
// looks it up.
func (n *Names) fromTrace(tr *trace.Request, intern bool) Request {
	var r Request
	n.fillFromTrace(&r, tr, intern)
	return r
}

// fillFromTrace writes fromTrace's request into r, every field (Seq 0).
func (n *Names) fillFromTrace(r *Request, tr *trace.Request, intern bool) {
	*r = Request{ID: tr.ID, TimeUS: tr.TimeUS, Service: tr.Service, Origin: tr.Origin, ServiceUS: tr.ServiceUS,
		Prio: tr.Prio, Key: uint64(tr.Row - 1), RouteVal: tr.Route, Observed: tr.ObservedUS >= 0 && tr.Status == trace.StatusOK, Queue: tr.Queue}
	if tr.BufType != "" {
		if intern {
			r.Buf = n.Bufs.Index(tr.BufType)
		} else {
			r.Buf = n.Bufs.Lookup(tr.BufType)
		}
	}
	if n.Sets[r.Service] != nil {
		n.route(r)
	}
}

// order follows a log's times as it is read, to size the reorder heap a
// run needs: a row i of time t comes after at most i-j rows of a later
// time, j the first row later than t, which is the first of the rows that
// set a new latest time (the records) later than t. Times that only grow
// need none.
type order struct {
	// the records within MaxReorderRows rows of the last read: their times
	// grow
	recT, recI []int64
	head       int   // the first live record
	dropped    int64 // the latest time of the records dropped
	need       int64 // the largest window needed so far
	latest     int64 // the latest time so far: the last record's
}

// add follows row i (0-based) of time t; false when the row is further
// out of order than MaxReorderRows.
func (o *order) add(i, t int64) bool {
	if i > 0 && t >= o.latest { // in order, the most of rows
		if t > o.latest { // a record
			if len(o.recI)-o.head > 2*MaxReorderRows {
				o.drop(i) // the records dropped only now and then: only a row out of order reads them
			}
			o.recT, o.recI, o.latest = append(o.recT, t), append(o.recI, i), t
		}
		return true
	}
	return o.addBack(i, t)
}

// drop forgets the records more than MaxReorderRows rows before row i.
func (o *order) drop(i int64) {
	for o.head < len(o.recI) && o.recI[o.head] < i-MaxReorderRows {
		o.dropped = o.recT[o.head]
		o.head++
	}
	if o.head > 1024 && o.head*2 > len(o.recI) { // forget the dropped records
		n := copy(o.recT, o.recT[o.head:])
		copy(o.recI, o.recI[o.head:])
		o.recT, o.recI, o.head = o.recT[:n], o.recI[:n], 0
	}
}

// addBack is add of the first row, or of a row before the latest time.
func (o *order) addBack(i, t int64) bool {
	if i == 0 {
		o.dropped = math.MinInt64
	}
	o.drop(i)
	live := o.recT[o.head:]
	last := o.dropped
	if len(live) > 0 {
		last = live[len(live)-1]
	}
	switch {
	case i == 0 || t > last:
		o.recT, o.recI, o.latest = append(o.recT, t), append(o.recI, i), t
		return true
	case t == last:
		return true
	}
	lo, hi := 0, len(live)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if live[m] > t {
			hi = m
		} else {
			lo = m + 1
		}
	}
	if lo == len(live) || (lo == 0 && o.dropped > t) {
		return false // the first later row is further back than the window
	}
	o.need = max(o.need, i-o.recI[o.head+lo])
	return true
}

// traceCSV compiles workload.trace_csv (trace.Read): it reads the log once
// to check it, and keeps its text, for each run to read again in time
// order (a log out of order by less than MaxReorderRows rows is put in
// order by a heap of that many rows). A log further out of order is read
// into memory and sorted, as Compiled.Trace. info says how its columns were
// read and which rows were skipped (skipBad), and which failed. A row's
// observed response, when the log has one and the row did not fail (its
// status column), is kept in obs; a row that failed before it reached a
// server is not played.
func traceCSV(n *Names, text string, cm *scenario.TraceMap, skipBad bool, scale float64) (ct *csvTrace, reqs []Request, obs []ObservedRow, info trace.Info, err error) {
	var cols *trace.Columns
	if cm != nil {
		c := trace.Columns(*cm)
		cols = &c
	}
	var ord order
	inOrder := true
	var rows int64
	var pastRow int // the first row the scale plays past the longest simulated time
	var pastUS int64
	failed := failedRows{n: n}
	info, err = trace.Read(text, cols, trace.Options{SkipBad: skipBad}, n, func(tr *trace.Request) {
		if scale < 1 && pastRow == 0 && scaledTime(tr.TimeUS, scale) > usec.Max {
			pastRow, pastUS = tr.Row, tr.TimeUS
		}
		if tr.Status != trace.StatusOK {
			failed.add(tr)
			if tr.Status == trace.StatusNotSent {
				return // no server saw it: not played
			}
		}
		if tr.BufType != "" {
			n.Bufs.Index(tr.BufType) // numbered now: a run only looks it up
		}
		if tr.ObservedUS >= 0 && tr.Status == trace.StatusOK {
			obs = append(obs, ObservedRow{Service: int32(tr.Service), TimeUS: tr.TimeUS, US: tr.ObservedUS})
		}
		inOrder = inOrder && ord.add(rows, tr.TimeUS)
		rows++
	})
	if err != nil {
		return nil, nil, nil, trace.Info{}, diag.Invalid(err)
	}
	info.Note = failed.note(info.Note, scale == 1)
	if pastRow > 0 {
		return nil, nil, nil, trace.Info{}, scaledPast(pastRow, pastUS, scale)
	}
	ct = &csvTrace{text: text, cols: cols, skipBad: skipBad, scale: scale, window: int(ord.need), rows: rows}
	if inOrder {
		return ct, nil, obs, info, nil
	}
	// too far out of order to stream: read whole and sorted
	reqs = make([]Request, 0, rows)
	if _, err = trace.Read(text, cols, trace.Options{SkipBad: skipBad}, n, func(tr *trace.Request) {
		if tr.Status != trace.StatusNotSent {
			reqs = append(reqs, n.fromTrace(tr, true))
		}
	}); err != nil {
		return nil, nil, nil, trace.Info{}, diag.Invalid(err)
	}
	sortTrace(reqs)
	return nil, reqs, obs, info, nil
}
