package plan

import "testing"

func TestIDRanges(t *testing.T) {
	for _, tc := range []struct {
		ids  []int
		want string
	}{
		{[]int{1}, "1"},
		{[]int{3, 1, 2}, "1-3"},
		{[]int{1, 2, 3, 7, 10, 11, 12}, "1-3,7,10-12"},
		{[]int{5, 9}, "5,9"},
	} {
		if got := idRanges(tc.ids); got != tc.want {
			t.Errorf("idRanges(%v): got %q, want %q", tc.ids, got, tc.want)
		}
	}
}
