package sweep

import (
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/admission"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// Cost counts a spec's points as Compile reads them (a range, a list, both
// keys), and refuses what Compile would refuse.
func TestCostCountsPoints(t *testing.T) {
	sc := sweepScenario(t)
	m, err := core.LoadModel(ubb.Input{UBBConfig: sc.UBBConfig})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Cost(sc, m, Spec{Vary: []string{"rate_scale=0.5..1.5/0.25", "policy=tuxedo,jsq"}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := admission.SweepCost(sc, m, 10, 2); c.Bytes() != want.Bytes() || !strings.Contains(c.Terms[0].What, "10 points") {
		t.Errorf("got %+v, want admission.SweepCost of 10 points %+v", c, want)
	}
	for _, bad := range []string{"nosuch=1,2", "rate_scale", "rate_scale=1..2/0"} {
		if _, err := Cost(sc, m, Spec{Vary: []string{bad}}, 1); diag.ErrorCode(err) != diag.EINVALID {
			t.Errorf("Cost(%q): got %v, want an invalid error", bad, err)
		}
	}
}
