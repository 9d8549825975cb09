// The JSON shapes the playground reads and writes, generated from the Go types
// (core, core/ubb, core/sweep) with their doc comments by
// `go test ./internal/contractgen -update`: do not edit, change the Go type and
// rerun it (docs/architecture.md, "The generated contract").

/**
 * Scenario is the scenario document of docs/scenario.md: a configuration, a workload and the knobs
 * of one run. It is read strictly (an unknown field is an error) by core.ParseScenario, which also
 * checks it.
 */
export interface Scenario {
  name?: string;
  ubbconfig: string;
  dmconfig?: string;
  /** server name -> services */
  advertise?: Record<string, string[]>;
  services?: Record<string, ServiceSpec>;
  machines?: Record<string, MachineSpec>;
  network?: NetworkSpec;
  domains?: Record<string, DomainSpec>;
  /** Transactions times the TMS servers' work (docs/scenario.md). */
  transactions?: TransactionsSpec;
  tuning?: Tuning;
  /** tuxedo (default) or a comparison policy (docs/engine.md) */
  policy?: string;
  /** default 1 */
  seed?: number;
  workload: Workload;
  /**
   * Events are what happens to server instances during the run: kills, shutdowns and boots, in time
   * order (docs/scenario.md).
   */
  events?: LifeEvent[];
  /**
   * Workstation is the timing of the workstation front end, for client sets that connect through a
   * WSL (docs/scenario.md).
   */
  workstation?: WorkstationSpec;
  /**
   * QSpaces are the /Q queue spaces' queues, by the name of a queue space that TMQUEUE servers
   * advertise (docs/scenario.md): read and checked, not yet simulated.
   */
  qspaces?: Record<string, QSpaceSpec>;
  /** Analysis knobs (docs/scenario.md). */
  warmup_ms?: Warmup;
  /** k runs with derived seeds; 0 or 1 = one run */
  replications?: number;
  /** time-series bin width; default: span/120, rounded to a nice value */
  bin_ms?: number;
  /**
   * Validation is how a replay is judged against its log's observed responses
   * (docs/scenario.md#replay-validation).
   */
  validation?: ValidationOptions;
}

/**
 * ServiceSpec gives a service's timing. ServiceTime applies everywhere unless ByGroup has an entry
 * for the group of the server that processes the request.
 */
export interface ServiceSpec {
  service_time?: Dist;
  by_group?: Record<string, Dist>;
  /**
   * Calls are what a server does after its own work for the service: nested tpcall, tpacall and
   * tpforward steps, in order (docs/scenario.md).
   */
  calls?: CallStep[];
}

/**
 * Dist is a probability distribution of durations in milliseconds. Dist is one of: const (MS), exp
 * (MeanMS), uniform (MinMS, MaxMS), lognormal (MeanMS, SDMS), empirical (SamplesMS), gamma (MeanMS,
 * SDMS or Shape), erlang (MeanMS, K).
 */
export interface Dist {
  dist: string;
  ms?: number;
  mean_ms?: number;
  min_ms?: number;
  max_ms?: number;
  sd_ms?: number;
  shape?: number;
  k?: number;
  samples_ms?: number[];
}

/**
 * CallStep is one step a server runs after its own work for a service: a nested request of Service,
 * issued as Mode says, with probability P, and the routing value Route.
 */
export interface CallStep {
  service: string;
  /** tpcall (default), tpacall, tpforward */
  mode?: string;
  /** 0 < p <= 1, default 1 */
  p?: number;
  route?: CallRoute;
  /**
   * NoReply (tpacall steps only) issues the child with TPNOREPLY: nobody waits for it, and its
   * reply is never sent.
   */
  noreply?: boolean;
  /**
   * Enqueue ("QSPACE:Q"), instead of Service, is a tpenqueue: a request of the queue space, waited
   * for like a tpcall, that stores a /Q message in queue Q.
   */
  enqueue?: string;
}

/**
 * A nested request's routing value: "inherit" (the default), a constant, or drawn as a stream's
 * route.
 */
export type CallRoute = "inherit" | number | string | RouteSpec;

/**
 * RouteSpec is how a generated stream of a routed service draws its routing values: from a
 * distribution of numbers (Dist with its parameters) or from a weighted list of values (Values,
 * Weights). Numbers are whole unless Integer is false.
 */
export interface RouteSpec {
  /** uniform (min, max), normal (mean, sd), exp (mean) */
  dist?: string;
  min?: number;
  max?: number;
  mean?: number;
  sd?: number;
  /** default true: draws are rounded to whole numbers */
  integer?: boolean;
  values?: RouteValue[];
  /** one per value, default all 1 */
  weights?: number[];
}

/** A routing value: a string, or a number kept as written. */
export type RouteValue = string | number;

/**
 * MachineSpec modifies a machine of the UBBCONFIG: Speed divides service times; Env is the
 * environment its processes run with (what its ENVFILE sets, which the UBBCONFIG does not hold):
 * TMNETLOAD there replaces the machine's NETLOAD; other variables are not read.
 */
export interface MachineSpec {
  /** default 1, must be > 0 */
  speed?: number;
  env?: Record<string, string>;
}

/** NetworkSpec is the network between machines. */
export interface NetworkSpec {
  /** one way, >= 0 */
  latency_ms: number;
}

/**
 * DomainSpec is a remote domain: how long it takes to answer, and when it is down (a gateway then
 * fails over to the next domain of an import's RDOM list, or fails the request with TPESVCERR).
 */
export interface DomainSpec {
  response_time: Dist;
  down?: DownInterval[];
}

/**
 * DownInterval is a time the remote domain is down: from FromMS (included) to ToMS (excluded);
 * without ToMS, to the end of the run.
 */
export interface DownInterval {
  from_ms: number;
  to_ms?: number;
}

/**
 * TransactionsSpec times the work of transactions: TMSTime is what one request to a TMS server
 * (prepare, commit or abort) costs, before the machine's speed; default const 1 ms.
 */
export interface TransactionsSpec {
  tms_time?: Dist;
}

/**
 * Tuning selects between readings of Tuxedo behaviour that is not publicly documented in
 * docs/engine.md (readings where Tuxedo's own documentation is silent). Nil fields take the
 * defaults.
 */
export interface Tuning {
  /** "server" (default) or "queue" */
  idle?: string;
  /** "server" (default) or "origin" */
  netload?: string;
  /** "load+netload" (default) or "load" */
  mp_counter?: string;
  /**
   * MTIdle is when an instance with more than one dispatch thread looks idle under Idle "server":
   * "server" (default: a thread is free) or "no_request" (no thread holds a request). The result
   * shows it only for runs with such an instance.
   */
  mt_idle?: string;
  mp_reset_ms?: number;
  /** default 0.1 */
  gateway_forward_ms?: number;
  /**
   * BootMS is how long a booted or restarted instance takes to come up (default 1000). The result
   * shows it only for runs where instances change state.
   */
  boot_ms?: number;
  /**
   * QueueCapacity bounds every request queue (requests waiting); a request whose queue is full is
   * retried by its sender every EnqueueRetryMS (default 1000) until it fits or its deadline passes.
   * Absent: unbounded.
   */
  queue_capacity?: number;
  enqueue_retry_ms?: number;
}

/**
 * Workload is the requests of a run: a trace (CSV or JSON rows), generated streams, or both, merged
 * by time with trace rows first at equal times.
 */
export interface Workload {
  trace_csv?: string;
  trace?: TraceRow[];
  /** optional mapping for imported logs */
  columns?: TraceMap;
  /**
   * TraceSkipBad skips the rows of trace_csv that cannot be read (a trailing total line, "n/a", an
   * unknown service) and counts them in the result's trace block, instead of stopping at the first;
   * a row out of time order is played in its place, as without it.
   */
  trace_skip_bad?: boolean;
  /**
   * TraceRateScale plays the trace (trace_csv or trace) that many times faster: its issue times are
   * divided by it, so 1.5 is the same requests at 1.5 times the rate. Absent means 1.
   */
  trace_rate_scale?: number;
  generate?: Generator;
}

/** TraceRow is one request of a trace given as JSON. */
export interface TraceRow {
  time_ms: number;
  service: string;
  origin?: string;
  service_ms?: number;
  prio?: number;
  id?: string;
  /**
   * Route is the routing field's value (a string or a number), for a service with a routing
   * criterion.
   */
  route?: RouteValue;
  /** BufType is the request's buffer type, TYPE or TYPE:SUBTYPE. */
  buftype?: string;
  /**
   * Enqueue ("QSPACE:Q"), instead of Service, stores a /Q message in queue Q of queue space QSPACE
   * (a tpenqueue).
   */
  enqueue?: string;
}

/**
 * TraceMap maps the columns of a foreign request log onto trace fields, and says the unit of its
 * times, so a production log can be read unedited.
 */
export interface TraceMap {
  /** column holding the issue time */
  time?: string;
  /** "ms" (default), "s", "us", "rfc3339" */
  time_unit?: string;
  /** column holding the service name */
  service?: string;
  /** column holding the LMID */
  origin?: string;
  /** column holding the service time */
  service_ms?: string;
  service_unit?: string;
  prio?: string;
  id?: string;
  /** column holding the routing value */
  route?: string;
  /** column holding the buffer type */
  buftype?: string;
  /** one character, default "," */
  delimiter?: string;
  /**
   * Observed is the column holding the response time the log observed (ms): the result's validation
   * compares the run's with it.
   */
  observed?: string;
  /** DateOrder reads dates written with the year last: "dmy" or "mdy" ("": the data decides). */
  date_order?: string;
  /** TZ is the zone of times written without one, e.g. Europe/Paris ("": UTC). */
  tz?: string;
  /**
   * Status is the column holding each request's outcome (OK, FAIL, TPESVCFAIL, rc 0 or -1...): a
   * failed row is replayed, but its observed response is left out of the validation.
   */
  status?: string;
}

/**
 * Generator is the generated part of a workload (workload.generate): independent streams of
 * requests, each drawing its own arrivals, for DurationMS.
 */
export interface Generator {
  duration_ms: number;
  streams?: Stream[];
  /**
   * Clients are closed-loop populations: people at terminals who issue a request, wait for its
   * outcome, think, and issue the next.
   */
  clients?: ClientSet[];
}

/** Stream is one generated arrival process for one service from one machine. */
export interface Stream {
  service: string;
  origin?: string;
  /** poisson, constant, bursty, mmpp */
  arrivals: string;
  rate_per_s?: number;
  /**
   * bursty: on/off periods (exponential, with these means) during which the stream runs at
   * RatePerS; off periods send nothing.
   */
  on_ms?: number;
  off_ms?: number;
  /** mmpp: a two-state Markov-modulated Poisson process. */
  rates_per_s?: number[];
  /** mean sojourn in each state */
  state_mean_ms?: number[];
  /** a rate that changes over time (piecewise linear) */
  profile?: RatePoint[];
  prio?: number;
  /**
   * Route draws the routing value of each request, for a service with a routing criterion
   * (docs/scenario.md).
   */
  route?: RouteSpec;
  /**
   * BufType is the requests' buffer type ("FML32", "VIEW:acct"): it picks the entry of a criterion
   * whose *ROUTING entries differ by BUFTYPE.
   */
  buftype?: string;
  /**
   * Enqueue ("QSPACE:Q"), instead of Service, makes each request a tpenqueue of a /Q message in
   * queue Q of queue space QSPACE.
   */
  enqueue?: string;
}

/**
 * RatePoint is a point of a rate profile: from AtMS on the rate moves linearly towards the next
 * point (or stays, after the last one). A step is two points at the same time.
 */
export interface RatePoint {
  at_ms: number;
  rate_per_s: number;
}

/**
 * ClientSet is a closed-loop population of Count clients on machine Origin: each thinks (Think),
 * issues a request (drawn from Services by weight, or the next of Script), waits for its outcome,
 * and so on; Retry says which failures it tries again.
 */
export interface ClientSet {
  name: string;
  count: number;
  origin?: string;
  /**
   * Via names the WSL instance (GROUP/SRVID) the clients connect through: they are workstation
   * clients, and their requests enter on the WSL's machine (not with Origin).
   */
  via?: string;
  think?: Dist;
  services?: ClientService[];
  script?: ScriptEntry[];
  retry?: RetrySpec;
}

/** ClientService is one service a client set draws its requests from. */
export interface ClientService {
  service: string;
  /** default 1 */
  weight?: number;
  route?: RouteSpec;
  /** BufType is the requests' buffer type, as a stream's buftype. */
  buftype?: string;
}

/**
 * One entry of a client script: a service name, a service with a constant routing value, or a /Q
 * enqueue (QSPACE:Q).
 */
export type ScriptEntry = string | { service: string; route?: number | string; buftype?: string } | { enqueue: string };

/**
 * RetrySpec is what a client does after a failed request: while fewer than Max retries of it were
 * made and its code is in On, it waits one Backoff draw and issues the same service with the same
 * routing value again.
 */
export interface RetrySpec {
  max?: number;
  /** default ["TPETIME"] */
  on?: string[];
  backoff?: Dist;
}

/**
 * Event is one scenario event: at AtMS, kill, shut down or boot the server instances of a target:
 * "GROUP/SRVID", "group:GROUP" or "machine:LMID"; or lose or restore a machine. Exactly one of
 * Kill, Shutdown, Boot, Lose and Restore is set.
 */
export interface LifeEvent {
  at_ms: number;
  kill?: string;
  shutdown?: string;
  boot?: string;
  /**
   * Lose and Restore name a machine (LMID) that is lost (it and its BBL stop at once) or comes back
   * (its MIN instances boot).
   */
  lose?: string;
  restore?: string;
}

/**
 * WorkstationSpec is the workstation front end's timing: how long a handler (WSH) takes with each
 * message it passes, a request on its way in and a reply or failure on its way out.
 */
export interface WorkstationSpec {
  /** default const 0 */
  handling_time?: Dist;
}

/**
 * QSpaceSpec is a /Q queue space of the scenario: its queues, the error queue that receives
 * messages whose retries are exhausted (none: they are dropped), and how long an enqueue takes
 * (default const 0).
 */
export interface QSpaceSpec {
  queues: Record<string, QueueSpec> | null;
  error_queue?: string;
  enqueue_time?: Dist;
}

/**
 * QueueSpec is one /Q queue: how many times a failed forward of one of its messages is retried
 * (default 0) and how long after each failure the message is available again (default 0), as
 * qmadmin's qcreate gives them.
 */
export interface QueueSpec {
  retries?: number;
  retry_delay_ms?: number;
}

/**
 * Milliseconds from the start whose requests the statistics leave out, or "auto": the transient
 * MSER-5 finds.
 */
export type Warmup = number | "auto";

/**
 * ValidationOptions are how a replay is judged against the responses its log observed: the hold-out
 * window and the tolerances of the verdicts.
 */
export interface ValidationOptions {
  /**
   * AfterMS compares only the trace rows issued at or after it (from the log's time 0); the warm-up
   * applies too, the later of the two.
   */
  after_ms?: number;
  /** Tolerance is each figure's relative tolerance (0.1: 10%). */
  tolerance?: Tolerance;
}

/**
 * Tolerance gives the relative tolerance of the validation's figures: Default for those not named
 * (itself 0.1 when absent), each in (0, 10].
 */
export interface Tolerance {
  default?: number;
  mean?: number;
  p50?: number;
  p95?: number;
  p99?: number;
}

/**
 * Result is what a run reports (docs/engine.md). It is the JSON that `tuxlb run` prints, that the
 * REST API stores and that the playground draws; its field names are part of the contract. Times
 * are in milliseconds unless named _us.
 */
export interface Result {
  name?: string;
  engine_version: string;
  /** SHM or MP */
  model: string;
  ldbal: boolean;
  policy: string;
  seed: number;
  /** the tuning that ran, every field filled in */
  tuning: Tuning;
  /** from time 0 to the last event */
  span_ms: number;
  /** requests issued before this are not in the statistics */
  warmup_ms: number;
  /**
   * WarmupDetected says warmup_ms was "auto": WarmupMS is the transient MSER-5 found on this run's
   * response series.
   */
  warmup_detected?: boolean;
  /**
   * Headline is the figures of the figures table that sum the run up, by name
   * (docs/engine.md#figures): every figure a sweep samples for the whole run is a key of it.
   */
  headline: Record<string, number> | null;
  requests: RequestCounts;
  /** enqueue to start */
  wait_ms: Summary;
  /** issue to reply */
  response_ms: Summary;
  servers: ServerStats[] | null;
  queues: QueueStats[] | null;
  services: ServiceStats[] | null;
  machines: MachineStats[] | null;
  /**
   * Flows counts the requests issued by origin machine, the machine of the queue chosen for them
   * ("" when they failed at their issue) and the dispatch reason; they sum to requests.issued.
   */
  flows: Flow[] | null;
  /** Clients is one entry per client set, in the scenario's order. */
  clients?: ClientStats[];
  /**
   * Workstation is one entry per WSL of the configuration, in scan order, when some client set
   * connects through one (via): the handlers it started and the clients each holds.
   */
  workstation?: WorkstationStats[];
  /**
   * Transactions counts the transactions AUTOTRAN started; absent when no *SERVICES entry has
   * AUTOTRAN=Y.
   */
  transactions?: TransactionStats;
  /**
   * QSpaces is one entry per queue space of the scenario's qspaces, by name, each with its queues
   * by name: what was enqueued, forwarded, retried, moved to the error queue and dropped, the depth
   * and the time in queue. Absent when the scenario has no qspaces.
   */
  qspaces?: QSpaceStats[];
  balance: Balance;
  series: Series;
  /**
   * Lifecycle lists every change of an instance's state, in time order; absent when the run has no
   * scenario events, SVCTIMEOUT or -p.
   */
  lifecycle?: LifeChange[];
  /**
   * MachineChanges lists the machines lost, noticed lost by the DBBL, and restored; absent when no
   * machine was lost.
   */
  machine_changes?: MachineChange[];
  /** Trace says what reading the workload's trace found; absent when the workload has none. */
  trace?: TraceRead;
  /**
   * Validation compares, for the trace rows whose log gave the response it observed, the log's
   * responses with the run's; absent when the log has no observed response column.
   */
  validation?: Validation;
  replications?: Replications;
  warnings: string[] | null;
}

/**
 * RequestCounts counts requests by outcome. Issued = Completed + sum(Failed); TimedOut counts
 * completed requests whose reply came after BLOCKTIME.
 */
export interface RequestCounts {
  issued: number;
  completed: number;
  /** reason -> count, e.g. {"TPENOENT": 3} */
  failed: Record<string, number> | null;
  timed_out: number;
  /**
   * In runs with calls or clients: the requests servers issued (nested, counted in Issued too) and
   * the retries clients issued.
   */
  nested?: number;
  retried?: number;
  /**
   * In runs whose calls have a noreply step: the requests issued with TPNOREPLY (counted in Nested
   * too), whose replies nobody waits for.
   */
  noreply?: number;
}

/**
 * Summary describes a distribution of durations in milliseconds. Mean and Max are exact;
 * percentiles come from a fixed-memory histogram (see docs).
 */
export interface Summary {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** ServerStats is the work of one server instance. */
export interface ServerStats {
  id: string;
  name: string;
  group: string;
  lmid: string;
  queue: string;
  /**
   * Spare marks an instance past MIN: gone (serving nothing) until a boot event or -p spawning
   * brings it up.
   */
  spare?: boolean;
  /** TMS marks one of a group's TMS servers (transactions' prepare, commit and abort requests). */
  tms?: boolean;
  /** requests processed */
  requests: number;
  /** sum of LOAD of requests processed (tmadmin's "Load Done") */
  load_done: number;
  busy_ms: number;
  /** busy time over the simulated span */
  utilization: number;
  /** fraction of all processed requests */
  share: number;
  /** times the dispatch chose this instance */
  chosen: number;
  /** services it advertises */
  services: string[] | null;
  /**
   * Done counts the requests processed per service (tmadmin printservice's "# Done"), services in
   * name order, only those with requests.
   */
  done?: ServiceCount[];
  /**
   * In runs where instances change state: the state at the end, the time up (or stopping) between
   * the warm-up and the span, and the busy time over that up time.
   */
  state?: string;
  up_ms?: number;
  up_utilization?: number;
  /**
   * HeldMS is, in runs with calls, the time it held a request while waiting for the replies of its
   * nested requests (part of BusyMS).
   */
  held_ms?: number;
  /**
   * In runs where some instance has more than one dispatch thread (MAXDISPATCHTHREADS): its threads
   * (k), MINDISPATCHTHREADS, and the most threads busy at once over the run. BusyMS and HeldMS then
   * sum over threads and Utilization is BusyMS over k times the span.
   */
  threads?: number;
  min_threads?: number;
  threads_used?: number;
  /** ByThread gives each thread's figures, for an instance with k > 1. */
  by_thread?: ThreadStats[];
}

/** ServiceCount is a number of requests of one service. */
export interface ServiceCount {
  service: string;
  requests: number;
}

/**
 * ThreadStats is one dispatch thread of a multithreaded instance: the requests it processed, its
 * busy time and the part of it spent holding a request for replies.
 */
export interface ThreadStats {
  /** 1..k */
  thread: number;
  requests: number;
  busy_ms: number;
  held_ms: number;
}

/** QueueStats is one request queue. */
export interface QueueStats {
  name: string;
  group: string;
  lmid: string;
  /** instances on this queue */
  servers: string[] | null;
  enqueued: number;
  /** waiting requests, not counting those in service */
  max_length: number;
  /** time-averaged over the span */
  avg_length: number;
  wait_ms: Summary;
}

/** ServiceStats is one service's requests. */
export interface ServiceStats {
  name: string;
  load: number;
  prio: number;
  issued: number;
  completed: number;
  failed: Record<string, number> | null;
  timed_out: number;
  wait_ms: Summary;
  response_ms: Summary;
  /**
   * Histogram of response times for charts: Bounds[i] is the upper edge (ms) of bucket i, Counts[i]
   * its count.
   */
  histogram: Histogram;
  /** CallsIssued is, in runs with calls, the nested requests its servers issued as a caller. */
  calls_issued?: number;
}

/** Histogram is a bucketed distribution for charts. */
export interface Histogram {
  bounds_ms: number[] | null;
  counts: number[] | null;
}

/** MachineStats is one machine's share of the work and of the network traffic. */
export interface MachineStats {
  lmid: string;
  netload: number;
  /** requests whose origin is this machine */
  issued: number;
  /** requests processed by servers on this machine */
  served: number;
  /** issued here and processed here */
  local: number;
  /** issued here, sent to a queue on another machine */
  sent: number;
  /** issued elsewhere, received into a queue here */
  received: number;
  /**
   * Utilization is the mean utilization of the machine's application servers that could take a
   * requested service (gateways and system servers left out); 0 when it has none.
   */
  utilization: number;
}

/**
 * Flow is one cell of the result's flows: requests from Origin sent to a queue on Machine, chosen
 * for Reason (first, idle, least-load, a policy's name; TPENOENT or TPESYSTEM with no machine).
 */
export interface Flow {
  origin: string;
  machine: string;
  reason: string;
  requests: number;
}

/**
 * ClientStats counts the outcomes the clients of one set saw. Requests = Completed + the sum of
 * Failed + TimedOut; CycleMS is the mean response plus the mean think (and backoff) time, so that
 * Little's law N = X·(R + Z) can be read off: Count ≈ Requests / span × CycleMS.
 */
export interface ClientStats {
  name: string;
  count: number;
  requests: number;
  completed: number;
  /** TPETIME excluded: that is TimedOut */
  failed: Record<string, number> | null;
  timed_out: number;
  retried: number;
  /** completed requests per second of the run */
  throughput_per_s: number;
  /** issue to the outcome the client saw */
  response_ms: Summary;
  cycle_ms: number;
  /**
   * NotConnected counts the set's clients that found no room at their WSL (via) when the run
   * started: they issued nothing. Absent for a set without via.
   */
  not_connected?: number;
}

/**
 * WorkstationStats is one WSL's connections: the handlers (WSH) it started, the clients each holds
 * (in handler order), and the clients that found no room.
 */
export interface WorkstationStats {
  /** its first instance, GROUP/SRVID: the one that takes clients */
  id: string;
  /** its LMID */
  machine: string;
  handlers: number;
  clients: number[] | null;
  not_connected: number;
}

/**
 * TransactionStats counts the transactions started after the warm-up: those committed (with one
 * participant, or in two phases), those aborted (at their TRANTIME, or because their owner failed),
 * the mean number of participant groups, and the time from a commit's start to its owner's end.
 */
export interface TransactionStats {
  started: number;
  committed: number;
  one_phase: number;
  two_phase: number;
  aborted: AbortedCounts;
  participants_mean: number;
  commit_ms: Summary;
  /**
   * CommitHistogram is the commits' times for charts, as a service's histogram is its responses'.
   */
  commit_histogram: Histogram;
}

/** AbortedCounts are the transactions aborted, by cause. */
export interface AbortedCounts {
  timeout: number;
  failed: number;
}

/** QSpaceStats is one /Q queue space: its queues, by name. */
export interface QSpaceStats {
  name: string;
  queues: MsgQueueStats[] | null;
}

/**
 * MsgQueueStats is one /Q queue: its messages stored by enqueues, forwarded (deleted with their
 * forward's commit), put back for a retry, moved to the error queue and dropped (retries exhausted
 * without an error queue, or deleted by -d on TPESVCFAIL); its depth, and each forwarded message's
 * time in the queue, from its first storing there to the forwarder taking it for the attempt that
 * succeeded.
 */
export interface MsgQueueStats {
  name: string;
  enqueued: number;
  forwarded: number;
  retried: number;
  to_error_queue: number;
  dropped: number;
  depth: QueueDepth;
  time_in_queue_ms: Summary;
}

/**
 * QueueDepth is a /Q queue's depth, the messages stored and not held by a forwarder (those waiting
 * out a retry delay included): its largest, its mean over the measured span, and its mean in each
 * bin of the run's series.
 */
export interface QueueDepth {
  max: number;
  mean: number;
  series: number[] | null;
}

/** Balance measures how evenly the work spread over the servers that could take it. */
export interface Balance {
  /** Jain's fairness index over server utilizations, 1 = even */
  jain_utilization: number;
  /** max utilization / mean utilization */
  max_over_mean: number;
}

/** Series are fixed-width time bins for charts. Each slice has one value per bin. */
export interface Series {
  bin_ms: number;
  /** start of each bin */
  start_ms: number[] | null;
  /** time-averaged waiting requests per queue */
  queue_length: NamedSeries[] | null;
  /** busy fraction per server */
  utilization: NamedSeries[] | null;
  /** requests chosen per server per bin */
  dispatches: NamedSeries[] | null;
  /** MP: C_m(q) at the end of each bin */
  mp_counters?: CounterSeries[];
  /** MP: times of counter resets */
  mp_resets_ms?: number[];
  /**
   * Failures counts the requests failed in each bin, one line per failure code that occurred (by
   * when the failure happened), in runs where instances change state; absent when none failed.
   */
  failures?: NamedSeries[];
  /**
   * Summarised is set when some lists were cut to the busiest lines (more than SeriesSummary.Limit
   * of a kind, and not every line asked for): how many lines of each kind were left out.
   */
  summarised?: SeriesSummary;
}

/** NamedSeries is one line of a chart. */
export interface NamedSeries {
  name: string;
  values: number[] | null;
}

/** CounterSeries is the MP counter that machine Machine keeps for queue Queue. */
export interface CounterSeries {
  machine: string;
  queue: string;
  values: number[] | null;
}

/**
 * SeriesSummary says how a result's series were cut: past Limit lines of a kind, the Limit busiest
 * are kept (by their total over the run: queue length, busy time, peak counter) in their usual
 * order, and for queues and servers one more line named "others" stands for those left out (the sum
 * of their queue lengths and dispatches, the mean of their utilizations). Counters has no such
 * line.
 */
export interface SeriesSummary {
  limit: number;
  /** queue_length lines left out, in "others" */
  queues?: number;
  /** utilization and dispatches lines left out, in "others" */
  servers?: number;
  /** mp_counters lines left out */
  counters?: number;
}

/**
 * LifeChange is one change of an instance's life-cycle state, as the result lists them in time
 * order (docs/engine.md, "Life cycle").
 */
export interface LifeChange {
  at_us: number;
  at_ms: number;
  /** GROUP/SRVID */
  server: string;
  /** up, down, restarting, stopping, booting, gone */
  from: string;
  to: string;
  /**
   * Cause: kill, shutdown, boot (scenario events), SVCTIMEOUT, restart, RESTART=N, MAXGEN (what the
   * BBL decided when it noticed a crash), booted (came up), spawn, decay (-p), lose and restore
   * (its machine was lost or came back).
   */
  cause: string;
}

/**
 * MachineChange is a change of a whole machine: lost (it and its BBL stopped), noticed (the DBBL
 * found it gone: its instances are no longer candidates), restored.
 */
export interface MachineChange {
  at_us: number;
  at_ms: number;
  lmid: string;
  change: string;
}

/**
 * TraceRead is what reading a trace found: the rows played and, with workload.trace_skip_bad, the
 * rows skipped and why (the first few, each "row N: why", N counted from the first row after the
 * header).
 */
export interface TraceRead {
  rows: number;
  skipped: number;
  skipped_examples: string[] | null;
  /**
   * Columns says how each column of a log's header was read, by its name as written: the field it
   * gave (workload.columns' names: time, service, origin, service_ms, observed...) or "ignored";
   * absent for rows given as JSON. A response column ("Elapsed(ms)": "observed") is seen there not
   * to be the service time.
   */
  columns?: Record<string, string>;
}

/**
 * Validation is a replay's check against the log it replays: per service (in the model's order,
 * those with observed rows) and overall, the responses the log observed and the run's, over the
 * same trace rows (those issued at or after FromMS: the warm-up, or validation.after_ms when
 * later), each figure with its 95% interval, and a verdict against the tolerances
 * (docs/scenario.md#replay-validation). Simulated counts only the rows that completed; the failed
 * ones are in requests.failed.
 */
export interface Validation {
  overall: ValidationRow;
  services: ValidationRow[] | null;
  /**
   * FromMS and ToMS are the validation window: rows issued at or after FromMS are compared; ToMS,
   * the last observed row's issue time, ends the window the throughputs are counted over. (Pointers
   * and omitempty, here and in ValidationRow, only so that the fields added to the block are
   * optional to a reader of its older form: a result always has them.)
   */
  from_ms?: number;
  to_ms?: number;
  /**
   * Replications is how many runs the simulated figures are the mean of (1: one run, no simulated
   * interval).
   */
  replications?: number;
  /** the relative tolerance of each figure */
  tolerance?: Tolerances;
  /** Verdict is the worst of the services' verdicts: "pass", "inconclusive" or "fail". */
  verdict?: string;
}

/**
 * ValidationRow compares observed and simulated responses (ms) of one service, or of all (""
 * service).
 */
export interface ValidationRow {
  service?: string;
  observed: Summary;
  /** with replications, each figure's mean over them */
  simulated: Summary;
  /**
   * RelativeError is (simulated - observed) / observed of each figure; a figure is absent when the
   * observed one is zero or nothing completed.
   */
  relative_error: RelativeErrors;
  /**
   * ObservedCI is the 95% interval of each observed figure: the percentiles' from order statistics,
   * the mean's from batch means.
   */
  observed_ci?: Intervals;
  /**
   * SimulatedCI is the 95% interval of each simulated figure over the replications (Student's t);
   * absent with one run.
   */
  simulated_ci?: Intervals;
  /**
   * RelativeCI is the interval of (simulated - observed) / observed that the two intervals allow:
   * [sim_lo/obs_hi - 1, sim_hi/obs_lo - 1].
   */
  relative_ci?: Intervals;
  /**
   * Verdicts judges each figure's RelativeCI against its tolerance t: "pass" inside [-t, t], "fail"
   * wholly outside, else "inconclusive".
   */
  verdicts?: FigureVerdicts;
  /** the worst of Verdicts */
  verdict?: string;
  /**
   * ThroughputPerS is the requests per second of the row's trace rows that completed within the
   * validation window, observed and simulated.
   */
  throughput_per_s?: Throughput;
  /**
   * KS is the two-sample Kolmogorov–Smirnov test of the observed against the simulated batch
   * means; absent with fewer than 2 batches a side.
   */
  ks?: KSTest;
}

/** RelativeErrors are the relative errors of a ValidationRow's figures. */
export interface RelativeErrors {
  mean?: number;
  p50?: number;
  p95?: number;
  p99?: number;
}

/**
 * Intervals are the intervals of a ValidationRow's figures; a figure is absent when it has none.
 */
export interface Intervals {
  mean?: Interval;
  p50?: Interval;
  p95?: Interval;
  p99?: Interval;
  max?: Interval;
}

/** Interval is a closed interval [Lo, Hi]. */
export interface Interval {
  lo: number;
  hi: number;
}

/** FigureVerdicts are the verdicts of a ValidationRow's figures. */
export interface FigureVerdicts {
  mean: string;
  p50: string;
  p95: string;
  p99: string;
}

/** Throughput is a rate observed and simulated. */
export interface Throughput {
  observed: number;
  simulated: number;
}

/**
 * KSTest is a two-sample Kolmogorov–Smirnov test: the batches of each side, the statistic D and
 * its exact p-value.
 */
export interface KSTest {
  observed_batches: number;
  simulated_batches: number;
  statistic: number;
  p_value: number;
}

/** Tolerances are the relative tolerances of the judged figures (0.1: 10%). */
export interface Tolerances {
  mean: number;
  p50: number;
  p95: number;
  p99: number;
}

/**
 * Replications reports k runs with derived seeds: mean and 95% confidence half-width of the
 * headline figures.
 */
export interface Replications {
  k: number;
  seeds: number[] | null;
  /**
   * the replicated figures of the figures table: "wait_mean_ms", "response_p95_ms",
   * "utilization_max"...
   */
  figures: Record<string, MeanCI> | null;
}

/** MeanCI is a mean with the half-width of its 95% confidence interval. */
export interface MeanCI {
  mean: number;
  ci95: number;
}

/**
 * Model is a Tuxedo application as its UBBCONFIG (and optional DMCONFIG) describes it, reduced to
 * what load balancing needs (docs/config.md). Slices are in the order the dispatch rules scan them,
 * so "first" always means lowest index.
 */
export interface Model {
  /** "SHM" or "MP" */
  model: string;
  /** LDBAL Y/N (default N) */
  ldbal: boolean;
  /** LMID named by MASTER, or "" when absent */
  master: string;
  /** SCANUNIT in microseconds (default 10 s) */
  scanunit_us: number;
  /** in SCANUNITs (default 120 s / SCANUNIT) */
  sanityscan: number;
  /** in SCANUNITs (default 60 s / SCANUNIT) */
  blocktime: number;
  /** order of *MACHINES */
  machines: ModelMachine[] | null;
  /** order of *GROUPS */
  groups: ModelGroup[] | null;
  /** instances in scan order */
  servers: ModelServer[] | null;
  /** in scan order (position of first instance) */
  queues: ModelQueue[] | null;
  /** every known service, sorted by name */
  services: ModelService[] | null;
  domains?: ModelDomain[];
  /**
   * Routing is the *ROUTING section's criteria, in file order, each with the services that name it.
   * Entries of one name that differ by BUFTYPE are listed one by one (RoutingEntries).
   */
  routing?: ModelCriterion[];
  /**
   * TMS lists the groups with TMSNAME, in *GROUPS order, when some *SERVICES entry has AUTOTRAN=Y:
   * only then can a transaction start, and only then are TMS servers modelled (WithTMS). Nil
   * otherwise, so a configuration without AUTOTRAN reads as it always did.
   */
  tms?: ModelTMSGroup[];
  /**
   * Workstations are the WSL entries of *SERVERS, in scan order: the listeners through which
   * workstation clients enter (their CLOPT's options after "--").
   */
  workstations?: ModelWorkstation[];
  /**
   * QSpaces are the /Q queue spaces the TMQUEUE instances advertise (CLOPT "-s QSPACE:TMQUEUE"), in
   * the order first advertised.
   */
  qspaces?: ModelQSpace[];
  /**
   * Forwarders are the TMQFORWARD entries of *SERVERS, in scan order, with their options after
   * "--".
   */
  forwarders?: ModelForwarder[];
  warnings?: Diagnostic[];
}

/** Machine is one *MACHINES entry: a node of the application, named by its LMID. */
export interface ModelMachine {
  lmid: string;
  /** the physical name the entry starts with */
  pmid: string;
  /** NETLOAD, 0..32767, default 0 */
  netload: number;
  /**
   * MaxWSClients is MAXWSCLIENTS (0..32767, default 0): how many workstation clients may be
   * connected through the machine's WSLs.
   */
  maxwsclients?: number;
}

/**
 * Group is one *GROUPS entry. Its servers run on LMIDs[0]; later LMIDs are failover machines and do
 * not take part in load balancing.
 */
export interface ModelGroup {
  name: string;
  grpno: number;
  lmids: string[] | null;
}

/** Server is one server instance: a *SERVERS entry with MIN=n expands to n of them. */
export interface ModelServer {
  /** "GROUP/SRVID" */
  id: string;
  /** the executable name, e.g. "simpserv" */
  name: string;
  /** SRVGRP */
  group: string;
  srvid: number;
  /** first LMID of the group */
  lmid: string;
  /** name of its queue (RQADDR, else its ID) */
  queue: string;
  services: string[] | null;
  /** a Tuxedo system server (BBL, TMS, WSL...) */
  system?: boolean;
  /** a GWTDOMAIN instance */
  gateway?: boolean;
  /**
   * TMS marks one of a group's TMS servers (WithTMS adds them): never a balancing candidate, up
   * from the start, never a target of an event.
   */
  tms?: boolean;
  /**
   * Spare marks an instance past MIN (SRVID+MIN .. SRVID+MAX-1): it exists but starts not running
   * (gone), so it is no candidate and serves nothing until a boot event or -p spawning brings it
   * up.
   */
  spare?: boolean;
  /**
   * AdvertiseSource says where Services came from: "clopt", "scenario", "services" (every *SERVICES
   * entry, with a warning) or "dmconfig".
   */
  advertise_source: string;
  /**
   * Life holds RESTART, MAXGEN, GRACE and CLOPT -p of its entry; nil when the entry gives none of
   * them (see Lifecycle for the defaults).
   */
  lifecycle?: ModelServerLifecycle;
  /**
   * Threads is its entry's MAXDISPATCHTHREADS, the dispatch threads that each run one request at a
   * time (0 when the entry gives neither it nor MINDISPATCHTHREADS, and for a GWTDOMAIN: one
   * thread; see DispatchThreads). MinThreads is MINDISPATCHTHREADS (0..Threads), reported and not
   * otherwise simulated.
   */
  threads?: number;
  min_threads?: number;
}

/**
 * ServerLifecycle is what a *SERVERS entry says about its instances' life: whether a crashed
 * instance is restarted (RESTART, MAXGEN, GRACE) and whether its MSSQ set spawns and decays spares
 * (CLOPT -p). Instances of one entry share one. A nil *ServerLifecycle on a Server means every
 * default.
 */
export interface ModelServerLifecycle {
  restart: boolean;
  maxgen: number;
  /** 0: no limit (MAXGEN no longer applies) */
  grace_s: number;
  spawn?: ModelSpawn;
}

/**
 * Spawn is a CLOPT -p option, `-p [L][low][,[terminate]][:[high][,create]]` (servopts(5)): the BBL
 * boots a spare of the MSSQ set when the waiting requests per up instance (with L, their summed
 * LOAD) have met or exceeded High for CreateS seconds, and a spare that has been idle for
 * TerminateS seconds ends itself while the measure is below Low (docs/engine.md, "-p").
 */
export interface ModelSpawn {
  /** L: LOAD rather than a count of requests */
  load?: boolean;
  low: number;
  terminate_s: number;
  high: number;
  create_s: number;
  /**
   * Conv marks a conversational entry (CONV=Y) without RQADDR: its spares are spawned over the
   * instances' own queues and never decay, as servopts(5) says of non-MSSQ conversational servers.
   */
  conv?: boolean;
}

/**
 * Queue is a request queue: one per instance, or one per MSSQ set (instances of a group sharing an
 * RQADDR).
 */
export interface ModelQueue {
  name: string;
  group: string;
  lmid: string;
  /** indexes into Model.Servers, scan order */
  servers: number[] | null;
}

/**
 * Service is a known service with the LOAD and PRIO that apply outside any SRVGRP-specific
 * *SERVICES entry, and those group-specific overrides.
 */
export interface ModelService {
  name: string;
  load: number;
  prio: number;
  by_group?: Record<string, ModelServiceParams>;
  /** SvcTimeoutS is SVCTIMEOUT in seconds (0: none). */
  svctimeout?: number;
  /**
   * BlockTimeS is the service's own BLOCKTIME in seconds (0: none, the *RESOURCES BLOCKTIME
   * applies): how long a caller waits for its reply.
   */
  blocktime_s?: number;
  /** Remote is set for a service imported through DMCONFIG. */
  remote?: ModelRemoteService;
  /** Routing names the *ROUTING criterion of the service ("" when it is not routed). */
  routing?: string;
  /** AutoTran and TranTimeS are AUTOTRAN and TRANTIME of the general entry (see ServiceParams). */
  autotran?: boolean;
  trantime?: number;
}

/**
 * ServiceParams are the LOAD, PRIO, SVCTIMEOUT, AUTOTRAN and TRANTIME of a service for one group.
 */
export interface ModelServiceParams {
  load: number;
  prio: number;
  /** SVCTIMEOUT in seconds, 0: none */
  svctimeout?: number;
  /**
   * AutoTran is AUTOTRAN=Y: a request of the service that starts while not in a transaction starts
   * one (when the group has a TMSNAME).
   */
  autotran?: boolean;
  /**
   * TranTimeS is the entry's TRANTIME in seconds when AutoTran is set (default 30; 0: no timeout);
   * 0 when it is not, where it is not used.
   */
  trantime?: number;
}

/**
 * RemoteService says where an imported service goes: the remote domain (its *DM_REMOTE_DOMAINS
 * entry name, which keys the scenario's "domains"), the alternates to fail over to, and the gateway
 * group that forwards it.
 */
export interface ModelRemoteService {
  domain: string;
  gateway_group: string;
  /**
   * Alternates are the remote domains listed after Domain in RDOM= (at most two): the gateway sends
   * a request to the first of Domain and its alternates that is up.
   */
  alternates?: string[];
}

/** Domain is a remote domain of the DMCONFIG. */
export interface ModelDomain {
  name: string;
  domainid?: string;
}

/**
 * Criterion is one *ROUTING entry: an ordered list of ranges of a request field's values, each
 * naming the server group that serves them.
 */
export interface ModelCriterion {
  name: string;
  /** FIELD: kept and shown, not simulated */
  field: string;
  /**
   * BufType is BUFTYPE as written: the buffer types this entry routes. Entries of one name are told
   * apart by it; an entry without it holds every buffer type (see HoldsBufType).
   */
  buftype?: string;
  /**
   * Kind is "number" when the ranges' values are numbers, "string" when they are quoted strings, ""
   * when they are only MIN, MAX and *.
   */
  kind: string;
  ranges: ModelRange[] | null;
  /** the services routed by it, sorted */
  services: string[] | null;
  /** where the entry starts */
  line: number;
}

/** Range is one range:group item of RANGES. */
export interface ModelRange {
  /** the range as written, without the group: "10000-49999", "'A'-'M'", "*" */
  text: string;
  /** a *GROUPS name, or "*" for any group */
  group: string;
  /** CatchAll marks the final "*" range, which holds every value that no listed range holds. */
  catch_all?: boolean;
}

/**
 * TMSGroup is a group whose TMSNAME makes it able to take part in transactions: Count TMS servers
 * GROUP/30001 .. GROUP/30000+Count on the group's machine, sharing the queue GROUP/TMS.
 */
export interface ModelTMSGroup {
  group: string;
  /** the TMS executable (TMSNAME) */
  tmsname: string;
  /** TMSCOUNT */
  tmscount: number;
  lmid: string;
  /** GROUP/TMS */
  queue: string;
}

/**
 * Workstation is one WSL *SERVERS entry: the listener through which workstation clients enter the
 * application (a scenario's client set names it with "via"). Only the entry's first instance takes
 * clients, through handlers (WSH) of which MinHandlers start with the run and at most MaxHandlers
 * run, each multiplexing up to MPX clients.
 */
export interface ModelWorkstation {
  /** the entry's first instance, GROUP/SRVID: the one that takes clients */
  id: string;
  /** its machine */
  lmid: string;
  /** -n, kept as written (not simulated) */
  netaddr: string;
  /**
   * MinHandlers (-m, default 0) handlers start with the run; at most MaxHandlers (-M, default
   * MAXWSCLIENTS of its machine divided by MPX, rounded up, and at least MinHandlers) run; each
   * holds up to MPX (-x, default 10) clients.
   */
  min_handlers: number;
  max_handlers: number;
  mpx: number;
}

/**
 * QSpace is a queue space: a service advertised by TMQUEUE instances through their CLOPT "-s
 * QSPACE:TMQUEUE". An enqueue is a request of that service, chosen among those instances.
 */
export interface ModelQSpace {
  name: string;
  /**
   * Group is the group of the first TMQUEUE instance advertising it (in scan order): the queue
   * space's group, the first participant of a forward's transaction.
   */
  group: string;
  /** Servers are the TMQUEUE instances (GROUP/SRVID) advertising it, in scan order. */
  servers: string[] | null;
}

/**
 * Forwarder is one TMQFORWARD *SERVERS entry: each of its instances takes messages from Queues (in
 * that order) and calls the service named like the queue.
 */
export interface ModelForwarder {
  /** the entry's first instance, GROUP/SRVID */
  id: string;
  /** every instance of the entry, in scan order */
  servers: string[] | null;
  group: string;
  lmid: string;
  /** Queues are -q's queues (required), in the order given. */
  queues: string[] | null;
  /**
   * IdleS is -i idletime (seconds, default 30): how long a forwarder that found no message sleeps;
   * 0 wakes it when a message becomes available.
   */
  idle_s: number;
  /**
   * TranTimeS is -t trantime (seconds, default 60): the forward's transaction timeout; 0 means
   * none.
   */
  trantime_s: number;
  /** Delete is -d: a TPESVCFAIL deletes the message instead of retrying it. */
  delete?: boolean;
  /** ExitEmpty is -e (exit when the queues are empty): kept, not simulated. */
  exit_empty?: boolean;
}

/**
 * Diagnostic is one positioned message about an input: an error, or a warning the run goes on with.
 * Source is the input (SourceUBBConfig...), File the name it was given under (a path, a form part's
 * file name, or the source itself); Line and Col are 1-based (Col counts characters; a tab is one),
 * 0 meaning unknown; Field is the field path of a problem with a field of a document
 * (services.A.service_time), or the column of a trace row (Line is then the row).
 */
export interface Diagnostic {
  source?: string;
  file: string;
  line: number;
  col: number;
  field?: string;
  /** SeverityError or SeverityWarning */
  severity: string;
  message: string;
}

/**
 * Explanation tells why request Seq went where it went: every candidate the rule looked at, what it
 * saw, and which rule picked the winner.
 */
export interface Explanation {
  /** 1-based issue order */
  seq: number;
  /** the dispatch log's id */
  id: string;
  service: string;
  origin: string;
  issue_us: number;
  /** tuxedo, round_robin, ... */
  policy: string;
  /** "LDBAL=N", "SHM real-time", "MP round-robin", or the policy */
  algorithm: string;
  /** the dispatch log's reason: first, idle, least-load, TPENOENT, ... */
  rule: string;
  /** queue name, "" on failure */
  winner: string;
  /** instance that will process it */
  server: string;
  /**
   * Routing is the data-dependent routing step, for a service with a routing criterion: it runs
   * before the rule and leaves Candidates.
   */
  routing?: RoutingStep;
  candidates: Candidate[] | null;
  /** the decision in a few sentences, for people */
  text: string;
  /**
   * Failure says why the request failed after it reached a queue (TPESVCERR): which instance
   * crashed or timed out, or that its queue lost its last instance; for TPESVCFAIL, which of its
   * nested requests failed, with which code, or timed out. Empty when it completed.
   */
  failure?: string;
  /**
   * Parent is, for a nested request, the id of the calling request, and IssuedBy the instance that
   * issued it (its machine is Origin).
   */
  parent?: string;
  issued_by?: string;
  /**
   * Mode is how the nested request was issued: tpcall, tpacall, tpforward; "forward" for a /Q
   * forward, whose IssuedBy is its TMQFORWARD instance.
   */
  mode?: string;
}

/**
 * RoutingStep is how data-dependent routing restricted a request's candidates: its value, the range
 * that held it, the group it names.
 */
export interface RoutingStep {
  criterion: string;
  field: string;
  /** "" when the request carries none */
  value: string;
  /** the range that held the value, as written with its group: "10000-49999:BANKB1" */
  range?: string;
  /** the group whose servers remain ("*": any group) */
  group?: string;
  /** Fallback says the range's group had no candidate, so the catch-all's group was used. */
  fallback?: boolean;
  /** instances left */
  candidates: number;
  /**
   * BufType is the request's buffer type ("" when it gives none); when the criterion has several
   * entries that differ by BUFTYPE, EntryLine is the line of the one it picked, and NoEntry says
   * none holds it.
   */
  buftype?: string;
  entry_line?: number;
  no_entry?: boolean;
}

/**
 * Candidate is one instance that advertises the requested service, as the dispatch rule saw it at
 * the moment of the choice.
 */
export interface Candidate {
  server: string;
  queue: string;
  lmid: string;
  /** on the origin machine */
  local: boolean;
  idle: boolean;
  /** n(q) */
  n: number;
  /** requests waiting in its queue */
  waiting: number;
  /** SHM: W(q) */
  work?: number;
  /** MP: C_m(q) */
  counter?: number;
  /** L(s,q) */
  load: number;
  /** N(q) as applied */
  netload: number;
  /** exact cost, e.g. "150/2+50 = 125" */
  cost?: string;
  chosen: boolean;
  /** why it lost or won, in words */
  note?: string;
  /**
   * State is the instance's life-cycle state when the choice was made (up, down, restarting), in
   * runs where instances change state.
   */
  state?: string;
}

/**
 * Headline is the handful of figures people compare runs by, keyed as the figures table names them
 * (a stored run's and compare's headline).
 */
export interface Headline {
  issued: number;
  completed: number;
  failed: number;
  timed_out: number;
  wait_mean_ms: number;
  wait_p95_ms: number;
  wait_p99_ms: number;
  response_mean_ms: number;
  response_p95_ms: number;
  response_p99_ms: number;
  utilization_max: number;
  jain_utilization: number;
  network_sent: number;
  /**
   * NetworkShare is the fraction of issued requests that crossed the network to the queue that took
   * them (network_sent / issued).
   */
  network_share: number;
  /**
   * SaturatedMachines counts the machines that saturate while another machine serving the same
   * services has room (see Saturations).
   */
  saturated_machines?: number;
}

/**
 * Result is what a sweep reports (`tuxlb sweep --format json`, the result of a sweep job, the
 * page's download).
 */
export interface SweepResult {
  engine_version: string;
  name?: string;
  keys: SweepAxis[] | null;
  /** per point; with a precision, the batch */
  replications: number;
  /**
   * Precision and MaxReplications are the spec's, with a precision; Target is the first figure the
   * precision is asked of, Targets all of them when there are several.
   */
  precision?: number;
  max_replications?: number;
  precision_figure?: string;
  precision_figures?: string[];
  /** per replication (with a precision, up to the most any point ran) */
  seeds: number[] | null;
  /**
   * Objective and ObjectiveFigure are the objective's text and its figure's canonical name when
   * there is exactly one (as before there could be several); Objectives lists them all.
   */
  objective?: string;
  objective_figure?: string;
  objectives?: SweepObjectiveInfo[];
  /**
   * JudgedOn says what the verdicts read: "interval" (the 95% confidence interval) or "value" (one
   * replication: no interval), with Note saying so.
   */
  judged_on?: string;
  note?: string;
  /** Figures are the figures asked for by name (--figure), canonical. */
  figures?: string[];
  /** points of the grid */
  total: number;
  points: SweepPoint[] | null;
  /**
   * Lines has, per value of the second key (one line with one key), the best point along the first
   * key that meets every objective; Cross, with two keys, per value of the first key the best along
   * the second.
   */
  lines?: SweepLine[];
  cross_lines?: SweepLine[];
}

/** Axis is one varied key and its values in order. */
export interface SweepAxis {
  key: string;
  /** json.Number or string */
  values: unknown[] | null;
}

/** ObjectiveInfo is an objective as a result lists it. */
export interface SweepObjectiveInfo {
  text: string;
  /** canonical, a key of every point's figures */
  figure: string;
  /** <= or >= */
  op: string;
  limit: number;
}

/** Point is one point of the grid with its figures. */
export interface SweepPoint {
  index: number;
  values: Record<string, unknown> | null;
  /** Replications is how many runs the figures are over (with a precision, as many as it took). */
  replications: number;
  figures: Record<string, MeanCI> | null;
  /**
   * Meets is true when every objective's verdict is yes; Verdicts are the verdicts (yes, no,
   * unsure), in the order of the objectives.
   */
  meets?: boolean;
  verdicts?: string[];
}

/**
 * Line is one line of the grid (a value of the other key, or the whole grid with one key): along
 * its key, the best point that meets every objective by the key's rule (the smallest server count,
 * the largest load...: docs/sweeps.md) and the point just short of it, which misses.
 */
export interface SweepLine {
  values: Record<string, unknown> | null;
  /**
   * LastMeeting is the last point, in the order the values were given, that meets every objective
   * (nil when none does).
   */
  last_meeting: SweepPointRef | null;
  /** the key the line runs along */
  along?: string;
  /**
   * Rule is how the best is chosen: "smallest" (server counts, speeds, think times), "largest"
   * (loads, latency) or "first" (in the order given).
   */
  rule?: string;
  best: SweepPointRef | null;
  /**
   * Miss is the point just short of the best by the rule (the next smaller value for
   * "smallest"...), which does not meet every objective, and why; nil when the best is the first by
   * the rule, or not done.
   */
  miss?: SweepMiss;
  /** Summary says it in words. */
  summary?: string;
}

/** PointRef names a point by its index and values. */
export interface SweepPointRef {
  index: number;
  values: Record<string, unknown> | null;
}

/**
 * Miss is a point that does not meet every objective: the first objective whose verdict is not yes,
 * the verdict and the figure's interval.
 */
export interface SweepMiss {
  index: number;
  values: Record<string, unknown> | null;
  objective: string;
  verdict: string;
  low: number;
  high: number;
}

/** Optimization is what `tuxlb optimize` reports. */
export interface Optimization {
  engine_version: string;
  name?: string;
  keys: SweepAxis[] | null;
  objectives: SweepOptObjective[] | null;
  /** how a configuration's cost is computed */
  cost: string;
  method: SweepOptMethod;
  /**
   * Seeds are the replications' seeds, the same at every configuration, up to the most any
   * configuration ran.
   */
  seeds: number[] | null;
  feasible: boolean;
  /** Chosen is the cheapest configuration declared to meet every objective; nil when none does. */
  chosen: SweepOptConfig | null;
  /**
   * Rejected are the configurations cheaper than the choice (every one, when none is chosen), each
   * with the objective it was declared to miss.
   */
  rejected: SweepOptConfig[] | null;
  /** RunnersUp are the dearer configurations that were examined, as far as the search went. */
  runners_up: SweepOptConfig[] | null;
  /**
   * Closest is, when nothing meets every objective, the configuration whose worst relative
   * violation is the smallest.
   */
  closest?: SweepOptConfig;
  /** dearer configurations never run */
  not_examined: number;
  replications: SweepOptSpending;
  guarantee: string;
}

/** OptObjective is one objective with its indifference zone. */
export interface SweepOptObjective {
  objective: string;
  figure: string;
  limit: number;
  /** in the figure's units */
  epsilon: number;
}

/** OptMethod states the procedure and its constants. */
export interface SweepOptMethod {
  procedure: string;
  pcs: number;
  epsilon_rel: number;
  first_stage: number;
  batch: number;
  window: number;
  max_replications: number;
  /** configurations × objectives */
  decisions: number;
  /** (1 − PCS) / decisions */
  alpha_per_decision: number;
  h2: number;
  /** t(1 − α/3; n0 − 1), the first-stage screen's quantile */
  t_screen: number;
  /** t(1 − α/3; max_replications − 1), the cap's t-test quantile */
  t_cap: number;
}

/** OptConfig is one configuration as the search left it. */
export interface SweepOptConfig {
  index: number;
  values: Record<string, unknown> | null;
  cost: number;
  /** feasible, infeasible, undecided */
  status: string;
  replications: number;
  objectives: SweepOptEstimate[] | null;
  /**
   * Missed is the objective the configuration was declared to miss (the first, in the objectives'
   * order, when several were).
   */
  missed?: SweepOptEstimate;
  /**
   * WorstViolation is the largest of the objectives' relative violations, (mean − limit)/|limit|
   * for <= (negative: met).
   */
  worst_violation?: number;
  /**
   * UBBConfigDiff is the chosen configuration's UBBCONFIG against the scenario's, line by line:
   * "-12: old" and "+12: new".
   */
  ubbconfig_diff?: string[];
}

/**
 * OptEstimate is one objective at one configuration: its figure's mean and 95% half-width over the
 * replications run, and the feasibility decision.
 */
export interface SweepOptEstimate {
  objective: string;
  mean: number;
  ci95: number;
  decision: string;
  decided_at?: number;
  capped?: boolean;
  /**
   * Verdict is a sweep's reading of the 95% interval (yes, no, unsure: [Objective.Verdict]), beside
   * the decision, which is what the choice rests on.
   */
  verdict: string;
  /** decided by the first-stage t-test */
  screened?: boolean;
  /** decided by the t-test at the cap */
  cap_test?: boolean;
}

/** OptSpending compares the replications spent with the full grid's. */
export interface SweepOptSpending {
  spent: number;
  /**
   * MostNeeded is the most replications any configuration needed (up to its last decision, or all
   * it ran when left undecided); FullGrid is every configuration of the grid run to MostNeeded.
   */
  most_needed: number;
  full_grid: number;
}

/**
 * OptimizeSpec is what `tuxlb optimize` asks: the decision variables (a sweep's keys and values:
 * the grid is their product), the objectives every chosen configuration must meet, the cost, and
 * the procedure's knobs (0: the defaults).
 */
export interface OptimizeSpec {
  vary: string[] | null;
  objectives: string[] | null;
  /**
   * Costs are `KEY=WEIGHT` texts, each KEY one of Vary's numeric keys: a configuration's cost is Σ
   * WEIGHT × its value of KEY. None: the server instances the configuration boots.
   */
  costs?: string[];
  pcs?: number;
  /** relative to each limit */
  epsilon?: number;
  first_stage?: number;
  max_replications?: number;
}

/**
 * Error is a domain error with a code and a message meant for the user. Diagnostics, when present,
 * are the individual problems, each positioned in its input (a file's line and column, a field of
 * the scenario, a row of the trace): an invalid error about a configuration file has one per
 * problem, one about a field of the scenario ([FieldErrorf]) has one.
 */
export interface CoreError {
  code: string;
  message: string;
  diagnostics?: Diagnostic[];
}
