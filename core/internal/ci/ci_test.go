package ci

import "testing"

func TestMean95(t *testing.T) {
	// mean 2, sd 1, t(0.975, 2) = 4.303: half-width 4.303/sqrt(3) = 2.4843382
	if mean, half := Mean95([]float64{1, 2, 3}); mean != 2 || half != 2.484338 {
		t.Errorf("got %v ± %v, want mean 2, ci95 2.484338", mean, half)
	}
	if mean, half := Mean95([]float64{5}); mean != 5 || half != 0 {
		t.Errorf("one value: got %v ± %v, want mean 5, no interval", mean, half)
	}
}
