package core

import (
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/timeseries"
)

// series is the time series of a run: the closed bins (package
// timeseries) and the open bin, whose figures live here (requests
// failed), in the engine's server states (binBusy, chosen), the
// statistics' queue counts (binArea) and the MP counters.
type series struct {
	timeseries.Bins
	end      int64              // end of the open bin
	dispatch []int64            // the bin closing: requests chosen per server (engine.chosen)
	failOpen [numFailures]int64 // open bin: requests failed, by code
	failed   bool               // some request failed: the series has failure lines
}

// fail counts a request failed with code r in the open bin.
func (s *series) fail(r reason) {
	s.failOpen[r-reasonNoEnt]++
	s.failed = true
}

// init sizes the bins for the run (timeseries.Sized: the scenario's bin_ms,
// or from the workload's horizon).
func (s *series) init(e *engine) {
	sh := timeseries.Shape{Queues: len(e.queues), Servers: len(e.servers), Pairs: len(e.counters), Failures: numFailures}
	if q := e.setup.Q; q != nil {
		sh.MsgQueues = len(q.Queues)
	}
	s.dispatch = make([]int64, sh.Servers)
	s.Bins = timeseries.Sized(e.opt.BinUS, e.opt.HorizonUS, sh)
	s.end = s.Width()
}

// crossBoundaries applies, in time order, every bin end and MP reset at or
// before t. A bin ending at the instant of a reset closes first, so the
// counters it shows are those of its last moment.
func (e *engine) crossBoundaries(t int64) {
	s := &e.ser
	for {
		b, r := s.end, e.nextReset
		if b <= r {
			if b > t {
				break
			}
			if end := s.MergeAhead(t); end > 0 {
				s.end = end // nothing happens before t: wider bins now
				continue
			}
			e.closeBin(b)
			continue
		}
		if r > t {
			break
		}
		// Every reset before the next bin end and not after t has the same
		// effect: apply them at once, listing their times.
		period := e.setup.ResetUS
		last := min(t, b-1) / period * period
		s.Reset(r, last, period, e.counters)
		clear(e.counters)
		if e.mpTrees {
			e.trees.StaleAll()
		}
		e.nextReset = last + e.setup.ResetUS
	}
	e.nextBoundary = min(s.end, e.nextReset)
}

// closeBin closes the open bin at b (its end, or the span for the last one).
func (e *engine) closeBin(b int64) {
	s := &e.ser
	qArea, busy := s.Open()
	for i := range e.queues {
		q := &e.queues[i]
		e.accrueQueue(q, b)
		qArea[i], q.binArea = q.binArea, 0
	}
	for i := range e.servers {
		sv := &e.servers[i]
		if sv.busy {
			e.accrueBusy(sv, b)
		} else if sv.mt != nil {
			e.mtSeries(sv, b)
		}
		busy[i], s.dispatch[i] = sv.binBusy, e.chosen[i]
		sv.binBusy, e.chosen[i] = 0, 0
	}
	var mq []int64
	if e.q != nil {
		mq = e.q.store.CloseBins(b)
	}
	s.end = s.Close(b, s.dispatch, s.failOpen[:], e.counters, mq)
	clear(s.failOpen[:])
}

// finishSeries closes every bin up to the span, the last one partial.
func (e *engine) finishSeries() {
	e.crossBoundaries(e.spanUS)
	if e.ser.Closes(e.spanUS) {
		e.closeBin(e.spanUS)
	}
}

// build turns the series into the result's: failure lines in runs with
// life cycles that failed a request.
func (s *series) build(e *engine) result.Series {
	var failures []string
	if s.failed && e.life != nil {
		failures = plan.FailureCodes[:]
	}
	return s.Build(e.m, failures, e.opt.AllSeries)
}

// msgQueueSeries is /Q queue k's mean depth in each closed bin.
func (s *series) msgQueueSeries(k int) []float64 { return s.MsgQueue(k) }
