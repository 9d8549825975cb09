package core

import "fmt"

// MSToUS works on the decimal digits, so half a microsecond always rounds
// away from zero, however the value would look in binary.
func ExampleMSToUS() {
	for _, ms := range []string{"1.0005", "2.5e-3", "-0.0005", "12"} {
		us, _ := MSToUS(ms)
		fmt.Println(ms, "ms =", us, "us")
	}
	// Output:
	// 1.0005 ms = 1001 us
	// 2.5e-3 ms = 3 us
	// -0.0005 ms = -1 us
	// 12 ms = 12000 us
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
	var r Request
	for rs.Next(&r) {
		fmt.Println(r.Seq, r.TimeUS)
	}
	// Output:
	// 1 0
	// 2 250000
	// 3 500000
	// 4 750000
}
