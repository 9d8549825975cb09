package sweep

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Rules a line's best point is chosen by (Line.Rule).
const (
	RuleSmallest = "smallest" // the smallest value that meets: the fewest servers, the slowest machine, the shortest think time
	RuleLargest  = "largest"  // the largest value that meets: the highest load, the longest latency
	RuleFirst    = "first"    // the first value that meets in the order given (keys without a direction)
)

// rule is how the best point along key k is chosen: the smallest value of
// a server count (MIN, MAX), a machine's speed or a client population's
// think time (the least hardware, the heaviest pace), the largest of a load
// (rate_scale, a stream's rate, a population's count) or of the network
// latency; the first in the order given for any other key.
func (k *sweepKey) ruleOf() string {
	if k.rule != "" {
		return k.rule
	}
	return RuleFirst
}

// ruleWord is the rule in the summary's words.
func (k *sweepKey) ruleWord() string {
	switch k.ruleOf() {
	case RuleSmallest:
		if strings.HasPrefix(k.name, "SERVERS.") {
			return "fewest"
		}
		if strings.HasSuffix(k.name, ".think_ms") {
			return "shortest"
		}
		return "smallest"
	case RuleLargest:
		if strings.HasSuffix(k.name, ".count") {
			return "most"
		}
		return "largest"
	}
	return "first"
}

// lines finds, per line of the grid along key k (per value of the other
// key; one line with one key), the best point that meets every objective
// by k's rule, the point just short of it, and the last point meeting them
// in the order given.
func (r *Reducer) lines(k int) []Line {
	s := r.s
	key := s.Keys[k]
	other := 1 - k
	nLines := 1
	if len(s.Keys) > 1 {
		nLines = len(s.Values[other])
	}
	n0 := len(s.Values[0])
	order := s.ruleOrder(k)
	out := make([]Line, nLines)
	for l := range out {
		line := &out[l]
		line.Values, line.Along, line.Rule = map[string]any{}, key.name, key.ruleOf()
		if len(s.Keys) > 1 {
			ok := s.Keys[other]
			line.Values[ok.name] = ok.jsonValue(s.Values[other][l])
		}
		at := func(i int) *Point { // the point of value i of key k on this line
			if k == 0 {
				return r.points[l*n0+i]
			}
			return r.points[i*n0+l]
		}
		for i := range s.Values[k] {
			if p := at(i); p != nil && p.Meets != nil && *p.Meets {
				line.LastMeeting = &PointRef{Index: p.Index, Values: p.Values}
			}
		}
		for j, i := range order {
			p := at(i)
			if p == nil || p.Meets == nil || !*p.Meets {
				continue
			}
			line.Best = &PointRef{Index: p.Index, Values: p.Values}
			if j > 0 {
				if q := at(order[j-1]); q != nil {
					line.Miss = s.missOf(q)
				}
			}
			break
		}
		line.Summary = s.lineSummary(k, line)
	}
	return out
}

// ruleOrder is the order key k's values are tried in by its rule: by value
// for smallest (ascending) and largest (descending), else as given.
func (s *Sweep) ruleOrder(k int) []int {
	vals := s.Values[k]
	order := make([]int, len(vals))
	for i := range order {
		order[i] = i
	}
	rule := s.Keys[k].ruleOf()
	if rule == RuleFirst || s.Keys[k].kind == keyWord {
		return order
	}
	num := func(i int) float64 { x, _ := strconv.ParseFloat(vals[i], 64); return x }
	slices.SortStableFunc(order, func(a, b int) int {
		if rule == RuleLargest {
			return cmp.Compare(num(b), num(a))
		}
		return cmp.Compare(num(a), num(b))
	})
	return order
}

// missOf says why point p does not meet every objective: its first
// objective said no (else its first unsure one).
func (s *Sweep) missOf(p *Point) *Miss {
	pick := -1
	for i, v := range p.Verdicts {
		if v == No {
			pick = i
			break
		}
		if v == Unsure && pick < 0 {
			pick = i
		}
	}
	if pick < 0 {
		return nil
	}
	o := s.Objectives[pick]
	f := p.Figures[o.Figure]
	half := f.HalfWidth
	if p.Replications < 2 {
		half = 0
	}
	return &Miss{PointRef: PointRef{Index: p.Index, Values: p.Values}, Objective: o.Text, Verdict: p.Verdicts[pick],
		Low: round6(f.Mean - half), High: round6(f.Mean + half)}
}

// lineSummary says a line's best in words that cannot be misread, e.g.
// "fewest SERVERS.PAYSRV.MIN that meets all 3 objectives: 3
// (SERVERS.PAYSRV.MIN=2 misses response_p99_ms[PAYMENT]<=80: 95% interval
// 82.1–90.3)".
func (s *Sweep) lineSummary(k int, l *Line) string {
	key := s.Keys[k]
	what := "the objective"
	if n := len(s.Objectives); n > 1 {
		what = fmt.Sprintf("all %d objectives", n)
	}
	if l.Best == nil {
		return fmt.Sprintf("no value of %s meets %s", key.name, what)
	}
	order := ""
	if key.ruleOf() == RuleFirst {
		order = " in the order given"
	}
	out := fmt.Sprintf("%s %s%s that meets %s: %v", key.ruleWord(), key.name, order, what, l.Best.Values[key.name])
	switch m := l.Miss; {
	case m != nil && m.Low == m.High:
		out += fmt.Sprintf(" (%s=%v %s %s: value %s)", key.name, m.Values[key.name], missVerb(m.Verdict), m.Objective, shortNum(m.Low))
	case m != nil:
		out += fmt.Sprintf(" (%s=%v %s %s: 95%% interval %s–%s)", key.name, m.Values[key.name], missVerb(m.Verdict), m.Objective,
			shortNum(m.Low), shortNum(m.High))
	case s.ruleOrder(k)[0] == s.coords(l.Best.Index)[k]:
		switch key.ruleOf() {
		case RuleSmallest:
			out += " (the smallest value tried)"
		case RuleLargest:
			out += " (the largest value tried)"
		}
	}
	return out
}

// missVerb is how a miss's verdict reads: "misses" or "is unsure on".
func missVerb(v string) string {
	if v == Unsure {
		return "may miss"
	}
	return "misses"
}

// shortNum writes x with at most 3 decimals, without trailing zeros.
func shortNum(x float64) string {
	t := strconv.FormatFloat(x, 'f', 3, 64)
	t = strings.TrimRight(t, "0")
	return strings.TrimSuffix(t, ".")
}
