// Package explain words a dispatch decision for a Tuxedo administrator:
// each candidate's note (why it won or lost) and the explanation's text,
// from the explanation core filled (the candidates, their costs, the
// routing step) and a [Choice], what the engine knew of the decision
// (docs/engine.md, "Explain"). It holds what each comparison
// policy's explanation says ([QueueCost], the sentence), what happens to
// the request next ([Next]) and why an explained request failed
// ([Failure]), from the facts the engine saw.
package explain

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/result"
)

// Alg is the algorithm that chose: a comparison policy's or Tuxedo's
// (LDBAL=N, SHM, MP).
type Alg uint8

// The algorithms.
const (
	AlgPolicy Alg = iota // a comparison policy
	AlgFirst             // LDBAL=N
	AlgSHM
	AlgMP
)

// Rule is what decided, as far as the words differ: the dispatch reason,
// or the failure at the choice.
type Rule uint8

// The rules.
const (
	RuleOther     Rule = iota // a comparison policy's rule, or a TMS request
	RuleFirst                 // LDBAL=N: the first candidate
	RuleIdle                  // an idle candidate
	RuleLeastLoad             // the least cost
	RuleNoEnt                 // TPENOENT: no candidate
	RuleSystem                // TPESYSTEM: routing found no group
	RuleTran                  // TPETRAN: a transaction's request chosen into a group without TMSNAME
)

// Choice is what the engine knew of a decision beyond the explanation.
type Choice struct {
	Alg    Alg
	Rule   Rule
	Policy plan.PolicyKind
	// Queued: the request was chosen into a queue (ex.Winner); Taken: a
	// server (ex.Server) took it at once.
	Queued, Taken bool
	// Chosen and ChosenGroup: the instance the rule chose, and its group.
	Chosen, ChosenGroup string
	// Unanswered: a tpacall with TPNOREPLY (or forwarded to from one).
	Unanswered bool
	// QueueServers: the servers of the winning queue (more than one: an
	// MSSQ set); Counter: with MP, the origin's counter of that queue after
	// the choice.
	QueueServers int
	Counter      int64
	// Next is what happens to the request right after the choice (read
	// only when the request was queued or taken).
	Next Next
}

// policy is how an explanation shows a comparison policy.
type policy struct {
	// queueCost: an explanation's candidates carry their queue's length per
	// server, (waiting + in service)/n, as their cost; rankedByCost: the
	// losers are noted against the winner's cost ("costs more", "same cost,
	// but ties go to the first").
	queueCost, rankedByCost bool
	win                     string // the winner's note; "" is "picked by <reason>"
	// text is the explanation's sentence, given the explanation so far and
	// the instance the rule picked.
	text func(ex *result.Explanation, chosen string) string
}

// policies has a row for every policy but tuxedo (a test checks).
var policies = map[plan.PolicyKind]policy{
	plan.PolicyRoundRobin: {text: func(ex *result.Explanation, chosen string) string {
		return fmt.Sprintf("round_robin rotates over the %d servers advertising %s; this turn falls to %s.",
			len(ex.Candidates), ex.Service, chosen)
	}},
	plan.PolicyRandom: {text: func(ex *result.Explanation, chosen string) string {
		return fmt.Sprintf("random picks one of the %d servers advertising %s uniformly: %s.",
			len(ex.Candidates), ex.Service, chosen)
	}},
	plan.PolicyJSQ: {queueCost: true, rankedByCost: true, win: "shortest queue per server",
		text: func(ex *result.Explanation, _ string) string {
			return fmt.Sprintf("jsq sends the request to the queue with the fewest requests waiting or in service per server (ties to the first): %s.", ex.Winner)
		}},
	plan.PolicyP2C: {queueCost: true, text: func(ex *result.Explanation, chosen string) string {
		return fmt.Sprintf("p2c drew two servers advertising %s at random and kept the one whose queue is shorter per server: %s.",
			ex.Service, chosen)
	}},
}

// QueueCost reports whether policy p's explanations show each candidate's
// queue length per server as its cost.
func QueueCost(p plan.PolicyKind) bool { return policies[p].queueCost }

// Notes says, per candidate of ex, why it won or lost.
func Notes(ex *result.Explanation, c *Choice) {
	winner := -1
	for i := range ex.Candidates {
		if ex.Candidates[i].Chosen {
			winner = i
		}
	}
	for i := range ex.Candidates {
		cd := &ex.Candidates[i]
		switch {
		case !c.Queued:
		case cd.Chosen:
			cd.Note = winNote(ex, c)
		case c.Rule == RuleFirst:
			cd.Note = "not first: LDBAL=N never looks past the first candidate"
		case c.Rule == RuleIdle && c.Alg == AlgMP && !cd.Local:
			cd.Note = "remote: only servers on the origin machine are checked for idleness"
		case c.Rule == RuleIdle && i < winner:
			cd.Note = "busy"
		case c.Rule == RuleIdle:
			cd.Note = "not looked at: an earlier candidate was idle"
		case cd.Queue == ex.Winner:
			cd.Note = "shares the winning queue"
		case c.Rule == RuleLeastLoad || policies[c.Policy].rankedByCost:
			cd.Note = loseNote(cd.Cost, ex.Candidates[winner].Cost, i < winner)
		default:
			cd.Note = "not picked"
		}
		if c.Taken && !cd.Chosen && cd.Server == ex.Server {
			cd.Note = "takes it: of the MSSQ set's idle servers, idle longest"
		}
		switch cd.State {
		case "down":
			cd.Note += "; down: it crashed, the BBL has not noticed yet, and it keeps the look it had"
		case "gone":
			cd.Note += "; its machine is lost: the bulletin board still lists it until the DBBL notices, and what is sent there never replies"
		}
	}
}

func winNote(ex *result.Explanation, c *Choice) string {
	switch c.Rule {
	case RuleFirst:
		return "first candidate in scan order"
	case RuleIdle:
		return "the first idle candidate"
	case RuleLeastLoad:
		return "least cost"
	default:
		if w := policies[c.Policy].win; w != "" {
			return w
		}
		return "picked by " + ex.Rule
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

// Text tells the decision in a few sentences for a Tuxedo admin.
func Text(ex *result.Explanation, c *Choice) string {
	var b strings.Builder
	if ex.Mode == "forward" {
		fmt.Fprintf(&b, "A /Q forward: the TMQFORWARD %s took the message from its queue and calls the service named like the queue (its origin is the forwarder's machine, %s). ",
			ex.IssuedBy, ex.Origin)
	}
	if ex.Parent != "" {
		mode := ex.Mode
		if c.Unanswered && mode == "tpacall" {
			mode = "tpacall with TPNOREPLY: nobody waits for its reply, which is never sent, and its failure reaches no one"
		}
		fmt.Fprintf(&b, "A nested request (%s) of request %s, issued by %s on %s: its origin is the calling server's machine. ",
			mode, ex.Parent, ex.IssuedBy, ex.Origin)
	}
	if ex.Routing != nil {
		b.WriteString(routingText(ex))
		if c.Rule == RuleSystem {
			return b.String()
		}
		b.WriteString(" ")
	}
	switch {
	case c.Rule == RuleNoEnt && ex.Routing != nil:
		fmt.Fprintf(&b, "No server there advertises %s, so the request fails with TPENOENT.", ex.Service)
		return b.String()
	case c.Rule == RuleNoEnt:
		fmt.Fprintf(&b, "No server advertises %s, so the request fails with TPENOENT.", ex.Service)
		return b.String()
	case c.Rule == RuleSystem:
		fmt.Fprintf(&b, "%s, its origin machine, is lost: a request issued there fails at its issue with TPESYSTEM.", ex.Origin)
		return b.String()
	case c.Rule == RuleTran:
		fmt.Fprintf(&b, "The request is in a transaction and the dispatch rule chose %s, whose group %s has no TMSNAME: it fails at its issue with TPETRAN (the choice's counters stay charged).",
			c.Chosen, c.ChosenGroup)
		return b.String()
	case c.Alg == AlgFirst:
		fmt.Fprintf(&b, "LDBAL=N: every request for %s goes to its first candidate in scan order, %s, busy or not, local or remote.",
			ex.Service, ex.Candidates[0].Server)
	case c.Alg == AlgSHM && c.Rule == RuleIdle:
		fmt.Fprintf(&b, "SHM real-time (LDBAL=Y): %s is the first idle server advertising %s, so %s gets the request without any costing.",
			c.Chosen, ex.Service, getter(ex, c))
	case c.Alg == AlgMP && c.Rule == RuleIdle:
		fmt.Fprintf(&b, "MP round-robin on %s: %s is the first idle local server advertising %s, so %s gets the request. ",
			ex.Origin, c.Chosen, ex.Service, getter(ex, c))
		fmt.Fprintf(&b, "%s's counter for %s becomes %d.", ex.Origin, ex.Winner, c.Counter)
	case c.Alg == AlgSHM:
		fmt.Fprintf(&b, "SHM real-time (LDBAL=Y): no server of %s is idle, so every candidate queue is costed as W/n + LOAD (work waiting per server plus this request's load). ", ex.Service)
		writeCosts(&b, ex, false)
	case c.Alg == AlgMP:
		fmt.Fprintf(&b, "MP round-robin on %s: no local server of %s is idle, so every candidate queue is costed as C/n + LOAD + NETLOAD. ", ex.Origin, ex.Service)
		writeCosts(&b, ex, true)
		fmt.Fprintf(&b, " Its counter becomes %d.", c.Counter)
	default:
		p, ok := policies[c.Policy]
		if !ok {
			panic("core: explanation: no text for policy " + c.Policy.String())
		}
		b.WriteString(p.text(ex, c.Chosen))
	}
	b.WriteString(" ")
	b.WriteString(c.Next.text(ex))
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
func getter(ex *result.Explanation, c *Choice) string {
	if n := c.QueueServers; n > 1 {
		return fmt.Sprintf("its queue, %s (an MSSQ set of %d servers),", ex.Winner, n)
	}
	return "it"
}

// Cost writes num/n + adds... = value exactly, e.g. "150/2 + 50 = 125";
// several nums are a sum: "(2+1)/1 = 3".
func Cost(nums []int64, n int64, adds ...int64) string {
	var b strings.Builder
	var num int64
	parts := make([]string, len(nums))
	for i, x := range nums {
		num += x
		parts[i] = strconv.FormatInt(x, 10)
	}
	if len(nums) > 1 {
		fmt.Fprintf(&b, "(%s)/%d", strings.Join(parts, "+"), n)
	} else {
		fmt.Fprintf(&b, "%d/%d", num, n)
	}
	total := num
	for _, a := range adds {
		fmt.Fprintf(&b, " + %d", a)
		total += a * n
	}
	b.WriteString(" = ")
	b.WriteString(fracString(total, n))
	return b.String()
}

// fracString writes a/n exactly: "125", or "250/3 (83.33)".
func fracString(a, n int64) string {
	if a%n == 0 {
		return strconv.FormatInt(a/n, 10)
	}
	return fmt.Sprintf("%d/%d (%.2f)", a, n, float64(a)/float64(n))
}
