package result

import "testing"

// TestBalanceOf: utilizations 1 and 0 over two eligible servers (a third,
// at 1, not eligible): Jain's index (1+0)² / (2 · (1+0)) = 0.5, max/mean
// 1 / 0.5 = 2; 0.5 and 0.5: 1 and 1; none eligible: zeros.
func TestBalanceOf(t *testing.T) {
	srv := func(us ...float64) []ServerStats {
		out := make([]ServerStats, len(us))
		for i, u := range us {
			out[i].Utilization = u
		}
		return out
	}
	elig := []bool{true, true, false}
	for _, c := range []struct {
		servers []ServerStats
		want    Balance
	}{
		{srv(1, 0, 1), Balance{JainUtilization: 0.5, MaxOverMean: 2}},
		{srv(0.5, 0.5, 1), Balance{JainUtilization: 1, MaxOverMean: 1}},
		{srv(0, 0, 1), Balance{}},
	} {
		if got := BalanceOf(c.servers, elig); got != c.want {
			t.Errorf("%+v: got %+v, want %+v", c.servers, got, c.want)
		}
	}
}
