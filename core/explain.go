package core

import (
	"strconv"

	"github.com/tuxlb/tuxlb/core/explain"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/workload"
)

// explainer captures the decisions of requests first..last during a run.
// The engine calls it only through a nil check, so ordinary runs pay nothing.
type explainer struct {
	first, last int64
	// id, when set, names the one request to explain by its id as the
	// dispatch log shows it (2008.1, TELLER:3:12): first and last are 0
	// until the request with that id is issued, then its Seq.
	id  string
	out []result.Explanation
	// pending maps the Seq of an explained request that has not finished
	// yet to its explanation, in runs where instances change state: the
	// run goes on until each has completed or failed, to say why it failed.
	pending    map[int64]int
	dispatched bool // the last request to explain has been dispatched
	// note is a sentence finish adds to the next explanation's text (a
	// workstation handler's delay), then clears
	note string
}

// begin snapshots what the dispatch rule is about to see for f, or returns
// nil when f is not one of the requests to explain.
func (x *explainer) begin(e *engine, f *flight, sv *svcInfo, rs *routeStep) *result.Explanation {
	if x == nil {
		return nil
	}
	if x.id != "" && x.first == 0 && idOf(f) == x.id {
		x.first, x.last = f.req.Seq, f.req.Seq
	}
	if f.req.Seq < x.first || f.req.Seq > x.last {
		return nil
	}
	ex := &result.Explanation{Seq: f.req.Seq, ID: f.req.ID, Service: e.m.Services[f.req.Service].Name,
		Origin: e.m.Machines[f.req.Origin].LMID, IssueUS: f.req.TimeUS, Policy: e.setup.Policy.String(),
		Algorithm: e.alg.String(), Candidates: []result.Candidate{}}
	if ex.ID == "" {
		ex.ID = strconv.FormatInt(f.req.Seq, 10)
	}
	if rs.routed {
		ex.Routing = routingOf(e, f, sv, rs)
	}
	if e.app != nil {
		e.app.explainCaller(e, ex)
	}
	if sv == nil {
		return ex
	}
	m := f.req.Origin
	for j, c := range sv.cands {
		sq := &sv.queues[sv.candQ[j]]
		q := &e.queues[sq.q]
		cd := result.Candidate{Server: e.m.Servers[c].ID, Queue: e.m.Queues[sq.q].Name,
			LMID: e.m.Machines[e.servers[c].machine].LMID, Local: int(e.servers[c].machine) == m,
			Idle: e.idle(c), Servers: int(q.n), Waiting: int(q.wait.n), Load: int(sq.load)}
		if e.life != nil {
			cd.State = e.servers[c].state.String()
		}
		switch e.alg {
		case algSHM:
			cd.Work = q.work
			cd.Cost = explain.Cost([]int64{q.work}, int64(q.n), sq.load)
		case algMP:
			cd.Counter = e.counters[m*len(e.queues)+int(sq.q)]
			cd.NetLoad = int(e.netLoadFor(m, int(sq.machine)))
			cd.Cost = explain.Cost([]int64{cd.Counter}, int64(q.n), sq.load, int64(cd.NetLoad))
		default:
			if !explain.QueueCost(e.setup.Policy) {
				break
			}
			cd.Cost = explain.Cost([]int64{int64(q.wait.n), int64(q.inService)}, int64(q.n))
		}
		ex.Candidates = append(ex.Candidates, cd)
	}
	return ex
}

// routingOf describes the routing step of f.
func routingOf(e *engine, f *flight, sv *svcInfo, rs *routeStep) *result.RoutingStep {
	cs := workload.NewCritSet(e.m, e.m.Services[f.req.Service].Routing)
	c := cs.Entries[0]
	k := cs.Pick(e.bufs, f.req.Buf)
	if k >= 0 {
		c = cs.Entries[k]
	}
	st := &result.RoutingStep{Criterion: c.Name, Field: c.Field, Value: workload.RouteText(&f.req), Group: rs.group, Fallback: rs.fallback,
		BufType: e.bufs.Name(f.req.Buf), NoEntry: k < 0}
	if len(cs.Entries) > 1 && k >= 0 {
		st.EntryLine = c.Line
	}
	if rs.rng >= 0 {
		ec, i := cs.EntryOf(rs.rng + 1)
		r := ec.Ranges[i]
		st.Range = r.Text + ":" + r.Group
	}
	if sv != nil {
		st.Candidates = len(sv.cands)
	}
	return st
}

// finish completes ex once f has been dispatched (and, when it could, entered
// its queue), and stops the run after the last requested explanation.
func (x *explainer) finish(e *engine, ex *result.Explanation, f *flight) {
	if ex == nil {
		return
	}
	ex.Rule = f.reason.String()
	if f.queue >= 0 {
		ex.Winner = e.m.Queues[f.queue].Name
		for i := range ex.Candidates {
			ex.Candidates[i].Chosen = e.m.Servers[f.chosen].ID == ex.Candidates[i].Server
		}
	}
	if f.server >= 0 {
		ex.Server = e.m.Servers[f.server].ID
	}
	costed := (e.alg == algSHM || e.alg == algMP) && f.reason == reasonLeastLoad || explain.QueueCost(e.setup.Policy)
	if !costed {
		for i := range ex.Candidates {
			ex.Candidates[i].Cost = ""
		}
	}
	c := e.choice(f)
	explain.Notes(ex, &c)
	ex.Text = explain.Text(ex, &c)
	if x.note != "" {
		ex.Text += " " + x.note
		x.note = ""
	}
	x.out = append(x.out, *ex)
	if (e.life != nil || e.app != nil) && !f.reason.failed() {
		if x.pending == nil {
			x.pending = map[int64]int{}
		}
		x.pending[f.req.Seq] = len(x.out) - 1
	}
	if f.req.Seq >= x.last {
		x.dispatched = true
		e.stop = len(x.pending) == 0
	}
}

// done notes that request f has completed or failed; an explained one that
// failed gets the reason. The run stops once the last explained request has
// been dispatched and none is still pending.
func (x *explainer) done(e *engine, f *flight) {
	k, ok := x.pending[f.req.Seq]
	if !ok {
		return
	}
	delete(x.pending, f.req.Seq)
	switch f.reason {
	case reasonSvcErr:
		fx := e.failure(f)
		x.out[k].Failure = fx.Text()
	case reasonSvcFail:
		x.out[k].Failure = e.app.why
	}
	if x.dispatched && len(x.pending) == 0 {
		e.stop = true
	}
}
