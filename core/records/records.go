// Package records holds the records the REST API keeps: a stored run, a
// run as lists show it, a saved scenario, and how their times are written.
// They sit in core (the domain) so that server and storage both point at
// them and never at each other.
package records

import (
	"time"

	"github.com/tuxlb/tuxlb/core/result"
)

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
	Headline      result.Headline
	HasDispatch   bool
	// DispatchGzip is the gzip-compressed dispatch log to store with the run
	// (CreateRun only; Run leaves it nil, see Dispatch).
	DispatchGzip []byte
}

// RunSummary is a run as lists show it.
type RunSummary struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	ScenarioID    string          `json:"scenario_id"`
	CreatedAt     string          `json:"created_at"`
	EngineVersion string          `json:"engine_version"`
	HasDispatch   bool            `json:"dispatch"`
	Headline      result.Headline `json:"headline"`
}

// SavedScenario is a stored scenario document. Its ID is derived from Body (the
// canonical JSON) by the caller, so the same scenario always has the same ID.
type SavedScenario struct {
	ID        string
	Name      string
	Body      []byte
	CreatedAt time.Time
}
