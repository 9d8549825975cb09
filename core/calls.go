package core

import (
	"strconv"

	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/ubb"
	"github.com/tuxlb/tuxlb/core/workload"
)

// This file plays nested calls (docs/engine.md, "Applications"): at the
// end of its own work a server runs the call steps of its service in order
// (appCompletion, runSteps), issuing each tpcall and tpacall child as a
// request of its own (callChild) and holding the calling request until
// their replies arrive, or ending it with a tpforward (forward). How the
// replies and failures reach the caller is replies.go's.

// appCompletion is the end of server sv's own work on the request in slot
// s in a run with applications: the steps of the service begin, or the
// request ends.
func (e *engine) appCompletion(sv *serverState, s int32, t int64) {
	a := e.app
	i := sv.idx
	f := e.pool.At(s)
	if sv.gateway && f.remoteUS < 0 {
		e.gatewayFailed(s, t)
		return
	}
	if sv.gateway || a.plan.Calls[f.req.Service] == nil {
		e.endServed(s, f, t)
		return
	}
	sl := &a.slots[s]
	sl.holding, sl.step, sl.pending, a.outs[s] = true, 0, 0, a.outs[s][:0]
	if m := sv.mt; m != nil {
		m.Hold(m.Pick, t)
	} else {
		sv.due = -1 // no completion is pending while it holds the request
		a.holdAt[i] = t
	}
	e.runSteps(s, t)
}

// gatewayFailed ends the forwarding of request s at t by a gateway that
// found no remote domain of the import up: the request fails with
// TPESVCERR, the failure crossing back to its caller like a reply, and the
// gateway takes its next request.
func (e *engine) gatewayFailed(s int32, t int64) {
	sv := e.release(s, e.pool.At(s), t)
	e.appFailSvc(s, t)
	e.serverNext(sv, t)
}

// runSteps runs the call steps of the request in slot p from its next one,
// at t, until one waits for replies; after the last, the request ends.
func (e *engine) runSteps(p int32, t int64) {
	a := e.app
	f := e.pool.At(p)
	steps := a.plan.Calls[f.req.Service]
	if e.tr != nil && e.stepFails(p, t) {
		return // its transaction was aborted
	}
	for int(a.slots[p].step) < len(steps) {
		j := int(a.slots[p].step)
		st := &steps[j]
		if st.Mode != plan.ModeACall {
			a.slots[p].step++
			if !e.stepHappens(f, j, st) {
				continue
			}
			if st.Mode == plan.ModeForward {
				e.forward(p, j, t)
				return
			}
			if !e.callChild(p, j, t) {
				return
			}
			a.slots[p].pending = 1
			return
		}
		for int(a.slots[p].step) < len(steps) && steps[a.slots[p].step].Mode == plan.ModeACall {
			j := int(a.slots[p].step)
			a.slots[p].step++
			if !e.stepHappens(f, j, &steps[j]) {
				continue
			}
			if !e.callChild(p, j, t) {
				return
			}
			if !steps[j].NoReply {
				a.slots[p].pending++
			}
		}
		if a.slots[p].pending > 0 {
			return
		}
	}
	e.endServed(p, f, t)
}

// streamCallStep seeds the draw of whether a call step happens, from the
// calling request's key and the step's number.
const streamCallStep = 0x63616c6c00 // "call"

// stepHappens draws whether step j (probability st.p) of request f runs.
func (e *engine) stepHappens(f *flight, j int, st *plan.Call) bool {
	if st.P >= 1 {
		return true
	}
	e.app.draw.Seed(f.req.Key, streamCallStep+uint64(j))
	return e.app.draw.Float64() < st.P
}

// childRequest is the nested request of step j (st) of request f, issued
// at t from its server's machine.
func (e *engine) childRequest(f *flight, j int, st *plan.Call, t int64) workload.Request {
	r := workload.Request{TimeUS: t, Service: st.Service, Origin: int(e.servers[f.server].machine), ServiceUS: -1,
		Key: workload.Mix64(f.req.Key ^ workload.Mix64(uint64(j)+0x9e3779b97f4a7c15)), Queue: st.Queue}
	if e.ids {
		r.ID = idOf(f) + "." + strconv.Itoa(j+1)
	}
	var crit *ubb.Criterion // (none in a model that routes nothing)
	if e.crit != nil {
		crit = e.crit[st.Service]
	}
	var sets *workload.CritSet // entries that differ by BUFTYPE: the inherited buffer type picks one
	if e.routing != nil {
		sets = e.routing[st.Service]
	}
	// num: the child's value is the number r.RouteNum, routed without
	// writing it (its text, when someone reads it, is the same:
	// workload.RouteText writes the number of a routed request)
	num := false
	switch {
	case st.Route != nil:
		e.app.draw.Seed(r.Key, streamRouteValue)
		st.Route.Draw(&e.app.draw, &r)
		num = r.RouteVal == "" && r.Route != workload.RouteNone
	case st.Value != "":
		r.RouteVal = st.Value
	case st.Inherit && f.req.RouteVal == "" && f.req.Route != workload.RouteNone && (sets != nil || crit != nil):
		r.RouteNum, num = f.req.RouteNum, true
	case st.Inherit:
		r.RouteVal = workload.RouteText(&f.req)
	}
	r.Buf = f.req.Buf // the buffer is passed on: the child's buffer type is its caller's
	switch {
	case sets != nil && num:
		r.Route = sets.RouteNumber(e.bufs, r.Buf, r.RouteNum)
	case sets != nil:
		r.Route = sets.Route(e.bufs, r.Buf, workload.RouteText(&r))
	case num && st.Route == nil:
		r.Route = workload.RouteOfNumber(crit, r.RouteNum)
	case st.Route == nil && r.RouteVal != "" && crit != nil:
		r.Route = workload.RouteOf(crit, r.RouteVal)
	}
	return r
}

// parentID is the id of request f as its children's parent column shows
// it, when someone reads ids ("" otherwise: nothing is built).
func (e *engine) parentID(f *flight) string {
	if !e.ids {
		return ""
	}
	return idOf(f)
}

// issueNested issues r for request pf (bound as a's next caller); it
// counts the nested request and returns false when the issue failed (an
// error for the run, set as its fault).
func (e *engine) issueNested(pf *flight, r *workload.Request) bool {
	a := e.app
	if r.TimeUS >= e.setup.WarmupUS {
		a.nested++
		a.calls[pf.req.Service]++
	}
	a.bound = true
	if err := e.issue(r); err != nil {
		a.bound, a.bindID = false, ""
		if e.fault == nil {
			e.fault = err
		}
		return false
	}
	return true
}

// callChild issues the tpcall or tpacall child of step j of the request in
// slot p at t. It returns false when the child failed at its issue (the
// request then failed with TPESVCFAIL) or the run stopped.
func (e *engine) callChild(p int32, j int, t int64) bool {
	a := e.app
	pf := e.pool.At(p)
	st := &a.plan.Calls[pf.req.Service][j]
	r := e.childRequest(pf, j, st, t)
	if e.opt.explain != nil { // (explanations alone read it)
		a.mode = st.Mode.String()
	}
	if st.NoReply {
		// TPNOREPLY: nobody waits for the child; its failure, even at its
		// issue, reaches no one, and it has no deadline
		a.bindTo(callerNone, 0, 0, 0).unanswered = true
		a.bindID = e.parentID(pf)
		if t >= e.setup.WarmupUS {
			a.noreply++
		}
		return e.issueNested(pf, &r)
	}
	a.bindTo(callerServer, p, pf.req.Seq, a.slots[p].tran)
	a.bindID = e.parentID(pf)
	if !e.issueNested(pf, &r) {
		return false
	}
	if code := a.atIssue; code != 0 {
		a.why = sprintf("its nested request %s (%s) failed at its issue with %s", r.ID, e.m.Services[r.Service].Name, code)
		e.failParent(p, t)
		return false
	}
	seq := e.issued
	a.outs[p] = append(a.outs[p], seq)
	e.deadlineFor(r.Service, t, seq, callerServer, p, pf.req.Seq)
	return true
}

// forward issues the tpforward child of step j of the request in slot p at
// t: the child answers p's caller, and p ends on its server now. Its row's
// reply is the child's.
func (e *engine) forward(p int32, j int, t int64) {
	a := e.app
	pf := e.pool.At(p)
	psl := a.slots[p]
	r := e.childRequest(pf, j, &a.plan.Calls[pf.req.Service][j], t)
	a.bind = appSlot{kind: psl.kind, caller: psl.caller, callerSeq: psl.callerSeq, awaited: psl.awaited, replyTo: psl.replyTo,
		fwdFrom: p, fwdSeq: pf.req.Seq, unanswered: psl.unanswered, ws: psl.ws, tran: psl.tran}
	a.bindID = e.parentID(pf)
	a.mode = plan.ModeForward.String()
	var owner *tranX // X, when p owns it: the child owns it now
	if e.tr != nil {
		if x := e.xOf(p); x != nil && e.owns(x, p) {
			owner = x
		}
	}
	if !e.issueNested(pf, &r) {
		return
	}
	if owner != nil {
		x := &e.tr.xs[psl.tran-1]
		x.owner, x.ownerSeq, x.ownerID = a.cur, e.issued, r.ID
	}
	if code := a.atIssue; code != 0 {
		if owner != nil && !e.tr.xs[psl.tran-1].aborted && !e.tr.xs[psl.tran-1].committing {
			e.abortTran(psl.tran-1, false, t) // the owner X was handed to failed
		}
		// the forwarded child failed at its issue: p keeps its reason and
		// end, its reply is empty like the child's; p ends and its instance
		// takes its next request first, and only then does p's caller learn
		// of the failure, in this turn
		sv := e.release(p, pf, t)
		pf.replyUS, pf.noReply = t, true
		a.slots[p].forwarded = false
		e.st.complete(pf, sv)
		e.loseForwarders(p) // p forwarded to, in turn: those rows have no reply either
		e.finish(p)
		e.serverNext(sv, t)
		if d := a.wshOut(&psl, r.Key); d > 0 {
			// a workstation client learns of it through its handler, one draw later
			e.answer(&psl, e.issued, code, t+d)
			return
		}
		e.answerNow(&psl, code, t)
		return
	}
	sv := e.release(p, pf, t)
	a.slots[p].forwarded = true
	if c := e.pool.At(a.cur); c.req.Seq == e.issued && c.noReply && c.reason == reasonSvcErr {
		e.loseForwarders(a.cur) // the child was lost as it reached a lost machine's queue, before p forwarded
	}
	e.serverNext(sv, t)
}
