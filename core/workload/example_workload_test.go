package workload

import (
	"fmt"

	"github.com/tuxlb/tuxlb/core/internal/fixture"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// A constant stream sends its first request at time 0, then one every
// 1000/rate ms.
func Example_constantStream() {
	sc := &scenario.Scenario{Workload: scenario.Workload{Generate: &scenario.Generator{DurationMS: 1000,
		Streams: []scenario.Stream{{Service: "TOUPPER", Arrivals: "constant", RatePerS: 4}}}}}
	rs, err := Open(fixture.HandModel(), sc, 1, 0)
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
