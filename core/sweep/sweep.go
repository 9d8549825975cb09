// Package sweep varies a scenario: compare's variants, named changes each
// run on the identical request stream and put side by side, and sweeps, a
// grid of one or two varied keys with several replications per point,
// reporting per point the mean and 95% confidence half-width of the figures
// (docs/sweeps.md). A sweep is compiled once (every point a core.Plan) and
// run one unit (a point's replication) at a time; whoever runs the units (a
// worker pool in the CLI and the server, Web Workers in the page) hands each
// sample to a Reducer, whose result does not depend on the order the samples
// arrive in, so the bytes are the same for any number of workers. It sits
// above core: it edits scenarios and runs core's plans.
package sweep

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/workload"
)

// Limits of one sweep, and the defaults of a precision.
const (
	DefaultBatch           = 5  // replications per batch with a precision
	DefaultMaxReplications = 50 // replications at most with a precision

	MaxKeys   = 2    // keys varied at once
	MaxPoints = 1000 // points of the grid
)

// Spec is what a sweep varies: `KEY=VALUES` texts (one or two), the
// replications per point and objectives (`FIGURE<=X`, `FIGURE>=X`), all
// held at once.
type Spec struct {
	Vary         []string `json:"vary"`
	Replications int      `json:"replications,omitempty"` // 0: the scenario's replications, else 1
	// Objective is one objective (the field of old); Objectives are more,
	// after it. A single objective is given in Objective, so that the
	// spec's bytes (and a shard's fingerprint) stay as they were.
	Objective  string   `json:"objective,omitempty"`
	Objectives []string `json:"objectives,omitempty"`
	// Precision, when > 0, runs replications in batches of Replications
	// (default 5, at least 2) until the 95% confidence half-width of every
	// objective's figure and every figure of Figures (with neither,
	// response_mean_ms) is at most Precision × its mean, or MaxReplications
	// (default 50) have run.
	Precision       float64 `json:"precision,omitempty"`
	MaxReplications int     `json:"max_replications,omitempty"`
	// Figures names figures to report beside the fixed ones, e.g.
	// response_p99_ms[INQUIRY] or utilization_max[machine:SITE2].
	Figures []string `json:"figures,omitempty"`
}

// Sweep is a compiled sweep: the base scenario parsed once, every point's
// scenario edited and compiled into a [core.Plan] once (its replications
// reseed the plan), and the replication seeds.
type Sweep struct {
	Name   string
	Spec   Spec
	Keys   []*sweepKey
	Values [][]string // per key, in the order given
	Reps   int        // replications per point; with a precision, the batch
	// MaxReps is the most replications a point can run: Reps, or with a
	// precision MaxReplications. Units are numbered point × MaxReps.
	MaxReps   int
	Precision float64
	// Targets are the figures whose intervals a precision is asked of:
	// the objectives' and those of Spec.Figures (else response_mean_ms).
	Targets    []string
	Seeds      []uint64 // per replication, the same for every point
	Objectives []*Objective
	// Extra are the figures reported beside the fixed ones: the objective's
	// and those of Spec.Figures, each once.
	Extra  []result.FigureRef
	points []gridPoint // grid order: the first key varies fastest
}

// gridPoint is one point of the grid, compiled.
type gridPoint struct {
	values   []string // one per key
	sc       *scenario.Scenario
	plan     *core.Plan
	requests float64 // expected requests of one run
	clients  float64 // a rough count of its client sets' requests (workload.ClientRequests), no part of requests
}

// Compile checks the spec against the scenario and compiles every point.
// A bad key or value is an EINVALID error naming the key.
func Compile(sc *scenario.Scenario, spec Spec) (*Sweep, error) {
	if sc == nil {
		return nil, diag.Errorf(diag.EINVALID, "no scenario")
	}
	if err := core.Check(sc); err != nil {
		return nil, err
	}
	s := &Sweep{Name: sc.Name, Spec: spec}
	if len(spec.Vary) == 0 || len(spec.Vary) > MaxKeys {
		return nil, diag.FieldErrorf("vary", "want 1 or %d keys (KEY=VALUES), got %d", MaxKeys, len(spec.Vary))
	}
	for _, text := range spec.Vary {
		name, vals, ok := strings.Cut(text, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, diag.Errorf(diag.EINVALID, "vary %q: want KEY=VALUES, e.g. rate_scale=0.5..1.5/0.25 or SERVERS.ACCT.MIN=1,2,4", text)
		}
		k := lookupKey(name)
		if k == nil {
			// the list is the program's own, in the format so that it is not
			// cut as a quoted input is
			return nil, diag.Errorf(diag.EINVALID, "vary %s: unknown key (want one of "+strings.ReplaceAll(keysHelp, "%", "%%")+")", name)
		}
		for _, prev := range s.Keys {
			if prev.name == k.name {
				return nil, diag.Errorf(diag.EINVALID, "vary %s: key given twice", k.name)
			}
		}
		values, err := parseValues(k.name, vals)
		if err != nil {
			return nil, err
		}
		for _, v := range values {
			if err := k.checkValue(v); err != nil {
				return nil, diag.Errorf(diag.EINVALID, "vary %v", err)
			}
			if strings.HasPrefix(k.name, "SERVERS.") && strings.HasSuffix(k.name, ".MIN") && v == "0" {
				// every request of its services would fail, and their response
				// and wait figures, 0, would meet any objective
				return nil, diag.Errorf(diag.EINVALID, "vary %v", diag.FieldErrorf(k.name, "value 0 boots none of the entry's instances (its services fail, and "+
					"their figures of completed requests, 0, would meet any objective): a sweep varies MIN from 1; compare --variant %s=0 shows the failures", k.name))
			}
		}
		s.Keys, s.Values = append(s.Keys, k), append(s.Values, values)
	}
	n := 1
	for _, vs := range s.Values {
		n *= len(vs)
	}
	if n > MaxPoints {
		return nil, diag.FieldErrorf("vary", "%d points, more than the limit of %d", n, MaxPoints)
	}
	return s.compileRest(sc, spec, n, s.compilePoint)
}

// compileRest resolves the replications and the precision, compiles the n
// points with compile, derives the seeds and reads the objective and the
// figures: what a sweep and a replicated compare share.
func (s *Sweep) compileRest(sc *scenario.Scenario, spec Spec, n int, compile func(*scenario.Scenario, int) (gridPoint, error)) (*Sweep, error) {
	s.Reps = spec.Replications
	if s.Reps == 0 {
		s.Reps = max(sc.Replications, 1)
		if spec.Precision > 0 && sc.Replications < 2 {
			s.Reps = DefaultBatch
		}
	}
	if s.Reps < 1 || s.Reps > core.MaxReplications {
		return nil, diag.FieldErrorf("replications", "must be between 1 and %d, got %d", core.MaxReplications, spec.Replications)
	}
	s.MaxReps = s.Reps
	switch p := spec.Precision; {
	case p != p || p < 0 || p-p != 0:
		return nil, diag.FieldErrorf("precision", "want a number > 0 (e.g. 0.05 for a half-width of 5%% of the mean), got %v", p)
	case p > 0:
		if s.Reps < 2 {
			return nil, diag.FieldErrorf("replications", "with a precision, the batch of replications must be at least 2, got %d", s.Reps)
		}
		s.Precision, s.MaxReps = p, spec.MaxReplications
		if s.MaxReps == 0 {
			s.MaxReps = max(DefaultMaxReplications, s.Reps)
		}
		if s.MaxReps < s.Reps || s.MaxReps > core.MaxReplications {
			return nil, diag.FieldErrorf("max_replications", "must be between the batch (%d) and %d, got %d", s.Reps, core.MaxReplications, s.MaxReps)
		}
	case spec.MaxReplications != 0:
		return nil, diag.FieldErrorf("max_replications", "only with a precision")
	}
	for p := 0; p < n; p++ {
		pt, err := compile(sc, p)
		if err != nil {
			return nil, err
		}
		s.points = append(s.points, pt)
	}
	for i := 0; i < s.MaxReps; i++ { // the scenario's seed is every point's
		s.Seeds = append(s.Seeds, s.points[0].plan.ReplicationSeed(i))
	}
	texts, field := spec.objectiveTexts()
	objs, err := ParseObjectives(s.points[0].plan.Model(), texts, field)
	if err != nil {
		return nil, err
	}
	s.Objectives = objs
	for _, o := range objs {
		s.addExtra(o.Ref)
		s.Targets = appendNew(s.Targets, o.Figure)
	}
	for _, text := range spec.Figures {
		ref, err := result.ParseFigure(text)
		if err != nil {
			return nil, err
		}
		if err := ref.Check(s.points[0].plan.Model()); err != nil {
			return nil, err
		}
		s.addExtra(ref)
		s.Targets = appendNew(s.Targets, ref.String())
	}
	if len(s.Targets) == 0 {
		s.Targets = []string{"response_mean_ms"}
	}
	return s, nil
}

// addExtra adds a figure to report unless it is a fixed one or already there.
func (s *Sweep) addExtra(ref result.FigureRef) {
	name := ref.String()
	if slices.Contains(fixedFigures, name) || slices.Contains(s.extraNames(), name) {
		return
	}
	if ref.Reason != "" && ref.Service == "" { // failed.REASON is always reported when it occurs
		return
	}
	if ref.Def == machineMean {
		return
	}
	s.Extra = append(s.Extra, ref)
}

// coords returns the value index of each key at point p.
func (s *Sweep) coords(p int) []int {
	out := make([]int, len(s.Values))
	for i, vs := range s.Values {
		out[i] = p % len(vs)
		p /= len(vs)
	}
	return out
}

// compilePoint applies point p's values to a copy of sc and resolves it.
func (s *Sweep) compilePoint(sc *scenario.Scenario, p int) (gridPoint, error) {
	pt := gridPoint{}
	cur := *sc
	cur.Replications = 0
	var set []Assignment
	for i, c := range s.coords(p) {
		set = append(set, Assignment{Path: s.Keys[i].name, Value: s.Values[i][c]})
		pt.values = append(pt.values, s.Values[i][c])
	}
	if err := applyAssignments(&cur, set); err != nil {
		return pt, diag.Errorf(diag.EINVALID, "vary %s: %v", s.pointLabel(pt.values), err)
	}
	plan, err := core.Compile(&cur, core.RunOptions{})
	if err != nil {
		return pt, atPoint(s.pointLabel(pt.values), err)
	}
	pt.sc, pt.plan = &cur, plan
	pt.requests = float64(len(cur.Workload.Trace)) + float64(strings.Count(cur.Workload.TraceCSV, "\n")) +
		plan.GeneratedRequests()
	pt.clients = workload.ClientRequests(&cur.Workload)
	return pt, nil
}

// atPoint words err, the refusal of a point's scenario, as "vary LABEL:
// ...", keeping its code, its limit and its diagnostics (the scenario's
// field, the UBBCONFIG's line and column), those without a source said to
// be the scenario's: a caller still reads where the problem is from them,
// not from the text.
func atPoint(label string, err error) error {
	out := diag.Errorf(diag.ErrorCode(err), "vary %s: %v", label, err)
	var e *diag.Error
	if errors.As(err, &e) {
		out.Limit = e.Limit
		out.Diagnostics = slices.Clone(e.Diagnostics)
	}
	return diag.InSource(out, diag.SourceScenario) // the point's scenario was refused: its diagnostics are of the scenario
}

// pointLabel is "key=value key=value".
func (s *Sweep) pointLabel(values []string) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = s.Keys[i].name + "=" + v
	}
	return strings.Join(parts, " ")
}

// Points returns the number of points of the grid.
func (s *Sweep) Points() int { return len(s.points) }

// Units returns the number of work units: points × replications (with a
// precision, points × the most replications; a point that reaches the
// precision sooner leaves its later units unrun).
func (s *Sweep) Units() int { return len(s.points) * s.MaxReps }

// Unit returns the point and replication of work unit u. Units are numbered
// point by point, so running them in order completes the points in order.
func (s *Sweep) Unit(u int) (point, rep int) { return u / s.MaxReps, u % s.MaxReps }

// Requests returns the expected number of requests of the whole sweep (every
// point's workload times the replications; with a precision, the most).
func (s *Sweep) Requests() float64 {
	var n float64
	for i := range s.points {
		n += s.points[i].requests
	}
	return n * float64(s.MaxReps)
}

// RequestsAtMost is Requests with the client sets' requests counted too,
// roughly (workload.ClientRequests), each run's up to perRun, the request
// limit a run stops at: the work of a sweep of closed-loop clients, whose
// requests no run knows before it runs, is bounded before it starts.
func (s *Sweep) RequestsAtMost(perRun float64) float64 {
	var n float64
	for i := range s.points {
		pt := &s.points[i]
		n += pt.requests + min(pt.clients, max(perRun-pt.requests, 0))
	}
	return n * float64(s.MaxReps)
}

// LargestFirst returns the sweep's units in the order a runner should hand
// them out: by their expected requests, largest first, ties in unit order,
// so that the last to run are short and the workers finish together. The
// result does not depend on the order: it is reduced by unit.
func (s *Sweep) LargestFirst() []int {
	order := make([]int, s.Units())
	for u := range order {
		order[u] = u
	}
	s.sortLargestFirst(order)
	return order
}

// sortLargestFirst sorts units by their points' expected requests, largest
// first, ties in unit order.
func (s *Sweep) sortLargestFirst(units []int) {
	slices.SortStableFunc(units, func(a, b int) int {
		return cmp.Compare(s.points[b/s.MaxReps].requests, s.points[a/s.MaxReps].requests)
	})
}

// MaxRunRequests returns the expected requests of the largest single run.
func (s *Sweep) MaxRunRequests() float64 {
	var m float64
	for i := range s.points {
		m = max(m, s.points[i].requests)
	}
	return m
}

// pointScenario returns the scenario of point p, as the sweep runs it.
func (s *Sweep) pointScenario(p int) *scenario.Scenario { return s.points[p].sc }

// RunUnit runs work unit u: replication rep of point p, with the
// replication's seed. Only opt.Context, opt.Progress and opt.MaxRequests are
// used. It is safe to call for different units at the same time.
func (s *Sweep) RunUnit(u int, opt core.RunOptions) (*Sample, error) {
	if u < 0 || u >= s.Units() {
		return nil, diag.Errorf(diag.EINVALID, "sweep unit %d out of range 0..%d", u, s.Units()-1)
	}
	p, rep := s.Unit(u)
	o := core.RunOptions{Context: opt.Context, Progress: opt.Progress, MaxRequests: opt.MaxRequests}
	res, err := s.points[p].plan.Reseed(s.Seeds[rep]).Run(o) // one run: a point's scenario has no replications
	if err != nil {
		return nil, err
	}
	return sampleOf(res, s.Extra), nil
}

// Sample is the figures of one run, by name.
type Sample struct {
	Figures map[string]float64 `json:"figures"`
	// Machines lists the LMIDs in the model's order (for
	// utilization_mean[machine:LMID]).
	Machines []string `json:"machines"`
}

// fixedFigures are the fixed figures of a sweep point, in output order: the
// figures table's swept figures ([result.FigureDef].Swept) that a run has.
var fixedFigures = figureNames(func(f result.FigureDef) bool { return f.Swept && slices.Contains(f.Scopes, "run") })

// figureNames are the names of the figures table's figures that keep says
// to keep, in the table's order.
func figureNames(keep func(result.FigureDef) bool) []string {
	var out []string
	for _, f := range result.Figures() {
		if keep(f) {
			out = append(out, f.Name)
		}
	}
	return out
}

// sampleOf extracts a sweep's figures from a run's result: the fixed figures,
// the extra ones (the objective's, those asked for by name), failed.REASON
// per failure reason, utilization_mean[machine:LMID] per machine that has
// servers.
func sampleOf(r *result.Result, extra []result.FigureRef) *Sample {
	f := map[string]float64{}
	for _, name := range fixedFigures {
		ref, _ := result.ParseFigure(name)
		f[name] = ref.Of(r)
	}
	for _, ref := range extra {
		f[ref.String()] = ref.Of(r)
	}
	for reason, n := range r.Requests.Failed {
		f["failed."+reason] = float64(n)
	}
	s := &Sample{Figures: f}
	for _, m := range r.Machines {
		for i := range r.Servers {
			if r.Servers[i].LMID == m.LMID {
				ref := result.FigureRef{Def: machineMean, Machine: m.LMID}
				f[ref.String()] = ref.Of(r)
				s.Machines = append(s.Machines, m.LMID)
				break
			}
		}
	}
	return s
}

// machineMean is the per-machine figure every sweep point reports.
var machineMean = func() *result.FigureDef {
	ref, err := result.ParseFigure("utilization_mean[machine:M]")
	if err != nil {
		panic(err)
	}
	return ref.Def
}()

// machineFigure is the per-machine figure's name for a machine.
func machineFigure(lmid string) string {
	return result.FigureRef{Def: machineMean, Machine: lmid}.String()
}

// figureOrder is the output order of the figures of samples: the fixed ones,
// the extra ones, failed.REASON sorted, the machines' in machine order.
func (s *Sweep) figureOrder(samples []*Sample) []string {
	out := slices.Clone(fixedFigures)
	out = appendNew(out, s.extraNames()...)
	var reasons []string
	seen := map[string]bool{}
	for _, s := range samples {
		for name := range s.Figures {
			if strings.HasPrefix(name, "failed.") && !strings.Contains(name, "[") && !seen[name] {
				seen[name] = true
				reasons = append(reasons, name)
			}
		}
	}
	slices.Sort(reasons)
	out = appendNew(out, reasons...)
	if len(samples) > 0 {
		for _, m := range samples[0].Machines {
			out = appendNew(out, machineFigure(m))
		}
	}
	return out
}

// appendNew appends the names not yet in out.
func appendNew(out []string, names ...string) []string {
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// extraNames are the canonical names of the extra figures.
func (s *Sweep) extraNames() []string {
	var out []string
	for _, ref := range s.Extra {
		out = append(out, ref.String())
	}
	return out
}

// Run runs the units the reducer asks for ([Reducer.Pending]) in order, on
// the calling goroutine, until it asks for none, and returns the reduced
// result: the same bytes as any runner that spreads the units over workers
// (package pool does, in the CLI and the server). Only opt.Context,
// opt.Progress and opt.MaxRequests are used, as in RunUnit.
func (s *Sweep) Run(opt core.RunOptions) (*Result, error) {
	r := s.NewReducer()
	for units := r.Pending(); len(units) > 0; units = r.Pending() {
		slices.Sort(units)
		for _, u := range units {
			smp, err := s.RunUnit(u, opt)
			if err != nil {
				return nil, err
			}
			if _, err := r.Add(u, smp); err != nil {
				return nil, err
			}
		}
	}
	return r.Result(), nil
}
