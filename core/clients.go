package core

import (
	"strconv"

	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/internal/evq"
	"github.com/tuxlb/tuxlb/core/internal/hist"
	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/workload"
)

// This file plays client populations (docs/engine.md, "Applications"):
// each client of a set issues a request, waits for its outcome (a reply,
// a failure, or TPETIME at its deadline), counts it, then backs off and
// retries it or thinks and issues its next one; a client's machine lost
// stops it, restored starts it again. Their think timers are application
// events, kept apart from the others in a calendar of 8-byte keys (time,
// client index: appState.clients, an evq.Wheel sized from the sets' think
// times, app.go); the first is drawn by newAppState.

// clientState is one client of a set: two cache lines, the first with what
// its issue and its outcome read (TestClientStateLayout).
type clientState struct {
	dlAt    int64 // the request it awaits' deadline, noTime for none
	key     uint64
	rng     rng.PCG
	n       int64      // its next request's number (retries not counted)
	waiting int64      // the Seq of the request whose outcome it awaits, 0 for none
	issueUS int64      // when that request was issued
	acc     *clientAcc // its set's counts (a.acc[set])
	// the second line
	routeNum float64
	routeVal string
	cp       *plan.Client // its set's (a.plan.Clients[set])
	service  int32        // the request being tried, for a retry
	k        int32        // the retry the next issue is (0: a new request)
	route    int32
	buf      int32 // its buffer type (a bufTable index)
	queue    int32 // its enqueue's queue (workload.Request.Queue), 0 for none
	g        int32 // its index in appState.cl
	c        int32 // its number in its set
	counted  bool  // that request was issued at or after the warm-up
	off      bool  // a workstation client that found no room at its WSL: it issues nothing
}

// clientAcc counts the outcomes one client set saw.
type clientAcc struct {
	completed, timedOut, retried int64
	failed                       [numFailures]int64
	resp                         hist.Acc
	waited                       int64 // think and backoff after counted outcomes
}

// pause draws a think or backoff time: whole microseconds, at least 1.
func (a *appState) pause(d dist.Sampler, r *rng.PCG) int64 {
	return max(usec.Round(d.SampleMS(r)*1000), 1)
}

// clientIssue is client g issuing its next request at t: a new one (the
// next of its script, or a service drawn by weight) or a retry of the last.
func (e *engine) clientIssue(g int, t int64) error {
	a := e.app
	c := &a.cl[g]
	cp := c.cp
	if c.k == 0 {
		n := c.n
		c.n++
		c.routeVal, c.routeNum, c.route, c.buf, c.queue = "", 0, workload.RouteNone, 0, 0
		if cp.Script != nil {
			st := &cp.Script[(int64(c.c)+n)%int64(len(cp.Script))]
			c.service, c.routeVal, c.buf, c.queue = int32(st.Service), st.Value, st.Buf, st.Queue
			if e.routing != nil && e.routing[st.Service] != nil {
				c.route = e.routing[st.Service].Route(e.bufs, c.buf, st.Value) // entries told apart by BUFTYPE
			} else if crit := e.m.Criterion(e.m.Services[st.Service].Routing); crit != nil && st.Value != "" {
				c.route = workload.RouteOf(crit, st.Value)
			}
		} else {
			i := 0
			if len(cp.Services) > 1 {
				u := float64(c.rng.Float64() * cp.Cum[len(cp.Cum)-1])
				i = workload.Pick(cp.Cum, u)
				// (the first service whose cumulative weight is above
				// u: a set's hundreds of services halved, not scanned)
			}
			c.service = int32(cp.Services[i].Service)
			if sr := cp.Services[i].Route; sr != nil {
				var r workload.Request
				sr.Draw(&c.rng, &r)
				c.routeVal, c.routeNum, c.route, c.buf = r.RouteVal, r.RouteNum, r.Route, r.Buf
			}
		}
		c.key = workload.Mix64(c.key ^ uint64(n+1))
	}
	// (the request written field by field into a.req, whose other fields
	// keep their values: fewer stores than a fresh composite literal; the
	// lines of the calls below are where the binary's profile has them,
	// cmd/tuxlb/default.pgo)
	r := &a.req
	r.TimeUS, r.Service, r.Origin, r.Key = t, int(c.service), cp.Origin, workload.Mix64(c.key^uint64(c.k)) // (ID stays "" without ids)
	r.Route, r.RouteVal, r.RouteNum, r.Buf, r.Queue = c.route, c.routeVal, c.routeNum, c.buf, c.queue
	if e.ids { // set:client:request, and ~k for its k-th retry
		r.ID = cp.Name + ":" + strconv.Itoa(int(c.c)) + ":" + strconv.FormatInt(c.n-1, 10)
		if c.k > 0 {
			r.ID += "~" + strconv.Itoa(int(c.k))
		}
	}
	if c.k > 0 && t >= e.setup.WarmupUS {
		a.retried++
		c.acc.retried++
	}
	a.bindTo(callerClient, int32(g), 0, 0)
	if a.wsh != nil && cp.Via != nil && a.wsh.handling != nil {
		// a workstation client: its handler takes a draw to pass the
		// request on (issue defers its choice when it is above 0), and
		// one to pass its reply or failure back
		a.bind.ws = true
		a.wsh.deferUS = a.wsh.wshDraw(r.Key, streamWSHIn)
	}
	a.bound = true
	if err := e.issue(r); err != nil {
		a.bound = false
		if a.wsh != nil {
			a.wsh.deferUS = 0
		}
		return err
	}
	c.waiting, c.issueUS, c.counted = e.issued, t, t >= e.setup.WarmupUS
	if code := a.atIssue; code != 0 {
		sl := a.slots[a.cur]
		if d := a.wshOut(&sl, r.Key); d > 0 {
			e.answer(&sl, e.issued, code, t+d) // through the handler, one draw later
		} else {
			c.waiting = 0
			e.clientOutcome(c, code, t)
			return nil
		}
	}
	a.clientDeadline(int32(g), r.Service, t)
	return nil
}

// clientOutcome is client c seeing the outcome code (0: the reply) of its
// request at t: it counts it, then backs off and retries it, or thinks and
// issues its next request, unless the run's duration is over by then.
func (e *engine) clientOutcome(c *clientState, code reason, t int64) {
	a := e.app
	cp := c.cp
	a.rings.Out(c.g) // its wait ends
	acc := c.acc
	if c.counted {
		switch code {
		case 0:
			acc.completed++
		case codeTimeout:
			acc.timedOut++
		default:
			acc.failed[code-reasonNoEnt]++
		}
		v := t - c.issueUS
		if !acc.resp.Note(v, hist.Index(v)) {
			acc.resp.Spill(v)
		}
	}
	var wait int64
	if code != 0 && int(c.k) < cp.RetryMax && retries(cp, code) {
		c.k++
		wait = a.pause(cp.Backoff, &c.rng)
	} else {
		c.k = 0
		wait = a.pause(cp.Think, &c.rng)
	}
	if c.counted {
		acc.waited += wait
	}
	g := int(c.g)
	if at := t + wait; at < a.plan.EndUS {
		a.think(g, at)
	} else {
		a.active--
	}
}

// think makes client g issue its next request at t.
func (a *appState) think(g int, t int64) {
	a.clients.Push(evq.Key(t, int32(g)))
	a.lo = min(a.lo, t)
}

// retries reports whether client set cp retries a request that ended with
// code (bit k of RetryOn is the failure reasonNoEnt+k).
func retries(cp *plan.Client, code reason) bool {
	if code == codeTimeout {
		return cp.RetryOn&plan.RetryTPETIME != 0
	}
	return cp.RetryOn&(1<<(code-reasonNoEnt)) != 0
}

// loseClients stops the clients on machine m: they are gone with it, and so
// are their think timers.
func (a *appState) loseClients(m int32) {
	a.clients.Drop(func(k evq.Event) bool { return a.cl[k.Idx()].cp.Origin == int(m) })
	for k := range a.plan.Clients {
		cp := &a.plan.Clients[k]
		if int32(cp.Origin) != m {
			continue
		}
		for c := cp.First; c < cp.First+cp.Count; c++ {
			a.cl[c].waiting, a.cl[c].k = 0, 0
			a.rings.Out(int32(c))
		}
	}
}

// restoreClients starts the clients of machine m again at t: each thinks,
// then issues.
func (a *appState) restoreClients(e *engine, m int32, t int64) {
	for k := range a.plan.Clients {
		cp := &a.plan.Clients[k]
		if int32(cp.Origin) != m {
			continue
		}
		for c := cp.First; c < cp.First+cp.Count; c++ {
			cl := &a.cl[c]
			if cl.off {
				continue
			}
			if at := t + a.pause(cp.Think, &cl.rng); at < a.plan.EndUS {
				a.think(c, at)
			}
		}
	}
}
