// The flow matrix: the result's flows (one entry per origin machine, serving
// machine and dispatch reason) as a table of origins against the machines
// whose queues took their requests, each cell the share of the origin's
// requests, with a sentence per cell ("SITE1 sends 25% of its requests to
// SITE2, all by least-load"). flowMatrix and flowSentence are pure.
import { h } from "./dom";
import type { Flow } from "./types";

/** One cell: an origin's requests that went to one machine, by reason. */
export interface FlowCell {
  origin: string;
  machine: string; // "" for requests that failed at their issue
  requests: number;
  share: number; // of the origin's requests
  reasons: { reason: string; requests: number }[]; // most requests first, then by name
}

/** The matrix: origins and serving machines in first-seen order, the cells by origin then machine. */
export interface FlowMatrix {
  origins: string[];
  machines: string[];
  total: Map<string, number>; // requests per origin
  cells: Map<string, Map<string, FlowCell>>;
}

/** flowMatrix groups the flows by origin and machine. */
export function flowMatrix(flows: Flow[]): FlowMatrix {
  const origins: string[] = [];
  const machines: string[] = [];
  const total = new Map<string, number>();
  const cells = new Map<string, Map<string, FlowCell>>();
  for (const f of flows) {
    if (f.requests <= 0) continue;
    if (!cells.has(f.origin)) {
      origins.push(f.origin);
      cells.set(f.origin, new Map());
    }
    if (!machines.includes(f.machine)) machines.push(f.machine);
    const row = cells.get(f.origin)!;
    let c = row.get(f.machine);
    if (!c) {
      c = { origin: f.origin, machine: f.machine, requests: 0, share: 0, reasons: [] };
      row.set(f.machine, c);
    }
    c.requests += f.requests;
    const r = c.reasons.find((x) => x.reason === f.reason);
    if (r) r.requests += f.requests;
    else c.reasons.push({ reason: f.reason, requests: f.requests });
    total.set(f.origin, (total.get(f.origin) ?? 0) + f.requests);
  }
  // the failures at issue last, the machines otherwise as the result lists them
  machines.sort((a, b) => (a === "" ? 1 : 0) - (b === "" ? 1 : 0));
  for (const row of cells.values()) {
    for (const c of row.values()) {
      c.share = c.requests / (total.get(c.origin) ?? 1);
      c.reasons.sort((a, b) => b.requests - a.requests || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0));
    }
  }
  return { origins, machines, total, cells };
}

/** percent writes a share as a whole percent, or with one decimal when that is not exact ("25%", "12.5%", "0.1%"). */
export function percent(f: number): string {
  const p = f * 100;
  const r = Math.round(p * 10) / 10;
  return `${Number.isInteger(r) ? r.toFixed(0) : r.toFixed(1)}%`;
}

/** flowSentence says a cell in words: "SITE1 sends 25% of its requests to SITE2, all by least-load". */
export function flowSentence(c: FlowCell): string {
  const where = c.machine === "" ? "fails" : `sends ${percent(c.share)} of its requests to ${c.machine}`;
  if (c.machine === "") {
    const how = c.reasons.map((r) => `${r.requests} ${r.reason}`).join(", ");
    return `${c.origin} ${where} ${percent(c.share)} of its requests at their issue (${how})`;
  }
  if (c.reasons.length === 1) return `${c.origin} ${where}, all by ${c.reasons[0].reason}`;
  const how = c.reasons.map((r) => `${percent(r.requests / c.requests)} by ${r.reason}`).join(", ");
  return `${c.origin} ${where}: ${how}`;
}

/** flowMatrixView draws the matrix as a table, with the sentences below; null when the result has no flows. */
export function flowMatrixView(flows: Flow[] | null | undefined): HTMLElement | null {
  const m = flowMatrix(flows ?? []);
  if (m.origins.length === 0) return null;
  const head = (machine: string) => (machine === "" ? "failed at issue" : machine);
  const table = h(
    "table",
    { class: "plain flow-matrix", "data-testid": "flow-matrix" },
    h("caption", {}, "Where each machine's requests went (share of its requests; the reasons of each cell are listed below)"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "from \\ to"), ...m.machines.map((x) => h("th", { scope: "col" }, head(x))), h("th", { scope: "col" }, "requests"))),
    h(
      "tbody",
      {},
      ...m.origins.map((o) =>
        h(
          "tr",
          {},
          h("th", { scope: "row" }, o),
          ...m.machines.map((x) => {
            const c = m.cells.get(o)!.get(x);
            return c ? h("td", { title: flowSentence(c), "data-testid": `flow-cell-${o}-${x || "none"}` }, percent(c.share)) : h("td", { class: "muted" }, "–");
          }),
          h("td", {}, String(m.total.get(o) ?? 0)),
        ),
      ),
    ),
  );
  const sentences = m.origins.flatMap((o) => m.machines.flatMap((x) => (m.cells.get(o)!.has(x) ? [flowSentence(m.cells.get(o)!.get(x)!)] : [])));
  return h(
    "figure",
    { class: "flows", "data-testid": "flows" },
    h("figcaption", {}, "Flows between machines"),
    table,
    h("ul", { class: "flow-sentences", "data-testid": "flow-sentences" }, ...sentences.map((t) => h("li", {}, t))),
  );
}
