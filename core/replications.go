package core

import "github.com/tuxlb/tuxlb/core/plan"

// MaxReplications bounds Scenario.Replications.
const MaxReplications = plan.MaxReplications

// replicationSeed derives the seed of replication i (0-based) from the
// scenario's seed: replication 0 uses the seed itself, the others a
// SplitMix64 step of seed + i, so the streams are unrelated.
func replicationSeed(seed uint64, i int) uint64 {
	if i == 0 {
		return seed
	}
	z := seed + uint64(i)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
