package sweep

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// DefaultEpsilon is the indifference zone of an optimization, relative to
// each objective's limit.
const DefaultEpsilon = 0.05

// OptimizeSpec is what `tuxlb optimize` asks: the decision variables (a
// sweep's keys and values: the grid is their product), the objectives every
// chosen configuration must meet, the cost, and the procedure's knobs (0:
// the defaults).
type OptimizeSpec struct {
	Vary       []string `json:"vary"`
	Objectives []string `json:"objectives"`
	// Costs are `KEY=WEIGHT` texts, each KEY one of Vary's numeric keys:
	// a configuration's cost is Σ WEIGHT × its value of KEY. None: the
	// server instances the configuration boots.
	Costs           []string `json:"costs,omitempty"`
	PCS             float64  `json:"pcs,omitempty"`
	Epsilon         float64  `json:"epsilon,omitempty"` // relative to each limit
	FirstStage      int      `json:"first_stage,omitempty"`
	MaxReplications int      `json:"max_replications,omitempty"`
}

// Optimizer is an optimization compiled: every configuration a sweep point
// (its scenario edited and compiled once), its cost, and the objectives as
// the selection's constraints.
type Optimizer struct {
	Sweep      *Sweep
	Spec       OptimizeSpec
	Objectives []*Objective
	Costs      []float64
	CostRule   string // how the costs were computed, in words
	sel        SelectSpec
	base       *scenario.Scenario
}

// CompileOptimize checks the spec against sc and compiles every
// configuration of the grid. Bad input is an EINVALID error naming it.
func CompileOptimize(sc *scenario.Scenario, spec OptimizeSpec) (*Optimizer, error) {
	if len(spec.Objectives) == 0 {
		return nil, diag.FieldErrorf("objective", "want at least one objective, e.g. response_p99_ms<=200")
	}
	sel := SelectSpec{PCS: spec.PCS, FirstStage: spec.FirstStage, MaxReps: spec.MaxReplications}
	if sel.PCS == 0 {
		sel.PCS = DefaultPCS
	}
	if sel.FirstStage == 0 {
		sel.FirstStage = DefaultFirstStage
	}
	if sel.MaxReps == 0 {
		sel.MaxReps = max(DefaultSelectMax, sel.FirstStage)
	}
	switch {
	case !(sel.PCS > 0.5 && sel.PCS < 1):
		return nil, diag.FieldErrorf("pcs", "want a probability between 0.5 and 1 (e.g. 0.95), got %v", sel.PCS)
	case sel.FirstStage < 2 || sel.FirstStage > core.MaxReplications:
		return nil, diag.FieldErrorf("first_stage", "want 2 to %d first-stage replications, got %d", core.MaxReplications, sel.FirstStage)
	case sel.MaxReps < sel.FirstStage || sel.MaxReps > core.MaxReplications:
		return nil, diag.FieldErrorf("max_replications", "must be between the first stage (%d) and %d, got %d", sel.FirstStage, core.MaxReplications, sel.MaxReps)
	}
	eps := spec.Epsilon
	if eps == 0 {
		eps = DefaultEpsilon
	}
	if !(eps > 0 && eps < 1) {
		return nil, diag.FieldErrorf("epsilon", "want a fraction of each limit between 0 and 1 (e.g. 0.05 for 5%%), got %v", spec.Epsilon)
	}
	// The sweep reads the objectives as a sweep's (each checked against
	// the model, none given twice) and reports their figures.
	sw, err := Compile(sc, Spec{Vary: spec.Vary, Replications: sel.MaxReps, Objectives: spec.Objectives})
	if err != nil {
		return nil, err
	}
	objs := sw.Objectives
	for i, o := range objs {
		if o.Limit == 0 {
			return nil, diag.FieldErrorf(fmt.Sprintf("objectives[%d]", i), "%q: a limit of 0 leaves no indifference zone relative to it; give a limit other than 0", o.Text)
		}
		for _, prev := range objs[:i] {
			if prev.Figure == o.Figure && prev.AtMost == o.AtMost {
				return nil, diag.FieldErrorf(fmt.Sprintf("objectives[%d]", i), "%q: %s is bounded that way twice", o.Text, o.Figure)
			}
		}
		sel.Constraints = append(sel.Constraints, Constraint{Name: o.Text, AtMost: o.AtMost, Limit: o.Limit,
			Epsilon: eps * math.Abs(o.Limit)})
	}
	opt := &Optimizer{Sweep: sw, Spec: spec, Objectives: objs, base: sc}
	opt.Spec.Epsilon = eps
	if err := opt.costs(); err != nil {
		return nil, err
	}
	sel.Costs = opt.Costs
	opt.sel = sel
	return opt, nil
}

// costs computes every configuration's cost.
func (o *Optimizer) costs() error {
	s := o.Sweep
	if len(o.Spec.Costs) == 0 {
		o.CostRule = "server instances booted (MIN of every *SERVERS entry)"
		for p := range s.points {
			n := 0
			for _, srv := range s.points[p].plan.Model().Servers {
				if !srv.Spare && !srv.Gateway {
					n++
				}
			}
			o.Costs = append(o.Costs, float64(n))
		}
		return nil
	}
	weights := make([]float64, len(s.Keys))
	given := make([]bool, len(s.Keys))
	var rule []string
	for ci, text := range o.Spec.Costs {
		field := fmt.Sprintf("costs[%d]", ci)
		name, w, ok := strings.Cut(text, "=")
		name = strings.TrimSpace(name)
		weight, err := strconv.ParseFloat(strings.TrimSpace(w), 64)
		if !ok || err != nil || !(weight >= 0) || math.IsInf(weight, 0) {
			return diag.FieldErrorf(field, "cost %q: want KEY=WEIGHT with a weight >= 0, e.g. SERVERS.PAYSRV@PAYGRP1.MIN=2", text)
		}
		k := lookupKey(name)
		i := -1
		for j, sk := range s.Keys {
			if k != nil && sk.name == k.name {
				i = j
			}
		}
		switch {
		case i < 0:
			return diag.FieldErrorf(field, "cost %q: %s is not a varied key (the cost weighs the values of the varied keys)", text, name)
		case s.Keys[i].kind == keyWord:
			return diag.FieldErrorf(field, "cost %q: %s takes words, not numbers", text, s.Keys[i].name)
		case given[i]:
			return diag.FieldErrorf(field, "cost %q: %s weighed twice", text, s.Keys[i].name)
		}
		weights[i], given[i] = weight, true
		rule = append(rule, strings.TrimSpace(w)+" × "+s.Keys[i].name)
	}
	o.CostRule = strings.Join(rule, " + ")
	for p := range s.points {
		var c float64
		for i, ci := range s.coords(p) {
			if given[i] {
				x, _ := strconv.ParseFloat(s.Values[i][ci], 64)
				c += weights[i] * x
			}
		}
		if math.IsInf(c, 0) || math.IsNaN(c) {
			return diag.FieldErrorf("costs", "the cost of %s is too large to compare (%s): give smaller weights", s.pointLabel(s.points[p].values), o.CostRule)
		}
		o.Costs = append(o.Costs, round6(c))
	}
	return nil
}

// Evaluate runs replication rep of configuration point (with the sweep's
// seed rep, the same at every configuration) and returns each objective's
// figure. Only opt.Context and opt.MaxRequests are used. It is safe to call
// for different units at the same time.
func (o *Optimizer) Evaluate(point, rep int, opt core.RunOptions) ([]float64, error) {
	smp, err := o.Sweep.RunUnit(point*o.Sweep.MaxReps+rep, opt)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(o.Objectives))
	for i, obj := range o.Objectives {
		out[i] = smp.Figures[obj.Figure] // a failed.REASON not seen is 0
	}
	return out, nil
}

// Run runs the selection, each round's units by run, and reports it.
func (o *Optimizer) Run(run Runner) (*Optimization, error) {
	sel, err := Select(o.sel, run)
	if err != nil {
		return nil, err
	}
	return o.report(sel), nil
}

// Optimization is what `tuxlb optimize` reports.
type Optimization struct {
	EngineVersion string         `json:"engine_version"`
	Name          string         `json:"name,omitempty"`
	Keys          []Axis         `json:"keys"`
	Objectives    []OptObjective `json:"objectives"`
	Cost          string         `json:"cost"` // how a configuration's cost is computed
	Method        OptMethod      `json:"method"`
	// Seeds are the replications' seeds, the same at every configuration,
	// up to the most any configuration ran.
	Seeds    []uint64 `json:"seeds"`
	Feasible bool     `json:"feasible"`
	// Chosen is the cheapest configuration declared to meet every
	// objective; nil when none does.
	Chosen *OptConfig `json:"chosen"`
	// Rejected are the configurations cheaper than the choice (every one,
	// when none is chosen), each with the objective it was declared to miss.
	Rejected []OptConfig `json:"rejected"`
	// RunnersUp are the dearer configurations that were examined, as
	// far as the search went.
	RunnersUp []OptConfig `json:"runners_up"`
	// Closest is, when nothing meets every objective, the configuration
	// whose worst relative violation is the smallest.
	Closest      *OptConfig  `json:"closest,omitempty"`
	NotExamined  int         `json:"not_examined"` // dearer configurations never run
	Replications OptSpending `json:"replications"`
	Guarantee    string      `json:"guarantee"`
}

// OptObjective is one objective with its indifference zone.
type OptObjective struct {
	Objective string  `json:"objective"`
	Figure    string  `json:"figure"`
	Limit     float64 `json:"limit"`
	Epsilon   float64 `json:"epsilon"` // in the figure's units
}

// OptMethod states the procedure and its constants.
type OptMethod struct {
	Procedure       string  `json:"procedure"`
	PCS             float64 `json:"pcs"`
	EpsilonRel      float64 `json:"epsilon_rel"`
	FirstStage      int     `json:"first_stage"`
	Batch           int     `json:"batch"`
	Window          int     `json:"window"`
	MaxReplications int     `json:"max_replications"`
	Decisions       int     `json:"decisions"`          // configurations × objectives
	Alpha           float64 `json:"alpha_per_decision"` // (1 − PCS) / decisions
	H2              float64 `json:"h2"`
	TScreen         float64 `json:"t_screen"` // t(1 − α/3; n0 − 1), the first-stage screen's quantile
	TCap            float64 `json:"t_cap"`    // t(1 − α/3; max_replications − 1), the cap's t-test quantile
}

// OptConfig is one configuration as the search left it.
type OptConfig struct {
	Index        int            `json:"index"`
	Values       map[string]any `json:"values"`
	Cost         float64        `json:"cost"`
	Status       string         `json:"status"` // feasible, infeasible, undecided
	Replications int            `json:"replications"`
	Objectives   []OptEstimate  `json:"objectives"`
	// Missed is the objective the configuration was declared to miss
	// (the first, in the objectives' order, when several were).
	Missed *OptEstimate `json:"missed,omitempty"`
	// WorstViolation is the largest of the objectives' relative
	// violations, (mean − limit)/|limit| for <= (negative: met).
	WorstViolation *float64 `json:"worst_violation,omitempty"`
	// UBBConfigDiff is the chosen configuration's UBBCONFIG against the
	// scenario's, line by line: "-12: old" and "+12: new".
	UBBConfigDiff []string `json:"ubbconfig_diff,omitempty"`
}

// OptEstimate is one objective at one configuration: its figure's mean and
// 95% half-width over the replications run, and the feasibility decision.
type OptEstimate struct {
	Objective string  `json:"objective"`
	Mean      float64 `json:"mean"`
	CI95      float64 `json:"ci95"`
	Decision  string  `json:"decision"`
	At        int     `json:"decided_at,omitempty"`
	Capped    bool    `json:"capped,omitempty"`
	// Verdict is a sweep's reading of the 95% interval (yes, no,
	// unsure: [Objective.Verdict]), beside the decision, which is what
	// the choice rests on.
	Verdict  string `json:"verdict"`
	Screened bool   `json:"screened,omitempty"` // decided by the first-stage t-test
	CapTest  bool   `json:"cap_test,omitempty"` // decided by the t-test at the cap
}

// OptSpending compares the replications spent with the full grid's.
type OptSpending struct {
	Spent int `json:"spent"`
	// MostNeeded is the most replications any configuration needed (up to
	// its last decision, or all it ran when left undecided); FullGrid is
	// every configuration of the grid run to MostNeeded.
	MostNeeded int `json:"most_needed"`
	FullGrid   int `json:"full_grid"`
}

// report turns a selection into the report.
func (o *Optimizer) report(sel *Selection) *Optimization {
	s := o.Sweep
	out := &Optimization{EngineVersion: core.EngineVersion, Name: s.Name, Cost: o.CostRule,
		Rejected: []OptConfig{}, RunnersUp: []OptConfig{},
		Method: OptMethod{Procedure: "Andradóttir & Kim (2010) feasibility check per objective; configurations in increasing cost",
			PCS: sel.Spec.PCS, EpsilonRel: o.Spec.Epsilon, FirstStage: sel.Spec.FirstStage, Batch: sel.Spec.Batch,
			Window: sel.Spec.Window, MaxReplications: sel.Spec.MaxReps, Decisions: sel.Decisions,
			Alpha: math.Round(sel.Alpha*1e12) / 1e12, H2: round6(sel.H2), TScreen: round6(sel.TScreen), TCap: round6(sel.TCap)}}
	for i, k := range s.Keys {
		ax := Axis{Key: k.name}
		for _, v := range s.Values[i] {
			ax.Values = append(ax.Values, k.jsonValue(v))
		}
		out.Keys = append(out.Keys, ax)
	}
	for i, obj := range o.Objectives {
		out.Objectives = append(out.Objectives, OptObjective{Objective: obj.Text, Figure: obj.Figure,
			Limit: obj.Limit, Epsilon: round6(sel.Spec.Constraints[i].Epsilon)})
	}
	most := 0
	chosenSeen := false
	var closest *OptConfig
	for _, st := range sel.Systems {
		most = max(most, st.Ran)
		if st.Status == NotExamined {
			out.NotExamined++
			continue
		}
		c := o.config(st)
		switch {
		case st.Point == sel.Chosen:
			chosenSeen = true
			c.UBBConfigDiff = lineDiff(o.base.UBBConfig, s.points[st.Point].sc.UBBConfig)
			out.Chosen = &c
		case !chosenSeen:
			out.Rejected = append(out.Rejected, c)
		default:
			out.RunnersUp = append(out.RunnersUp, c)
		}
		if sel.Chosen < 0 && (closest == nil || *c.WorstViolation < *closest.WorstViolation) {
			cc := c
			closest = &cc
		}
	}
	out.Seeds = s.Seeds[:most]
	out.Feasible = out.Chosen != nil
	if !out.Feasible && closest != nil {
		closest.UBBConfigDiff = lineDiff(o.base.UBBConfig, s.points[closest.Index].sc.UBBConfig)
		out.Closest = closest
	}
	out.Replications = OptSpending{Spent: sel.Spent, MostNeeded: sel.MostNeeded, FullGrid: sel.FullGrid}
	out.Guarantee = o.guarantee(out, sel)
	return out
}

// config is one configuration's report.
func (o *Optimizer) config(st SystemState) OptConfig {
	c := OptConfig{Index: st.Point, Values: o.Sweep.pointValues(st.Point), Cost: st.Cost, Status: st.Status,
		Replications: st.Ran}
	worst := math.Inf(-1)
	for j, cs := range st.Constraints {
		e := OptEstimate{Objective: o.Objectives[j].Text, Mean: cs.Mean, CI95: cs.CI95, Decision: cs.Decision,
			At: cs.At, Capped: cs.Capped, Screened: cs.Screened, CapTest: cs.CapTest,
			Verdict: o.Objectives[j].Verdict(result.MeanCI{Mean: cs.Mean, HalfWidth: cs.CI95}, st.Ran)}
		c.Objectives = append(c.Objectives, e)
		if cs.Decision == Infeasible && c.Missed == nil {
			ee := e
			c.Missed = &ee
		}
		worst = max(worst, o.sel.Constraints[j].violation(cs.Mean)/math.Abs(o.sel.Constraints[j].Limit))
	}
	w := round6(worst)
	c.WorstViolation = &w
	return c
}

// guarantee states what the selection guarantees, in words.
func (o *Optimizer) guarantee(out *Optimization, sel *Selection) string {
	pcs := strconv.FormatFloat(100*sel.Spec.PCS, 'f', -1, 64) + "%"
	eps := strconv.FormatFloat(100*o.Spec.Epsilon, 'f', -1, 64) + "% of each limit"
	var b strings.Builder
	if out.Chosen != nil {
		label := o.Sweep.pointLabel(o.Sweep.points[out.Chosen.Index].values)
		fmt.Fprintf(&b, "With probability at least %s, when the objectives' figures are normal enough: no configuration cheaper than %s meets every objective by more than ε (%s), and %s meets every objective within ε.",
			pcs, label, eps, label)
	} else {
		fmt.Fprintf(&b, "With probability at least %s, when the objectives' figures are normal enough: no configuration of the grid meets every objective by more than ε (%s).", pcs, eps)
	}
	switch {
	case sel.Capped && sel.Spec.MaxReps < core.MaxReplications:
		fmt.Fprintf(&b, " Some decisions were left open by the t-test at the cap of %d replications and made by the sign of the sum alone, outside this guarantee (marked capped): raise --max-replications or widen --epsilon.", sel.Spec.MaxReps)
	case sel.Capped: // the cap cannot be raised
		fmt.Fprintf(&b, " Some decisions were left open by the t-test at the cap of %d replications and made by the sign of the sum alone, outside this guarantee (marked capped). The cap is already the most: widen --epsilon, or make the runs longer if that makes their figures vary less between replications (a mean or percentile over more requests does).", sel.Spec.MaxReps)
	}
	// The search stops a configuration when its running sum leaves the
	// region, so the replications it stopped on are the ones that lean
	// toward the decision: their interval covers the true figure less
	// often than 95% (measured on an M/M/c queue: once in 17 choices of a
	// configuration inside ε of its limit).
	b.WriteString(" The means and 95% half-widths shown are over the replications the search stopped on, which lean toward its decisions: they are not confidence intervals of the true figures (a configuration chosen within ε of a limit may show an interval inside it while its true figure misses by less than ε).")
	if c := cmp.Or(out.Chosen, out.Closest); c != nil {
		var kv []string
		for i, v := range o.Sweep.points[c.Index].values {
			kv = append(kv, o.Sweep.Keys[i].name+"="+v)
		}
		seed := uint64(1)
		if o.base.Seed != nil {
			seed = *o.base.Seed
		}
		fmt.Fprintf(&b, " For those, run %s again on other seeds: tuxlb compare --no-baseline --variant '%s,seed=%d' --replications 20 with the same objectives.", o.Sweep.pointLabel(o.Sweep.points[c.Index].values), strings.Join(kv, ","), seed+1)
	}
	return b.String()
}

// lineDiff lists the lines that differ between a and b, by a longest
// common subsequence of lines: "-N: line" for a's line N, "+N: line" for
// b's line N.
func lineDiff(a, b string) []string {
	if a == b {
		return nil
	}
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	// trim the common head and tail, then an LCS table on the rest
	head := 0
	for head < len(x) && head < len(y) && x[head] == y[head] {
		head++
	}
	tail := 0
	for tail < len(x)-head && tail < len(y)-head && x[len(x)-1-tail] == y[len(y)-1-tail] {
		tail++
	}
	xs, ys := x[head:len(x)-tail], y[head:len(y)-tail]
	if len(xs)*len(ys) > 4_000_000 { // too big for the table: everything in between
		var out []string
		for i, l := range xs {
			out = append(out, fmt.Sprintf("-%d: %s", head+i+1, l))
		}
		for i, l := range ys {
			out = append(out, fmt.Sprintf("+%d: %s", head+i+1, l))
		}
		return out
	}
	n, m := len(xs), len(ys)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if xs[i] == ys[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && xs[i] == ys[j]:
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, fmt.Sprintf("-%d: %s", head+i+1, xs[i]))
			i++
		default:
			out = append(out, fmt.Sprintf("+%d: %s", head+j+1, ys[j]))
			j++
		}
	}
	return out
}

// EncodeOptimization is the JSON of an optimization, indented, with a newline.
func EncodeOptimization(r *Optimization) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the objectives' <= as written
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		b.Reset()
		data, _ := json.Marshal(diag.Errorf(diag.EINTERNAL, "encode optimization: %v", err))
		b.Write(append(data, '\n'))
	}
	return b.Bytes()
}

// EncodeOptimizationText writes an optimization for a reader.
func EncodeOptimizationText(r *Optimization) []byte {
	var b bytes.Buffer
	label := func(c *OptConfig) string {
		var parts []string
		for _, k := range r.Keys {
			parts = append(parts, fmt.Sprintf("%s=%v", k.Key, c.Values[k.Key]))
		}
		return strings.Join(parts, " ")
	}
	est := func(e OptEstimate) string {
		s := fmt.Sprintf("%s ± %s", fixed3(e.Mean), fixed3(e.CI95))
		switch {
		case e.Decision == Undecided:
			s += "  undecided"
		case e.Capped:
			s += fmt.Sprintf("  %s at the cap of %d replications (by the sum's sign)", e.Decision, e.At)
		case e.Screened:
			s += fmt.Sprintf("  %s after %d replications (first-stage t-test)", e.Decision, e.At)
		case e.CapTest:
			s += fmt.Sprintf("  %s after %d replications (t-test at the cap)", e.Decision, e.At)
		default:
			s += fmt.Sprintf("  %s after %d replications", e.Decision, e.At)
		}
		return s
	}
	points := 1
	for _, k := range r.Keys {
		points *= len(k.Values)
	}
	if r.Name != "" {
		fmt.Fprintf(&b, "%s\n", r.Name)
	}
	fmt.Fprintf(&b, "%d configurations; cost: %s\n", points, r.Cost)
	for _, o := range r.Objectives {
		fmt.Fprintf(&b, "objective %s (indifference zone ε = %s)\n", o.Objective, formatFloat(o.Epsilon))
	}
	b.WriteString("\n")
	writeConfig := func(head string, c *OptConfig) {
		fmt.Fprintf(&b, "%s%s  (cost %s, %d replications)\n", head, label(c), formatFloat(c.Cost), c.Replications)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, e := range c.Objectives {
			fmt.Fprintf(tw, "    %s\t%s\n", e.Objective, est(e))
		}
		tw.Flush()
	}
	if r.Chosen != nil {
		writeConfig("chosen: ", r.Chosen)
		if len(r.Chosen.UBBConfigDiff) == 0 {
			b.WriteString("  UBBCONFIG: the scenario's own\n")
		} else {
			b.WriteString("  UBBCONFIG changes:\n")
			for _, l := range r.Chosen.UBBConfigDiff {
				fmt.Fprintf(&b, "    %s\n", l)
			}
		}
	} else {
		b.WriteString("no configuration of the grid meets every objective\n")
		if r.Closest != nil {
			writeConfig("closest (smallest worst relative violation, "+strconv.FormatFloat(100**r.Closest.WorstViolation, 'f', 1, 64)+"%): ", r.Closest)
		}
	}
	if len(r.Rejected) > 0 {
		if r.Chosen != nil {
			b.WriteString("\ncheaper configurations, rejected:\n")
		} else {
			b.WriteString("\nrejected:\n")
		}
		for i := range r.Rejected {
			c := &r.Rejected[i]
			m := c.Missed
			how := ""
			switch {
			case m.Screened:
				how = " (first-stage t-test)"
			case m.CapTest:
				how = " (t-test at the cap)"
			case m.Capped:
				how = " (at the cap, by the sum's sign: outside the guarantee)"
			}
			if len(c.Objectives) > 1 { // every objective's figure, the missed one among them
				fmt.Fprintf(&b, "  %s  (cost %s): misses %s\n", label(c), formatFloat(c.Cost), m.Objective)
				tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
				for _, e := range c.Objectives {
					fmt.Fprintf(tw, "      %s\t%s\n", e.Objective, est(e))
				}
				tw.Flush()
				continue
			}
			fmt.Fprintf(&b, "  %s  (cost %s): misses %s: %s ± %s after %d replications%s\n", label(c), formatFloat(c.Cost),
				m.Objective, fixed3(m.Mean), fixed3(m.CI95), m.At, how)
		}
	}
	if len(r.RunnersUp) > 0 {
		b.WriteString("\nrunners-up (dearer, examined while the search went on):\n")
		for i := range r.RunnersUp {
			c := &r.RunnersUp[i]
			what := c.Status
			if c.Status == Undecided {
				what = "undecided when the search stopped"
			}
			writeConfig("  "+what+": ", c)
		}
	}
	if r.NotExamined > 0 {
		fmt.Fprintf(&b, "\n%d dearer configurations not run\n", r.NotExamined)
	}
	fmt.Fprintf(&b, "\nreplications: %d spent; the full grid at the same precision, every configuration run to the most any needed (%d), %d\n",
		r.Replications.Spent, r.Replications.MostNeeded, r.Replications.FullGrid)
	fmt.Fprintf(&b, "method: %s; n0 %d, then batches of %d, %d configurations at once, at most %d replications; α = (1 − %s)/%d decisions = %s per decision, a third to a first-stage t-test (t = %s), a third to the triangular region (h² = %s), a third to a t-test at the cap (t = %s)\n",
		r.Method.Procedure, r.Method.FirstStage, r.Method.Batch, r.Method.Window, r.Method.MaxReplications,
		formatFloat(r.Method.PCS), r.Method.Decisions, strconv.FormatFloat(r.Method.Alpha, 'g', 6, 64), formatFloat(r.Method.TScreen), formatFloat(r.Method.H2), formatFloat(r.Method.TCap))
	fmt.Fprintf(&b, "\n%s\n", r.Guarantee)
	return b.Bytes()
}

func fixed3(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
