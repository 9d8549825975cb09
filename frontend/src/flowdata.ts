// The requests of a dispatch log as the flow view animates them: read from
// the log's CSV (a window of it), and where each one is at a moment of
// simulated time. Nothing here touches the DOM.
import { parseClientID } from "./appdata";
import { splitRow } from "./tracetable";
import vocabulary from "./vocabulary.json";

/** A window of a dispatch log: the requests issued from fromUS on, at most count of them. */
export interface FlowWindow {
  fromUS: number;
  count: number;
}

/**
 * FlowLog holds the requests of a window, in issue order, as columns. Times
 * are in µs; NaN where the log has none (a request that failed before it
 * started). Names are indices into the lists under names; -1 for none.
 */
export interface FlowLog {
  n: number;
  /** the request's number in the run (its row in the log, from 1): what explain mode takes */
  seq: Int32Array;
  service: Int32Array;
  origin: Int32Array;
  server: Int32Array;
  queue: Int32Array;
  issue: Float64Array;
  enqueue: Float64Array;
  start: Float64Array;
  end: Float64Array;
  reply: Float64Array;
  failed: Uint8Array;
  /** who issued it: 0 a trace or a stream, 1 a client, 2 a server (a nested request) */
  kind: Uint8Array;
  /** a nested request's parent, as an index into the window; -1 when it has none or it is not in the window */
  parent: Int32Array;
  /** when a caller issued its first nested request in the window (it holds its request from then on); NaN for none */
  firstChild: Float64Array;
  names: { services: string[]; origins: string[]; servers: string[]; queues: string[] };
  /** the window's first issue and last reply (µs) */
  fromUS: number;
  toUS: number;
  /** whether the log goes on past the window */
  more: boolean;
}

const columns = ["id", "service", "origin", "issue_us", "server", "queue", "enqueue_us", "start_us", "end_us", "reply_us", "reason", "parent"];

/** the dispatch rules' reasons (the engine's, TP... codes left out); a failure code is any other (TPENOENT, TPESVCERR, ...) */
const served = new Set(vocabulary.dispatch_reason.filter((r) => !r.startsWith("TP")));

/** Kinds of request in FlowLog.kind. */
export const plainRequest = 0;
export const clientRequest = 1;
export const nestedRequest = 2;

/**
 * parseDispatch reads the window of a dispatch log (docs/engine.md, The
 * dispatch log); it stops reading past the window. clientSets are the
 * names of the scenario's client sets: a request of theirs is a client's.
 */
export function parseDispatch(text: string, w: FlowWindow, clientSets: string[] = []): FlowLog {
  let at = text.indexOf("\n");
  const header = splitRow(text.slice(0, at < 0 ? text.length : at).replace(/\r$/, ""), ",");
  const col = Object.fromEntries(columns.map((c) => [c, header.indexOf(c)]));
  if (col.issue_us < 0 || col.service < 0) throw new Error("not a dispatch log: its header lacks issue_us or service");
  const cap = Math.max(0, w.count);
  const log: FlowLog = {
    n: 0,
    seq: new Int32Array(cap),
    service: new Int32Array(cap),
    origin: new Int32Array(cap),
    server: new Int32Array(cap),
    queue: new Int32Array(cap),
    issue: new Float64Array(cap),
    enqueue: new Float64Array(cap),
    start: new Float64Array(cap),
    end: new Float64Array(cap),
    reply: new Float64Array(cap),
    failed: new Uint8Array(cap),
    kind: new Uint8Array(cap),
    parent: new Int32Array(cap),
    firstChild: new Float64Array(cap),
    names: { services: [], origins: [], servers: [], queues: [] },
    fromUS: Infinity,
    toUS: 0,
    more: false,
  };
  const index = (list: string[], seen: Map<string, number>, name: string): number => {
    if (name === "") return -1;
    let i = seen.get(name);
    if (i === undefined) {
      i = list.push(name) - 1;
      seen.set(name, i);
    }
    return i;
  };
  const seen = { services: new Map(), origins: new Map(), servers: new Map(), queues: new Map() };
  const num = (s: string | undefined) => (s === undefined || s === "" ? NaN : Number(s));
  const ids = new Map<string, number>(); // id -> index, for the parents of nested requests in the window
  let row = 0;
  while (at >= 0 && at < text.length) {
    const next = text.indexOf("\n", at + 1);
    const line = text.slice(at + 1, next < 0 ? text.length : next).replace(/\r$/, "");
    at = next;
    if (line === "") continue;
    row++;
    const f = splitRow(line, ",");
    const issue = num(f[col.issue_us]);
    if (issue < w.fromUS) continue;
    if (log.n === cap) {
      log.more = true;
      break;
    }
    const i = log.n++;
    log.seq[i] = row;
    log.service[i] = index(log.names.services, seen.services, f[col.service] ?? "");
    log.origin[i] = index(log.names.origins, seen.origins, f[col.origin] ?? "");
    log.server[i] = index(log.names.servers, seen.servers, f[col.server] ?? "");
    log.queue[i] = index(log.names.queues, seen.queues, f[col.queue] ?? "");
    log.issue[i] = issue;
    log.enqueue[i] = num(f[col.enqueue_us]);
    log.start[i] = num(f[col.start_us]);
    log.end[i] = num(f[col.end_us]);
    log.reply[i] = num(f[col.reply_us]);
    log.failed[i] = served.has(f[col.reason] ?? "") ? 0 : 1;
    const id = f[col.id] ?? "";
    const parent = col.parent >= 0 ? (f[col.parent] ?? "") : "";
    log.parent[i] = -1;
    log.firstChild[i] = NaN;
    if (parent !== "") {
      log.kind[i] = nestedRequest;
      const p = ids.get(parent);
      if (p !== undefined) {
        log.parent[i] = p;
        if (Number.isNaN(log.firstChild[p])) log.firstChild[p] = issue;
      }
    } else log.kind[i] = clientSets.length && parseClientID(id, clientSets) ? clientRequest : plainRequest;
    if (col.parent >= 0) ids.set(id, i);
    log.fromUS = Math.min(log.fromUS, issue);
    log.toUS = Math.max(log.toUS, finishOf(log, i));
  }
  if (log.n === 0) log.fromUS = 0;
  return log;
}

/** finishOf is when request i leaves the picture: its reply, else its end, else its issue. */
function finishOf(log: FlowLog, i: number): number {
  for (const t of [log.reply[i], log.end[i], log.enqueue[i]]) if (!Number.isNaN(t)) return t;
  return log.issue[i];
}

/** Where a request is: travelling to its queue or server, waiting, being served, replying, or failing. */
export type Phase = "travel" | "wait" | "serve" | "reply" | "fail";

/** A request's state at one moment: its phase, how far through it (0..1), and where it goes to. */
export interface At {
  phase: Phase;
  progress: number;
  /** for travel: whether it goes straight to the server (it started before it could be seen arriving) */
  toServer: boolean;
}

/**
 * at says where request i is at time t (µs), or null when it is not in the
 * picture. vmin (µs) is the shortest a trip is drawn: a local request enters
 * its queue the instant it is issued, so its trip is stretched to vmin, and
 * its wait and service start no earlier than it arrives.
 */
export function at(log: FlowLog, i: number, t: number, vmin: number): At | null {
  const issue = log.issue[i];
  if (t < issue) return null;
  const enq = log.enqueue[i];
  const start = log.start[i];
  const end = log.end[i];
  if (log.failed[i] && Number.isNaN(start)) {
    // failed before any server took it: seen at its origin, or waiting in its queue until the failure
    const until = Math.max(Number.isNaN(log.reply[i]) ? issue : log.reply[i], issue + vmin);
    if (t >= until) return null;
    if (Number.isNaN(enq)) return { phase: "fail", progress: (t - issue) / (until - issue), toServer: false };
    const arrive = Math.max(enq, issue + vmin);
    if (t < arrive) return { phase: "travel", progress: (t - issue) / (arrive - issue), toServer: false };
    return { phase: "fail", progress: (t - arrive) / Math.max(until - arrive, 1), toServer: false };
  }
  const arrive = Math.max(Number.isNaN(enq) ? issue : enq, issue + vmin);
  const begin = Math.max(start, arrive);
  if (t < arrive) return { phase: "travel", progress: (t - issue) / (arrive - issue), toServer: start <= arrive };
  if (t < begin) return { phase: "wait", progress: (t - arrive) / (begin - arrive), toServer: false };
  const stop = Math.max(end, begin + vmin / 4);
  if (t < stop) return { phase: "serve", progress: (t - begin) / (stop - begin), toServer: false };
  const back = Math.max(Number.isNaN(log.reply[i]) ? stop : log.reply[i], stop + vmin);
  if (t < back) return { phase: "reply", progress: (t - stop) / (back - stop), toServer: false };
  return null;
}

/** firstAt returns the index of the first request issued at or after t (binary search: issue order). */
export function firstAt(log: FlowLog, t: number): number {
  let lo = 0;
  let hi = log.n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (log.issue[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
