package core

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core/explain"
	"github.com/tuxlb/tuxlb/core/internal/life"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/result"
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
func (e *engine) choice(ex *result.Explanation, f *flight) explain.Choice {
	c := explain.Choice{Alg: explainAlgs[e.alg], Rule: explainRules[f.reason], Policy: e.setup.Policy, Queued: f.queue >= 0,
		Taken: f.server >= 0, Unanswered: f.unanswered, Next: func() string { return whereNext(e, ex, f) }}
	if f.chosen >= 0 {
		c.Chosen, c.ChosenGroup = e.m.Servers[f.chosen].ID, e.m.Servers[f.chosen].Group
	}
	if f.queue >= 0 {
		c.QueueServers = len(e.queues[f.queue].servers)
		if e.alg == algMP {
			c.Counter = e.counters[f.req.Origin*len(e.queues)+int(f.queue)]
		}
	}
	return c
}

// whereNext says what happens to the request right after the choice.
func whereNext(e *engine, ex *result.Explanation, f *flight) string {
	switch {
	case f.server >= 0 && e.threaded:
		return threadTakerText(e, ex, f)
	case f.server >= 0 && len(e.queues[f.queue].servers) > 1:
		return takerText(e, ex, f)
	case f.server >= 0:
		return fmt.Sprintf("It starts at once on %s.", ex.Server)
	case int(e.queues[f.queue].machine) != f.req.Origin && e.setup.LatencyUS > 0:
		return fmt.Sprintf("It crosses the network to %s and enters queue %s at %s ms.",
			e.m.Queues[f.queue].LMID, ex.Winner, strconv.FormatFloat(usec.ToMS(f.req.TimeUS+e.setup.LatencyUS), 'f', -1, 64))
	case e.life != nil && !e.queueHasUp(f.queue):
		return fmt.Sprintf("No instance of queue %s is up (%s), so it waits there with %d other request(s) until one comes up or the queue is orphaned.",
			ex.Winner, e.queueStates(f.queue), e.queues[f.queue].wait.n-1)
	default:
		return fmt.Sprintf("All servers of queue %s are busy, so it waits there with %d other request(s).", ex.Winner, e.queues[f.queue].wait.n-1)
	}
}

// takerText says which server of an MSSQ set takes a request that found one
// idle, and why: the set's servers wait on the queue, and the one idle
// longest takes the next request (docs/engine.md, Which server).
func takerText(e *engine, ex *result.Explanation, f *flight) string {
	idle, tie := 1, "" // the taker, busy now
	for _, i := range e.queues[f.queue].servers {
		if sv := &e.servers[i]; i != f.server && !sv.busy && sv.state == stateUp {
			idle++
			if sv.idleSince == e.servers[f.server].idleSince {
				tie = ", first in scan order of those idle as long"
			}
		}
	}
	since := "since the run began"
	if t := e.servers[f.server].idleSince; t > 0 {
		since = "since " + usec.FormatMS(t) + " ms"
	}
	if idle == 1 {
		return fmt.Sprintf("%s, the set's only idle server (idle %s), takes it and starts at once.", ex.Server, since)
	}
	return fmt.Sprintf("Of the set's %d idle servers, %s has been idle longest (%s%s), so it takes it and starts at once.", idle, ex.Server, since, tie)
}

// threadTakerText says which thread takes a request that found one free,
// in a run with multithreaded instances: the free thread of the queue's
// instances that has been free longest (docs/engine.md, Multithreaded
// servers).
func threadTakerText(e *engine, ex *result.Explanation, f *flight) string {
	sv := &e.servers[f.server]
	since := sv.idleSince
	if sv.mt != nil {
		since = sv.mt.since[f.thread]
	}
	when := "since the run began"
	if since > 0 {
		when = "since " + usec.FormatMS(since) + " ms"
	}
	return fmt.Sprintf("Thread %d of %s, free %s, is the free thread of queue %s free longest (ties to the first instance, then the lowest thread): it takes it and starts at once.",
		f.thread+1, ex.Server, when, e.m.Queues[f.queue].Name)
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

// queueStates lists the states of queue q's instances: "G1/1 down, G1/2 restarting".
func (e *engine) queueStates(q int32) string {
	var parts []string
	for _, i := range e.queues[q].servers {
		s := e.m.Servers[i].ID + " " + e.servers[i].state.String()
		if e.servers[i].state == stateDown {
			s += ": it crashed and the BBL has not noticed yet"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// failureText says why request f failed with TPESVCERR at e.now.
func failureText(e *engine, f *flight) string {
	at := usec.FormatMS(e.now)
	q := e.m.Queues[f.queue].Name
	if f.server >= 0 {
		id := e.m.Servers[f.server].ID
		for k := len(e.life.changes) - 1; k >= 0; k-- {
			c := &e.life.changes[k]
			if c.srv != f.server || c.to != stateDown {
				continue
			}
			if c.cause == life.SvcTimeout {
				return fmt.Sprintf("TPESVCERR at %s ms: it was still in service on %s past the service's SVCTIMEOUT, so the BBL's scan at %s ms aborted it (and the server crashed).", at, id, at)
			}
			return fmt.Sprintf("TPESVCERR at %s ms: %s was processing it when it crashed (%s at %s ms); the BBL noticed at its sanity scan at %s ms.",
				at, id, c.cause, usec.FormatMS(c.t), at)
		}
		return fmt.Sprintf("TPESVCERR at %s ms: %s stopped while processing it.", at, id)
	}
	if f.orphan {
		return fmt.Sprintf("TPESVCERR at %s ms: it arrived over the network at queue %s, whose instances were all gone.", at, q)
	}
	return fmt.Sprintf("TPESVCERR at %s ms: it was waiting in queue %s when the queue's last instance was gone%s.", at, q, goneWhy(e, f.queue))
}

// goneWhy says how queue q's last instance went, from the life-cycle
// change that made it gone now: " (G1/1: RESTART=N after its crash at 35000 ms)".
func goneWhy(e *engine, q int32) string {
	ch := e.life.changes
	for k := len(ch) - 1; k >= 0 && ch[k].t == e.now; k-- {
		c := &ch[k]
		if c.to != stateGone || e.servers[c.srv].queue != q {
			continue
		}
		id := e.m.Servers[c.srv].ID
		switch c.cause {
		case life.NoRestart, life.MaxGen:
			for j := k - 1; j >= 0; j-- {
				if ch[j].srv == c.srv && ch[j].to == stateDown {
					return fmt.Sprintf(" (%s: not restarted, %s, after its crash at %s ms)", id, c.cause, usec.FormatMS(ch[j].t))
				}
			}
			return fmt.Sprintf(" (%s: not restarted, %s)", id, c.cause)
		default:
			return fmt.Sprintf(" (%s: %s)", id, c.cause)
		}
	}
	return ""
}
