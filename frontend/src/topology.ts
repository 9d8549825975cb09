// The topology picture: machines, their groups, each group's queues (an MSSQ
// set is one queue) and the servers reading them, with each one's share of
// the work. Built with DOM calls only; names go in as text nodes.
import { pct } from "./chartdata";
import { s } from "./dom";
import type { Model, Result } from "./types";

const machineW = 280;
const gap = 16;
const queueW = 110;
const serverStep = 28;
const rowH = 32;
const perRow = Math.floor((machineW - queueW - 36) / serverStep);

export interface QueueBox {
  name: string;
  servers: { id: string; srvid: number; system: boolean; gateway: boolean }[];
}

/**
 * tmsQueues are a group's TMS queues (GROUP/TMS, an MSSQ set of its TMS
 * servers), which a configuration's model does not list: the result's
 * servers marked tms give them (runs with transactions or /Q forwarding).
 */
export function tmsQueues(r: Result | null, group: string): QueueBox[] {
  const out: QueueBox[] = [];
  for (const sv of r?.servers ?? []) {
    if (!sv.tms || sv.group !== group) continue;
    let q = out.find((b) => b.name === sv.queue);
    if (!q) out.push((q = { name: sv.queue, servers: [] }));
    q.servers.push({ id: sv.id, srvid: Number(sv.id.slice(sv.id.lastIndexOf("/") + 1)), system: true, gateway: false });
  }
  return out;
}

/** layoutHeight is the height a group's queues need. */
function groupHeight(queues: QueueBox[]): number {
  return 26 + queues.reduce((h, q) => h + rowH * Math.max(1, Math.ceil(q.servers.length / perRow)), 0) + 8;
}

/** shares maps server id → share of processed requests, and queue → the sum over its servers. */
function shares(r: Result | null): { server: Map<string, number>; queue: Map<string, number> } {
  const server = new Map<string, number>();
  const queue = new Map<string, number>();
  for (const sv of r?.servers ?? []) {
    server.set(sv.id, sv.share);
    queue.set(sv.queue, (queue.get(sv.queue) ?? 0) + sv.share);
  }
  return { server, queue };
}

/** topology draws the model; with a result, every queue and server shows its share. */
export function topology(m: Model, r: Result | null): SVGSVGElement {
  const sh = shares(r);
  const servers = m.servers ?? [];
  const machines = m.machines ?? [];
  const cols: SVGGElement[] = [];
  let height = 0;
  machines.forEach((mc, mi) => {
    const x = gap + mi * (machineW + gap);
    const g = s("g", { class: "machine", "data-lmid": mc.lmid });
    let y = 44;
    for (const grp of (m.groups ?? []).filter((gr) => (gr.lmids ?? [])[0] === mc.lmid)) {
      const qs: QueueBox[] = (m.queues ?? [])
        .filter((q) => q.group === grp.name)
        .map((q) => ({
          name: q.name,
          servers: (q.servers ?? []).map((i) => ({
            id: servers[i]?.id ?? "?",
            srvid: servers[i]?.srvid ?? 0,
            system: !!servers[i]?.system,
            gateway: !!servers[i]?.gateway,
          })),
        }));
      qs.push(...tmsQueues(r, grp.name).filter((t) => !qs.some((q) => q.name === t.name)));
      g.append(drawGroup(x + 10, y, grp.name, qs, sh));
      y += groupHeight(qs) + 10;
    }
    const title = `${mc.lmid}${mc.netload ? ` · NETLOAD ${mc.netload}` : ""}`;
    g.prepend(
      s("rect", { x, y: 8, width: machineW, height: y - 8, rx: 8, class: "topo-machine" }),
      s("text", { x: x + 10, y: 28, class: "topo-machine-label" }, title),
    );
    height = Math.max(height, y + 10);
    cols.push(g);
  });
  const width = gap + machines.length * (machineW + gap);
  const svg = s("svg", {
    viewBox: `0 0 ${width} ${Math.max(height, 60)}`,
    class: "topology",
    role: "img",
    "aria-label": "Topology: machines, groups, queues and servers",
  });
  svg.append(...cols);
  svg.style.maxWidth = `${width}px`; // never drawn larger than life
  svg.style.minWidth = `${Math.round(width * 0.7)}px`; // nor so small that it cannot be read (a phone): its box scrolls instead
  return svg;
}

function drawGroup(x: number, y: number, name: string, qs: QueueBox[], sh: ReturnType<typeof shares>): SVGGElement {
  const w = machineW - 20;
  const g = s("g", { class: "group" });
  g.append(
    s("rect", { x, y, width: w, height: groupHeight(qs), rx: 6, class: "topo-group" }),
    s("text", { x: x + 8, y: y + 17, class: "topo-group-label" }, `group ${name}`),
  );
  let qy = y + 26;
  for (const q of qs) {
    const rows = Math.max(1, Math.ceil(q.servers.length / perRow));
    const share = sh.queue.get(q.name);
    const qg = s("g", { class: "queue", "data-queue": q.name });
    qg.append(
      s("rect", { x: x + 8, y: qy, width: queueW, height: rowH - 8, rx: 4, class: "topo-queue" }),
      s("text", { x: x + 14, y: qy + 16, class: "topo-queue-label", ...squeeze(queueLabel(q.name, share), 15, queueW - 12) }, queueLabel(q.name, share)),
      s("title", {}, `queue ${q.name}${q.servers.length > 1 ? ` (MSSQ, ${q.servers.length} servers)` : ""}${share !== undefined ? `: ${pct(share)} of requests` : ""}`),
    );
    q.servers.forEach((sv, i) => {
      const cx = x + queueW + 30 + (i % perRow) * serverStep;
      const cy = qy + (rowH - 8) / 2 + Math.floor(i / perRow) * rowH;
      const ss = sh.server.get(sv.id);
      const cls = `topo-server${sv.system ? " system" : ""}${sv.gateway ? " gateway" : ""}`;
      const sg = s("g", { class: "server", "data-server": sv.id });
      // at most 0.6, so that the SRVID drawn on it stays readable in either colour scheme
      const fill = ss !== undefined ? Math.min(0.6, 0.15 + ss * 1.5) : 0.15;
      sg.append(
        s("line", { x1: x + 8 + queueW, y1: qy + (rowH - 8) / 2, x2: cx - 11, y2: cy, class: "topo-edge" }),
        s("circle", { cx, cy, r: 11, class: cls, "fill-opacity": fill.toFixed(2) }),
        s("text", { x: cx, y: cy + 4, class: "topo-server-label", "text-anchor": "middle", ...squeeze(String(sv.srvid), 2, 18) }, String(sv.srvid)),
        s("title", {}, `server ${sv.id}${ss !== undefined ? `: ${pct(ss)} of requests` : ""}`),
      );
      qg.append(sg);
    });
    g.append(qg);
    qy += rows * rowH;
  }
  return g;
}

/** queueLabel is a queue's name, shortened, with its share of requests when there is a result. */
export function queueLabel(name: string, share: number | undefined): string {
  return shortName(name) + (share !== undefined ? ` ${pct(share)}` : "");
}

/**
 * squeeze returns SVG attributes that fit text longer than max characters
 * into width pixels (a 3-digit SRVID in its circle, a long queue label in its
 * box); shorter text gets none.
 */
export function squeeze(text: string, max: number, width: number): Record<string, string> {
  return text.length > max ? { textLength: String(width), lengthAdjust: "spacingAndGlyphs" } : {};
}

function shortName(q: string): string {
  return q.length > 13 ? q.slice(0, 12) + "…" : q;
}

/**
 * greyOut marks instances by life-cycle state (class "state-down",
 * "state-gone", ...) so that those not up are drawn greyed out; up ones and
 * instances without a state are left as they are.
 */
export function greyOut(svg: SVGSVGElement, states: Map<string, string>): void {
  for (const el of svg.querySelectorAll<SVGGElement>("g.server")) {
    for (const c of [...el.classList]) if (c.startsWith("state-")) el.classList.remove(c);
    const st = states.get(el.dataset.server ?? "");
    if (st && st !== "up") {
      el.classList.add(`state-${st}`, "not-up");
      el.querySelector("title")?.append(` — ${st}`);
    }
  }
}

/** highlight marks the candidates and the winner of an explanation on a topology picture. */
export function highlight(svg: SVGSVGElement, candidates: string[], winnerQueue: string, server: string): void {
  for (const el of svg.querySelectorAll(".candidate, .winner")) el.classList.remove("candidate", "winner");
  const cand = new Set(candidates);
  for (const el of svg.querySelectorAll<SVGGElement>("g.server")) {
    if (cand.has(el.dataset.server ?? "")) el.classList.add("candidate");
    if (el.dataset.server === server) el.classList.add("winner");
  }
  for (const el of svg.querySelectorAll<SVGGElement>("g.queue")) {
    if (el.dataset.queue === winnerQueue) el.classList.add("winner");
  }
}
