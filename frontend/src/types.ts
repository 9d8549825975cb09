// The JSON shapes the playground reads and writes. They mirror core/scenario.go,
// core/result.go, core/ubb/model.go and core/run.go; field names are the contract.

/** A distribution of durations in milliseconds (docs/scenario.md). */
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

export interface Stream {
  service: string;
  origin?: string;
  arrivals: string;
  rate_per_s?: number;
  on_ms?: number;
  off_ms?: number;
  /** a ramp: the rate at points in time */
  profile?: { at_ms: number; rate_per_s: number }[];
  route?: RouteSpec;
  [extra: string]: unknown;
}

/** How a stream draws its routing values (docs/scenario.md, "Routing values"). */
export interface RouteSpec {
  dist?: string;
  min?: number;
  max?: number;
  mean?: number;
  sd?: number;
  integer?: boolean;
  values?: (string | number)[];
  weights?: number[];
}

export interface Workload {
  trace_csv?: string;
  trace?: unknown[];
  columns?: unknown;
  generate?: { duration_ms: number; streams?: Stream[]; clients?: ClientSet[] };
}

/** A call route: "inherit" (the default), a constant value, or drawn as a stream's route. */
export type CallRoute = "inherit" | number | string | RouteSpec;

/** One step a server runs after its own work for a service (services.S.calls). */
export interface CallStep {
  service: string;
  /** tpcall (default), tpacall, tpforward */
  mode?: string;
  /** the probability that the step happens, default 1 */
  p?: number;
  route?: CallRoute;
}

/** One service a client set draws its requests from, by weight. */
export interface ClientService {
  service: string;
  weight?: number;
  route?: RouteSpec;
}

/** One entry of a client script: a service name, or a service with a constant routing value. */
export type ScriptEntry = string | { service: string; route?: number | string };

/** What a client does after a failure (workload.generate.clients[].retry). */
export interface RetrySpec {
  max?: number;
  on?: string[];
  backoff?: Dist;
}

/** A closed-loop client population (workload.generate.clients). */
export interface ClientSet {
  name: string;
  count: number;
  origin?: string;
  think?: Dist;
  services?: ClientService[];
  script?: ScriptEntry[];
  retry?: RetrySpec;
  [extra: string]: unknown;
}

/** What a scenario says about one service. */
export interface ServiceSpec {
  service_time?: Dist;
  by_group?: Record<string, Dist>;
  calls?: CallStep[];
}

export interface Tuning {
  idle?: string;
  netload?: string;
  mp_counter?: string;
  mp_reset_ms?: number;
  gateway_forward_ms?: number;
  /** how long a booted, restarted or spawned instance takes to come up (ms) */
  boot_ms?: number;
}

/** A scenario event (docs/scenario.md, events): exactly one of kill, shutdown, boot, lose, restore. */
export interface LifeEvent {
  at_ms: number;
  kill?: string;
  shutdown?: string;
  boot?: string;
  lose?: string;
  restore?: string;
}

/** A machine lost, noticed lost by the DBBL, or restored (core.MachineChange). */
export interface MachineChange {
  at_us: number;
  at_ms: number;
  lmid: string;
  change: string;
}

/** One change of an instance's life-cycle state (core.LifeChange). */
export interface LifeChange {
  at_us: number;
  at_ms: number;
  server: string;
  from: string;
  to: string;
  cause: string;
}

/** The scenario document of docs/scenario.md. */
export interface Scenario {
  name?: string;
  ubbconfig: string;
  dmconfig?: string;
  advertise?: Record<string, string[]>;
  services?: Record<string, ServiceSpec>;
  machines?: Record<string, { speed?: number }>;
  network?: { latency_ms: number };
  domains?: Record<string, { response_time: Dist }>;
  tuning?: Tuning;
  policy?: string;
  seed?: number;
  workload: Workload;
  warmup_ms?: number;
  replications?: number;
  bin_ms?: number;
  events?: LifeEvent[];
}

export interface Summary {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface NamedSeries {
  name: string;
  values: number[];
}

export interface CounterSeries {
  machine: string;
  queue: string;
  values: number[];
}

export interface ServerStats {
  id: string;
  name: string;
  group: string;
  lmid: string;
  queue: string;
  requests: number;
  load_done: number;
  busy_ms: number;
  utilization: number;
  share: number;
  chosen: number;
  /** in runs where instances change state: the state at the end, up time, busy over up time */
  state?: string;
  up_ms?: number;
  up_utilization?: number;
  /** in runs with calls: the time it held a request while waiting for its nested requests' replies */
  held_ms?: number;
}

export interface QueueStats {
  name: string;
  group: string;
  lmid: string;
  servers: string[];
  enqueued: number;
  max_length: number;
  avg_length: number;
  wait_ms: Summary;
}

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
  histogram: { bounds_ms: number[] | null; counts: number[] | null };
  /** in runs with calls or clients: the requests its servers issued as a caller */
  calls_issued?: number;
}

/** One client set's figures (core.ClientStats). */
export interface ClientStats {
  name: string;
  count: number;
  requests: number;
  completed: number;
  /** code -> count, TPETIME excluded (that is timed_out) */
  failed: Record<string, number> | null;
  timed_out: number;
  retried: number;
  throughput_per_s: number;
  /** issue to the outcome the client saw, every outcome */
  response_ms: Summary;
  cycle_ms: number;
}

export interface MachineStats {
  lmid: string;
  netload: number;
  issued: number;
  served: number;
  local: number;
  sent: number;
  received: number;
  /** Mean utilization of its application servers that could take a requested service. */
  utilization?: number;
}

/** The result JSON of docs/engine.md, as `tuxlb run` prints it. */
export interface Result {
  name?: string;
  engine_version: string;
  model: string;
  ldbal: boolean;
  policy: string;
  seed: number;
  tuning: Tuning;
  span_ms: number;
  warmup_ms: number;
  requests: {
    issued: number;
    completed: number;
    failed: Record<string, number> | null;
    timed_out: number;
    /** in runs with calls or clients: the requests servers issued, and the retries clients issued */
    nested?: number;
    retried?: number;
  };
  wait_ms: Summary;
  response_ms: Summary;
  servers: ServerStats[] | null;
  queues: QueueStats[] | null;
  services: ServiceStats[] | null;
  machines: MachineStats[] | null;
  /** one per client set (runs with clients) */
  clients?: ClientStats[];
  balance: { jain_utilization: number; max_over_mean: number };
  series: {
    bin_ms: number;
    start_ms: number[] | null;
    queue_length: NamedSeries[] | null;
    utilization: NamedSeries[] | null;
    dispatches: NamedSeries[] | null;
    mp_counters?: CounterSeries[] | null;
    mp_resets_ms?: number[] | null;
    /** requests failed per bin, one line per failure code (runs with a life cycle) */
    failures?: NamedSeries[] | null;
    /** set when lines were cut: past `limit` of a kind, the busiest and a last "others" line */
    summarised?: { limit: number; queues?: number; servers?: number; counters?: number };
  };
  /** every life-cycle change, in time order (runs with a life cycle) */
  lifecycle?: LifeChange[] | null;
  /** machines lost, noticed and restored (runs that lose a machine) */
  machine_changes?: MachineChange[] | null;
  warnings: string[] | null;
}

/** A positioned message from the UBBCONFIG/DMCONFIG parser (core.Diagnostic). */
export interface Diagnostic {
  file: string;
  line: number;
  col: number;
  severity: string;
  message: string;
}

/** core.Error as the bridge and the REST API hand it over. */
export interface CoreError {
  code: string;
  message: string;
  diagnostics?: Diagnostic[];
}

/** One candidate of an explanation (core.Candidate). */
export interface Candidate {
  server: string;
  queue: string;
  lmid: string;
  local: boolean;
  idle: boolean;
  n: number;
  waiting: number;
  work?: number;
  counter?: number;
  load: number;
  netload: number;
  cost?: string;
  chosen: boolean;
  note?: string;
  /** the instance's state when the choice was made (runs with a life cycle) */
  state?: string;
}

/** Why one request went where it went (core.Explanation). */
export interface Explanation {
  seq: number;
  id: string;
  service: string;
  origin: string;
  issue_us: number;
  policy: string;
  algorithm: string;
  rule: string;
  winner: string;
  server: string;
  routing?: RoutingStep;
  candidates: Candidate[] | null;
  text: string;
  /** why the request failed after it reached a queue (TPESVCERR) */
  failure?: string;
  /** for a nested request: the calling request's id, the instance that issued it, and how (tpcall, tpacall, tpforward) */
  parent?: string;
  issued_by?: string;
  mode?: string;
}

/** The data-dependent routing step of an explanation (routed services only). */
export interface RoutingStep {
  criterion: string;
  field: string;
  value: string;
  range?: string;
  group?: string;
  fallback?: boolean;
  candidates: number;
}

export interface ModelMachine {
  lmid: string;
  pmid: string;
  netload: number;
}
export interface ModelGroup {
  name: string;
  grpno: number;
  lmids: string[];
}
export interface ModelServer {
  id: string;
  name: string;
  group: string;
  srvid: number;
  lmid: string;
  queue: string;
  services: string[] | null;
  system?: boolean;
  gateway?: boolean;
  /** Where services came from: clopt, scenario (advertise map), services (no -s), dmconfig. */
  advertise_source?: string;
  spare?: boolean;
}
export interface ModelQueue {
  name: string;
  group: string;
  lmid: string;
  servers: number[];
}
export interface ModelService {
  name: string;
  load: number;
  prio: number;
  routing?: string;
}

/** A *ROUTING criterion of the configuration. */
export interface ModelCriterion {
  name: string;
  field: string;
  buftype?: string;
  kind: string;
  ranges: { text: string; group: string; catch_all?: boolean }[];
  services: string[];
  line: number;
}

/** The parsed configuration (core.Model). */
export interface Model {
  model: string;
  ldbal: boolean;
  master: string;
  machines: ModelMachine[] | null;
  groups: ModelGroup[] | null;
  servers: ModelServer[] | null;
  queues: ModelQueue[] | null;
  services: ModelService[] | null;
  routing?: ModelCriterion[] | null;
  warnings?: Diagnostic[] | null;
}
