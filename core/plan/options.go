package plan

import "math"

// Options are the choices of a run that override its scenario.
type Options struct {
	Policy string  // overrides Scenario.Policy when not empty
	Seed   *uint64 // overrides Scenario.Seed when not nil
}

// MaxReplications bounds Scenario.Replications.
const MaxReplications = 100

// DefaultTolerance is the relative tolerance of a validation figure that
// validation.tolerance leaves out (result.DefaultTolerance).
const DefaultTolerance = 0.1

// never is the time of what will not happen ("to the end of the run").
const never = math.MaxInt64
