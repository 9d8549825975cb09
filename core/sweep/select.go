package sweep

import (
	"cmp"
	"math"
	"slices"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/ci"
	"github.com/tuxlb/tuxlb/core/internal/fmath"
)

// Defaults of a constrained selection ([Select]).
const (
	DefaultPCS         = 0.95 // probability of correct selection asked for
	DefaultFirstStage  = 10   // n0: replications before the first decision
	DefaultSelectBatch = 5    // replications per configuration per round after the first stage
	DefaultWindow      = 2    // configurations examined at once
	DefaultSelectMax   = 100  // replications at most per configuration
)

// Constraint is one objective of a selection on the figure at its index in
// an evaluation's figures: its mean must be at most Limit (AtMost) or at
// least Limit, with Epsilon (> 0, the figure's units) the indifference zone:
// a mean within Epsilon of Limit may be declared either way.
type Constraint struct {
	Name    string
	AtMost  bool
	Limit   float64
	Epsilon float64
}

// violation is how far one figure is on the wrong side of the limit
// (negative: on the right side).
func (c Constraint) violation(y float64) float64 {
	if c.AtMost {
		return y - c.Limit
	}
	return c.Limit - y
}

// SelectSpec is a constrained selection of the cheapest feasible
// configuration: the configurations' deterministic costs, the constraints
// every one must meet, and the procedure's knobs (0: the defaults).
type SelectSpec struct {
	Costs       []float64 // per configuration (point), in grid order
	Constraints []Constraint
	PCS         float64 // probability of a correct selection, in (0.5, 1)
	FirstStage  int     // n0 ≥ 2
	MaxReps     int     // replications at most per configuration (≥ FirstStage)
	Batch       int     // replications per round after the first stage (≥ 1)
	Window      int     // configurations examined at once (≥ 1)
}

// Unit is one replication of one configuration.
type Unit struct{ Point, Rep int }

// Evaluator returns replication rep of configuration point: one figure per
// constraint, in the constraints' order.
type Evaluator func(point, rep int) ([]float64, error)

// Runner runs a round's units (in any order, on any number of workers) and
// returns their figures, out[k] for units[k].
type Runner func(units []Unit) ([][]float64, error)

// Sequential is the Runner that calls eval for each unit in turn.
func Sequential(eval Evaluator) Runner {
	return func(units []Unit) ([][]float64, error) {
		out := make([][]float64, len(units))
		for k, u := range units {
			y, err := eval(u.Point, u.Rep)
			if err != nil {
				return nil, err
			}
			out[k] = y
		}
		return out, nil
	}
}

// Decisions of the feasibility check, per constraint and per configuration.
const (
	Feasible    = "feasible"
	Infeasible  = "infeasible"
	Undecided   = "undecided"
	NotExamined = "not examined"
)

// ConstraintState is one constraint's check at one configuration.
type ConstraintState struct {
	Decision string  `json:"decision"`
	At       int     `json:"decided_at,omitempty"` // replications when decided
	Capped   bool    `json:"capped,omitempty"`     // decided by the sign of its sum at the replications' cap, outside the guarantee
	CapTest  bool    `json:"cap_test,omitempty"`   // decided by the t-test at the replications' cap
	Screened bool    `json:"screened,omitempty"`   // decided by the first-stage t-test
	S2       float64 `json:"s2"`                   // first-stage variance
	Mean     float64 `json:"mean"`                 // over every replication run
	CI95     float64 `json:"ci95"`
}

// SystemState is one configuration's state when the selection ended.
type SystemState struct {
	Point       int               `json:"point"`
	Cost        float64           `json:"cost"`
	Status      string            `json:"status"`
	Ran         int               `json:"replications"` // replications run
	Constraints []ConstraintState `json:"constraints,omitempty"`
}

// Selection is the outcome of [Select].
type Selection struct {
	Chosen int // the cheapest configuration declared feasible on every constraint; -1 when none
	// Systems are the configurations in the order examined (increasing
	// cost, ties in grid order), every one of them, examined or not.
	Systems   []SystemState
	Decisions int     // configurations × constraints: the Bonferroni split of 1 − PCS
	Alpha     float64 // error allowed per decision: (1 − PCS) / Decisions
	// The error α of a decision is split in three: H2 is the triangular
	// region's constant for α/3, h² = (n0−1)[(2·α/3)^(−2/(n0−1)) − 1];
	// TScreen = t(1 − α/3; n0 − 1) is the quantile of the first-stage
	// screen, a one-sided t-test after n0 replications; TCap =
	// t(1 − α/3; MaxReps − 1) that of the t-test at the cap, for what the
	// region left undecided.
	H2, TScreen, TCap float64
	Spent             int // replications run in all
	// MostNeeded is the most replications any configuration ran until its
	// last decision (or ran in all, when it was left undecided or capped);
	// FullGrid is every configuration run to it.
	MostNeeded, FullGrid int
	Capped               bool // some decision was made at the cap, outside the guarantee
	Spec                 SelectSpec
}

// H2 is the constant of the triangular continuation region for one
// decision with error at most alpha after n0 first-stage replications
// (Kim & Nelson 2001, with c = 1): ½(1 + h²/(n0−1))^(−(n0−1)/2) = alpha.
func H2(alpha float64, n0 int) float64 {
	k := float64(n0 - 1)
	return k * (fmath.Exp(-2/k*fmath.Log(2*alpha)) - 1)
}

// Select finds the cheapest configuration meeting every constraint by the
// feasibility check procedure of Andradóttir & Kim (2010) for each
// constraint, configurations examined in increasing cost (docs/sweeps.md,
// "Choosing the cheapest configuration"). run runs each round's units;
// which units a round holds depends only on the figures of the rounds
// before, so the selection is the same however run spreads them.
func Select(spec SelectSpec, run Runner) (*Selection, error) {
	if spec.PCS == 0 {
		spec.PCS = DefaultPCS
	}
	if spec.FirstStage == 0 {
		spec.FirstStage = DefaultFirstStage
	}
	if spec.MaxReps == 0 {
		spec.MaxReps = max(DefaultSelectMax, spec.FirstStage)
	}
	if spec.Batch == 0 {
		spec.Batch = DefaultSelectBatch
	}
	if spec.Window == 0 {
		spec.Window = DefaultWindow
	}
	k, m := len(spec.Costs), len(spec.Constraints)
	switch {
	case k == 0:
		return nil, diag.Errorf(diag.EINVALID, "no configuration to choose from")
	case m == 0:
		return nil, diag.FieldErrorf("objective", "want at least one objective")
	case !(spec.PCS > 0.5 && spec.PCS < 1):
		return nil, diag.FieldErrorf("pcs", "want a probability between 0.5 and 1 (e.g. 0.95), got %v", spec.PCS)
	case spec.FirstStage < 2:
		return nil, diag.FieldErrorf("first_stage", "want at least 2 first-stage replications, got %d", spec.FirstStage)
	case spec.MaxReps < spec.FirstStage:
		return nil, diag.FieldErrorf("max_replications", "must be at least the first stage (%d), got %d", spec.FirstStage, spec.MaxReps)
	case spec.Batch < 1 || spec.Window < 1:
		return nil, diag.FieldErrorf("batch", "batch and window must be at least 1")
	}
	for _, c := range spec.Constraints {
		if !(c.Epsilon > 0) || math.IsInf(c.Epsilon, 0) {
			return nil, diag.FieldErrorf("epsilon", "objective %s: the indifference zone must be > 0, got %v", c.Name, c.Epsilon)
		}
	}
	sel := &Selection{Chosen: -1, Decisions: k * m, Spec: spec}
	sel.Alpha = (1 - spec.PCS) / float64(sel.Decisions)
	sel.H2 = H2(sel.Alpha/3, spec.FirstStage)
	sel.TScreen = TQuantile(1-sel.Alpha/3, spec.FirstStage-1)
	sel.TCap = TQuantile(1-sel.Alpha/3, spec.MaxReps-1)
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(spec.Costs[a], spec.Costs[b]) })

	type system struct {
		samples [][]float64 // per replication, per constraint
		checked int         // replications the decisions have read
		s2      []float64
		sum     []float64 // per constraint, of the violations up to checked
		state   []ConstraintState
		out     bool // eliminated
	}
	sys := make([]system, k)
	for i := range sys {
		sys[i].s2, sys[i].sum = make([]float64, m), make([]float64, m)
		sys[i].state = make([]ConstraintState, m)
		for j := range sys[i].state {
			sys[i].state[j].Decision = Undecided
		}
	}
	allFeasible := func(i int) bool {
		for _, st := range sys[i].state {
			if st.Decision != Feasible {
				return false
			}
		}
		return true
	}
	// decide reads replications checked+1..ran of configuration i.
	decide := func(i int) {
		s := &sys[i]
		n0 := spec.FirstStage
		for r := s.checked + 1; r <= len(s.samples) && !s.out; r++ {
			for j, c := range spec.Constraints {
				s.sum[j] += c.violation(s.samples[r-1][j])
			}
			s.checked = r
			if r < n0 {
				continue
			}
			if r == n0 {
				for j := range spec.Constraints {
					xs := make([]float64, n0)
					for q := range xs {
						xs[q] = s.samples[q][j]
					}
					s.s2[j] = variance(xs)
					s.state[j].S2 = s.s2[j]
					// the first-stage screen: a one-sided t-test at α/3
					half := sel.TScreen * math.Sqrt(s.s2[j]/float64(n0))
					st := &s.state[j]
					switch mean := s.sum[j] / float64(n0); {
					case mean-half > 0:
						st.Decision, st.At, st.Screened = Infeasible, r, true
						s.out = true
					case mean+half < 0:
						st.Decision, st.At, st.Screened = Feasible, r, true
					}
				}
			}
			for j, c := range spec.Constraints {
				st := &s.state[j]
				if st.Decision != Undecided {
					continue
				}
				eps := c.Epsilon
				R := max(0, sel.H2*s.s2[j]/(2*eps)-eps*float64(r)/2)
				switch {
				case s.sum[j] > R:
					st.Decision, st.At = Infeasible, r
				case s.sum[j] < -R || R == 0:
					st.Decision, st.At = Feasible, r
				case r == spec.MaxReps:
					// the cap: a one-sided t-test on every replication, at α/3
					xs := make([]float64, r)
					for q := range xs {
						xs[q] = c.violation(s.samples[q][j])
					}
					// Declaring it met is wrong only when it misses by more
					// than ε, missed only when it meets by more than ε: each
					// is covered when the interval's far end is within ε.
					half := sel.TCap * math.Sqrt(variance(xs)/float64(r))
					mean := s.sum[j] / float64(r)
					metOK, missedOK := mean+half < eps, mean-half > -eps
					switch {
					case metOK && (!missedOK || mean <= 0):
						st.Decision, st.At, st.CapTest = Feasible, r, true
					case missedOK:
						st.Decision, st.At, st.CapTest = Infeasible, r, true
					default: // outside the guarantee: the sign of the sum
						st.Decision, st.At, st.Capped = Feasible, r, true
						if s.sum[j] > 0 {
							st.Decision = Infeasible
						}
						sel.Capped = true
					}
				}
				if st.Decision == Infeasible {
					s.out = true
				}
			}
		}
	}
	for {
		var active []int
		for _, i := range order {
			if sys[i].out {
				continue
			}
			active = append(active, i)
			if allFeasible(i) || len(active) == spec.Window {
				break
			}
		}
		if len(active) == 0 {
			break // nothing is feasible
		}
		if allFeasible(active[0]) {
			sel.Chosen = active[0]
			break
		}
		var units []Unit
		for _, i := range active {
			if allFeasible(i) {
				continue
			}
			ran := len(sys[i].samples)
			want := spec.FirstStage
			if ran > 0 {
				want = min(ran+spec.Batch, spec.MaxReps)
			}
			for r := ran; r < want; r++ {
				units = append(units, Unit{Point: i, Rep: r})
			}
		}
		ys, err := run(units)
		if err != nil {
			return nil, err
		}
		if len(ys) != len(units) {
			return nil, diag.Errorf(diag.EINTERNAL, "selection: %d figures for %d runs", len(ys), len(units))
		}
		for k, u := range units {
			if len(ys[k]) != m {
				return nil, diag.Errorf(diag.EINTERNAL, "selection: configuration %d, replication %d: %d figures for %d objectives", u.Point+1, u.Rep+1, len(ys[k]), m)
			}
			for j, y := range ys[k] {
				if math.IsNaN(y) || math.IsInf(y, 0) {
					return nil, diag.Errorf(diag.EINVALID, "configuration %d, replication %d: objective %s: the figure is %v, which no limit can judge", u.Point+1, u.Rep+1, spec.Constraints[j].Name, y)
				}
			}
			sys[u.Point].samples = append(sys[u.Point].samples, ys[k])
			sel.Spent++
		}
		for _, i := range active {
			decide(i)
		}
	}
	for _, i := range order {
		s := &sys[i]
		st := SystemState{Point: i, Cost: spec.Costs[i], Ran: len(s.samples), Status: NotExamined}
		if len(s.samples) > 0 {
			st.Status = Undecided
			switch {
			case s.out:
				st.Status = Infeasible
			case allFeasible(i):
				st.Status = Feasible
			}
			last := len(s.samples) // left undecided: every replication it ran
			if st.Status != Undecided {
				last = 0 // decided: up to its last decision (an elimination, its first infeasible constraint)
				for _, c := range s.state {
					last = max(last, c.At)
				}
			}
			for j := range s.state {
				xs := make([]float64, len(s.samples))
				for q := range xs {
					xs[q] = s.samples[q][j]
				}
				s.state[j].Mean, s.state[j].CI95 = ci.Mean95(xs)
				s.state[j].S2 = round6(s.state[j].S2)
			}
			sel.MostNeeded = max(sel.MostNeeded, last)
			st.Constraints = s.state
		}
		sel.Systems = append(sel.Systems, st)
	}
	sel.FullGrid = k * sel.MostNeeded
	return sel, nil
}

// variance is the sample variance (n−1 in the denominator).
func variance(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += float64((x - mean) * (x - mean))
	}
	return ss / float64(len(xs)-1)
}

// TQuantile is the p-quantile (p ≥ 0.5) of Student's t with df ≥ 1
// degrees of freedom: the t at which the closed form of P(|T| ≤ t) for a
// whole df (Abramowitz & Stegun 26.7.3–4) reaches 2p − 1, by bisection.
func TQuantile(p float64, df int) float64 {
	want := 2*p - 1
	lo, hi := 0.0, 1.0
	for tAbs(hi, df) < want && hi < 1e12 {
		lo, hi = hi, 2*hi
	}
	for range 200 {
		mid := (lo + hi) / 2
		if tAbs(mid, df) < want {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// tAbs is P(|T| ≤ t) for Student's t with df degrees of freedom.
func tAbs(t float64, df int) float64 {
	theta := math.Atan(t / math.Sqrt(float64(df)))
	c2 := math.Cos(theta) * math.Cos(theta)
	if df%2 == 1 {
		if df == 1 {
			return 2 * theta / math.Pi
		}
		// (2/π)[θ + sinθ cosθ (1 + 2/3 cos²θ + 2·4/(3·5) cos⁴θ + ...)], up to cos^(df−2)θ
		sum, term := 1.0, 1.0
		for k := 3; k <= df-2; k += 2 {
			term *= float64(k-1) / float64(k) * c2
			sum += term
		}
		return 2 / math.Pi * (theta + math.Sin(theta)*math.Cos(theta)*sum)
	}
	// sinθ (1 + ½cos²θ + (1·3)/(2·4) cos⁴θ + ...), up to cos^(df−2)θ
	sum, term := 1.0, 1.0
	for k := 2; k <= df-2; k += 2 {
		term *= float64(k-1) / float64(k) * c2
		sum += term
	}
	return math.Sin(theta) * sum
}
