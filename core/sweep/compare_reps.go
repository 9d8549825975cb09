package sweep

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/ci"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// CompileCompare compiles a compare with replications: each variant is a
// point of a sweep with one key, "variant", whose values are the variants'
// names, run with spec's replications (or to its precision) on the same
// seeds. spec.Vary is not used. Run it as any sweep (pool.Sweep, Sweep.Run)
// and read the result with [ReplicatedCompare].
func CompileCompare(sc *scenario.Scenario, variants []Variant, spec Spec) (*Sweep, error) {
	if sc == nil {
		return nil, diag.Errorf(diag.EINVALID, "no scenario")
	}
	if err := core.Check(sc); err != nil {
		return nil, err
	}
	if len(variants) == 0 || len(variants) > MaxPoints {
		return nil, diag.FieldErrorf("compare", "want 1 to %d variants, got %d", MaxPoints, len(variants))
	}
	s := &Sweep{Name: sc.Name, Spec: spec}
	s.Spec.Vary = nil
	names := make([]string, len(variants))
	for i, v := range variants {
		names[i] = v.Name
	}
	s.Keys, s.Values = []*sweepKey{{name: "variant", kind: keyWord}}, [][]string{names}
	return s.compileRest(sc, spec, len(variants), func(sc *scenario.Scenario, p int) (gridPoint, error) {
		pt := gridPoint{values: []string{names[p]}}
		vsc, err := ApplyVariant(sc, variants[p])
		if err != nil {
			return pt, err
		}
		vsc.Replications = 0
		plan, err := core.Compile(vsc, core.RunOptions{})
		if err != nil {
			return pt, diag.Errorf(diag.ErrorCode(err), "variant %q: %v", names[p], err)
		}
		pt.sc, pt.plan = vsc, plan
		pt.requests = float64(len(vsc.Workload.Trace)) + float64(strings.Count(vsc.Workload.TraceCSV, "\n")) +
			plan.GeneratedRequests()
		return pt, nil
	})
}

// SignificanceTest names the test that marks a variant's figure as
// different from the baseline's.
const SignificanceTest = "Welch's t-test, two-sided, at 95%"

// ReplicatedComparison is a compare run with replications: per variant,
// each figure's mean and 95% half-width over its replications, and its
// difference against the first variant (the baseline) with whether that
// difference is significant.
type ReplicatedComparison struct {
	EngineVersion   string   `json:"engine_version"`
	Name            string   `json:"name,omitempty"`
	Replications    int      `json:"replications"` // per variant; with a precision, the batch
	Precision       float64  `json:"precision,omitempty"`
	MaxReplications int      `json:"max_replications,omitempty"`
	Target          string   `json:"precision_figure,omitempty"`
	Targets         []string `json:"precision_figures,omitempty"`
	Seeds           []uint64 `json:"seeds"`
	// Objectives, JudgedOn and Note are as a sweep's result has them;
	// each variant has its verdicts.
	Objectives []ObjectiveInfo     `json:"objectives,omitempty"`
	JudgedOn   string              `json:"judged_on,omitempty"`
	Note       string              `json:"note,omitempty"`
	Test       string              `json:"test"`
	Figures    []string            `json:"figures"` // in display order
	Variants   []ReplicatedVariant `json:"variants"`
}

// ReplicatedVariant is one column of a replicated comparison.
type ReplicatedVariant struct {
	Name         string                   `json:"name"`
	Replications int                      `json:"replications"`
	Figures      map[string]result.MeanCI `json:"figures"`
	Diff         map[string]SigDiff       `json:"diff,omitempty"` // against the baseline; absent for it
	Meets        *bool                    `json:"meets,omitempty"`
	Verdicts     []string                 `json:"verdicts,omitempty"`
}

// SigDiff is a figure's difference of means against the baseline, relative
// (nil when the baseline's mean is 0), and whether it is significant
// (nil when either side has fewer than 2 replications).
type SigDiff struct {
	Abs         float64  `json:"abs"`
	Relative    *float64 `json:"rel,omitempty"`
	Significant *bool    `json:"significant,omitempty"`
}

// ReplicatedCompare reads the result of a sweep compiled by
// [CompileCompare] as a comparison. The result must hold every variant.
func ReplicatedCompare(res *Result) *ReplicatedComparison {
	c := &ReplicatedComparison{EngineVersion: res.EngineVersion, Name: res.Name, Replications: res.Replications,
		Precision: res.Precision, MaxReplications: res.MaxReplications, Target: res.Target, Targets: res.Targets, Seeds: res.Seeds,
		Test: SignificanceTest, Figures: res.columns(), Objectives: res.Objectives, JudgedOn: res.JudgedOn, Note: res.Note}
	for i, p := range res.Points {
		v := ReplicatedVariant{Name: fmt.Sprint(p.Values["variant"]), Replications: p.Replications, Figures: p.Figures,
			Meets: p.Meets, Verdicts: p.Verdicts}
		if i > 0 {
			base := res.Points[0]
			v.Diff = map[string]SigDiff{}
			for _, f := range c.Figures {
				b, x := base.Figures[f], p.Figures[f]
				d := SigDiff{Abs: round6(x.Mean - b.Mean)}
				if b.Mean != 0 {
					r := round6(d.Abs / b.Mean)
					d.Relative = &r
				}
				if base.Replications >= 2 && p.Replications >= 2 {
					sig := welchSignificant(b, base.Replications, x, p.Replications)
					d.Significant = &sig
				}
				v.Diff[f] = d
			}
		}
		c.Variants = append(c.Variants, v)
	}
	return c
}

// welchSignificant is Welch's t-test at 95% (two-sided) on two means given
// with their 95% half-widths over n0 and n1 runs: each half-width is
// t(n−1) × s/√n, so s²/n = (half/t(n−1))². The difference is significant
// when |m1 − m0| > t(ν) × √(v0 + v1), ν the Welch–Satterthwaite degrees of
// freedom (v0 + v1)² / (v0²/(n0−1) + v1²/(n1−1)), rounded down (the larger,
// more cautious, quantile). With no spread on either side, any difference is.
func welchSignificant(a result.MeanCI, n0 int, b result.MeanCI, n1 int) bool {
	v0 := math.Pow(a.HalfWidth/ci.T975(n0-1), 2)
	v1 := math.Pow(b.HalfWidth/ci.T975(n1-1), 2)
	diff := math.Abs(b.Mean - a.Mean)
	if v0+v1 == 0 {
		return diff > 0
	}
	df := (v0 + v1) * (v0 + v1) / (v0*v0/float64(n0-1) + v1*v1/float64(n1-1))
	return diff > ci.T975(max(int(df), 1))*math.Sqrt(v0+v1)
}

// EncodeComparisonTable writes a replicated comparison as a table: a row
// per figure, a column per variant with mean ± ci95 and its change against
// the baseline, a * where the change is significant.
func EncodeComparisonTable(c *ReplicatedComparison) []byte {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "figure\t")
	for _, v := range c.Variants {
		fmt.Fprintf(tw, "%s\t", v.Name)
	}
	fmt.Fprintln(tw)
	fmt.Fprint(tw, "replications\t")
	for _, v := range c.Variants {
		fmt.Fprintf(tw, "%d\t", v.Replications)
	}
	fmt.Fprintln(tw)
	for _, f := range c.Figures {
		fmt.Fprintf(tw, "%s\t", f)
		for _, v := range c.Variants {
			m := v.Figures[f]
			cell := strconv.FormatFloat(m.Mean, 'f', 3, 64) + " ± " + strconv.FormatFloat(m.HalfWidth, 'f', 3, 64)
			if d, ok := v.Diff[f]; ok && d.Abs != 0 {
				if d.Relative != nil {
					cell += fmt.Sprintf(" (%+.1f%%)", *d.Relative*100)
				}
				if d.Significant != nil && *d.Significant {
					cell += " *"
				}
			}
			fmt.Fprintf(tw, "%s\t", cell)
		}
		fmt.Fprintln(tw)
	}
	for i, o := range c.Objectives {
		fmt.Fprintf(tw, "%s\t", o.Text)
		for _, v := range c.Variants {
			fmt.Fprintf(tw, "%s\t", v.Verdicts[i])
		}
		fmt.Fprintln(tw)
	}
	if len(c.Objectives) > 1 {
		fmt.Fprint(tw, "meets all\t")
		for _, v := range c.Variants {
			fmt.Fprintf(tw, "%s\t", map[bool]string{true: Yes, false: No}[*v.Meets])
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintf(&b, "\nmean ± 95%% confidence half-width over each variant's replications (the same seeds in every variant); "+
		"* marks a difference from %s that is significant (%s)\n", c.Variants[0].Name, c.Test)
	switch {
	case len(c.Objectives) == 0:
	case c.JudgedOn == JudgedOnValue:
		fmt.Fprintf(&b, "objectives judged on the value (%s)\n", c.Note)
	default:
		fmt.Fprint(&b, "objectives: yes when the 95% interval lies within the limit, no when beyond it, unsure when it holds the limit\n")
	}
	return b.Bytes()
}

// EncodeComparisonCSV writes a replicated comparison as CSV: one row per
// variant and figure, then (with objectives) a column per objective with
// the variant's verdict.
func EncodeComparisonCSV(c *ReplicatedComparison) []byte {
	var b bytes.Buffer
	head := []string{"variant", "replications", "figure", "mean", "ci95", "diff", "rel", "significant"}
	for _, o := range c.Objectives {
		head = append(head, o.Text)
	}
	writeCSVRow(&b, head)
	for _, v := range c.Variants {
		for _, f := range c.Figures {
			m := v.Figures[f]
			row := []string{v.Name, strconv.Itoa(v.Replications), f, formatFloat(m.Mean), formatFloat(m.HalfWidth), "", "", ""}
			if d, ok := v.Diff[f]; ok {
				row[5] = formatFloat(d.Abs)
				if d.Relative != nil {
					row[6] = formatFloat(*d.Relative)
				}
				if d.Significant != nil {
					row[7] = strconv.FormatBool(*d.Significant)
				}
			}
			writeCSVRow(&b, append(row, v.Verdicts...))
		}
	}
	return b.Bytes()
}
