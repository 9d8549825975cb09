package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/ci"
	"github.com/tuxlb/tuxlb/core/internal/csvx"
	"github.com/tuxlb/tuxlb/core/result"
)

// Result is what a sweep reports (`tuxlb sweep --format json`, the
// result of a sweep job, the page's download).
type Result struct {
	EngineVersion string `json:"engine_version"`
	Name          string `json:"name,omitempty"`
	Keys          []Axis `json:"keys"`
	Replications  int    `json:"replications"` // per point; with a precision, the batch
	// Precision and MaxReplications are the spec's, with a precision;
	// Target is the first figure the precision is asked of, Targets all
	// of them when there are several.
	Precision       float64  `json:"precision,omitempty"`
	MaxReplications int      `json:"max_replications,omitempty"`
	Target          string   `json:"precision_figure,omitempty"`
	Targets         []string `json:"precision_figures,omitempty"`
	Seeds           []uint64 `json:"seeds"` // per replication (with a precision, up to the most any point ran)
	// Objective and ObjectiveFigure are the objective's text and its
	// figure's canonical name when there is exactly one (as before there
	// could be several); Objectives lists them all.
	Objective       string          `json:"objective,omitempty"`
	ObjectiveFigure string          `json:"objective_figure,omitempty"`
	Objectives      []ObjectiveInfo `json:"objectives,omitempty"`
	// JudgedOn says what the verdicts read: "interval" (the 95%
	// confidence interval) or "value" (one replication: no interval), with
	// Note saying so.
	JudgedOn string `json:"judged_on,omitempty"`
	Note     string `json:"note,omitempty"`
	// Figures are the figures asked for by name (--figure), canonical.
	Figures []string `json:"figures,omitempty"`
	Total   int      `json:"total"` // points of the grid
	Points  []Point  `json:"points"`
	// Lines has, per value of the second key (one line with one key), the
	// best point along the first key that meets every objective; Cross,
	// with two keys, per value of the first key the best along the second.
	Lines []Line `json:"lines,omitempty"`
	Cross []Line `json:"cross_lines,omitempty"`
}

// Axis is one varied key and its values in order.
type Axis struct {
	Key    string `json:"key"`
	Values []any  `json:"values"` // json.Number or string
}

// Point is one point of the grid with its figures.
type Point struct {
	Index  int            `json:"index"`
	Values map[string]any `json:"values"`
	// Replications is how many runs the figures are over (with a
	// precision, as many as it took).
	Replications int                      `json:"replications"`
	Figures      map[string]result.MeanCI `json:"figures"`
	// Meets is true when every objective's verdict is yes; Verdicts
	// are the verdicts (yes, no, unsure), in the order of the objectives.
	Meets    *bool    `json:"meets,omitempty"`
	Verdicts []string `json:"verdicts,omitempty"`
	order    []string
}

// Line is one line of the grid (a value of the other key, or the whole
// grid with one key): along its key, the best point that meets every
// objective by the key's rule (the smallest server count, the largest
// load...: docs/sweeps.md) and the point just short of it, which misses.
type Line struct {
	Values map[string]any `json:"values"`
	// LastMeeting is the last point, in the order the values were given,
	// that meets every objective (nil when none does).
	LastMeeting *PointRef `json:"last_meeting"`
	Along       string    `json:"along,omitempty"` // the key the line runs along
	// Rule is how the best is chosen: "smallest" (server counts, speeds,
	// think times), "largest" (loads, latency) or "first" (in the order given).
	Rule string    `json:"rule,omitempty"`
	Best *PointRef `json:"best"`
	// Miss is the point just short of the best by the rule (the next
	// smaller value for "smallest"...), which does not meet every objective,
	// and why; nil when the best is the first by the rule, or not done.
	Miss *Miss `json:"miss,omitempty"`
	// Summary says it in words.
	Summary string `json:"summary,omitempty"`
}

// Miss is a point that does not meet every objective: the first objective
// whose verdict is not yes, the verdict and the figure's interval.
type Miss struct {
	PointRef
	Objective string  `json:"objective"`
	Verdict   string  `json:"verdict"`
	Low       float64 `json:"low"`
	High      float64 `json:"high"`
}

// PointRef names a point by its index and values.
type PointRef struct {
	Index  int            `json:"index"`
	Values map[string]any `json:"values"`
}

// Reducer gathers the samples of a sweep's units, in any order, and
// builds its result. Points are reduced as their last replication arrives,
// from the samples in replication order, so the result is the same whatever
// order the units ran in. With a precision, a point's replications come in
// batches: when a batch is complete the point is reduced if the target's
// interval is narrow enough or its replications are at their most, else the
// next batch is opened ([Reducer.Pending] hands it out). The decision reads
// only the point's completed batches, so it does not depend on the order
// either.
type Reducer struct {
	s       *Sweep
	samples [][]*Sample
	open    []int // replications asked for, per point
	handed  []int // replications handed out by Pending, per point
	got     []int // samples recorded, per point
	points  []*Point
	done    int
}

// NewReducer starts the reduction of the sweep's units.
func (s *Sweep) NewReducer() *Reducer {
	n := len(s.points)
	r := &Reducer{s: s, samples: make([][]*Sample, n), open: make([]int, n), handed: make([]int, n),
		got: make([]int, n), points: make([]*Point, n)}
	for p := range r.samples {
		r.samples[p] = make([]*Sample, s.MaxReps)
		r.open[p] = s.Reps
	}
	return r
}

// Pending returns the units asked for and not yet handed out (largest
// points first, as [Sweep.LargestFirst]), and marks them handed out. A runner
// runs them, adds their samples and asks again, until Pending returns none.
func (r *Reducer) Pending() []int {
	var out []int
	for p := range r.points {
		if r.points[p] != nil {
			continue
		}
		for rep := r.handed[p]; rep < r.open[p]; rep++ {
			out = append(out, p*r.s.MaxReps+rep)
		}
		r.handed[p] = r.open[p]
	}
	r.s.sortLargestFirst(out)
	return out
}

// Add records the sample of unit u. When it completes its point, the point is
// returned (else nil).
func (r *Reducer) Add(u int, smp *Sample) (*Point, error) {
	if u < 0 || u >= r.s.Units() {
		return nil, diag.Errorf(diag.EINVALID, "sweep unit %d out of range", u)
	}
	p, rep := r.s.Unit(u)
	if r.points[p] != nil || r.samples[p][rep] != nil {
		return nil, diag.Errorf(diag.ECONFLICT, "sweep unit %d added twice", u)
	}
	if rep >= r.open[p] {
		return nil, diag.Errorf(diag.ECONFLICT, "sweep unit %d was not asked for (point %d has %d replications so far)", u, p, r.open[p])
	}
	r.samples[p][rep] = smp
	r.done++
	if r.got[p]++; r.got[p] < r.open[p] {
		return nil, nil
	}
	n := r.open[p]
	if r.s.Precision > 0 && n < r.s.MaxReps && !r.s.precise(r.samples[p][:n]) {
		r.open[p] = min(n+r.s.Reps, r.s.MaxReps)
		return nil, nil
	}
	r.points[p] = r.s.reducePoint(p, r.samples[p][:n])
	r.samples[p] = nil
	return r.points[p], nil
}

// precise reports whether the target figure's 95% half-width over samples
// is at most the precision times its mean.
func (s *Sweep) precise(samples []*Sample) bool {
	xs := make([]float64, len(samples))
	for _, target := range s.Targets {
		for i, smp := range samples {
			xs[i] = smp.Figures[target]
		}
		mean, half := ci.Mean95(xs)
		if half > s.Precision*math.Abs(mean) {
			return false
		}
	}
	return true
}

// Restore puts back a point reduced before (a resumed job): its figures as
// they were encoded, its values from the grid.
func (r *Reducer) Restore(pt *Point) error {
	p := pt.Index
	if p < 0 || p >= len(r.points) || r.points[p] != nil || r.got[p] != 0 {
		return diag.Errorf(diag.ECONFLICT, "sweep point %d restored twice or out of range", p)
	}
	reps := pt.Replications
	if reps == 0 {
		reps = r.s.Reps
	}
	fresh := &Point{Index: p, Values: r.s.pointValues(p), Replications: reps, Figures: pt.Figures}
	fresh.order = r.s.figureOrderOf(pt.Figures, r.s.points[p].plan.Model())
	r.s.judge(fresh)
	r.points[p] = fresh
	r.samples[p] = nil
	r.done += reps
	return nil
}

// PointDone reports whether point p is reduced.
func (r *Reducer) PointDone(p int) bool { return r.points[p] != nil }

// Done returns the number of units recorded (restored points count all their units).
func (r *Reducer) Done() int { return r.done }

// Result returns the sweep's result with the points reduced so far, in grid
// order, and the objective's lines over those points.
func (r *Reducer) Result() *Result {
	s := r.s
	res := &Result{EngineVersion: core.EngineVersion, Name: s.Name, Replications: s.Reps,
		Seeds: s.Seeds, Total: len(s.points), Points: []Point{}}
	if s.Precision > 0 {
		res.Precision, res.MaxReplications, res.Target = s.Precision, s.MaxReps, s.Targets[0]
		if len(s.Targets) > 1 {
			res.Targets = s.Targets
		}
		most := 0
		for _, p := range r.points {
			if p != nil {
				most = max(most, p.Replications)
			}
		}
		res.Seeds = s.Seeds[:most]
	}
	for i, k := range s.Keys {
		ax := Axis{Key: k.name}
		for _, v := range s.Values[i] {
			ax.Values = append(ax.Values, k.jsonValue(v))
		}
		res.Keys = append(res.Keys, ax)
	}
	for _, p := range r.points {
		if p != nil {
			res.Points = append(res.Points, *p)
		}
	}
	for _, text := range s.Spec.Figures {
		if ref, err := result.ParseFigure(text); err == nil {
			res.Figures = appendNew(res.Figures, ref.String())
		}
	}
	if len(s.Objectives) == 1 {
		res.Objective = s.Objectives[0].Text
		res.ObjectiveFigure = s.Objectives[0].Figure
	}
	for _, o := range s.Objectives {
		res.Objectives = append(res.Objectives, o.Info())
	}
	if len(s.Objectives) > 0 {
		res.JudgedOn = JudgedOnInterval
		if s.MaxReps < 2 {
			res.JudgedOn, res.Note = JudgedOnValue, oneRunNote
		}
		res.Lines = r.lines(0)
		if len(s.Keys) > 1 {
			res.Cross = r.lines(1)
		}
	}
	return res
}

// pointValues is point p's values keyed by key name.
func (s *Sweep) pointValues(p int) map[string]any {
	vals := map[string]any{}
	for i, c := range s.coords(p) {
		vals[s.Keys[i].name] = s.Keys[i].jsonValue(s.Values[i][c])
	}
	return vals
}

// jsonValue is a value as JSON: a number for number keys, else a string.
func (k *sweepKey) jsonValue(v string) any {
	if k.kind == keyWord {
		return v
	}
	return json.Number(v)
}

// reducePoint computes point p's figures from its samples (in replication order).
func (s *Sweep) reducePoint(p int, samples []*Sample) *Point {
	pt := &Point{Index: p, Values: s.pointValues(p), Replications: len(samples), Figures: map[string]result.MeanCI{}}
	pt.order = s.figureOrder(samples)
	xs := make([]float64, len(samples))
	for _, name := range pt.order {
		for i, smp := range samples {
			xs[i] = smp.Figures[name]
		}
		mean, half := ci.Mean95(xs)
		pt.Figures[name] = result.MeanCI{Mean: mean, HalfWidth: half}
	}
	s.judge(pt)
	return pt
}

// judge sets a point's verdicts and whether it meets every objective.
func (s *Sweep) judge(pt *Point) {
	if len(s.Objectives) == 0 {
		return
	}
	vs, m := verdicts(s.Objectives, pt.Figures, pt.Replications)
	pt.Verdicts, pt.Meets = vs, &m
}

// figureOrderOf orders restored figures as figureOrder does.
func (s *Sweep) figureOrderOf(figures map[string]result.MeanCI, m *core.Model) []string {
	out := slices.Clone(fixedFigures)
	out = appendNew(out, s.extraNames()...)
	var reasons []string
	for name := range figures {
		if strings.HasPrefix(name, "failed.") && !strings.Contains(name, "[") {
			reasons = append(reasons, name)
		}
	}
	slices.Sort(reasons)
	out = appendNew(out, reasons...)
	for _, mc := range m.Machines {
		if _, ok := figures[machineFigure(mc.LMID)]; ok {
			out = appendNew(out, machineFigure(mc.LMID))
		}
	}
	return out
}

// Encode is the one JSON encoding of a sweep result: indented (2
// spaces) with a newline, like [result.Encode].
func Encode(r *Result) []byte {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		b, _ = json.Marshal(diag.Errorf(diag.EINTERNAL, "encode sweep: %v", err))
	}
	return append(b, '\n')
}

// columns returns the figure columns of the result: the union of its points'
// figures, in the fixed order, then the extra figures (the objective's...),
// then the failure reasons, then the machines.
func (r *Result) columns() []string {
	out := slices.Clone(fixedFigures)
	var extra, reasons, machines []string
	for _, p := range r.Points {
		order := p.order
		if order == nil {
			order = slices.Sorted(maps.Keys(p.Figures))
		}
		for _, name := range order {
			switch {
			case slices.Contains(out, name):
			case strings.HasSuffix(name, "]") && strings.Contains(name, "[machine:") && strings.HasPrefix(name, machineMean.Name+"["):
				machines = appendNew(machines, name)
			case strings.HasPrefix(name, "failed.") && !strings.Contains(name, "["):
				reasons = appendNew(reasons, name)
			default:
				extra = appendNew(extra, name)
			}
		}
	}
	slices.Sort(reasons)
	out = append(out, extra...)
	out = append(out, reasons...)
	return append(out, machines...)
}

// EncodeCSV writes the result as CSV: the keys, then per figure its
// mean and its ci95, then meets and each objective's verdict (headed by
// the objective) when there are objectives; one row per point.
func EncodeCSV(r *Result) []byte {
	var b bytes.Buffer
	cols := r.columns()
	var head []string
	for _, k := range r.Keys {
		head = append(head, k.Key)
	}
	head = append(head, "replications")
	for _, c := range cols {
		head = append(head, c, c+"_ci95")
	}
	if len(r.Objectives) > 0 {
		head = append(head, "meets")
	}
	for _, o := range r.Objectives {
		head = append(head, o.Text)
	}
	writeCSVRow(&b, head)
	for _, p := range r.Points {
		var row []string
		for _, k := range r.Keys {
			row = append(row, fmt.Sprint(p.Values[k.Key]))
		}
		row = append(row, strconv.Itoa(p.Replications))
		for _, c := range cols {
			f := p.Figures[c]
			row = append(row, formatFloat(f.Mean), formatFloat(f.HalfWidth))
		}
		if p.Meets != nil {
			row = append(row, strconv.FormatBool(*p.Meets))
		}
		row = append(row, p.Verdicts...)
		writeCSVRow(&b, row)
	}
	return b.Bytes()
}

func writeCSVRow(b *bytes.Buffer, cells []string) {
	for i, c := range cells {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(csvx.AppendField(nil, c))
	}
	b.WriteByte('\n')
}

func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// tableFigures are the figures the table shows.
var tableFigures = figureNames(func(f result.FigureDef) bool { return f.Table })

// EncodeTable writes the result as an aligned text table: the keys, the
// main figures, the objectives' and those asked for by name as mean ± ci95,
// and the verdicts (with one objective, in the meets column: yes, no or
// unsure; with several, a column per objective and meets, yes when every
// one says yes); then, with objectives, the best point along each key.
func EncodeTable(r *Result) []byte {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, k := range r.Keys {
		fmt.Fprintf(tw, "%s\t", k.Key)
	}
	shown := slices.Clone(tableFigures)
	for _, o := range r.Objectives {
		shown = appendNew(shown, o.Figure)
	}
	shown = appendNew(shown, r.Figures...)
	for _, f := range shown {
		fmt.Fprintf(tw, "%s\t", f)
	}
	if r.Precision > 0 {
		fmt.Fprint(tw, "replications\t")
	}
	if len(r.Objectives) > 1 {
		for _, o := range r.Objectives {
			fmt.Fprintf(tw, "%s\t", o.Text)
		}
	}
	if len(r.Objectives) > 0 {
		fmt.Fprint(tw, "meets\t")
	}
	fmt.Fprintln(tw)
	for _, p := range r.Points {
		for _, k := range r.Keys {
			fmt.Fprintf(tw, "%v\t", p.Values[k.Key])
		}
		for _, name := range shown {
			f := p.Figures[name]
			if r.Replications > 1 || r.Precision > 0 {
				fmt.Fprintf(tw, "%s ± %s\t", strconv.FormatFloat(f.Mean, 'f', 3, 64), strconv.FormatFloat(f.HalfWidth, 'f', 3, 64))
			} else {
				fmt.Fprintf(tw, "%s\t", strconv.FormatFloat(f.Mean, 'f', 3, 64))
			}
		}
		if r.Precision > 0 {
			fmt.Fprintf(tw, "%d\t", p.Replications)
		}
		switch {
		case len(p.Verdicts) == 1:
			fmt.Fprintf(tw, "%s\t", p.Verdicts[0])
		case len(p.Verdicts) > 1:
			for _, v := range p.Verdicts {
				fmt.Fprintf(tw, "%s\t", v)
			}
			fmt.Fprintf(tw, "%s\t", map[bool]string{true: Yes, false: No}[*p.Meets])
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if r.Precision > 0 {
		targets := r.Target
		if len(r.Targets) > 1 {
			targets = "each of " + strings.Join(r.Targets, ", ")
		}
		fmt.Fprintf(&b, "\n%d of %d points, replications in batches of %d until the 95%% half-width of %s is at most %s of its mean, or %d (95%% confidence half-widths after ±)\n",
			len(r.Points), r.Total, r.Replications, targets, formatFloat(r.Precision), r.MaxReplications)
	} else {
		fmt.Fprintf(&b, "\n%d of %d points, %d replications each (95%% confidence half-widths after ±)\n",
			len(r.Points), r.Total, r.Replications)
	}
	if len(r.Objectives) == 0 {
		return b.Bytes()
	}
	texts := make([]string, len(r.Objectives))
	for i, o := range r.Objectives {
		texts[i] = o.Text
	}
	word := "objective"
	if len(texts) > 1 {
		word = "objectives, all held at once"
	}
	fmt.Fprintf(&b, "%s: %s\n", word, strings.Join(texts, ", "))
	if r.JudgedOn == JudgedOnValue {
		fmt.Fprintf(&b, "verdicts judged on the value: %s\n", r.Note)
	} else {
		fmt.Fprint(&b, "verdicts: yes when the 95% interval lies within the limit, no when beyond it, unsure when it holds the limit\n")
	}
	for _, ls := range [][]Line{r.Lines, r.Cross} {
		for _, l := range ls {
			label := "  "
			for _, k := range r.Keys {
				if v, ok := l.Values[k.Key]; ok {
					label += fmt.Sprintf("at %s=%v: ", k.Key, v)
				}
			}
			fmt.Fprintf(&b, "%s%s\n", label, l.Summary)
		}
	}
	return b.Bytes()
}
