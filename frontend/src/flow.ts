// The flow view: requests of the dispatch log moving through the topology in
// simulated time. Each appears at its origin machine, travels to the queue
// it was sent to (local or across the network), waits there, is served on
// its server and replies. Play, pause, speed and a scrubber drive the clock;
// clicking a request opens its explanation.
import { h } from "./dom";
import { at, clientRequest, firstAt, nestedRequest, parseDispatch, type FlowLog, type FlowWindow } from "./flowdata";
import { topology } from "./topology";
import type { Model, Scenario } from "./types";

/** Speeds: simulated µs per second of watching. */
const speeds: [number, string][] = [
  [1_000, "1 ms per second"],
  [10_000, "10 ms per second"],
  [100_000, "100 ms per second"],
  [1_000_000, "1 s per second (real time)"],
  [10_000_000, "10 s per second"],
];

/** Windows of the log offered: the first N requests. */
const counts = [1_000, 5_000, 20_000, 100_000];

/** tripSeconds is how long (of watching) the shortest trip is drawn, so that local requests are seen to travel. */
const tripSeconds = 0.3;

type Point = { x: number; y: number };

/** Places are the topology's points in its SVG's coordinates. */
interface Places {
  origin: Map<string, Point>;
  queue: Map<string, { x: number; y: number; w: number; h: number }>;
  server: Map<string, Point>;
}

/** places reads where the topology drew each machine, queue and server. */
function places(svg: SVGSVGElement): Places {
  const out: Places = { origin: new Map(), queue: new Map(), server: new Map() };
  for (const g of svg.querySelectorAll<SVGGElement>("g.machine")) {
    const r = g.querySelector<SVGRectElement>("rect.topo-machine");
    if (r) out.origin.set(g.dataset.lmid ?? "", { x: r.x.baseVal.value + r.width.baseVal.value - 18, y: r.y.baseVal.value + 16 });
  }
  for (const g of svg.querySelectorAll<SVGGElement>("g.queue")) {
    const r = g.querySelector<SVGRectElement>("rect.topo-queue");
    if (r) out.queue.set(g.dataset.queue ?? "", { x: r.x.baseVal.value, y: r.y.baseVal.value, w: r.width.baseVal.value, h: r.height.baseVal.value });
  }
  for (const g of svg.querySelectorAll<SVGGElement>("g.server")) {
    const c = g.querySelector<SVGCircleElement>("circle");
    if (c) out.server.set(g.dataset.server ?? "", { x: c.cx.baseVal.value, y: c.cy.baseVal.value });
  }
  return out;
}

/** p0 is the number of request i's parent when the parent is in the window, else 0. */
const p0 = (log: FlowLog, i: number): number => (log.parent[i] >= 0 ? log.seq[log.parent[i]] : 0);

/** clientSets are the names of a scenario's client sets (none when it does not read). */
function clientSets(scenario: string): string[] {
  try {
    return ((JSON.parse(scenario) as Scenario).workload?.generate?.clients ?? []).map((c) => c.name);
  } catch {
    return [];
  }
}

const mix = (a: Point, b: Point, f: number): Point => ({ x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f });

/** FlowView is the Flow tab. */
export class FlowView {
  readonly el: HTMLElement;
  private log: FlowLog | null = null;
  private loadedFor = "";
  private stage = h("div", { class: "flow-stage" });
  private canvas = h("canvas", { class: "flow-canvas", "data-testid": "flow-canvas", "aria-label": "requests moving through the topology; click one to explain it" });
  private status = h("p", { class: "muted", role: "status", "data-testid": "flow-status" });
  private legend = h("p", { class: "flow-legend" });
  private clock = h("span", { class: "flow-clock", "data-testid": "flow-time" }, "0 ms");
  private playBtn = h("button", { type: "button", class: "primary", "data-testid": "flow-play", disabled: true }, "Play");
  private speed = h("select", { "aria-label": "speed", "data-testid": "flow-speed" }, ...speeds.map(([v, t]) => h("option", { value: String(v) }, t)));
  private count = h("select", { "aria-label": "requests shown", "data-testid": "flow-count" }, ...counts.map((n) => h("option", { value: String(n) }, `the first ${n.toLocaleString("en")}`)));
  private from = h("input", { type: "number", min: "0", step: "any", value: "0", size: 8, "aria-label": "from (ms)", "data-testid": "flow-from" });
  private scrub = h("input", { type: "range", min: "0", max: "1000", step: "any", value: "0", "aria-label": "simulated time", "data-testid": "flow-scrub", class: "flow-scrub", disabled: true });
  private svg: SVGSVGElement | null = null;
  private where: Places | null = null;
  private t = 0; // simulated µs
  private playing = false;
  private lastFrame = 0;
  private active: number[] = [];
  private next = 0; // the first request not yet in active
  private dots: { seq: number; x: number; y: number; parent?: number }[] = [];

  constructor(
    private scenario: () => string,
    private model: () => Model | null,
    private dispatchLog: (scenario: string) => Promise<string>,
    private onPick: (seq: number) => void,
  ) {
    this.speed.value = "100000";
    this.count.value = "5000";
    const load = h("button", { type: "button", "data-testid": "flow-load" }, "Load");
    load.addEventListener("click", () => void this.load(true));
    this.playBtn.addEventListener("click", () => (this.playing ? this.pause() : this.play()));
    this.speed.addEventListener("change", () => this.rebuild());
    this.scrub.addEventListener("input", () => this.seek(Number(this.scrub.value)));
    this.canvas.addEventListener("click", (e) => this.pick(e));
    new ResizeObserver(() => this.resize()).observe(this.stage);
    this.el = h(
      "div",
      { class: "flow", "data-testid": "flow-view" },
      h(
        "p",
        { class: "muted" },
        "The requests of the dispatch log in simulated time: each appears at its origin machine (top right of its box), travels to the queue it was sent to, waits there, is served on its server (the dot on the circle) and replies. Click a request to see why it went there.",
      ),
      h("div", { class: "controls" }, h("label", {}, "Show ", this.count), h("label", {}, " requests from ", this.from, " ms "), load),
      h("div", { class: "controls" }, this.playBtn, h("label", {}, "Speed ", this.speed), this.clock),
      this.scrub,
      this.status,
      this.legend,
      this.stage,
    );
  }

  /** shown is called when the tab is opened: the log of the scenario on screen is loaded once. */
  shown(): void {
    if (this.loadedFor !== this.scenario()) void this.load(false);
    else this.resize();
  }

  /** window is the part of the log asked for. */
  private window(): FlowWindow {
    return { fromUS: Math.max(0, Number(this.from.value) || 0) * 1000, count: Number(this.count.value) };
  }

  private async load(again: boolean): Promise<void> {
    const scenario = this.scenario();
    const m = this.model();
    if (!m) {
      this.status.textContent = "The configuration has not been read yet (or has errors): see the Config tab.";
      return;
    }
    this.pause();
    this.status.textContent = again || !this.log ? "Running the scenario for its dispatch log…" : "";
    try {
      const text = await this.dispatchLog(scenario);
      this.log = parseDispatch(text, this.window(), clientSets(scenario));
      this.loadedFor = scenario;
    } catch (e) {
      this.status.textContent = (e as Error).message;
      return;
    }
    this.svg = topology(m, null);
    this.svg.style.maxWidth = `${2 * this.svg.viewBox.baseVal.width}px`; // larger than life, up to twice
    this.stage.replaceChildren(this.svg, this.canvas);
    this.where = places(this.svg);
    const log = this.log;
    let nested = 0;
    let clients = 0;
    for (let i = 0; i < log.n; i++) {
      if (log.kind[i] === nestedRequest) nested++;
      else if (log.kind[i] === clientRequest) clients++;
    }
    const notes: HTMLElement[] = [];
    if (nested) {
      notes.push(
        h(
          "span",
          { class: "muted", "data-testid": "flow-nested" },
          " A nested request starts from the server that called it, tied to it by a thin line, and replies there; a server holding its request for nested replies is a ring.",
        ),
      );
    }
    if (clients) notes.push(h("span", { class: "muted" }, " Client requests start from their client set's machine."));
    this.legend.replaceChildren(
      ...log.names.services.map((name, i) => h("span", { class: "legend-item" }, h("span", { class: `swatch dot line-${i % 10}`, "aria-hidden": "true" }), name)),
      // a cross, not a red dot: a service's colour may be red too (--line-1)
      h("span", { class: "legend-item" }, h("span", { class: "flow-failed-mark", "aria-hidden": "true" }, "✕"), "failed"),
      h("span", { class: "muted" }, "A dot travels, waits along its queue's lower edge, is served on its server (larger), and replies (fainter)."),
      ...notes,
    );
    this.scrub.disabled = this.playBtn.disabled = log.n === 0;
    const kinds = [clients ? `${clients.toLocaleString("en")} from clients` : "", nested ? `${nested.toLocaleString("en")} nested` : ""].filter(Boolean).join(", ");
    this.status.textContent = log.n
      ? `Requests ${log.seq[0].toLocaleString("en")} to ${log.seq[log.n - 1].toLocaleString("en")}${log.more ? " (the log goes on)" : ""}, issued from ${(log.fromUS / 1000).toLocaleString("en")} ms to ${(log.issue[log.n - 1] / 1000).toLocaleString("en")} ms${kinds ? ` (${kinds})` : ""}.`
      : "No request in that window.";
    this.seek(0);
    this.resize();
  }

  /** resize fits the canvas over the topology. */
  private resize(): void {
    if (!this.svg) return;
    const r = this.svg.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.max(1, Math.round(r.width * dpr));
    this.canvas.height = Math.max(1, Math.round(r.height * dpr));
    this.canvas.style.width = `${r.width}px`;
    this.canvas.style.height = `${r.height}px`;
    this.draw();
  }

  private vmin(): number {
    return tripSeconds * Number(this.speed.value);
  }

  /** play runs the clock; it stops at the window's end. */
  play(): void {
    if (!this.log || this.playing) return;
    if (this.t >= this.log.toUS) this.seek(0);
    this.playing = true;
    this.playBtn.textContent = "Pause";
    this.canvas.removeAttribute("data-dots");
    this.lastFrame = performance.now();
    requestAnimationFrame((now) => this.frame(now));
  }

  /** pause stops the clock where it is. */
  pause(): void {
    this.playing = false;
    this.playBtn.textContent = "Play";
    this.publish();
  }

  private frame(now: number): void {
    if (!this.playing || !this.log) return;
    const dt = Math.min(now - this.lastFrame, 100) / 1000; // a hidden tab does not jump ahead
    this.lastFrame = now;
    this.t = Math.min(this.log.toUS, this.t + dt * Number(this.speed.value));
    this.advance();
    this.draw();
    if (this.t >= this.log.toUS) this.pause();
    else requestAnimationFrame((n) => this.frame(n));
  }

  /** seek moves the clock to a fraction (0..1000) of the window and rebuilds what is on screen. */
  private seek(permille: number): void {
    if (!this.log) return;
    const log = this.log;
    this.t = log.fromUS + ((log.toUS - log.fromUS) * permille) / 1000;
    this.rebuild();
  }

  /** rebuild finds the requests on screen at the clock's time from scratch (after a seek or a speed change). */
  private rebuild(): void {
    if (!this.log) return;
    this.active = [];
    this.next = firstAt(this.log, this.t + 1e-9);
    const vmin = this.vmin();
    for (let i = 0; i < this.next; i++) if (at(this.log, i, this.t, vmin)) this.active.push(i);
    this.draw();
    if (!this.playing) this.publish();
  }

  /** advance adds the requests issued by now and drops those gone. */
  private advance(): void {
    const log = this.log!;
    while (this.next < log.n && log.issue[this.next] <= this.t) this.active.push(this.next++);
    const vmin = this.vmin();
    this.active = this.active.filter((i) => at(log, i, this.t, vmin) !== null);
  }

  /** draw paints the requests on screen and moves the clock and the scrubber. */
  private draw(): void {
    const log = this.log;
    const where = this.where;
    const ctx = this.canvas.getContext("2d");
    if (!log || !where || !this.svg || !ctx) return;
    const vb = this.svg.viewBox.baseVal;
    const k = this.canvas.width / Math.max(vb.width, 1);
    ctx.setTransform(k, 0, 0, k, 0, 0);
    ctx.clearRect(0, 0, vb.width, vb.height);
    const css = getComputedStyle(document.documentElement);
    const colour = (i: number) => css.getPropertyValue(`--line-${i % 10}`).trim() || "#2563eb";
    const bad = css.getPropertyValue("--bad").trim() || "#dc2626";
    const vmin = this.vmin();
    const waiting = new Map<number, number>(); // queue -> dots drawn in it so far
    const dots: { seq: number; x: number; y: number; parent?: number }[] = [];
    const px = k / (window.devicePixelRatio || 1);
    for (const o of where.origin.values()) {
      ctx.fillStyle = css.getPropertyValue("--muted").trim();
      ctx.fillRect(o.x - 4, o.y - 4, 8, 8); // where this machine's requests come from
    }
    for (const i of this.active) {
      const a = at(log, i, this.t, vmin);
      if (!a) continue;
      // a nested request starts from (and replies to) the server that called it, when its caller is in the window
      const pi = log.parent[i];
      const caller = pi >= 0 ? where.server.get(log.names.servers[log.server[pi]] ?? "") : undefined;
      const o = caller ?? where.origin.get(log.names.origins[log.origin[i]] ?? "");
      const qb = where.queue.get(log.names.queues[log.queue[i]] ?? "");
      const sv = where.server.get(log.names.servers[log.server[i]] ?? "");
      if (!o) continue;
      const q = qb ? { x: qb.x + qb.w - 8, y: qb.y + qb.h / 2 } : o;
      let p: Point = o;
      if (a.phase === "travel") p = mix(o, a.toServer && sv ? sv : q, a.progress);
      else if (a.phase === "wait" || (a.phase === "fail" && qb)) {
        const n = waiting.get(log.queue[i]) ?? 0;
        waiting.set(log.queue[i], n + 1);
        const per = Math.max(1, Math.floor(((qb?.w ?? 40) - 8) / 6));
        if (n >= per) continue; // the queue box is full: counted below, not drawn
        p = qb ? { x: qb.x + qb.w - 6 - n * 6, y: qb.y + qb.h - 4 } : o;
      } else if (a.phase === "serve") p = sv ?? q;
      else if (a.phase === "reply") p = mix(sv ?? q, o, a.progress);
      const c = log.failed[i] ? bad : colour(log.service[i]);
      if (caller) {
        // the thin line to the caller, who holds its request until this one replies
        ctx.beginPath();
        ctx.moveTo(caller.x, caller.y);
        ctx.lineTo(p.x, p.y);
        ctx.strokeStyle = c;
        ctx.globalAlpha = 0.45;
        ctx.lineWidth = 0.8;
        ctx.stroke();
        ctx.globalAlpha = 1;
      }
      ctx.beginPath();
      ctx.globalAlpha = a.phase === "reply" ? 0.55 : 1;
      if (log.failed[i]) {
        // a failed request is a cross, told apart by its shape from a red service's dots
        const r = a.phase === "serve" ? 4 : 3.2;
        ctx.moveTo(p.x - r, p.y - r);
        ctx.lineTo(p.x + r, p.y + r);
        ctx.moveTo(p.x + r, p.y - r);
        ctx.lineTo(p.x - r, p.y + r);
        ctx.strokeStyle = c;
        ctx.lineWidth = 1.8;
        ctx.stroke();
      } else if (a.phase === "serve" && this.t >= log.firstChild[i]) {
        ctx.arc(p.x, p.y, 4.5, 0, 2 * Math.PI);
        // holding: its server waits for the replies of its nested requests
        ctx.strokeStyle = c;
        ctx.lineWidth = 1.8;
        ctx.stroke();
      } else {
        ctx.arc(p.x, p.y, a.phase === "serve" ? 4.5 : 3, 0, 2 * Math.PI);
        ctx.fillStyle = c;
        ctx.fill();
      }
      ctx.globalAlpha = 1;
      if (dots.length < 400) dots.push({ seq: log.seq[i], x: p.x * px, y: p.y * px, ...(p0(log, i) ? { parent: p0(log, i) } : {}) });
    }
    // a queue holding more than its box shows how many
    ctx.font = "9px system-ui, sans-serif";
    ctx.fillStyle = css.getPropertyValue("--fg").trim();
    for (const [qi, n] of waiting) {
      const qb = where.queue.get(log.names.queues[qi] ?? "");
      if (qb && n > Math.floor((qb.w - 8) / 6)) ctx.fillText(`${n} waiting`, qb.x + 4, qb.y - 2);
    }
    this.dots = dots;
    this.clock.textContent = `${(this.t / 1000).toLocaleString("en", { maximumFractionDigits: 1 })} ms · ${this.active.length} on screen`;
    this.clock.dataset.us = String(Math.round(this.t));
    const span = log.toUS - log.fromUS;
    this.scrub.value = String(span > 0 ? ((this.t - log.fromUS) / span) * 1000 : 0);
  }

  /** publish lists the requests drawn (number and position in CSS pixels) on the canvas, while paused. */
  private publish(): void {
    this.canvas.dataset.dots = JSON.stringify(this.dots.slice(0, 50).map((d) => ({ seq: d.seq, x: Math.round(d.x), y: Math.round(d.y), ...(d.parent ? { parent: d.parent } : {}) })));
  }

  /** pick opens the explanation of the request nearest the click, if one is close. */
  private pick(e: MouseEvent): void {
    const r = this.canvas.getBoundingClientRect();
    const x = e.clientX - r.left;
    const y = e.clientY - r.top;
    let best: { seq: number; d: number } | null = null;
    for (const d of this.dots) {
      const dist = Math.hypot(d.x - x, d.y - y);
      if (dist <= 10 && (!best || dist < best.d)) best = { seq: d.seq, d: dist };
    }
    if (best) {
      this.pause();
      this.onPick(best.seq);
    }
  }
}
