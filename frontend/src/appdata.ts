// Applications in the page (docs/scenario.md, "Applications: nested calls and
// client populations"): the call graph of services.*.calls with what drives
// it, client request ids, client scripts written as text, the nested
// requests of a dispatch log, and machine changes as chart marks. Pure
// functions; the DOM is in callgraph.ts, clientsform.ts, results.ts and
// explain.ts.
import { valueText, readValue } from "./route";
import { splitRow } from "./tracetable";
import type { CallRoute, ClientSet, Model, Result, RouteSpec, Scenario, ScriptEntry } from "./types";

/** One step of services.S.calls, as the call graph draws it. */
export interface CallEdge {
  from: string;
  to: string;
  /** the step's number, from 1, as the child ids count them (X.step) */
  step: number;
  mode: string;
  /** the probability that the step happens */
  p: number;
  /** the child's routing value in words ("inherited", "= 10500", "uniform 10000..79999") */
  route: string;
}

/** callEdges lists every call step of the scenario, callers in name order, steps in order. */
export function callEdges(sc: Scenario): CallEdge[] {
  const out: CallEdge[] = [];
  for (const name of Object.keys(sc.services ?? {}).sort()) {
    (sc.services?.[name]?.calls ?? []).forEach((c, j) => {
      // an enqueue step is drawn as a call of its queue, QSPACE:Q
      const to = typeof c?.service === "string" && c.service ? c.service : typeof c?.enqueue === "string" ? c.enqueue : null;
      if (!c || !to) return;
      out.push({ from: name, to, step: j + 1, mode: c.enqueue ? "tpenqueue" : c.mode || "tpcall", p: c.p ?? 1, route: callRouteText(c.route) });
    });
  }
  return out;
}

/** routeSpecText says how a route object draws its values. */
export function routeSpecText(r: RouteSpec): string {
  if (r.values) return r.values.length === 1 ? `= ${valueText(r.values[0])}` : `one of ${r.values.length} values`;
  const d = r.dist ?? "uniform";
  if (d === "uniform") return `uniform ${r.min ?? "?"}..${r.max ?? "?"}`;
  if (d === "normal") return `normal mean ${r.mean ?? "?"} sd ${r.sd ?? "?"}`;
  if (d === "exp") return `exp mean ${r.mean ?? "?"}`;
  return d;
}

/** callRouteText says what routing value a call gives its child. */
export function callRouteText(r: CallRoute | undefined): string {
  if (r === undefined || r === "inherit") return "inherited";
  if (typeof r === "number" || typeof r === "string") return `= ${valueText(r)}`;
  return routeSpecText(r);
}

/** edgeText is one call step in words: "step 2, tpcall, p 0.3, route uniform 10..99". */
export function edgeText(e: CallEdge): string {
  return [`step ${e.step}`, e.mode, e.p !== 1 ? `p ${e.p}` : "", e.route !== "inherited" ? `route ${e.route}` : ""].filter(Boolean).join(", ");
}

/** A source of requests: a client set or a stream, and the services it asks for with their shares. */
export interface Source {
  id: string;
  label: string;
  sub: string;
  targets: { service: string; share: number }[];
}

/** scriptService is the service of a script entry (an enqueue's queue, QSPACE:Q). */
export function scriptService(e: ScriptEntry): string {
  if (typeof e === "string") return e;
  return "enqueue" in e ? e.enqueue : (e?.service ?? "");
}

/** clientTargets are the services a client set asks for, each with its share of the set's requests. */
export function clientTargets(cs: ClientSet): { service: string; share: number }[] {
  const shares = new Map<string, number>();
  if (cs.script) {
    for (const e of cs.script) shares.set(scriptService(e), (shares.get(scriptService(e)) ?? 0) + 1 / cs.script.length);
  } else {
    const list = cs.services ?? [];
    const total = list.reduce((a, s) => a + (s.weight ?? 1), 0);
    for (const s of list) shares.set(s.service, (shares.get(s.service) ?? 0) + (total > 0 ? (s.weight ?? 1) / total : 0));
  }
  return [...shares].map(([service, share]) => ({ service, share }));
}

/** sources lists the client sets, then the streams, of the scenario's generated workload. */
export function sources(sc: Scenario): Source[] {
  const g = sc.workload?.generate;
  const out: Source[] = [];
  (g?.clients ?? []).forEach((cs, i) => {
    out.push({
      id: `clients:${i}`,
      label: `${cs.name} ×${cs.count}`,
      sub: `clients${cs.origin ? ` on ${cs.origin}` : ""}`,
      targets: clientTargets(cs),
    });
  });
  (g?.streams ?? []).forEach((st, i) => {
    const rate = st.rate_per_s !== undefined ? ` ${st.rate_per_s}/s` : "";
    out.push({ id: `stream:${i}`, label: `stream ${i + 1}`, sub: `${st.arrivals}${rate}${st.origin ? ` from ${st.origin}` : ""}`, targets: [{ service: st.service || (st.enqueue ?? ""), share: 1 }] });
  });
  return out;
}

/** A box of the call graph, at a column and a row. */
export interface GraphNode {
  id: string;
  label: string;
  sub: string;
  kind: "source" | "service";
  col: number;
  row: number;
}

/** An arrow of the call graph: a source's requests or the calls of a service. */
export interface GraphEdge {
  from: string;
  to: string;
  /** what the arrow says: a share of a source's requests, or the call steps */
  label: string;
  calls: CallEdge[];
  /** a warning about the call (the caller's servers serve the callee from the same queue) */
  warn?: string;
  /** the arrow goes back (a cycle, which the core refuses) */
  back?: boolean;
}

/** The call graph laid out in columns: sources first, then services by call depth. */
export interface CallGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  cols: number;
  rows: number;
}

/** queuesOf maps each service to the queues whose servers advertise it. */
function queuesOf(m: Model | null): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const s of m?.servers ?? []) {
    for (const svc of s.services ?? []) {
      if (!out.has(svc)) out.set(svc, new Set());
      out.get(svc)!.add(s.queue);
    }
  }
  return out;
}

/** serversText says where a service is served: "2 queues, 4 servers" or "queue shopq, 3 servers". */
function serversText(m: Model | null, svc: string): string {
  if (!m) return "";
  const servers = (m.servers ?? []).filter((s) => !s.spare && (s.services ?? []).includes(svc));
  if (!servers.length) return "no server";
  const queues = new Set(servers.map((s) => s.queue));
  const q = queues.size === 1 ? `queue ${[...queues][0]}` : `${queues.size} queues`;
  return `${q}, ${servers.length} server${servers.length > 1 ? "s" : ""}`;
}

/** shareText writes a fraction as a percentage without needless decimals. */
function shareText(f: number): string {
  const p = f * 100;
  return `${Number.isInteger(p) ? p : p.toFixed(1)}%`;
}

/**
 * callGraph lays out who calls whom: the scenario's sources in column 0,
 * then each service in the column after its deepest caller, so that every
 * call goes to the right. A service no source asks for and no call reaches
 * is left out. With the model, each service says where it is served, and a
 * call whose callee is served from a queue of the caller's servers is
 * flagged: when every server of that queue holds a caller, the calls wait
 * in the queue they would take them from (only the deadline breaks it).
 */
export function callGraph(sc: Scenario, m: Model | null): CallGraph {
  const calls = callEdges(sc);
  const srcs = sources(sc);
  const out = new Map<string, CallEdge[]>();
  for (const c of calls) out.set(c.from, [...(out.get(c.from) ?? []), c]);
  // services in order of discovery: from the sources in listed order, then along the calls
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (s: string) => {
    if (seen.has(s)) return;
    seen.add(s);
    order.push(s);
  };
  for (const src of srcs) for (const t of src.targets) visit(t.service);
  for (let i = 0; i < order.length; i++) for (const c of out.get(order[i]) ?? []) visit(c.to);
  for (const c of calls) {
    visit(c.from);
    visit(c.to);
  }
  for (let i = 0; i < order.length; i++) for (const c of out.get(order[i]) ?? []) visit(c.to);
  // depth: the longest chain of calls from a service no one calls; an edge to a service on the stack is a cycle
  const depth = new Map<string, number>();
  const onStack = new Set<string>();
  const back = new Set<CallEdge>();
  const callers = new Map<string, CallEdge[]>();
  for (const c of calls) callers.set(c.to, [...(callers.get(c.to) ?? []), c]);
  const depthOf = (s: string): number => {
    const d = depth.get(s);
    if (d !== undefined) return d;
    onStack.add(s);
    let best = 0;
    for (const c of callers.get(s) ?? []) {
      if (onStack.has(c.from)) {
        back.add(c);
        continue;
      }
      best = Math.max(best, depthOf(c.from) + 1);
    }
    onStack.delete(s);
    depth.set(s, best);
    return best;
  };
  const first = srcs.length ? 1 : 0;
  const nodes: GraphNode[] = srcs.map((s, i) => ({ id: s.id, label: s.label, sub: s.sub, kind: "source", col: 0, row: i }));
  const rowsIn = new Map<number, number>();
  for (const s of order) {
    const col = first + depthOf(s);
    const row = rowsIn.get(col) ?? 0;
    rowsIn.set(col, row + 1);
    nodes.push({ id: `svc:${s}`, label: s, sub: serversText(m, s), kind: "service", col, row });
  }
  const edges: GraphEdge[] = [];
  for (const src of srcs) {
    for (const t of src.targets) edges.push({ from: src.id, to: `svc:${t.service}`, label: src.targets.length > 1 ? shareText(t.share) : "", calls: [] });
  }
  const queues = queuesOf(m);
  const pairs = new Map<string, GraphEdge>();
  for (const c of calls) {
    const key = `${c.from}\u0000${c.to}`;
    let e = pairs.get(key);
    if (!e) {
      e = { from: `svc:${c.from}`, to: `svc:${c.to}`, label: "", calls: [] };
      const shared = [...(queues.get(c.from) ?? [])].filter((q) => queues.get(c.to)?.has(q));
      if (shared.length) e.warn = `${c.from}'s servers also serve ${c.to} from queue ${shared.join(", ")}: when all of them hold a ${c.from}, its calls wait there until their deadline`;
      pairs.set(key, e);
      edges.push(e);
    }
    e.calls.push(c);
    if (back.has(c)) e.back = true;
  }
  for (const e of pairs.values()) e.label = e.calls.map((c) => [`${c.step}.`, c.mode, c.p !== 1 ? `p ${c.p}` : ""].filter(Boolean).join(" ")).join("; ");
  const cols = nodes.reduce((a, n) => Math.max(a, n.col + 1), 0);
  const rows = nodes.reduce((a, n) => Math.max(a, n.row + 1), 0);
  return { nodes, edges, cols, rows };
}

/** A client request's id taken apart: set NAME, client c, its n-th request, retry k, and the steps of nested ids. */
export interface ClientID {
  set: string;
  client: number;
  n: number;
  retry: number;
  /** the call steps from the client's request down to this one (a nested id X.1.2 has [1, 2]) */
  steps: number[];
}

const clientIDPattern = /^([^:~.,"\n\r]+):(\d+):(\d+)(?:~(\d+))?((?:\.\d+)*)$/;

/**
 * parseClientID reads a client request's id (NAME:c:n, NAME:c:n~k, and the
 * nested X.j below them); null for any other id (a trace's, a stream's).
 * sets, when given, are the client sets' names: an id of another set is
 * not a client's.
 */
export function parseClientID(id: string, sets?: string[]): ClientID | null {
  const m = clientIDPattern.exec(id);
  if (!m || (sets && !sets.includes(m[1]))) return null;
  return {
    set: m[1],
    client: Number(m[2]),
    n: Number(m[3]),
    retry: m[4] ? Number(m[4]) : 0,
    steps: m[5] ? m[5].slice(1).split(".").map(Number) : [],
  };
}

/** clientIDText says whose request an id is: "client 3 of tellers, its request 17 (retry 1)". */
export function clientIDText(c: ClientID): string {
  return `client ${c.client} of ${c.set}, its request ${c.n}${c.retry ? ` (retry ${c.retry})` : ""}`;
}

/** formatScript writes a client script as the form edits it: "CLOSE, REPORT=10500, X='007'". */
export function formatScript(entries: ScriptEntry[]): string {
  return entries
    .map((e) => (typeof e === "string" ? e : "enqueue" in e ? e.enqueue : e.route === undefined ? e.service : `${e.service}=${valueText(e.route, ",=")}`))
    .join(", ");
}

/**
 * parseScript reads a script written as formatScript writes it: services
 * separated by commas, each with =VALUE for a constant routing value (a
 * number when it reads as one; 'quoted' stays a string).
 */
export function parseScript(text: string): ScriptEntry[] | { error: string } {
  const items = text.split(",").map((x) => x.trim());
  if (items.length === 1 && items[0] === "") return { error: "give at least one service" };
  const out: ScriptEntry[] = [];
  for (const [i, item] of items.entries()) {
    if (item === "") return { error: `entry ${i + 1} is empty` };
    const eq = item.indexOf("=");
    if (eq < 0 && item.includes(":")) {
      out.push({ enqueue: item }); // QSPACE:Q, a /Q enqueue
      continue;
    }
    if (eq < 0) {
      out.push(item);
      continue;
    }
    const service = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (service === "") return { error: `entry ${i + 1}: no service before =` };
    if (value === "" || value === "''") return { error: `entry ${i + 1}: no value after =` };
    out.push({ service, route: readValue(value) });
  }
  return out;
}

/** A request related to another in a dispatch log: its number, id, service and reason. */
export interface Kin {
  seq: number;
  id: string;
  service: string;
  reason: string;
}

/** Who called whom in a run: each nested request's parent (by number) and each caller's children. */
export interface Lineage {
  parent: Map<number, Kin>;
  children: Map<number, Kin[]>;
}

/** cells returns the first cells of a dispatch log line cheaply (the whole row when it is quoted). */
function cell0(line: string): string {
  if (line.startsWith('"')) return splitRow(line, ",")[0];
  const comma = line.indexOf(",");
  return comma < 0 ? line : line.slice(0, comma);
}

/**
 * lineage reads the nested requests of a dispatch log (its last column,
 * parent, names the calling request's id; docs/engine.md): each nested
 * request's parent, each caller's children in issue order. Requests are
 * numbered by their row, as explain mode numbers them. It keeps only the
 * requests that are a parent or a child, so a log of millions of rows is
 * read in two passes without holding a row per request. A log without the
 * parent column has no nested request.
 */
export function lineage(text: string): Lineage {
  const out: Lineage = { parent: new Map(), children: new Map() };
  const lines = (fn: (line: string, seq: number) => void) => {
    let at = text.indexOf("\n");
    let seq = 0;
    while (at >= 0 && at < text.length) {
      const next = text.indexOf("\n", at + 1);
      const line = text.slice(at + 1, next < 0 ? text.length : next).replace(/\r$/, "");
      at = next;
      if (line === "") continue;
      fn(line, ++seq);
    }
  };
  const header = splitRow(text.slice(0, Math.max(0, text.indexOf("\n"))).replace(/\r$/, ""), ",");
  const pc = header.indexOf("parent");
  const col = { id: header.indexOf("id"), service: header.indexOf("service"), reason: header.indexOf("reason") };
  if (pc < 0 || col.id !== 0) return out;
  // pass 1: the nested rows (their last cell is not empty) and the ids of their parents
  const wanted = new Map<string, number>();
  const nested: { kin: Kin; parent: string }[] = [];
  lines((line, seq) => {
    if (line.endsWith(",")) return; // no parent
    const f = splitRow(line, ",");
    const parent = f[pc] ?? "";
    if (parent === "") return;
    nested.push({ kin: { seq, id: f[col.id], service: f[col.service] ?? "", reason: f[col.reason] ?? "" }, parent });
    wanted.set(parent, 0);
  });
  if (!nested.length) return out;
  // pass 2: where those parents are
  const parents = new Map<string, Kin>();
  lines((line, seq) => {
    const id = cell0(line);
    if (!wanted.has(id) || parents.has(id)) return;
    const f = splitRow(line, ",");
    parents.set(id, { seq, id, service: f[col.service] ?? "", reason: f[col.reason] ?? "" });
  });
  for (const { kin, parent } of nested) {
    const p = parents.get(parent);
    if (!p) continue;
    out.parent.set(kin.seq, p);
    if (!out.children.has(p.seq)) out.children.set(p.seq, []);
    out.children.get(p.seq)!.push(kin);
  }
  return out;
}

/** hasApplications says whether a scenario has calls or clients (and so ids, parents and children to show). */
export function hasApplications(sc: Scenario): boolean {
  return Object.values(sc.services ?? {}).some((s) => (s?.calls ?? []).length > 0) || (sc.workload?.generate?.clients ?? []).length > 0;
}

/** hasCalls says whether a scenario's services call others. */
export function hasCalls(sc: Scenario): boolean {
  return Object.values(sc.services ?? {}).some((s) => (s?.calls ?? []).length > 0);
}

/** machineMarks are a result's machine changes as chart marks: x in seconds, labelled "SITE2 lost". */
export function machineMarks(r: Result): { xs: number[]; labels: string[] } {
  const cs = r.machine_changes ?? [];
  return { xs: cs.map((c) => c.at_ms / 1000), labels: cs.map((c) => `${c.lmid} ${c.change}`) };
}

/** One column of the client table: its key in clients[] (dotted for response_ms), its heading. */
export const clientColumns: [string, string][] = [
  ["count", "Clients"],
  ["requests", "Requests"],
  ["completed", "Completed"],
  ["failed", "Failed"],
  ["timed_out", "Timed out"],
  ["retried", "Retried"],
  ["throughput_per_s", "Per second"],
  ["response_ms.mean", "Response mean"],
  ["response_ms.p95", "p95"],
  ["response_ms.p99", "p99"],
  ["cycle_ms", "Cycle"],
];

/** clientValue reads a dotted key of a client set's figures. */
export function clientValue(c: object, key: string): unknown {
  let v: unknown = c;
  for (const k of key.split(".")) v = (v as Record<string, unknown> | undefined)?.[k];
  return v;
}
