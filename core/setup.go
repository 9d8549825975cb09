package core

// ParseScenario reads a scenario document strictly: unknown fields, wrong
// types and trailing data are EINVALID errors that name the field.
func ParseScenario(data []byte) (*Scenario, error) {
	return nil, Errorf(EINTERNAL, "scenario reader not implemented yet")
}

// Setup is a scenario checked against its model and resolved into what the
// engine needs: every default filled in, every name turned into an index.
type Setup struct {
	Model    *Model
	Policy   string // tuxedo, round_robin, random, jsq, p2c
	Seed     uint64
	Tuning   Tuning // every field set (pointers non-nil)
	Warnings []string

	Speed            []float64 // per machine, default 1
	LatencyUS        int64     // one-way network latency
	GatewayForwardUS int64     // how long a GWTDOMAIN instance is busy per request
	ResetUS          int64     // MP counter reset period
	BlockUS          int64     // SCANUNIT x BLOCKTIME: replies later than this are TPETIME
	WarmupUS         int64

	// ServiceTime[s][g] samples service s on servers of group g (index into
	// Model.Groups); nil when the scenario gives no distribution for it (then
	// every request of s must carry service_ms, which Setup has checked).
	ServiceTime [][]Sampler
	// RemoteTime[s] samples the remote domain's response time for an imported
	// service s; nil for local services.
	RemoteTime []Sampler
}

// NewSetup checks sc (with opt's overrides) against its model and resolves it.
// Errors name the scenario field, e.g. `machines.site9: unknown LMID`.
func NewSetup(sc *Scenario, opt RunOptions) (*Setup, error) {
	return nil, Errorf(EINTERNAL, "setup not implemented yet")
}
