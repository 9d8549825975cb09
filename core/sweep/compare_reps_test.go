package sweep

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/internal/ci"
	"github.com/tuxlb/tuxlb/core/result"
)

// TestWelch: two samples of 5 with sd 1 each. By hand: s²/n = 1/5 = 0.2 on
// each side, √(0.4) = 0.632456; ν = 0.4² / (0.2²/4 + 0.2²/4) = 8, t(8) =
// 2.306, so a difference of means is significant beyond 2.306 × 0.632456 =
// 1.458443.
func TestWelch(t *testing.T) {
	half := math.Round(ci.T975(4)*1/math.Sqrt(5)*1e6) / 1e6
	a := result.MeanCI{Mean: 10, HalfWidth: half}
	for _, c := range []struct {
		mean float64
		want bool
	}{{12, true}, {11.47, true}, {11.44, false}, {10, false}, {8.5, true}} {
		b := result.MeanCI{Mean: c.mean, HalfWidth: half}
		if got := welchSignificant(a, 5, b, 5); got != c.want {
			t.Errorf("10 vs %v: significant %v, want %v", c.mean, got, c.want)
		}
	}
	zero := result.MeanCI{Mean: 3}
	if !welchSignificant(zero, 3, result.MeanCI{Mean: 4}, 3) || welchSignificant(zero, 3, zero, 3) {
		t.Error("no spread: any difference is significant, none is not")
	}
}

// TestReplicatedCompare: each variant's figures are those of its runs at the
// replication seeds, computed here from the runs themselves (the
// per-service figure included); the baseline has no diff, the others do.
func TestReplicatedCompare(t *testing.T) {
	sc := exampleScenario(t, "mp-netload")
	vs := []Variant{{Name: "baseline"}}
	for _, text := range []string{"policy=jsq"} {
		v, err := ParseVariant(text)
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	sw, err := CompileCompare(sc, vs, Spec{Replications: 4, Figures: []string{"response_p99_ms[BALANCE]"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sw.Run(core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := ReplicatedCompare(res)
	if len(c.Variants) != 2 || c.Variants[0].Diff != nil || c.Variants[1].Diff == nil || c.Test != SignificanceTest {
		t.Fatalf("%+v", c)
	}
	ref, _ := result.ParseFigure("response_p99_ms[BALANCE]")
	for i, v := range vs {
		vsc, err := ApplyVariant(sc, v)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := core.Compile(vsc, core.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var xs []float64
		for r := 0; r < 4; r++ {
			out, err := plan.Reseed(plan.ReplicationSeed(r)).Run(core.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			xs = append(xs, ref.Of(out))
		}
		mean, half := ci.Mean95(xs)
		if got := c.Variants[i].Figures[ref.String()]; got.Mean != mean || got.HalfWidth != half {
			t.Errorf("%s: %v, the runs give %v ± %v", v.Name, got, mean, half)
		}
	}
	d := c.Variants[1].Diff["response_mean_ms"]
	b, x := c.Variants[0].Figures["response_mean_ms"], c.Variants[1].Figures["response_mean_ms"]
	if d.Abs != round6(x.Mean-b.Mean) || d.Significant == nil {
		t.Errorf("diff %+v of %v against %v", d, x, b)
	}
	table := EncodeComparisonTable(c)
	if !bytes.Contains(table, []byte("response_p99_ms[BALANCE]")) || !bytes.Contains(table, []byte("Welch")) {
		t.Errorf("table:\n%s", table)
	}
	csv := string(EncodeComparisonCSV(c))
	if !strings.HasPrefix(csv, "variant,replications,figure,mean,ci95,diff,rel,significant\nbaseline,4,issued,") {
		t.Errorf("csv:\n%.200s", csv)
	}
}
