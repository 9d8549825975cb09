package sweep_test

import (
	"fmt"

	"github.com/tuxlb/tuxlb/core/sweep"
)

// Select without the engine: four configurations costing 1 to 4 whose
// figure (one objective, at most 100, ε = 5) is the same in every
// replication, 180, 120, 90 and 60. The figures have no spread, so each
// is decided after the first stage: the first two miss, the third meets,
// the fourth is never run.
func ExampleSelect() {
	figure := []float64{180, 120, 90, 60}
	sel, err := sweep.Select(sweep.SelectSpec{Costs: []float64{1, 2, 3, 4}, Window: 1,
		Constraints: []sweep.Constraint{{Name: "y<=100", AtMost: true, Limit: 100, Epsilon: 5}}},
		sweep.Sequential(func(point, rep int) ([]float64, error) { return []float64{figure[point]}, nil }))
	if err != nil {
		panic(err)
	}
	fmt.Println("chosen:", sel.Chosen)
	for _, s := range sel.Systems {
		fmt.Printf("configuration %d: %s after %d replications\n", s.Point, s.Status, s.Ran)
	}
	fmt.Println("spent:", sel.Spent, "of the full grid's", sel.FullGrid)
	// Output:
	// chosen: 2
	// configuration 0: infeasible after 10 replications
	// configuration 1: infeasible after 10 replications
	// configuration 2: feasible after 10 replications
	// configuration 3: not examined after 0 replications
	// spent: 30 of the full grid's 40
}
