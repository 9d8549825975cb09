package core

import "time"

// The records the REST API keeps. They live in core (the domain) so that
// server and storage both point at them and never at each other.

// TimeFormat is how created_at is written: UTC, millisecond precision, fixed
// width, so that text order is time order.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// StoredRun is one stored run: the scenario it ran, the options that overrode the
// scenario, and the result bytes exactly as the engine encoded them.
type StoredRun struct {
	ID            string
	ScenarioID    string
	Scenario      []byte // canonical JSON of the scenario
	Name          string
	CreatedAt     time.Time
	EngineVersion string
	Policy        string // the ?policy override, "" when none
	Seed          string // the ?seed override, "" when none
	RerunOf       string // the run this one re-ran, "" when none
	Result        []byte
	Headline      Headline
	HasDispatch   bool
	// DispatchGzip is the gzip-compressed dispatch log to store with the run
	// (CreateRun only; Run leaves it nil, see Dispatch).
	DispatchGzip []byte
}

// RunSummary is a run as lists show it.
type RunSummary struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	ScenarioID    string   `json:"scenario_id"`
	CreatedAt     string   `json:"created_at"`
	EngineVersion string   `json:"engine_version"`
	HasDispatch   bool     `json:"dispatch"`
	Headline      Headline `json:"headline"`
}

// SavedScenario is a stored scenario document. Its ID is derived from Body (the
// canonical JSON) by the caller, so the same scenario always has the same ID.
type SavedScenario struct {
	ID        string
	Name      string
	Body      []byte
	CreatedAt time.Time
}

// Sweep job statuses.
const (
	SweepQueued   = "queued"
	SweepRunning  = "running"
	SweepDone     = "done"
	SweepCanceled = "canceled"
	SweepFailed   = "failed"
)

// SweepJob is one stored sweep job: the scenario and spec it sweeps, how far
// it got, and who works it. A job is worked by the server holding its lease
// (Owner, LeaseUntil); a job whose lease has run out is free to be claimed
// again and resumed from its stored points.
type SweepJob struct {
	ID         string
	ScenarioID string
	Scenario   []byte // canonical JSON of the scenario
	Spec       SweepSpec
	Status     string
	Total      int // points of the grid
	RunsTotal  int // points x replications
	RunsDone   int
	Owner      string
	LeaseUntil time.Time
	// Points are the points finished so far (SweepPoint JSON), in grid order.
	Points [][]byte
	// Result is the final result (EncodeSweep bytes) once the job is done.
	Result    []byte
	Error     string // why the job failed
	CreatedAt time.Time
	UpdatedAt time.Time
}
