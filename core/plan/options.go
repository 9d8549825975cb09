package plan

import (
	"math"
	"strconv"

	"github.com/tuxlb/tuxlb/core/diag"
)

// Options are the choices of a run that override its scenario.
type Options struct {
	Policy string  // overrides Scenario.Policy when not empty
	Seed   *uint64 // overrides Scenario.Seed when not nil
}

// MaxReplications bounds Scenario.Replications.
const MaxReplications = 100

// ReplicationSeed derives the seed of replication i (0-based) from the
// scenario's seed: replication 0 uses the seed itself, the others a
// SplitMix64 step of seed + i, so the streams are unrelated.
func ReplicationSeed(seed uint64, i int) uint64 {
	if i == 0 {
		return seed
	}
	z := seed + uint64(i)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// SeedWant says what a seed is, for the messages of every interface.
const SeedWant = "a whole number from 0 to 18446744073709551615"

// ParseSeed reads a seed given as text (a CLI flag, a query parameter, the
// page's form): a whole number from 0 to 2^64-1; its error names field.
func ParseSeed(field, text string) (uint64, error) {
	n, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		if len(text) > 40 {
			text = text[:40] + "..."
		}
		return 0, diag.FieldErrorf(field, "want %s, got %q", SeedWant, text)
	}
	return n, nil
}

// DefaultTolerances are the relative tolerances of the validation figures
// (mean, p50, p95, p99) that validation.tolerance leaves out
// (result.DefaultTolerances).
var DefaultTolerances = [4]float64{0.1, 0.1, 0.15, 0.2}

// never is the time of what will not happen ("to the end of the run").
const never = math.MaxInt64
