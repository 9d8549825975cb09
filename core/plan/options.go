package plan

import "math"

// Options are the choices of a run that override its scenario.
type Options struct {
	Policy string  // overrides Scenario.Policy when not empty
	Seed   *uint64 // overrides Scenario.Seed when not nil
}

// MaxReplications bounds Scenario.Replications.
const MaxReplications = 100

// DefaultTolerances are the relative tolerances of the validation figures
// (mean, p50, p95, p99) that validation.tolerance leaves out
// (result.DefaultTolerances).
var DefaultTolerances = [4]float64{0.1, 0.1, 0.15, 0.2}

// never is the time of what will not happen ("to the end of the run").
const never = math.MaxInt64
