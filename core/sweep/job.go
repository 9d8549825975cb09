package sweep

import "time"

// Sweep job statuses.
const (
	Queued   = "queued"
	Running  = "running"
	Done     = "done"
	Canceled = "canceled"
	Failed   = "failed"
)

// Job is one stored sweep job: the scenario and spec it sweeps, how far
// it got, and who works it. Its points are claimed one by one (a few at a
// time) by any replica with free workers, each for a lease; a point whose
// lease runs out is free to be claimed again.
type Job struct {
	ID         string
	ScenarioID string
	Scenario   []byte // canonical JSON of the scenario
	Spec       Spec
	Status     string
	Total      int // points of the grid
	RunsTotal  int // points x replications
	RunsDone   int
	Owner      string
	LeaseUntil time.Time
	// Points are the points finished so far ([Point] JSON), in grid order.
	Points [][]byte
	// Order is the order to hand the points out in (a new job's, largest
	// first: [Sweep.PointOrder]); nil is grid order.
	Order []int
	// Workers counts the stored points by the replica that computed them.
	Workers map[string]int
	// Result is the final result ([Encode] bytes) once the job is done.
	Result    []byte
	Error     string // why the job failed
	CreatedAt time.Time
	UpdatedAt time.Time
}
