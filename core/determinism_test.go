package core

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/fixture"

	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/workload"
)

// drawDigest hashes many draws of every distribution and every arrival
// process, so that two builds can be compared bit for bit.
func drawDigest() string {
	h := fnv.New64a()
	dists := []scenario.Dist{
		{Dist: "exp", MeanMS: f(4)}, {Dist: "uniform", MinMS: f(1), MaxMS: f(3.3)},
		{Dist: "lognormal", MeanMS: f(10), SDMS: f(5)}, {Dist: "gamma", MeanMS: f(2), Shape: f(0.5)},
		{Dist: "gamma", MeanMS: f(6), SDMS: f(3)}, {Dist: "erlang", MeanMS: f(9), K: ip(3)},
	}
	for _, d := range dists {
		s, _ := dist.New(&d, "d")
		r := rng.New(42, 1)
		for range 20_000 {
			fmt.Fprintf(h, "%x,", math.Float64bits(s.SampleMS(r)))
		}
	}
	sc := &scenario.Scenario{Workload: scenario.Workload{Generate: &scenario.Generator{DurationMS: 2000, Streams: []scenario.Stream{{Service: "TOUPPER", Arrivals: "poisson", RatePerS: 1000},
		{Service: "TOLOWER", Arrivals: "profile", Profile: []scenario.RatePoint{{AtMS: 0, RatePerS: 10}, {AtMS: 1000, RatePerS: 5000}, {AtMS: 1500, RatePerS: 200}}},
		{Service: "TOLOWER", Arrivals: "mmpp", Rates: []float64{10, 1000}, MeanMS: []float64{5, 5}},
		{Service: "TOLOWER", Arrivals: "bursty", RatePerS: 300, OnMS: f(3), OffMS: f(7)},
		{Service: "TOLOWER", Arrivals: "constant", RatePerS: 7}}}}}
	rs, _ := workload.Open(fixture.HandModel(), sc, 1, 0)
	var r workload.Request
	for rs.Next(&r) {
		fmt.Fprintf(h, "%d %d %x,", r.TimeUS, r.Service, r.Key)
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// TestDrawDigestGolden compares the digest of every draw with
// testdata/draws.digest: run natively and compiled to WebAssembly (the core
// suite under node), it shows that both draw the same bits, the tail and
// wedges of the exponential ziggurat included.
func TestDrawDigestGolden(t *testing.T) {
	checkGolden(t, filepath.Join("testdata", "draws.digest"), []byte(drawDigest()+"\n"))
}

// TestDrawDigest prints the digest for TestDigestWithFMA's child process.
func TestDrawDigest(t *testing.T) {
	if os.Getenv("TUXLB_PRINT_DIGEST") == "" {
		t.Skip("only for TestDigestWithFMA's child process")
	}
	fmt.Printf("digest=%s\n", drawDigest())
}

// TestDigestWithFMA rebuilds the tests with GOAMD64=v3, under which the Go
// compiler fuses a*b+c into one FMA instruction wherever the code allows it,
// and checks that every draw keeps its bits: the float64(...) conversions in
// core/internal/fmath, samplers.go and generate.go must forbid every fusion.
func TestDigestWithFMA(t *testing.T) {
	t.Parallel()
	if testing.Short() || runtime.GOARCH != "amd64" || runtime.GOOS == "js" || os.Getenv("GOAMD64") == "v3" {
		t.Skip("needs amd64, a go command, and not -short")
	}
	cmd := exec.Command("go", "test", "-count=1", "-v", "-run", "^TestDrawDigest$", ".")
	cmd.Env = append(os.Environ(), "GOAMD64=v3", "TUXLB_PRINT_DIGEST=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("cannot run a GOAMD64=v3 build here: %v\n%s", err, out)
	}
	want := "digest=" + drawDigest()
	if !strings.Contains(string(out), want) {
		t.Errorf("GOAMD64=v3 build printed %q, want %q: a product was fused into an FMA", out, want)
	}
}

// TestReusedBuffersStartClean: runs reuse the look-ahead buffers and
// histogram fronts of earlier runs (lookBufs, freeFronts); a run gives the
// same bytes first, after runs of other scenarios, and interleaved with them.
func TestReusedBuffersStartClean(t *testing.T) {
	names := []string{"mp-netload", "mssq-set", "crash-restart", "bank-routing"}
	first := map[string][]byte{}
	run := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join("..", "examples", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		sc, err := ParseScenario(data)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(sc, RunOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return result.Encode(res)
	}
	for _, n := range names {
		first[n] = run(n)
	}
	for round := range 3 {
		for i := range names {
			n := names[(i+round)%len(names)]
			if got := run(n); !bytes.Equal(got, first[n]) {
				t.Fatalf("round %d: %s gives other bytes after other runs", round, n)
			}
		}
	}
}
