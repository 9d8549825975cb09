package core

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/result"
)

// noteCandidates says, per candidate, why it won or lost.
func noteCandidates(e *engine, ex *result.Explanation, f *flight) {
	winner := -1
	for i := range ex.Candidates {
		if ex.Candidates[i].Chosen {
			winner = i
		}
	}
	for i := range ex.Candidates {
		c := &ex.Candidates[i]
		switch {
		case f.queue < 0:
		case c.Chosen:
			c.Note = winNote(e, f.reason)
		case f.reason == reasonFirst:
			c.Note = "not first: LDBAL=N never looks past the first candidate"
		case f.reason == reasonIdle && e.alg == algMP && !c.Local:
			c.Note = "remote: only servers on the origin machine are checked for idleness"
		case f.reason == reasonIdle && i < winner:
			c.Note = "busy"
		case f.reason == reasonIdle:
			c.Note = "not looked at: an earlier candidate was idle"
		case c.Queue == ex.Winner:
			c.Note = "shares the winning queue"
		case f.reason == reasonLeastLoad || comparisonPolicies[e.setup.Policy].rankedByCost:
			c.Note = loseNote(c.Cost, ex.Candidates[winner].Cost, i < winner)
		default:
			c.Note = "not picked"
		}
		if f.server >= 0 && !c.Chosen && c.Server == ex.Server {
			c.Note = "takes it: of the MSSQ set's idle servers, idle longest"
		}
	}
}

func winNote(e *engine, why reason) string {
	switch why {
	case reasonFirst:
		return "first candidate in scan order"
	case reasonIdle:
		return "the first idle candidate"
	case reasonLeastLoad:
		return "least cost"
	default:
		if w := comparisonPolicies[e.setup.Policy].win; w != "" {
			return w
		}
		return "picked by " + why.String()
	}
}

func loseNote(cost, winCost string, earlier bool) string {
	if costValue(cost) == costValue(winCost) && !earlier {
		return "same cost, but ties go to the first"
	}
	return "costs more"
}

// costValue returns the part of a cost string after "= ".
func costValue(cost string) string {
	if i := strings.LastIndex(cost, "= "); i >= 0 {
		return cost[i+2:]
	}
	return cost
}

// explainText tells the decision in a few sentences for a Tuxedo admin.
func explainText(e *engine, ex *result.Explanation, f *flight) string {
	var b strings.Builder
	if ex.Mode == "forward" {
		fmt.Fprintf(&b, "A /Q forward: the TMQFORWARD %s took the message from its queue and calls the service named like the queue (its origin is the forwarder's machine, %s). ",
			ex.IssuedBy, ex.Origin)
	}
	if ex.Parent != "" {
		mode := ex.Mode
		if f.unanswered && mode == "tpacall" {
			mode = "tpacall with TPNOREPLY: nobody waits for its reply, which is never sent, and its failure reaches no one"
		}
		fmt.Fprintf(&b, "A nested request (%s) of request %s, issued by %s on %s: its origin is the calling server's machine. ",
			mode, ex.Parent, ex.IssuedBy, ex.Origin)
	}
	if ex.Routing != nil {
		b.WriteString(routingText(ex))
		if f.reason == reasonSystem {
			return b.String()
		}
		b.WriteString(" ")
	}
	switch {
	case f.reason == reasonNoEnt && ex.Routing != nil:
		fmt.Fprintf(&b, "No server there advertises %s, so the request fails with TPENOENT.", ex.Service)
		return b.String()
	case f.reason == reasonNoEnt:
		fmt.Fprintf(&b, "No server advertises %s, so the request fails with TPENOENT.", ex.Service)
		return b.String()
	case f.reason == reasonTran:
		fmt.Fprintf(&b, "The request is in a transaction and the dispatch rule chose %s, whose group %s has no TMSNAME: it fails at its issue with TPETRAN (the choice's counters stay charged).",
			e.m.Servers[f.chosen].ID, e.m.Servers[f.chosen].Group)
		return b.String()
	case e.alg == algFirst:
		fmt.Fprintf(&b, "LDBAL=N: every request for %s goes to its first candidate in scan order, %s, busy or not, local or remote.",
			ex.Service, ex.Candidates[0].Server)
	case e.alg == algSHM && f.reason == reasonIdle:
		fmt.Fprintf(&b, "SHM real-time (LDBAL=Y): %s is the first idle server advertising %s, so %s gets the request without any costing.",
			e.m.Servers[f.chosen].ID, ex.Service, getter(e, f))
	case e.alg == algMP && f.reason == reasonIdle:
		fmt.Fprintf(&b, "MP round-robin on %s: %s is the first idle local server advertising %s, so %s gets the request. ",
			ex.Origin, e.m.Servers[f.chosen].ID, ex.Service, getter(e, f))
		fmt.Fprintf(&b, "%s's counter for %s becomes %d.", ex.Origin, ex.Winner, e.counters[f.req.Origin*len(e.queues)+int(f.queue)])
	case e.alg == algSHM:
		fmt.Fprintf(&b, "SHM real-time (LDBAL=Y): no server of %s is idle, so every candidate queue is costed as W/n + LOAD (work waiting per server plus this request's load). ", ex.Service)
		writeCosts(&b, ex, false)
	case e.alg == algMP:
		fmt.Fprintf(&b, "MP round-robin on %s: no local server of %s is idle, so every candidate queue is costed as C/n + LOAD + NETLOAD. ", ex.Origin, ex.Service)
		writeCosts(&b, ex, true)
		fmt.Fprintf(&b, " Its counter becomes %d.", e.counters[f.req.Origin*len(e.queues)+int(f.queue)])
	default:
		cp, ok := comparisonPolicies[e.setup.Policy]
		if !ok {
			panic("core: explanation: no text for policy " + e.setup.Policy.String())
		}
		b.WriteString(cp.text(ex, e.m.Servers[f.chosen].ID))
	}
	b.WriteString(" ")
	b.WriteString(whereNext(e, ex, f))
	return b.String()
}

// routingText tells the routing step: the value, the range that held it,
// the group whose servers remain.
func routingText(ex *result.Explanation) string {
	r := ex.Routing
	head := fmt.Sprintf("%s is routed by %s (field %s): ", ex.Service, r.Criterion, r.Field)
	switch {
	case r.NoEntry:
		return fmt.Sprintf("%s is routed by %s: its buffer type is %s, and no entry of %s holds it (BUFTYPE), so the request fails with TPESYSTEM.",
			ex.Service, r.Criterion, r.BufType, r.Criterion)
	case r.EntryLine > 0:
		which := "for buffer type " + r.BufType
		if r.BufType == "" {
			which = "the first: the request gives no buffer type"
		}
		head = fmt.Sprintf("%s is routed by %s, the entry at line %d (%s; field %s): ", ex.Service, r.Criterion, r.EntryLine, which, r.Field)
	}
	switch {
	case r.Value == "":
		return head + "the request carries no routing value, so it fails with TPESYSTEM."
	case r.Range == "":
		return head + fmt.Sprintf("no range holds the value %s, so the request fails with TPESYSTEM.", r.Value)
	}
	where := fmt.Sprintf("only the servers of group %s remain", r.Group)
	if r.Group == "*" {
		where = "the servers of every group remain"
	}
	if r.Fallback {
		_, g, _ := strings.Cut(r.Range, ":")
		return head + fmt.Sprintf("the value %s falls in range %s, but no server of group %s advertises %s, so the catch-all's group is used: %s (%d candidate(s)).",
			r.Value, r.Range, g, ex.Service, where, r.Candidates)
	}
	return head + fmt.Sprintf("the value %s falls in range %s, so %s (%d candidate(s)).", r.Value, r.Range, where, r.Candidates)
}

// writeCosts lists each distinct candidate queue's cost and the winner.
func writeCosts(b *strings.Builder, ex *result.Explanation, mp bool) {
	seen := map[string]bool{}
	var parts []string
	tie := false
	var winCost string
	for _, c := range ex.Candidates {
		if c.Queue == ex.Winner && c.Chosen {
			winCost = costValue(c.Cost)
		}
	}
	for _, c := range ex.Candidates {
		if seen[c.Queue] {
			continue
		}
		seen[c.Queue] = true
		where := c.LMID
		if mp && c.Local {
			where = "local"
		}
		parts = append(parts, fmt.Sprintf("%s (%s) costs %s", c.Queue, where, c.Cost))
		if c.Queue != ex.Winner && costValue(c.Cost) == winCost {
			tie = true
		}
	}
	b.WriteString(strings.Join(parts, "; "))
	if tie {
		fmt.Fprintf(b, "; the tie goes to the first, %s.", ex.Winner)
	} else {
		fmt.Fprintf(b, "; the least, %s, wins.", ex.Winner)
	}
}

// getter names what gets a request the idle rule chose: the server, or, for
// an MSSQ set, its queue (any idle server of the set may take it).
func getter(e *engine, f *flight) string {
	if n := len(e.queues[f.queue].servers); n > 1 {
		return fmt.Sprintf("its queue, %s (an MSSQ set of %d servers),", e.m.Queues[f.queue].Name, n)
	}
	return "it"
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
			e.m.Queues[f.queue].LMID, ex.Winner, strconv.FormatFloat(usToMS(f.req.TimeUS+e.setup.LatencyUS), 'f', -1, 64))
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
			if c.cause == causeSvcTimeout {
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
		case causeNoRestart, causeMaxGen:
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
