package dist

import (
	"math"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/scenario"
)

func f(v float64) *float64 { return &v }
func ip(v int) *int        { return &v }

func TestNewSamplerErrors(t *testing.T) {
	tests := []struct {
		d    scenario.Dist
		want string
	}{
		{scenario.Dist{Dist: "foo"}, `svc.dist: unknown distribution "foo" (want const, exp, uniform, lognormal, empirical, gamma, erlang, hyperexp, weibull)`},
		{scenario.Dist{}, "svc.dist: missing"},
		{scenario.Dist{Dist: "const"}, `svc.ms: missing (required by dist "const")`},
		{scenario.Dist{Dist: "const", MS: f(-1)}, "svc.ms: must be >= 0, got -1"},
		{scenario.Dist{Dist: "const", MS: f(2e9)}, "svc.ms: must be <= 1e+09 ms"},
		{scenario.Dist{Dist: "exp", MeanMS: f(0)}, "svc.mean_ms: must be > 0, got 0"},
		{scenario.Dist{Dist: "exp", MS: f(4)}, `svc.mean_ms: missing`},
		{scenario.Dist{Dist: "exp", MeanMS: f(4), MS: f(4)}, `svc.ms: not a parameter of dist "exp"`},
		{scenario.Dist{Dist: "uniform", MinMS: f(3), MaxMS: f(2)}, "svc.max_ms: must be >= min_ms (3), got 2"},
		{scenario.Dist{Dist: "uniform", MinMS: f(-1), MaxMS: f(2)}, "svc.min_ms: must be >= 0"},
		{scenario.Dist{Dist: "lognormal", MeanMS: f(1)}, "svc.sd_ms: missing"},
		{scenario.Dist{Dist: "lognormal", MeanMS: f(1), SDMS: f(-1)}, "svc.sd_ms: must be >= 0"},
		{scenario.Dist{Dist: "empirical"}, "svc.samples_ms: must hold at least one sample"},
		{scenario.Dist{Dist: "empirical", SamplesMS: []float64{1, -2}}, "svc.samples_ms[1]: must be >= 0"},
		{scenario.Dist{Dist: "gamma", MeanMS: f(1)}, "svc.sd_ms: missing"},
		{scenario.Dist{Dist: "gamma", MeanMS: f(1), SDMS: f(1), Shape: f(1)}, "svc.shape: give either sd_ms or shape, not both"},
		{scenario.Dist{Dist: "gamma", MeanMS: f(1), Shape: f(0)}, "svc.shape: must be > 0"},
		{scenario.Dist{Dist: "gamma", MeanMS: f(10), SDMS: f(1e-300)}, "svc.sd_ms: must be between mean_ms/1000 and mean_ms*31.62 " +
			"(0.01 and 316.2 with mean_ms 10), got 1e-300: a gamma's shape (mean_ms/sd_ms)^2 must be between 0.001 and 1e6"},
		{scenario.Dist{Dist: "gamma", MeanMS: f(10), SDMS: f(400)}, "svc.sd_ms: must be between mean_ms/1000 and mean_ms*31.62 (0.01 and 316.2 with mean_ms 10), got 400"},
		{scenario.Dist{Dist: "gamma", MeanMS: f(1e-300), SDMS: f(1)}, "svc.sd_ms: must be between mean_ms/1000 and mean_ms*31.62 (1e-303 and 3.162e-299 with mean_ms 1e-300), got 1"},
		{scenario.Dist{Dist: "gamma", MeanMS: f(1), Shape: f(2e6)}, "svc.shape: must be between 0.001 and 1e6, got 2e+06"},
		{scenario.Dist{Dist: "erlang", MeanMS: f(1)}, "svc.k: missing"},
		{scenario.Dist{Dist: "erlang", MeanMS: f(1), K: ip(0)}, "svc.k: must be between 1 and 10000, got 0"},
		{scenario.Dist{Dist: "erlang", MeanMS: f(1), K: ip(2), SDMS: f(1)}, `svc.sd_ms: not a parameter of dist "erlang"`},
	}
	for _, tt := range tests {
		_, err := New(&tt.d, "svc")
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("NewSampler(%+v): got error %v, want %q", tt.d, err, tt.want)
			continue
		}
		if diag.ErrorCode(err) != diag.EINVALID {
			t.Errorf("NewSampler(%+v): got code %q, want %q", tt.d, diag.ErrorCode(err), diag.EINVALID)
		}
	}
}

// TestSamplerMeans draws 200k values from each distribution and checks the
// sample mean against MeanMS (and the sample sd against the known sd). The
// tolerance is 5 standard errors of the mean, sd/sqrt(n): a correct Sampler
// fails with probability below 1e-6, while a wrong scale or shape (say a
// lognormal using sd_ms as the sd of the log) misses by far more.
func TestSamplerMeans(t *testing.T) {
	const n = 200_000
	tests := []struct {
		name     string
		d        scenario.Dist
		mean, sd float64
	}{
		{"const", scenario.Dist{Dist: "const", MS: f(3.5)}, 3.5, 0},
		{"exp", scenario.Dist{Dist: "exp", MeanMS: f(4)}, 4, 4},
		{"uniform", scenario.Dist{Dist: "uniform", MinMS: f(2), MaxMS: f(8)}, 5, 6 / math.Sqrt(12)},
		{"lognormal", scenario.Dist{Dist: "lognormal", MeanMS: f(10), SDMS: f(5)}, 10, 5},
		{"lognormal sd 0", scenario.Dist{Dist: "lognormal", MeanMS: f(10), SDMS: f(0)}, 10, 0},
		{"empirical", scenario.Dist{Dist: "empirical", SamplesMS: []float64{1, 2, 6}}, 3, math.Sqrt(14.0 / 3)},
		{"gamma sd", scenario.Dist{Dist: "gamma", MeanMS: f(6), SDMS: f(3)}, 6, 3},
		{"gamma shape<1", scenario.Dist{Dist: "gamma", MeanMS: f(2), Shape: f(0.5)}, 2, 2 / math.Sqrt(0.5)},
		{"erlang", scenario.Dist{Dist: "erlang", MeanMS: f(9), K: ip(3)}, 9, 9 / math.Sqrt(3)},
	}
	for _, tt := range tests {
		s, err := New(&tt.d, "d")
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if s.MeanMS() != tt.mean {
			t.Errorf("%s: MeanMS() = %v, want %v", tt.name, s.MeanMS(), tt.mean)
		}
		r := rng.New(42, 1)
		sum, sum2 := 0.0, 0.0
		for range n {
			x := s.SampleMS(r)
			if x < 0 {
				t.Fatalf("%s: drew %v, want >= 0", tt.name, x)
			}
			sum += x
			sum2 += x * x
		}
		mean := sum / n
		sd := math.Sqrt(sum2/n - mean*mean)
		tol := 5*tt.sd/math.Sqrt(n) + 1e-9*tt.mean
		if math.Abs(mean-tt.mean) > tol {
			t.Errorf("%s: sample mean %v, want %v ± %v", tt.name, mean, tt.mean, tol)
		}
		// The sd of the sample sd is about sd·sqrt((kurtosis-1)/4n); a 5%
		// band is over 10 of those for every distribution here.
		if math.Abs(sd-tt.sd) > 0.05*tt.sd+1e-9 {
			t.Errorf("%s: sample sd %v, want %v ± 5%%", tt.name, sd, tt.sd)
		}
	}
}

func TestSamplersAreDeterministic(t *testing.T) {
	d := scenario.Dist{Dist: "gamma", MeanMS: f(5), Shape: f(2.5)}
	s, _ := New(&d, "d")
	a, b := rng.New(3, 9), rng.New(3, 9)
	for i := range 1000 {
		if x, y := s.SampleMS(a), s.SampleMS(b); x != y {
			t.Fatalf("draw %d: got %v and %v from equal generators, want equal", i, x, y)
		}
	}
}

func BenchmarkSampleExp(b *testing.B) {
	s, _ := New(&scenario.Dist{Dist: "exp", MeanMS: f(4)}, "d")
	r := rng.New(1, 1)
	for b.Loop() {
		s.SampleMS(r)
	}
}
