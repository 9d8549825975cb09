package sweep

import (
	"strings"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/admission"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// Cost estimates what a sweep of sc (on its model m) by spec holds at its
// peak, with workers runs at once ([admission.SweepCost]). It reads the spec's
// values as [Compile] does, and fails where Compile would on them.
func Cost(sc *scenario.Scenario, m *core.Model, spec Spec, workers int) (admission.Cost, error) {
	points := int64(1)
	for _, text := range spec.Vary {
		name, vals, ok := strings.Cut(text, "=")
		k := lookupKey(strings.TrimSpace(name))
		if !ok || k == nil {
			return admission.Cost{}, diag.Errorf(diag.EINVALID, "vary %q: want KEY=VALUES with a known key", text)
		}
		values, err := parseValues(k.name, vals)
		if err != nil {
			return admission.Cost{}, err
		}
		if n := int64(len(values)); points > (1<<62)/n {
			points = 1 << 62 // saturated
		} else {
			points *= n
		}
	}
	return admission.SweepCost(sc, m, points, workers), nil
}
