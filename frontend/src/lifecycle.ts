// Server life cycles in the page: the scenario's events (kill, shutdown, boot
// of an instance, a group or a machine) and, from a result, each instance's
// states over time. Pure functions; the DOM is in eventsform.ts and results.ts.
import type { LifeEvent, Model, Result } from "./types";
import vocabulary from "./vocabulary.json";

/** The event kinds, as the engine names them. */
export const eventKinds: string[] = vocabulary.event;

/** kindOf returns an event's kind (kill, shutdown or boot) and target. */
export function kindOf(ev: LifeEvent): { kind: string; target: string } {
  for (const k of eventKinds) {
    const t = (ev as unknown as Record<string, unknown>)[k];
    if (typeof t === "string") return { kind: k, target: t };
  }
  return { kind: "kill", target: "" };
}

/** makeEvent builds an event with one kind. */
export function makeEvent(at_ms: number, kind: string, target: string): LifeEvent {
  return { at_ms, [kind]: target } as LifeEvent;
}

/**
 * sortEvents orders events by time, keeping the listed order among equal
 * times (the order the engine runs them in): the list must be in time order.
 */
export function sortEvents(events: LifeEvent[]): LifeEvent[] {
  return events
    .map((ev, i) => ({ ev, i }))
    .sort((a, b) => a.ev.at_ms - b.ev.at_ms || a.i - b.i)
    .map((x) => x.ev);
}

/** A target an event can name, with a label for menus. */
export interface Target {
  value: string;
  label: string;
}

/** eventTargets lists what events can target: instances (spares included), groups, machines. */
export function eventTargets(m: Model | null): Target[] {
  if (!m) return [];
  const out: Target[] = [];
  for (const s of m.servers ?? []) out.push({ value: s.id, label: `${s.id} (${s.name})` });
  for (const g of m.groups ?? []) out.push({ value: `group:${g.name}`, label: `group ${g.name}` });
  for (const x of m.machines ?? []) out.push({ value: `machine:${x.lmid}`, label: `machine ${x.lmid}` });
  return out;
}

/** A stretch of time an instance spent in one state. */
export interface Segment {
  from_ms: number;
  to_ms: number;
  state: string;
}

/** A lane of the state timeline: one instance. */
export interface Lane {
  server: string;
  segments: Segment[];
}

/**
 * lanes turns a result's life-cycle changes into one lane per instance, from
 * 0 to the span: every instance starts up, except one whose first change
 * starts elsewhere (a spare starts gone). Changes at one instant leave
 * zero-length segments out.
 */
export function lanes(r: Result): Lane[] {
  const changes = r.lifecycle ?? [];
  const byServer = new Map<string, typeof changes>();
  for (const c of changes) byServer.set(c.server, [...(byServer.get(c.server) ?? []), c]);
  return (r.servers ?? []).map((s) => {
    const cs = byServer.get(s.id) ?? [];
    let state = cs.length ? cs[0].from : (s.state ?? "up");
    let from = 0;
    const segments: Segment[] = [];
    for (const c of cs) {
      if (c.at_ms > from) segments.push({ from_ms: from, to_ms: c.at_ms, state });
      state = c.to;
      from = Math.max(from, c.at_ms);
    }
    if (r.span_ms > from || segments.length === 0) segments.push({ from_ms: from, to_ms: Math.max(r.span_ms, from), state });
    return { server: s.id, segments };
  });
}

/** stateAt returns an instance's state just after time t_ms (after the changes at t_ms). */
export function stateAt(r: Result, server: string, t_ms: number): string {
  let state = "";
  for (const c of r.lifecycle ?? []) {
    if (c.server !== server) continue;
    if (state === "") state = c.from;
    if (c.at_ms > t_ms) break;
    state = c.to;
  }
  return state || (r.servers ?? []).find((s) => s.id === server)?.state || "up";
}

/** states maps every instance to its state at t_ms (runs with a life cycle only). */
export function statesAt(r: Result | null, t_ms: number): Map<string, string> {
  const out = new Map<string, string>();
  if (!r?.lifecycle) return out;
  for (const s of r.servers ?? []) out.set(s.id, stateAt(r, s.id, t_ms));
  return out;
}
