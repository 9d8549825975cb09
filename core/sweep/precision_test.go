package sweep

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/internal/ci"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
)

func exampleScenario(t *testing.T, name string) *scenario.Scenario {
	t.Helper()
	data, err := os.ReadFile("../../examples/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := core.ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestPrecision: every point stops at the first batch whose interval of the
// target figure is within the precision, or at the most replications; its
// figures are those of exactly that many fixed replications (same seeds).
func TestPrecision(t *testing.T) {
	sc := exampleScenario(t, "mp-netload")
	spec := Spec{Vary: []string{"rate_scale=0.5,1.4"}, Replications: 3, Precision: 0.05, MaxReplications: 12,
		Objective: "response_p99_ms[BALANCE]<=100"}
	sw, err := Compile(sc, spec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sw.Run(core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Target != "response_p99_ms[BALANCE]" || res.Precision != 0.05 || res.MaxReplications != 12 {
		t.Fatalf("target %q, precision %v, max %d", res.Target, res.Precision, res.MaxReplications)
	}
	early, most := false, false
	for _, p := range res.Points {
		n := p.Replications
		early, most = early || n < 12, most || n == 12
		if n%3 != 0 && n != 12 || n < 3 || n > 12 {
			t.Errorf("point %d: %d replications, want a multiple of the batch 3, at most 12", p.Index, n)
		}
		// The runs themselves, by hand: the target at each replication's seed.
		var xs []float64
		ref, _ := result.ParseFigure(res.Target)
		plan := sw.points[p.Index].plan
		for i := 0; i < n; i++ {
			r, err := plan.Reseed(plan.ReplicationSeed(i)).Run(core.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			xs = append(xs, ref.Of(r))
		}
		mean, half := ci.Mean95(xs)
		if got := p.Figures[res.Target]; got.Mean != mean || got.HalfWidth != half {
			t.Errorf("point %d: %v, the runs give %v ± %v", p.Index, got, mean, half)
		}
		if p.Meets == nil || *p.Meets != (mean+half <= 100) {
			t.Errorf("point %d: meets %v, but the runs' 95%% interval of %s is %v ± %v against 100", p.Index, p.Meets, res.Target, mean, half)
		}
		precise := func(k int) bool { m, h := ci.Mean95(xs[:k]); return h <= 0.05*math.Abs(m) }
		if n < 12 && !precise(n) {
			t.Errorf("point %d stopped at %d replications with ±%v of %v: neither precise nor at the most", p.Index, n, half, mean)
		}
		for k := 3; k < n; k += 3 {
			if precise(k) {
				t.Errorf("point %d: precise after %d replications but ran %d", p.Index, k, n)
			}
		}
		t.Logf("point %d: %d replications, %v ± %v", p.Index, n, mean, half)
	}
	if !early || !most { // the case is chosen to exercise both ways of stopping
		t.Errorf("want one point precise before 12 replications and one at 12: early %v, at the most %v", early, most)
	}
	if len(res.Seeds) == 0 || res.Seeds[0] != sw.points[0].plan.ReplicationSeed(0) {
		t.Errorf("seeds %v", res.Seeds)
	}
}

// TestPrecisionUnitOrder: the result does not depend on the order units are
// run in within a round (here: reversed), as with workers.
func TestPrecisionUnitOrder(t *testing.T) {
	sc := exampleScenario(t, "mp-netload")
	spec := Spec{Vary: []string{"rate_scale=0.5,1.4"}, Replications: 2, Precision: 0.01, MaxReplications: 8}
	sw, err := Compile(sc, spec)
	if err != nil {
		t.Fatal(err)
	}
	want, err := sw.Run(core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := sw.NewReducer()
	for units := r.Pending(); len(units) > 0; units = r.Pending() {
		for i := len(units) - 1; i >= 0; i-- {
			smp, err := sw.RunUnit(units[i], core.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Add(units[i], smp); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := Encode(r.Result()); !bytes.Equal(got, Encode(want)) {
		t.Errorf("reversed order differs:\n%s\nwant\n%s", got, Encode(want))
	}
	if _, err := sw.NewReducer().Add(sw.MaxReps-1, &Sample{}); err == nil || !strings.Contains(err.Error(), "was not asked for") {
		t.Errorf("a unit of an unopened batch: %v", err)
	}
}

func TestPrecisionErrors(t *testing.T) {
	sc := exampleScenario(t, "mp-netload")
	for _, c := range []struct {
		spec Spec
		msg  string
	}{
		{Spec{Vary: []string{"rate_scale=1"}, Precision: -1}, "precision: want a number > 0"},
		{Spec{Vary: []string{"rate_scale=1"}, Precision: 0.1, Replications: 1}, "at least 2"},
		{Spec{Vary: []string{"rate_scale=1"}, Precision: 0.1, Replications: 5, MaxReplications: 4}, "max_replications: must be between the batch (5) and 100"},
		{Spec{Vary: []string{"rate_scale=1"}, MaxReplications: 4}, "max_replications: only with a precision"},
	} {
		if _, err := Compile(sc, c.spec); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: %v, want %q", c.spec, err, c.msg)
		}
	}
	sw, err := Compile(sc, Spec{Vary: []string{"rate_scale=1"}, Precision: 0.1})
	if err != nil || sw.Reps != DefaultBatch || sw.MaxReps != DefaultMaxReplications {
		t.Errorf("defaults: %v, batch %d, most %d", err, sw.Reps, sw.MaxReps)
	}
}
