// Package result is the result document of a run as Go types (Result and
// its parts, Explanation) with its one encoding (Encode: the same bytes
// from the CLI, the API and the page), and the figures table every
// summary of a run is read by (Figures, ParseFigure, HeadlineFigures): the
// headline, replications combined (CombineReplications), sweeps, compare
// and objectives all name a figure as the table does.
package result

import "github.com/tuxlb/tuxlb/core/scenario"

// Result is what a run reports (docs/engine.md). It is the JSON that `tuxlb run`
// prints, that the REST API stores and that the playground draws; its field
// names are part of the contract. Times are in milliseconds unless named _us.
type Result struct {
	Name          string          `json:"name,omitempty"`
	EngineVersion string          `json:"engine_version"`
	Model         string          `json:"model"` // SHM or MP
	LDBAL         bool            `json:"ldbal"`
	Policy        string          `json:"policy"`
	Seed          uint64          `json:"seed"`
	Tuning        scenario.Tuning `json:"tuning"`    // the tuning that ran, every field filled in
	SpanMS        float64         `json:"span_ms"`   // from time 0 to the last event
	WarmupMS      float64         `json:"warmup_ms"` // requests issued before this are not in the statistics
	// WarmupDetected says warmup_ms was "auto": WarmupMS is the transient
	// MSER-5 found on this run's response series.
	WarmupDetected bool `json:"warmup_detected,omitempty"`
	// Headline is the figures of the figures table that sum the run up,
	// by name (docs/engine.md#figures): every figure a sweep samples for
	// the whole run is a key of it.
	Headline map[string]float64 `json:"headline"`

	Requests   RequestCounts `json:"requests"`
	WaitMS     Summary       `json:"wait_ms"`     // enqueue to start
	ResponseMS Summary       `json:"response_ms"` // issue to reply

	Servers  []ServerStats  `json:"servers"`
	Queues   []QueueStats   `json:"queues"`
	Services []ServiceStats `json:"services"`
	Machines []MachineStats `json:"machines"`
	// Flows counts the requests issued by origin machine, the machine of the
	// queue chosen for them ("" when they failed at their issue) and the
	// dispatch reason; they sum to requests.issued.
	Flows []Flow `json:"flows"`
	// Clients is one entry per client set, in the scenario's order.
	Clients []ClientStats `json:"clients,omitempty"`
	// Workstation is one entry per WSL of the configuration, in scan order,
	// when some client set connects through one (via): the handlers it
	// started and the clients each holds.
	Workstation []WorkstationStats `json:"workstation,omitempty"`
	// Transactions counts the transactions AUTOTRAN started; absent when
	// no *SERVICES entry has AUTOTRAN=Y.
	Transactions *TransactionStats `json:"transactions,omitempty"`
	// QSpaces is one entry per queue space of the scenario's qspaces, by
	// name, each with its queues by name: what was enqueued, forwarded,
	// retried, moved to the error queue and dropped, the depth and the time
	// in queue. Absent when the scenario has no qspaces.
	QSpaces []QSpaceStats `json:"qspaces,omitempty"`
	Balance Balance       `json:"balance"`
	Series  Series        `json:"series"`

	// Lifecycle lists every change of an instance's state, in time order;
	// absent when the run has no scenario events, SVCTIMEOUT or -p.
	Lifecycle []LifeChange `json:"lifecycle,omitempty"`
	// MachineChanges lists the machines lost, noticed lost by the DBBL, and
	// restored; absent when no machine was lost.
	MachineChanges []MachineChange `json:"machine_changes,omitempty"`

	// Trace says what reading the workload's trace found; absent when the
	// workload has none.
	Trace *TraceRead `json:"trace,omitempty"`
	// Validation compares, for the trace rows whose log gave the response it
	// observed, the log's responses with the run's; absent when the log has
	// no observed response column.
	Validation *Validation `json:"validation,omitempty"`

	Replications *Replications `json:"replications,omitempty"`
	Warnings     []string      `json:"warnings"`
}

// TraceRead is what reading a trace found: the rows played and, with
// workload.trace_skip_bad, the rows skipped and why (the first few, each
// "row N: why", N counted from the first row after the header).
type TraceRead struct {
	Rows            int      `json:"rows"`
	Skipped         int      `json:"skipped"`
	SkippedExamples []string `json:"skipped_examples"`
	// Columns says how each column of a log's header was read, by its name
	// as written: the field it gave (workload.columns' names: time,
	// service, origin, service_ms, observed...) or "ignored"; absent for
	// rows given as JSON. A response column ("Elapsed(ms)": "observed") is
	// seen there not to be the service time.
	Columns map[string]string `json:"columns,omitempty"`
}

// Validation is a replay's check against the log it replays: per service
// (in the model's order, those with observed rows) and overall, the
// responses the log observed and the run's, over the same trace rows (those
// issued at or after FromMS: the warm-up, or validation.after_ms when later),
// each figure with its 95% interval, and a verdict against the tolerances
// (docs/scenario.md#replay-validation). Simulated counts only the rows that
// completed; the failed ones are in requests.failed.
type Validation struct {
	Overall  ValidationRow   `json:"overall"`
	Services []ValidationRow `json:"services"`
	// FromMS and ToMS are the validation window: rows issued at or after
	// FromMS are compared; ToMS, the last observed row's issue time, ends
	// the window the throughputs are counted over.
	// (Pointers and omitempty, here and in ValidationRow, only so that the
	// fields added to the block are optional to a reader of its older form:
	// a result always has them.)
	FromMS *float64 `json:"from_ms,omitempty"`
	ToMS   *float64 `json:"to_ms,omitempty"`
	// Replications is how many runs the simulated figures are the mean of
	// (1: one run, no simulated interval).
	Replications int         `json:"replications,omitempty"`
	Tolerance    *Tolerances `json:"tolerance,omitempty"` // the relative tolerance of each figure
	// Verdict is the worst of the services' verdicts: "pass", "inconclusive"
	// or "fail".
	Verdict string `json:"verdict,omitempty"`
}

// ValidationRow compares observed and simulated responses (ms) of one
// service, or of all ("" service).
type ValidationRow struct {
	Service   string  `json:"service,omitempty"`
	Observed  Summary `json:"observed"`
	Simulated Summary `json:"simulated"` // with replications, each figure's mean over them
	// RelativeError is (simulated - observed) / observed of each figure; a
	// figure is absent when the observed one is zero or nothing completed.
	RelativeError RelativeErrors `json:"relative_error"`
	// ObservedCI is the 95% interval of each observed figure: the
	// percentiles' from order statistics, the mean's from batch means.
	ObservedCI *Intervals `json:"observed_ci,omitempty"`
	// SimulatedCI is the 95% interval of each simulated figure over the
	// replications (Student's t); absent with one run.
	SimulatedCI *Intervals `json:"simulated_ci,omitempty"`
	// RelativeCI is the interval of (simulated - observed) / observed that
	// the two intervals allow: [sim_lo/obs_hi - 1, sim_hi/obs_lo - 1].
	RelativeCI *Intervals `json:"relative_ci,omitempty"`
	// Verdicts judges each figure's RelativeCI against its tolerance t:
	// "pass" inside [-t, t], "fail" wholly outside, else "inconclusive".
	Verdicts *FigureVerdicts `json:"verdicts,omitempty"`
	Verdict  string          `json:"verdict,omitempty"` // the worst of Verdicts
	// ThroughputPerS is the requests per second of the row's trace rows
	// that completed within the validation window, observed and simulated.
	ThroughputPerS *Throughput `json:"throughput_per_s,omitempty"`
	// KS is the two-sample Kolmogorov–Smirnov test of the observed against
	// the simulated batch means; absent with fewer than 2 batches a side.
	KS *KSTest `json:"ks,omitempty"`

	// ObservedBatches and SimulatedBatches are the batch means (ms) the KS
	// test compares: consecutive rows by issue time, the same rows on both
	// sides (the simulated of every replication).
	ObservedBatches  []float64 `json:"-"`
	SimulatedBatches []float64 `json:"-"`
}

// RelativeErrors are the relative errors of a ValidationRow's figures.
type RelativeErrors struct {
	Mean *float64 `json:"mean,omitempty"`
	P50  *float64 `json:"p50,omitempty"`
	P95  *float64 `json:"p95,omitempty"`
	P99  *float64 `json:"p99,omitempty"`
}

// Interval is a closed interval [Lo, Hi].
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Intervals are the intervals of a ValidationRow's figures; a figure is
// absent when it has none.
type Intervals struct {
	Mean *Interval `json:"mean,omitempty"`
	P50  *Interval `json:"p50,omitempty"`
	P95  *Interval `json:"p95,omitempty"`
	P99  *Interval `json:"p99,omitempty"`
	Max  *Interval `json:"max,omitempty"`
}

// FigureVerdicts are the verdicts of a ValidationRow's figures.
type FigureVerdicts struct {
	Mean string `json:"mean"`
	P50  string `json:"p50"`
	P95  string `json:"p95"`
	P99  string `json:"p99"`
}

// Tolerances are the relative tolerances of the judged figures (0.1: 10%).
type Tolerances struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
}

// Throughput is a rate observed and simulated.
type Throughput struct {
	Observed  float64 `json:"observed"`
	Simulated float64 `json:"simulated"`
}

// KSTest is a two-sample Kolmogorov–Smirnov test: the batches of each
// side, the statistic D and its exact p-value.
type KSTest struct {
	ObservedBatches  int     `json:"observed_batches"`
	SimulatedBatches int     `json:"simulated_batches"`
	Statistic        float64 `json:"statistic"`
	PValue           float64 `json:"p_value"`
}

// RequestCounts counts requests by outcome. Issued = Completed + sum(Failed);
// TimedOut counts completed requests whose reply came after BLOCKTIME.
type RequestCounts struct {
	Issued    int64            `json:"issued"`
	Completed int64            `json:"completed"`
	Failed    map[string]int64 `json:"failed"` // reason -> count, e.g. {"TPENOENT": 3}
	TimedOut  int64            `json:"timed_out"`
	// In runs with calls or clients: the requests servers issued (nested,
	// counted in Issued too) and the retries clients issued.
	Nested  *int64 `json:"nested,omitempty"`
	Retried *int64 `json:"retried,omitempty"`
	// In runs whose calls have a noreply step: the requests issued with
	// TPNOREPLY (counted in Nested too), whose replies nobody waits for.
	Noreply *int64 `json:"noreply,omitempty"`
}

// Summary describes a distribution of durations in milliseconds. Mean and Max
// are exact; percentiles come from a fixed-memory histogram (see docs).
type Summary struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

// TransactionStats counts the transactions started after the warm-up:
// those committed (with one participant, or in two phases), those aborted
// (at their TRANTIME, or because their owner failed), the mean number of
// participant groups, and the time from a commit's start to its owner's
// end.
type TransactionStats struct {
	Started          int64         `json:"started"`
	Committed        int64         `json:"committed"`
	OnePhase         int64         `json:"one_phase"`
	TwoPhase         int64         `json:"two_phase"`
	Aborted          AbortedCounts `json:"aborted"`
	ParticipantsMean float64       `json:"participants_mean"`
	CommitMS         Summary       `json:"commit_ms"`
	// CommitHistogram is the commits' times for charts, as a service's
	// histogram is its responses'.
	CommitHistogram Histogram `json:"commit_histogram"`
}

// QSpaceStats is one /Q queue space: its queues, by name.
type QSpaceStats struct {
	Name   string          `json:"name"`
	Queues []MsgQueueStats `json:"queues"`
}

// MsgQueueStats is one /Q queue: its messages stored by enqueues, forwarded
// (deleted with their forward's commit), put back for a retry, moved to the
// error queue and dropped (retries exhausted without an error queue, or
// deleted by -d on TPESVCFAIL); its depth, and each forwarded message's time
// in the queue, from its first storing there to the forwarder taking it for
// the attempt that succeeded.
type MsgQueueStats struct {
	Name          string     `json:"name"`
	Enqueued      int64      `json:"enqueued"`
	Forwarded     int64      `json:"forwarded"`
	Retried       int64      `json:"retried"`
	ToErrorQueue  int64      `json:"to_error_queue"`
	Dropped       int64      `json:"dropped"`
	Depth         QueueDepth `json:"depth"`
	TimeInQueueMS Summary    `json:"time_in_queue_ms"`
}

// QueueDepth is a /Q queue's depth, the messages stored and not held by a
// forwarder (those waiting out a retry delay included): its largest, its
// mean over the measured span, and its mean in each bin of the run's
// series.
type QueueDepth struct {
	Max    int64     `json:"max"`
	Mean   float64   `json:"mean"`
	Series []float64 `json:"series"`
}

// AbortedCounts are the transactions aborted, by cause.
type AbortedCounts struct {
	Timeout int64 `json:"timeout"`
	Failed  int64 `json:"failed"`
}

// ServerStats is the work of one server instance.
type ServerStats struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Group string `json:"group"`
	LMID  string `json:"lmid"`
	Queue string `json:"queue"`
	// Spare marks an instance past MIN: gone (serving nothing) until a boot
	// event or -p spawning brings it up.
	Spare bool `json:"spare,omitempty"`
	// TMS marks one of a group's TMS servers (transactions' prepare,
	// commit and abort requests).
	TMS         bool     `json:"tms,omitempty"`
	Requests    int64    `json:"requests"`  // requests processed
	LoadDone    int64    `json:"load_done"` // sum of LOAD of requests processed (tmadmin's "Load Done")
	BusyMS      float64  `json:"busy_ms"`
	Utilization float64  `json:"utilization"` // busy time over the simulated span
	Share       float64  `json:"share"`       // fraction of all processed requests
	Chosen      int64    `json:"chosen"`      // times the dispatch chose this instance
	Services    []string `json:"services"`    // services it advertises
	// Done counts the requests processed per service (tmadmin printservice's
	// "# Done"), services in name order, only those with requests.
	Done []ServiceCount `json:"done,omitempty"`
	// In runs where instances change state: the state at the end, the time
	// up (or stopping) between the warm-up and the span, and the busy time
	// over that up time.
	State         string   `json:"state,omitempty"`
	UpMS          *float64 `json:"up_ms,omitempty"`
	UpUtilization *float64 `json:"up_utilization,omitempty"`
	// HeldMS is, in runs with calls, the time it held a request while
	// waiting for the replies of its nested requests (part of BusyMS).
	HeldMS *float64 `json:"held_ms,omitempty"`
	// In runs where some instance has more than one dispatch thread
	// (MAXDISPATCHTHREADS): its threads (k), MINDISPATCHTHREADS, and the
	// most threads busy at once over the run. BusyMS and HeldMS then sum
	// over threads and Utilization is BusyMS over k times the span.
	Threads     *int `json:"threads,omitempty"`
	MinThreads  *int `json:"min_threads,omitempty"`
	ThreadsUsed *int `json:"threads_used,omitempty"`
	// ByThread gives each thread's figures, for an instance with k > 1.
	ByThread []ThreadStats `json:"by_thread,omitempty"`
}

// ThreadStats is one dispatch thread of a multithreaded instance: the
// requests it processed, its busy time and the part of it spent holding a
// request for replies.
type ThreadStats struct {
	Thread   int     `json:"thread"` // 1..k
	Requests int64   `json:"requests"`
	BusyMS   float64 `json:"busy_ms"`
	HeldMS   float64 `json:"held_ms"`
}

// ServiceCount is a number of requests of one service.
type ServiceCount struct {
	Service  string `json:"service"`
	Requests int64  `json:"requests"`
}

// QueueStats is one request queue.
type QueueStats struct {
	Name      string   `json:"name"`
	Group     string   `json:"group"`
	LMID      string   `json:"lmid"`
	Servers   []string `json:"servers"` // instances on this queue
	Enqueued  int64    `json:"enqueued"`
	MaxLength int64    `json:"max_length"` // waiting requests, not counting those in service
	AvgLength float64  `json:"avg_length"` // time-averaged over the span
	WaitMS    Summary  `json:"wait_ms"`
}

// ServiceStats is one service's requests.
type ServiceStats struct {
	Name       string           `json:"name"`
	Load       int              `json:"load"`
	Prio       int              `json:"prio"`
	Issued     int64            `json:"issued"`
	Completed  int64            `json:"completed"`
	Failed     map[string]int64 `json:"failed"`
	TimedOut   int64            `json:"timed_out"`
	WaitMS     Summary          `json:"wait_ms"`
	ResponseMS Summary          `json:"response_ms"`
	// Histogram of response times for charts: Bounds[i] is the upper edge (ms)
	// of bucket i, Counts[i] its count.
	Histogram Histogram `json:"histogram"`
	// CallsIssued is, in runs with calls, the nested requests its servers
	// issued as a caller.
	CallsIssued *int64 `json:"calls_issued,omitempty"`
}

// Histogram is a bucketed distribution for charts.
type Histogram struct {
	BoundsMS []float64 `json:"bounds_ms"`
	Counts   []int64   `json:"counts"`
}

// Flow is one cell of the result's flows: requests from Origin sent to a
// queue on Machine, chosen for Reason (first, idle, least-load, a policy's
// name; TPENOENT or TPESYSTEM with no machine).
type Flow struct {
	Origin   string `json:"origin"`
	Machine  string `json:"machine"`
	Reason   string `json:"reason"`
	Requests int64  `json:"requests"`
}

// ClientStats counts the outcomes the clients of one set saw. Requests =
// Completed + the sum of Failed + TimedOut; CycleMS is the mean response
// plus the mean think (and backoff) time, so that Little's law N = X·(R + Z)
// can be read off: Count ≈ Requests / span × CycleMS.
type ClientStats struct {
	Name           string           `json:"name"`
	Count          int              `json:"count"`
	Requests       int64            `json:"requests"`
	Completed      int64            `json:"completed"`
	Failed         map[string]int64 `json:"failed"` // TPETIME excluded: that is TimedOut
	TimedOut       int64            `json:"timed_out"`
	Retried        int64            `json:"retried"`
	ThroughputPerS float64          `json:"throughput_per_s"` // completed requests per second of the run
	ResponseMS     Summary          `json:"response_ms"`      // issue to the outcome the client saw
	CycleMS        float64          `json:"cycle_ms"`
	// NotConnected counts the set's clients that found no room at their
	// WSL (via) when the run started: they issued nothing. Absent for a
	// set without via.
	NotConnected *int `json:"not_connected,omitempty"`
}

// WorkstationStats is one WSL's connections: the handlers (WSH) it
// started, the clients each holds (in handler order), and the clients that
// found no room.
type WorkstationStats struct {
	ID           string `json:"id"`      // its first instance, GROUP/SRVID: the one that takes clients
	Machine      string `json:"machine"` // its LMID
	Handlers     int    `json:"handlers"`
	Clients      []int  `json:"clients"`
	NotConnected int    `json:"not_connected"`
}

// MachineStats is one machine's share of the work and of the network traffic.
type MachineStats struct {
	LMID     string `json:"lmid"`
	NetLoad  int    `json:"netload"`
	Issued   int64  `json:"issued"`   // requests whose origin is this machine
	Served   int64  `json:"served"`   // requests processed by servers on this machine
	Local    int64  `json:"local"`    // issued here and processed here
	Sent     int64  `json:"sent"`     // issued here, sent to a queue on another machine
	Received int64  `json:"received"` // issued elsewhere, received into a queue here
	// Utilization is the mean utilization of the machine's application
	// servers that could take a requested service (gateways and system
	// servers left out); 0 when it has none.
	Utilization float64 `json:"utilization"`
}

// Balance measures how evenly the work spread over the servers that could take it.
type Balance struct {
	JainUtilization float64 `json:"jain_utilization"` // Jain's fairness index over server utilizations, 1 = even
	MaxOverMean     float64 `json:"max_over_mean"`    // max utilization / mean utilization
}

// BalanceOf is Jain's fairness index and max/mean over the utilizations of
// the servers that are eligible (those that advertise a requested service
// and ran).
func BalanceOf(servers []ServerStats, eligible []bool) Balance {
	var n, sum, sq, mx float64
	for i := range servers {
		if !eligible[i] {
			continue
		}
		u := servers[i].Utilization
		n++
		sum += u
		sq += float64(u * u) // float64(): no fused multiply-add, same bits on every platform
		mx = max(mx, u)
	}
	if n == 0 || sq == 0 {
		return Balance{}
	}
	return Balance{JainUtilization: round6(sum * sum / (n * sq)), MaxOverMean: round6(mx / (sum / n))}
}

// Series are fixed-width time bins for charts. Each slice has one value per bin.
type Series struct {
	BinMS    float64         `json:"bin_ms"`
	StartMS  []float64       `json:"start_ms"`               // start of each bin
	Queue    []NamedSeries   `json:"queue_length"`           // time-averaged waiting requests per queue
	Util     []NamedSeries   `json:"utilization"`            // busy fraction per server
	Dispatch []NamedSeries   `json:"dispatches"`             // requests chosen per server per bin
	Counters []CounterSeries `json:"mp_counters,omitempty"`  // MP: C_m(q) at the end of each bin
	ResetsMS []float64       `json:"mp_resets_ms,omitempty"` // MP: times of counter resets
	// Failures counts the requests failed in each bin, one line per failure
	// code that occurred (by when the failure happened), in runs where
	// instances change state; absent when none failed.
	Failures []NamedSeries `json:"failures,omitempty"`
	// Summarised is set when some lists were cut to the busiest lines
	// (more than SeriesSummary.Limit of a kind, and not every line asked
	// for): how many lines of each kind were left out.
	Summarised *SeriesSummary `json:"summarised,omitempty"`
}

// SeriesSummary says how a result's series were cut: past Limit lines of a
// kind, the Limit busiest are kept (by their total over the run: queue
// length, busy time, peak counter) in their usual order, and for queues
// and servers one more line named "others" stands for those left out (the
// sum of their queue lengths and dispatches, the mean of their
// utilizations). Counters has no such line.
type SeriesSummary struct {
	Limit    int `json:"limit"`
	Queues   int `json:"queues,omitempty"`   // queue_length lines left out, in "others"
	Servers  int `json:"servers,omitempty"`  // utilization and dispatches lines left out, in "others"
	Counters int `json:"counters,omitempty"` // mp_counters lines left out
}

// NamedSeries is one line of a chart.
type NamedSeries struct {
	Name   string    `json:"name"`
	Values []float64 `json:"values"`
}

// CounterSeries is the MP counter that machine Machine keeps for queue Queue.
type CounterSeries struct {
	Machine string    `json:"machine"`
	Queue   string    `json:"queue"`
	Values  []float64 `json:"values"`
}

// Replications reports k runs with derived seeds: mean and 95% confidence
// half-width of the headline figures.
type Replications struct {
	K       int               `json:"k"`
	Seeds   []uint64          `json:"seeds"`
	Figures map[string]MeanCI `json:"figures"` // the replicated figures of the figures table: "wait_mean_ms", "response_p95_ms", "utilization_max"...
}

// MeanCI is a mean with the half-width of its 95% confidence interval.
type MeanCI struct {
	Mean      float64 `json:"mean"`
	HalfWidth float64 `json:"ci95"`
}

// LifeChange is one change of an instance's life-cycle state, as the result
// lists them in time order (docs/engine.md, "Life cycle").
type LifeChange struct {
	AtUS   int64   `json:"at_us"`
	AtMS   float64 `json:"at_ms"`
	Server string  `json:"server"` // GROUP/SRVID
	From   string  `json:"from"`   // up, down, restarting, stopping, booting, gone
	To     string  `json:"to"`
	// Cause: kill, shutdown, boot (scenario events), SVCTIMEOUT, restart,
	// RESTART=N, MAXGEN (what the BBL decided when it noticed a crash),
	// booted (came up), spawn, decay (-p), lose and restore (its machine
	// was lost or came back).
	Cause string `json:"cause"`
}

// MachineChange is a change of a whole machine: lost (it and its BBL
// stopped), noticed (the DBBL found it gone: its instances are no longer
// candidates), restored.
type MachineChange struct {
	AtUS   int64   `json:"at_us"`
	AtMS   float64 `json:"at_ms"`
	LMID   string  `json:"lmid"`
	Change string  `json:"change"`
}
