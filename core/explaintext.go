package core

import (
	"github.com/tuxlb/tuxlb/core/explain"
	"github.com/tuxlb/tuxlb/core/internal/life"
)

// explainAlgs and explainRules are core's algorithms and dispatch reasons
// as package explain tells them apart; the others are explain's zero
// values (a comparison policy's algorithm, another rule).
var (
	explainAlgs  = map[algorithm]explain.Alg{algFirst: explain.AlgFirst, algSHM: explain.AlgSHM, algMP: explain.AlgMP}
	explainRules = map[reason]explain.Rule{reasonFirst: explain.RuleFirst, reasonIdle: explain.RuleIdle,
		reasonLeastLoad: explain.RuleLeastLoad, reasonNoEnt: explain.RuleNoEnt, reasonSystem: explain.RuleSystem, reasonTran: explain.RuleTran}
)

// choice is what the engine knew of f's decision, for package explain.
func (e *engine) choice(f *flight) explain.Choice {
	c := explain.Choice{Alg: explainAlgs[e.alg], Rule: explainRules[f.reason], Policy: e.setup.Policy, Queued: f.queue >= 0,
		Taken: f.server >= 0, Unanswered: f.unanswered}
	if f.chosen >= 0 {
		c.Chosen, c.ChosenGroup = e.m.Servers[f.chosen].ID, e.m.Servers[f.chosen].Group
	}
	if f.queue >= 0 {
		c.QueueServers = len(e.queues[f.queue].servers)
		if e.alg == algMP {
			c.Counter = e.counters[f.req.Origin*len(e.queues)+int(f.queue)]
		}
		c.Next = e.next(f)
	}
	return c
}

// next is what happens to request f, queued or taken, right after the
// choice: who takes it (for an MSSQ set, the server idle longest; with
// multithreaded instances, the free thread free longest: docs/engine.md),
// or where it waits.
func (e *engine) next(f *flight) explain.Next {
	qs := &e.queues[f.queue]
	n := explain.Next{Waiting: int(qs.wait.n) - 1, Queue: e.m.Queues[f.queue].Name}
	switch {
	case f.server >= 0 && e.threaded:
		sv := &e.servers[f.server]
		n.After, n.Thread, n.SinceUS = explain.TakenByThread, f.thread, sv.idleSince
		if sv.mt != nil {
			n.SinceUS = sv.mt.Since[f.thread]
		}
	case f.server >= 0 && len(qs.servers) > 1:
		n.After, n.Idle, n.SinceUS = explain.TakenInSet, 1, e.servers[f.server].idleSince
		for _, i := range qs.servers {
			if sv := &e.servers[i]; i != f.server && !sv.busy && sv.state == stateUp {
				n.Idle++
				n.Tie = n.Tie || sv.idleSince == n.SinceUS
			}
		}
	case f.server >= 0:
		n.After = explain.Starts
	case int(qs.machine) != f.req.Origin && e.setup.LatencyUS > 0:
		n.After, n.LMID, n.EntersUS = explain.Crosses, e.m.Queues[f.queue].LMID, f.req.TimeUS+e.setup.LatencyUS
	case e.life != nil && !e.queueHasUp(f.queue):
		n.After = explain.NoneUp
		for _, i := range qs.servers {
			n.Instances = append(n.Instances, explain.Instance{ID: e.m.Servers[i].ID, State: e.servers[i].state.String()})
		}
	default:
		n.After = explain.Waits
	}
	return n
}

// queueHasUp reports whether some instance of queue q is up.
func (e *engine) queueHasUp(q int32) bool {
	for _, i := range e.queues[q].servers {
		if e.servers[i].state == stateUp {
			return true
		}
	}
	return false
}

// failure is why request f failed with TPESVCERR at e.now, for package
// explain: the life-cycle changes say what happened to its server or queue.
func (e *engine) failure(f *flight) explain.Failure {
	x := explain.Failure{AtUS: e.now, Queue: e.m.Queues[f.queue].Name, LMID: e.m.Machines[e.queues[f.queue].machine].LMID, GoneCrashUS: -1}
	switch {
	case f.noReply:
		x.Failed = explain.MachineLost
	case f.remoteUS < 0:
		x.Failed, x.Server, x.TookUS = explain.NoRemote, e.m.Servers[f.server].ID, f.startUS
		x.RDOM = e.m.Services[f.req.Service].Remote.Domains()
	case f.server >= 0:
		x.Failed, x.Server = explain.InService, e.m.Servers[f.server].ID
		if c := e.lastChange(f.server, stateDown, 0); c != nil {
			x.Crashed, x.Cause, x.CrashUS = true, c.cause, c.t
		}
	case f.orphan:
		x.Failed = explain.Orphaned
	default:
		x.Failed = explain.QueueGone
		ch := e.life.changes
		for k := len(ch) - 1; k >= 0 && ch[k].t == e.now; k-- {
			if c := &ch[k]; c.to == stateGone && e.servers[c.srv].queue == f.queue {
				x.GoneID, x.GoneCause = e.m.Servers[c.srv].ID, c.cause
				if c.cause == life.NoRestart || c.cause == life.MaxGen {
					if d := e.lastChange(c.srv, stateDown, len(ch)-k); d != nil {
						x.GoneCrashUS = d.t
					}
				}
				break
			}
		}
	}
	return x
}

// lastChange returns the last life-cycle change of instance i to state to,
// skipping the last skip changes of the run; nil for none.
func (e *engine) lastChange(i int32, to instState, skip int) *lifeChange {
	ch := e.life.changes
	for k := len(ch) - 1 - skip; k >= 0; k-- {
		if ch[k].srv == i && ch[k].to == to {
			return &ch[k]
		}
	}
	return nil
}
