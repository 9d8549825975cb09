package core

import (
	"fmt"
	"testing"
)

// msToUS works on the decimal digits, so half a microsecond always rounds
// away from zero, however the value would look in binary.
func TestMSToUSRoundsDecimalHalfAway(t *testing.T) {
	for _, tt := range []struct {
		ms   string
		want int64
	}{{"1.0005", 1001}, {"2.5e-3", 3}, {"-0.0005", -1}, {"12", 12000}} {
		if got, err := msToUS(tt.ms); err != nil || got != tt.want {
			t.Errorf("msToUS(%q) = %d, %v; want %d", tt.ms, got, err, tt.want)
		}
	}
}

// A constant stream sends its first request at time 0, then one every
// 1000/rate ms.
func Example_constantStream() {
	sc := &Scenario{Workload: Workload{Generate: &GenerateSp{DurationMS: 1000,
		Streams: []Stream{{Service: "TOUPPER", Arrivals: "constant", RatePerS: 4}}}}}
	rs, err := openWorkload(handModel(), sc, 1, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	var r request
	for rs.Next(&r) {
		fmt.Println(r.Seq, r.TimeUS)
	}
	// Output:
	// 1 0
	// 2 250000
	// 3 500000
	// 4 750000
}
