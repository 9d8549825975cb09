package sweep

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/result"
)

// Objective is a target for one figure: `response_p99_ms<=200`,
// `throughput_per_s>=900`, `response_p99_ms[INQUIRY]<=100`. A point's
// verdict on it reads the figure's 95% confidence interval ([Objective.Verdict]).
type Objective struct {
	Text   string
	Figure string // the figure's canonical name ([result.FigureRef.String])
	Ref    result.FigureRef
	AtMost bool // <= (else >=)
	Limit  float64
}

// ParseObjective reads `FIGURE<=X` or `FIGURE>=X`; FIGURE is any figure of
// the figures table ([result.ParseFigure]), old names included.
func ParseObjective(text string) (*Objective, error) {
	o, msg := parseObjective(text)
	if msg != "" {
		return nil, diag.Errorf(diag.EINVALID, "objective %q: %s", text, msg)
	}
	return o, nil
}

// parseObjective is ParseObjective, what is wrong said without the objective.
func parseObjective(text string) (*Objective, string) {
	o := &Objective{Text: strings.TrimSpace(text)}
	var lim string
	var ok bool
	if o.Figure, lim, ok = strings.Cut(o.Text, "<="); ok {
		o.AtMost = true
	} else if o.Figure, lim, ok = strings.Cut(o.Text, ">="); !ok {
		return nil, "want FIGURE<=X or FIGURE>=X, e.g. response_p99_ms<=200 or response_p99_ms[INQUIRY]<=100"
	}
	o.Figure, lim = strings.TrimSpace(o.Figure), strings.TrimSpace(lim)
	ref, err := result.ParseFigure(o.Figure)
	if err != nil {
		return nil, err.Error()
	}
	if !ref.Def.Objective {
		return nil, ref.Def.Name + " cannot be an objective"
	}
	o.Ref, o.Figure = ref, ref.String()
	x, err := strconv.ParseFloat(lim, 64)
	if err != nil || x != x || x-x != 0 {
		return nil, fmt.Sprintf("limit %q is not a number", lim)
	}
	o.Limit = x
	return o, ""
}

// ParseObjectives reads objectives and checks their figures against the
// model (a service or machine it names must exist). A bad one is an
// EINVALID error whose field is field(i), i its index.
func ParseObjectives(m *core.Model, texts []string, field func(i int) string) ([]*Objective, error) {
	var out []*Objective
	for i, text := range texts {
		o, msg := parseObjective(text)
		if msg == "" && m != nil {
			if err := o.Ref.Check(m); err != nil {
				msg = err.Error()
			}
		}
		if msg != "" {
			return nil, diag.FieldErrorf(field(i), "%q: %s", text, msg)
		}
		for _, prev := range out {
			if prev.Text == o.Text {
				return nil, diag.FieldErrorf(field(i), "%q: given twice", text)
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// objectiveTexts are a spec's objectives in order: Objective (the single
// field of old) first, then Objectives; field names each as the spec does.
func (sp Spec) objectiveTexts() (texts []string, field func(i int) string) {
	if sp.Objective != "" {
		texts = append(texts, sp.Objective)
	}
	texts = append(texts, sp.Objectives...)
	old := sp.Objective != ""
	return texts, func(i int) string {
		switch {
		case old && i == 0:
			return "objective"
		case old:
			return fmt.Sprintf("objectives[%d]", i-1)
		}
		return fmt.Sprintf("objectives[%d]", i)
	}
}

// Meets reports whether a value meets the objective.
func (o *Objective) Meets(v float64) bool {
	if o.AtMost {
		return v <= o.Limit
	}
	return v >= o.Limit
}

// Verdicts on an objective.
const (
	Yes    = "yes"    // the 95% interval lies within the limit (or, with one run, the value does)
	No     = "no"     // the interval lies beyond the limit
	Unsure = "unsure" // the interval holds the limit
)

// Judged on: what a verdict reads.
const (
	JudgedOnInterval = "interval" // the 95% confidence interval
	JudgedOnValue    = "value"    // one replication: its value
)

// oneRunNote says why a result with one replication judges on the value.
const oneRunNote = "one replication per point: there is no confidence interval, so each objective is judged on the value alone (give --replications 2 or more for an interval)"

// Verdict judges a figure over reps replications: with an interval
// (reps ≥ 2), Yes when all of [mean − ci95, mean + ci95] meets the
// objective, No when none of it does, Unsure otherwise; with one
// replication, Yes or No by the value.
func (o *Objective) Verdict(f result.MeanCI, reps int) string {
	half := f.HalfWidth
	if reps < 2 {
		half = 0
	}
	lo, hi := f.Mean-half, f.Mean+half
	worst, best := hi, lo // for <=
	if !o.AtMost {
		worst, best = lo, hi
	}
	switch {
	case o.Meets(worst):
		return Yes
	case !o.Meets(best):
		return No
	}
	return Unsure
}

// ObjectiveInfo is an objective as a result lists it.
type ObjectiveInfo struct {
	Text   string  `json:"text"`
	Figure string  `json:"figure"` // canonical, a key of every point's figures
	Op     string  `json:"op"`     // <= or >=
	Limit  float64 `json:"limit"`
}

// Info is the objective as a result lists it.
func (o *Objective) Info() ObjectiveInfo {
	op := ">="
	if o.AtMost {
		op = "<="
	}
	return ObjectiveInfo{Text: o.Text, Figure: o.Figure, Op: op, Limit: o.Limit}
}

// verdicts judges figures over reps replications on every objective; meets
// is true when every verdict is Yes.
func verdicts(objs []*Objective, figures map[string]result.MeanCI, reps int) (vs []string, meets bool) {
	meets = true
	for _, o := range objs {
		v := o.Verdict(figures[o.Figure], reps) // a missing failed.REASON counts as 0
		vs = append(vs, v)
		meets = meets && v == Yes
	}
	return vs, meets
}
