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
// it got, and who works it. A job is worked by the server holding its lease
// (Owner, LeaseUntil); a job whose lease has run out is free to be claimed
// again and resumed from its stored points.
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
	// Result is the final result ([Encode] bytes) once the job is done.
	Result    []byte
	Error     string // why the job failed
	CreatedAt time.Time
	UpdatedAt time.Time
}
