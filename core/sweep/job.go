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

// Kinds of stored job.
const (
	KindSweep    = "sweep"
	KindOptimize = "optimize"
)

// Job is one stored sweep job: the scenario and spec it sweeps, how far
// it got, and who works it. Its points are claimed one by one (a few at a
// time) by any replica with free workers, each for a lease; a point whose
// lease runs out is free to be claimed again.
//
// An optimization (Kind [KindOptimize]) is stored as a job of one point:
// the whole search, claimed and run by one replica under the same lease,
// its report ([EncodeOptimization] bytes) stored as that point and as the
// result. RunsDone is then the replications spent so far, and RunsTotal
// the most the search could spend (configurations × max_replications).
type Job struct {
	ID         string
	Kind       string // "" or KindSweep: a sweep of Spec; KindOptimize: an optimization of Optimize
	ScenarioID string
	Scenario   []byte // canonical JSON of the scenario
	Spec       Spec
	Optimize   *OptimizeSpec // an optimization's spec (Kind KindOptimize)
	Status     string
	Total      int // points of the grid (an optimization: 1)
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
