package core

import (
	"os"
	"testing"

	"github.com/tuxlb/tuxlb/core/result"
)

// TestReseedClients: a plan reseeded with another seed runs the client
// populations as the scenario compiled with that seed does (their think
// times and services are drawn from the seed, as the streams' are), so the
// replications of a client workload differ: before, every replication of
// one repeated the first's clients exactly.
func TestReseedClients(t *testing.T) {
	data, err := os.ReadFile("../examples/self-call-deadlock.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(sc, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(12345)
	got, err := p.Reseed(seed).Run(RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Run(sc, RunOptions{Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := string(result.Encode(got)), string(result.Encode(want)); a != b {
		t.Errorf("the reseeded plan's run differs from the scenario run with seed %d", seed)
	}
	first, err := p.Run(RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Requests.Issued == first.Requests.Issued && got.ResponseMS.Mean == first.ResponseMS.Mean {
		t.Errorf("seed %d and the scenario's seed give the same clients: issued %d, mean %v", seed, got.Requests.Issued, got.ResponseMS.Mean)
	}
}
