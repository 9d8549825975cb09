package core

// Request is one service request as the workload issues it, with names
// resolved to indexes of the Model.
type Request struct {
	Seq       int64  // 1-based issue order
	ID        string // the trace's id, "" when none (the dispatch log then shows Seq)
	TimeUS    int64  // issue time
	Service   int    // index into Model.Services
	Origin    int    // index into Model.Machines
	ServiceUS int64  // from the trace, -1 when not given
	Prio      int    // from the trace or stream, 0 when not given
	Key       uint64 // random key for this request's service-time draw: the same in every variant
}

// Requests yields a workload's requests in issue order (time, then trace rows
// before generated ones, then row/stream order). It holds O(streams + trace rows)
// memory, never O(generated requests).
type Requests interface {
	Next(r *Request) bool
	Err() error
	Total() int64 // expected number of requests (exact for traces; an estimate with generation)
}

// OpenWorkload compiles the scenario's workload against the model.
func OpenWorkload(m *Model, sc *Scenario, seed uint64, maxRequests int64) (Requests, error) {
	return nil, Errorf(EINTERNAL, "workload not implemented yet")
}
