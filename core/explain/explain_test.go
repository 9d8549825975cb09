package explain

import (
	"testing"

	"github.com/tuxlb/tuxlb/core/plan"
)

func TestCostString(t *testing.T) {
	cases := []struct {
		nums []int64
		n    int64
		adds []int64
		want string
	}{
		{[]int64{150}, 2, []int64{50}, "150/2 + 50 = 125"},
		{[]int64{100}, 3, []int64{50}, "100/3 + 50 = 250/3 (83.33)"},
		{[]int64{2, 1}, 1, nil, "(2+1)/1 = 3"},
	}
	for _, c := range cases {
		if got := Cost(c.nums, c.n, c.adds...); got != c.want {
			t.Errorf("Cost(%v, %d, %v): got %q, want %q", c.nums, c.n, c.adds, got, c.want)
		}
	}
}

// TestEveryPolicyHasText: every policy but tuxedo has its sentence (core's
// TestEveryPolicyIsComplete explains a request under each).
func TestEveryPolicyHasText(t *testing.T) {
	for _, name := range plan.Vocabulary()["policy"] {
		p, err := plan.ParsePolicy("policy", name)
		if err != nil {
			t.Fatal(err)
		}
		if row, ok := policies[p]; ok == (p == plan.PolicyTuxedo) || ok && row.text == nil {
			t.Errorf("policy %s: row %v with text %v, want a row with a text but for tuxedo", name, ok, row.text != nil)
		}
	}
}
