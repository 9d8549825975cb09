package plan

import (
	"strings"
	"testing"
)

// TestReplicationSeed: replication 0 runs the scenario's seed, and 50
// replications run 50 seeds.
func TestReplicationSeed(t *testing.T) {
	if ReplicationSeed(7, 0) != 7 {
		t.Errorf("replication 0 must use the scenario's seed")
	}
	seen := map[uint64]bool{}
	for i := 0; i < 50; i++ {
		seen[ReplicationSeed(7, i)] = true
	}
	if len(seen) != 50 {
		t.Errorf("got %d distinct seeds of 50", len(seen))
	}
}

// TestParseSeed: a seed is a whole number up to 2^64-1; anything else is an
// error naming the field, quoting the text cut to 40 bytes.
func TestParseSeed(t *testing.T) {
	if n, err := ParseSeed("seed", "18446744073709551615"); err != nil || n != 1<<64-1 {
		t.Errorf("2^64-1: %d, %v", n, err)
	}
	for _, bad := range []string{"", "-1", "1.5", "18446744073709551616", strings.Repeat("9", 60)} {
		_, err := ParseSeed("--seed", bad)
		if err == nil || !strings.Contains(err.Error(), "--seed") || !strings.Contains(err.Error(), SeedWant) || len(bad) > 40 && !strings.Contains(err.Error(), "...") {
			t.Errorf("%q: got %v", bad, err)
		}
	}
}
