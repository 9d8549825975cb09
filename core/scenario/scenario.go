// Package scenario holds the scenario document of docs/scenario.md: the
// types a scenario's JSON decodes into, and the JSON forms of the values
// that have more than one (a routing value, a call's route, a script
// entry). It checks only the shape of a value; core checks a scenario
// against its configuration and compiles it into a plan.
package scenario

// Scenario is the scenario document of docs/scenario.md: a configuration, a workload and
// the knobs of one run. It is read strictly (an unknown field is an error) by
// core.ParseScenario, which also checks it.
type Scenario struct {
	Name      string                 `json:"name,omitempty"`
	UBBConfig string                 `json:"ubbconfig"`
	DMConfig  string                 `json:"dmconfig,omitempty"`
	Advertise map[string][]string    `json:"advertise,omitempty"` // server name -> services
	Services  map[string]ServiceSpec `json:"services,omitempty"`
	Machines  map[string]MachineSpec `json:"machines,omitempty"`
	Network   *NetworkSpec           `json:"network,omitempty"`
	Domains   map[string]DomainSpec  `json:"domains,omitempty"`
	// Transactions times the TMS servers' work (docs/scenario.md).
	Transactions *TransactionsSpec `json:"transactions,omitempty"`
	Tuning       *Tuning           `json:"tuning,omitempty"`
	Policy       string            `json:"policy,omitempty"` // tuxedo (default) or a comparison policy (docs/engine.md)
	Seed         *uint64           `json:"seed,omitempty"`   // default 1
	Workload     Workload          `json:"workload"`
	// Events are what happens to server instances during the run: kills,
	// shutdowns and boots, in time order (docs/scenario.md).
	Events []Event `json:"events,omitempty"`
	// Workstation is the timing of the workstation front end, for client
	// sets that connect through a WSL (docs/scenario.md).
	Workstation *WorkstationSpec `json:"workstation,omitempty"`
	// QSpaces are the /Q queue spaces' queues, by the name of a queue space
	// that TMQUEUE servers advertise (docs/scenario.md): read and checked,
	// not yet simulated.
	QSpaces map[string]QSpaceSpec `json:"qspaces,omitempty"`

	// Analysis knobs (docs/scenario.md).
	WarmupMS     *Warmup  `json:"warmup_ms,omitempty"`    // statistics ignore requests issued before this; "auto": found by MSER-5
	Replications int      `json:"replications,omitempty"` // k runs with derived seeds; 0 or 1 = one run
	BinMS        *float64 `json:"bin_ms,omitempty"`       // time-series bin width; default: span/120, rounded to a nice value
	// Validation is how a replay is judged against its log's observed
	// responses (docs/scenario.md#replay-validation).
	Validation *ValidationOptions `json:"validation,omitempty"`
}

// ValidationOptions are how a replay is judged against the responses its
// log observed: the hold-out window and the tolerances of the verdicts.
type ValidationOptions struct {
	// AfterMS compares only the trace rows issued at or after it (from
	// the log's time 0); the warm-up applies too, the later of the two.
	AfterMS *float64 `json:"after_ms,omitempty"`
	// Tolerance is each figure's relative tolerance (0.1: 10%).
	Tolerance *Tolerance `json:"tolerance,omitempty"`
}

// Tolerance gives the relative tolerance of the validation's figures:
// Default for those not named (itself 0.1 when absent), each in (0, 10].
type Tolerance struct {
	Default *float64 `json:"default,omitempty"`
	Mean    *float64 `json:"mean,omitempty"`
	P50     *float64 `json:"p50,omitempty"`
	P95     *float64 `json:"p95,omitempty"`
	P99     *float64 `json:"p99,omitempty"`
}

// ServiceSpec gives a service's timing. ServiceTime applies everywhere unless
// ByGroup has an entry for the group of the server that processes the request.
type ServiceSpec struct {
	ServiceTime *Dist           `json:"service_time,omitempty"`
	ByGroup     map[string]Dist `json:"by_group,omitempty"`
	// Calls are what a server does after its own work for the service:
	// nested tpcall, tpacall and tpforward steps, in order (docs/scenario.md).
	Calls []CallStep `json:"calls,omitempty"`
}

// MachineSpec modifies a machine of the UBBCONFIG: Speed divides service
// times; Env is the environment its processes run with (what its ENVFILE
// sets, which the UBBCONFIG does not hold): TMNETLOAD there replaces the
// machine's NETLOAD; other variables are not read.
type MachineSpec struct {
	Speed *float64          `json:"speed,omitempty"` // default 1, must be > 0
	Env   map[string]string `json:"env,omitempty"`
}

// TransactionsSpec times the work of transactions: TMSTime is what one
// request to a TMS server (prepare, commit or abort) costs, before the
// machine's speed; default const 1 ms.
type TransactionsSpec struct {
	TMSTime *Dist `json:"tms_time,omitempty"`
}

// NetworkSpec is the network between machines.
type NetworkSpec struct {
	LatencyMS float64 `json:"latency_ms"` // one way, >= 0
}

// DomainSpec is a remote domain: how long it takes to answer, and when it
// is down (a gateway then fails over to the next domain of an import's
// RDOM list, or fails the request with TPESVCERR).
type DomainSpec struct {
	ResponseTime Dist           `json:"response_time"`
	Down         []DownInterval `json:"down,omitempty"`
}

// DownInterval is a time the remote domain is down: from FromMS (included)
// to ToMS (excluded); without ToMS, to the end of the run.
type DownInterval struct {
	FromMS *float64 `json:"from_ms"`
	ToMS   *float64 `json:"to_ms,omitempty"`
}

// Tuning selects between readings of Tuxedo behaviour that is not publicly
// documented in docs/engine.md (readings where Tuxedo's own documentation is silent). Nil fields take the defaults.
type Tuning struct {
	Idle      string `json:"idle,omitempty"`       // "server" (default) or "queue"
	NetLoad   string `json:"netload,omitempty"`    // "server" (default) or "origin"
	MPCounter string `json:"mp_counter,omitempty"` // "load+netload" (default) or "load"
	// MTIdle is when an instance with more than one dispatch thread looks
	// idle under Idle "server": "server" (default: a thread is free) or
	// "no_request" (no thread holds a request). The result shows it only
	// for runs with such an instance.
	MTIdle           string   `json:"mt_idle,omitempty"`
	MPResetMS        *float64 `json:"mp_reset_ms,omitempty"`
	GatewayForwardMS *float64 `json:"gateway_forward_ms,omitempty"` // default 0.1
	// BootMS is how long a booted or restarted instance takes to come up
	// (default 1000). The result shows it only for runs where instances
	// change state.
	BootMS *float64 `json:"boot_ms,omitempty"`
	// QueueCapacity bounds every request queue (requests waiting); a
	// request whose queue is full is retried by its sender every
	// EnqueueRetryMS (default 1000) until it fits or its deadline passes.
	// Absent: unbounded.
	QueueCapacity  *int     `json:"queue_capacity,omitempty"`
	EnqueueRetryMS *float64 `json:"enqueue_retry_ms,omitempty"`
}

// Event is one scenario event: at AtMS, kill, shut down or boot the server
// instances of a target: "GROUP/SRVID", "group:GROUP" or "machine:LMID";
// or lose or restore a machine. Exactly one of Kill, Shutdown, Boot, Lose
// and Restore is set.
type Event struct {
	AtMS     *float64 `json:"at_ms"`
	Kill     string   `json:"kill,omitempty"`
	Shutdown string   `json:"shutdown,omitempty"`
	Boot     string   `json:"boot,omitempty"`
	// Lose and Restore name a machine (LMID) that is lost (it and its BBL
	// stop at once) or comes back (its MIN instances boot).
	Lose    string `json:"lose,omitempty"`
	Restore string `json:"restore,omitempty"`
}

// Dist is a probability distribution of durations in milliseconds.
// Dist is one of: const (MS), exp (MeanMS), uniform (MinMS, MaxMS),
// lognormal (MeanMS, SDMS), empirical (SamplesMS), gamma (MeanMS, SDMS or Shape),
// erlang (MeanMS, K).
type Dist struct {
	Dist      string    `json:"dist"`
	MS        *float64  `json:"ms,omitempty"`
	MeanMS    *float64  `json:"mean_ms,omitempty"`
	MinMS     *float64  `json:"min_ms,omitempty"`
	MaxMS     *float64  `json:"max_ms,omitempty"`
	SDMS      *float64  `json:"sd_ms,omitempty"`
	Shape     *float64  `json:"shape,omitempty"`
	K         *int      `json:"k,omitempty"`
	SamplesMS []float64 `json:"samples_ms,omitempty"`
}

// Workload is the requests of a run: a trace (CSV or JSON rows), generated
// streams, or both, merged by time with trace rows first at equal times.
type Workload struct {
	TraceCSV string     `json:"trace_csv,omitempty"`
	Trace    []TraceRow `json:"trace,omitempty"`
	Columns  *TraceMap  `json:"columns,omitempty"` // optional mapping for imported logs
	// TraceSkipBad skips the rows of trace_csv that cannot be read (a
	// trailing total line, "n/a", an unknown service) and counts them in
	// the result's trace block, instead of stopping at the first; a row
	// out of time order is played in its place, as without it.
	TraceSkipBad bool `json:"trace_skip_bad,omitempty"`
	// TraceRateScale plays the trace (trace_csv or trace) that many times
	// faster: its issue times are divided by it, so 1.5 is the same requests
	// at 1.5 times the rate. Absent means 1.
	TraceRateScale *float64   `json:"trace_rate_scale,omitempty"`
	Generate       *Generator `json:"generate,omitempty"`
}

// TraceRow is one request of a trace given as JSON.
type TraceRow struct {
	TimeMS    *float64 `json:"time_ms"`
	Service   string   `json:"service"`
	Origin    string   `json:"origin,omitempty"`
	ServiceMS *float64 `json:"service_ms,omitempty"`
	Prio      *int     `json:"prio,omitempty"`
	ID        string   `json:"id,omitempty"`
	// Route is the routing field's value (a string or a number), for a
	// service with a routing criterion.
	Route *RouteValue `json:"route,omitempty"`
	// BufType is the request's buffer type, TYPE or TYPE:SUBTYPE.
	BufType string `json:"buftype,omitempty"`
	// Enqueue ("QSPACE:Q"), instead of Service, stores a /Q message in
	// queue Q of queue space QSPACE (a tpenqueue).
	Enqueue string `json:"enqueue,omitempty"`
}

// TraceMap maps the columns of a foreign request log onto trace fields, and
// says the unit of its times, so a production log can be read unedited.
type TraceMap struct {
	Time        string `json:"time,omitempty"`       // column holding the issue time
	TimeUnit    string `json:"time_unit,omitempty"`  // "ms" (default), "s", "us", "rfc3339"
	Service     string `json:"service,omitempty"`    // column holding the service name
	Origin      string `json:"origin,omitempty"`     // column holding the LMID
	ServiceMS   string `json:"service_ms,omitempty"` // column holding the service time
	ServiceUnit string `json:"service_unit,omitempty"`
	Prio        string `json:"prio,omitempty"`
	ID          string `json:"id,omitempty"`
	Route       string `json:"route,omitempty"`     // column holding the routing value
	BufType     string `json:"buftype,omitempty"`   // column holding the buffer type
	Delimiter   string `json:"delimiter,omitempty"` // one character, default ","
	// Observed is the column holding the response time the log observed
	// (ms): the result's validation compares the run's with it.
	Observed string `json:"observed,omitempty"`
	// DateOrder reads dates written with the year last: "dmy" or "mdy"
	// ("": the data decides).
	DateOrder string `json:"date_order,omitempty"`
	// TZ is the zone of times written without one, e.g. Europe/Paris ("": UTC).
	TZ string `json:"tz,omitempty"`
	// Status is the column holding each request's outcome (OK, FAIL,
	// TPESVCFAIL, rc 0 or -1...): a failed row is replayed, but its
	// observed response is left out of the validation.
	Status string `json:"status,omitempty"`
	// DrawServiceTimes (no JSON: set by calibrate for its replay) leaves
	// the log's service time column unread, so that every row's service
	// time is drawn from the scenario's distributions (trace.Columns).
	DrawServiceTimes bool `json:"-"`
}

// Generator is the generated part of a workload (workload.generate):
// independent streams of requests, each drawing its own arrivals, for
// DurationMS.
type Generator struct {
	DurationMS float64  `json:"duration_ms"`
	Streams    []Stream `json:"streams"`
	// Clients are closed-loop populations: people at terminals who issue a
	// request, wait for its outcome, think, and issue the next.
	Clients []ClientSet `json:"clients,omitempty"`
}

// Stream is one generated arrival process for one service from one machine.
type Stream struct {
	Service  string  `json:"service"`
	Origin   string  `json:"origin,omitempty"`
	Arrivals string  `json:"arrivals"` // poisson, constant, bursty, mmpp
	RatePerS float64 `json:"rate_per_s,omitempty"`
	// bursty: on/off periods (exponential, with these means) during which the
	// stream runs at RatePerS; off periods send nothing.
	OnMS  *float64 `json:"on_ms,omitempty"`
	OffMS *float64 `json:"off_ms,omitempty"`
	// mmpp: a two-state Markov-modulated Poisson process.
	Rates   []float64   `json:"rates_per_s,omitempty"`   // rate in state 0 and 1
	MeanMS  []float64   `json:"state_mean_ms,omitempty"` // mean sojourn in each state
	Profile []RatePoint `json:"profile,omitempty"`       // a rate that changes over time (piecewise linear)
	Prio    *int        `json:"prio,omitempty"`
	// Route draws the routing value of each request, for a service with a
	// routing criterion (docs/scenario.md).
	Route *RouteSpec `json:"route,omitempty"`
	// BufType is the requests' buffer type ("FML32", "VIEW:acct"): it picks
	// the entry of a criterion whose *ROUTING entries differ by BUFTYPE.
	BufType string `json:"buftype,omitempty"`
	// Enqueue ("QSPACE:Q"), instead of Service, makes each request a
	// tpenqueue of a /Q message in queue Q of queue space QSPACE.
	Enqueue string `json:"enqueue,omitempty"`
}

// RatePoint is a point of a rate profile: from AtMS on the rate moves linearly
// towards the next point (or stays, after the last one). A step is two points
// at the same time.
type RatePoint struct {
	AtMS     float64 `json:"at_ms"`
	RatePerS float64 `json:"rate_per_s"`
}

// QSpaceSpec is a /Q queue space of the scenario: its queues, the error
// queue that receives messages whose retries are exhausted (none: they are
// dropped), and how long an enqueue takes (default const 0).
type QSpaceSpec struct {
	Queues      map[string]QueueSpec `json:"queues"`
	ErrorQueue  string               `json:"error_queue,omitempty"`
	EnqueueTime *Dist                `json:"enqueue_time,omitempty"`
}

// QueueSpec is one /Q queue: how many times a failed forward of one of
// its messages is retried (default 0) and how long after each failure the
// message is available again (default 0), as qmadmin's qcreate gives them.
type QueueSpec struct {
	Retries      *int     `json:"retries,omitempty"`
	RetryDelayMS *float64 `json:"retry_delay_ms,omitempty"`
}
