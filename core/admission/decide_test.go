package admission

import "testing"

// TestDecide holds the one admission rule to hand-worked cases: an
// estimate fits when its peak is at most the budget; what is left, split
// among the parallel runs, gives the requests each may hold at once; a
// refusal names the peak, the limit and the largest part.
func TestDecide(t *testing.T) {
	t.Parallel()
	cost := Cost{Terms: []CostTerm{
		{Field: "ubbconfig", What: "the model", Bytes: 1 << 20},                 // 1 MiB
		{Field: "replications", What: "4 replications at once", Bytes: 3 << 20}, // 3 MiB, the largest
	}}
	// 4 MiB in all.
	if d := Decide(cost, 4<<20); !d.Fits {
		t.Errorf("4 MiB within a budget of 4 MiB: refused")
	}
	d := Decide(cost, 4<<20-1)
	if d.Fits {
		t.Fatalf("4 MiB within a budget of one byte less: admitted")
	}
	// 4 MiB = 4.0 MiB; largest 3 MiB = 3.0 MiB.
	want := "this run would hold about 4.0 MiB at its peak, more than --memory-budget x; " +
		"the largest part (replications): 4 replications at once, about 3.0 MiB"
	if got := d.Refusal("run", "--memory-budget x", true); got != want {
		t.Errorf("Refusal with its field:\n got %s\nwant %s", got, want)
	}
	want = "this sweep would hold about 4.0 MiB at its peak, more than the share; " +
		"the largest part: 4 replications at once, about 3.0 MiB"
	if got := d.Refusal("sweep", "the share", false); got != want {
		t.Errorf("Refusal without its field:\n got %s\nwant %s", got, want)
	}
	// A largest part with no field has no parentheses even when asked.
	noField := Decide(Cost{Terms: []CostTerm{{What: "the log's text", Bytes: 2048}}}, 1024)
	want = "this log would hold about 2.0 KiB at its peak, more than 1.0 KiB; the largest part: the log's text, about 2.0 KiB"
	if got := noField.Refusal("log", "1.0 KiB", true); got != want {
		t.Errorf("Refusal of a part without field:\n got %s\nwant %s", got, want)
	}

	// Budget 10 MiB, cost 4 MiB: 6 MiB = 6291456 bytes left. At 1000 bytes
	// a request, one run holds 6291 at once; three runs share it: 2097152
	// each, 2097 requests.
	fits := Decide(cost, 10<<20)
	for _, c := range []struct {
		per      int64
		parallel int
		want     int64
	}{
		{1000, 1, 6291},
		{1000, 0, 6291}, // no parallel runs counts as one
		{1000, 3, 2097},
		{7 << 20, 1, 1}, // less left than one request: still one
	} {
		if got := fits.InFlight(c.per, c.parallel); got != c.want {
			t.Errorf("InFlight(%d, %d) = %d, want %d", c.per, c.parallel, got, c.want)
		}
	}
	// A run that fits exactly has nothing left, and still one request.
	if got := Decide(cost, 4<<20).InFlight(1000, 1); got != 1 {
		t.Errorf("InFlight with nothing left = %d, want 1", got)
	}
}
