// Pure shaping of a Result into what the charts and tables draw. Nothing here
// touches the DOM, so it is unit-tested against hand-made results.
import type { Headline, Histogram, NamedSeries, Result, ServiceStats } from "./types";
import vocabulary from "./vocabulary.json";

const figureUnits: Record<string, string> = Object.fromEntries(vocabulary.figures.map((f) => [f.name, f.unit]));
const figureBetter: Record<string, string> = Object.fromEntries(vocabulary.figures.map((f) => [f.name, f.better]));

/** Columnar chart data: x values then one array per line (uPlot's AlignedData shape). */
export type Columns = [number[], ...(number | null)[][]];

/** A chart's data and the label of each line after x. */
export interface ChartData {
  labels: string[];
  data: Columns;
}

/** fmt prints a number for people: integers as is, others with 3 significant decimals. */
export function fmt(n: number | null | undefined): string {
  if (n === null || n === undefined || Number.isNaN(n)) return "–";
  if (Number.isInteger(n)) return String(n);
  const a = Math.abs(n);
  if (a >= 100) return n.toFixed(1);
  if (a >= 1) return n.toFixed(2);
  return n.toPrecision(3);
}

/** pct prints a fraction 0..1 as a percentage. */
export function pct(f: number): string {
  return `${(f * 100).toFixed(1)}%`;
}

/** One headline figure of a run. */
export interface Figure {
  /** the figures table's name (the summary's data-figure) */
  name: string;
  label: string;
  /** NaN when the result does not give it (a result made before results carried a headline) */
  value: number;
}

/** figureText writes a value of the figure named name (the figures table's name) as the summary shows it: a fraction as a percentage (the table's unit), anything else as a number. */
export function figureText(name: string, value: number): string {
  return figureUnits[name] === "fraction" && !Number.isNaN(value) ? pct(value) : fmt(value);
}

/** The summary's figures: the figures table's rows marked summary, in its order. */
const summaryFigures = vocabulary.figures.filter((f) => f.summary);

/** headline returns the figures the summary shows, in order; compare tables use the same list. Names, labels and the list itself come from the core's figures table (vocabulary.json), values from the result's headline. */
export function headline(r: Result): Figure[] {
  const hl: Record<string, number> = r.headline ?? {};
  return summaryFigures.map((f) => ({ name: f.name, label: f.label, value: f.name in hl ? hl[f.name] : NaN }));
}

/** The figures a saved run's entry in the list shows: the table's main figures (marked table) that the summary shows too, as the stored headline keeps them. */
const listedFigures = vocabulary.figures.filter((f) => f.table && f.summary);

/** storedFigures are the figures a saved run's entry in the list shows, from the headline the API keeps with it, with the label and form the summary gives the same figure. */
export function storedFigures(hl: Headline): Figure[] {
  const got: Record<string, number> = hl as unknown as Record<string, number>;
  return listedFigures.filter((f) => f.name in got).map((f) => ({ name: f.name, label: f.label, value: got[f.name] }));
}

/** better says which way a change of the figure is an improvement, as the figures table says: "lower", "higher", or "" for neither. */
export function better(name: string): string {
  return figureBetter[name] ?? "";
}

/** seconds converts bin starts in ms to seconds for the x axis. */
function seconds(startMS: number[] | null): number[] {
  return (startMS ?? []).map((t) => t / 1000);
}

/** How the lines of a large application's charts are drawn. */
export interface ChartView {
  /** each line, or one line per server group or machine */
  by: "each" | "group" | "machine";
  /** the most lines drawn (the busiest); the rest become one "others" line. 0 = all */
  top: number;
}

/** Charts with more lines than this offer grouping and a top-N (ChartView). */
export const manyLines = 10;

/** The default view: every line for a small application, groups and the top 8 for a large one. */
export function defaultView(lines: number): ChartView {
  return lines > manyLines ? { by: "group", top: 8 } : { by: "each", top: 0 };
}

/** combine merges lines with the same key: their mean or their sum at each bin. */
export function combine(lines: NamedSeries[], keyOf: (name: string) => string, how: "mean" | "sum"): NamedSeries[] {
  const out = new Map<string, { values: number[]; n: number }>();
  for (const l of lines) {
    const k = keyOf(l.name);
    const vs = l.values ?? [];
    const acc = out.get(k) ?? { values: new Array<number>(vs.length).fill(0), n: 0 };
    vs.forEach((v, i) => (acc.values[i] += v));
    acc.n++;
    out.set(k, acc);
  }
  return [...out].map(([name, a]) => ({ name: a.n > 1 && how === "mean" ? `${name} (${a.n}, mean)` : a.n > 1 ? `${name} (${a.n})` : name, values: how === "mean" ? a.values.map((v) => v / a.n) : a.values }));
}

/** topLines keeps the n lines of the largest average and folds the rest into one. */
export function topLines(lines: NamedSeries[], n: number, how: "mean" | "sum"): NamedSeries[] {
  if (n <= 0 || lines.length <= n) return lines;
  const avg = (l: NamedSeries) => (l.values ?? []).reduce((a, b) => a + b, 0) / Math.max(1, (l.values ?? []).length);
  const order = lines.map((l, i) => ({ l, i, a: avg(l) })).sort((x, y) => y.a - x.a || x.i - y.i);
  const kept = order.slice(0, n).sort((x, y) => x.i - y.i).map((x) => x.l);
  const rest = order.slice(n).map((x) => x.l);
  const [others] = combine(rest, () => `others`, how);
  return [...kept, { name: `${rest.length} others${how === "mean" ? " (mean)" : ""}`, values: others.values }];
}

/** viewLines applies a view: keyOf gives a line's group or machine. */
export function viewLines(lines: NamedSeries[], view: ChartView, keyOf: (name: string, by: "group" | "machine") => string, how: "mean" | "sum"): NamedSeries[] {
  const by = view.by;
  const grouped = by === "each" ? lines : combine(lines, (n) => keyOf(n, by), how);
  return topLines(grouped, view.top, how);
}

function chartOf(r: Result, lines: NamedSeries[]): ChartData {
  return { labels: lines.map((l) => l.name), data: [seconds(r.series.start_ms), ...lines.map((l) => l.values ?? [])] };
}

/** queueLengthChart is the waiting requests per queue over time (summed over a group or machine). */
export function queueLengthChart(r: Result, view: ChartView = { by: "each", top: 0 }): ChartData {
  const qs = new Map((r.queues ?? []).map((q) => [q.name, q]));
  const keyOf = (name: string, by: "group" | "machine") => (by === "group" ? qs.get(name)?.group : qs.get(name)?.lmid) ?? name;
  return chartOf(r, viewLines(r.series.queue_length ?? [], view, keyOf, "sum"));
}

/** qDepthChart is each /Q queue's depth over time (messages stored and not held by a forwarder, the mean in each bin), one line per queue named QSPACE:Q; null when the run has no queue spaces. */
export function qDepthChart(r: Result): ChartData | null {
  const lines: NamedSeries[] = (r.qspaces ?? []).flatMap((qs) => (qs.queues ?? []).map((q) => ({ name: `${qs.name}:${q.name}`, values: q.depth.series ?? [] })));
  return lines.length ? chartOf(r, lines) : null;
}

/** utilizationChart is the busy fraction per server over time (the mean over a group or machine). */
export function utilizationChart(r: Result, view: ChartView = { by: "each", top: 0 }): ChartData {
  const ss = new Map((r.servers ?? []).map((s) => [s.id, s]));
  const keyOf = (name: string, by: "group" | "machine") => (by === "group" ? ss.get(name)?.group : ss.get(name)?.lmid) ?? name;
  return chartOf(r, viewLines(r.series.utilization ?? [], view, keyOf, "mean"));
}

/** failureChart is the requests failed per bin, one line per failure code; null when none failed. */
export function failureChart(r: Result): ChartData | null {
  const lines = r.series.failures ?? [];
  return lines.length ? chartOf(r, lines) : null;
}

/** The MP counters chart and the reset instants to mark on it (in seconds). */
export interface CounterChart extends ChartData {
  resets: number[];
}

/** counterChart is C_m(q) over time, one line per (machine, queue), with the resets. */
export function counterChart(r: Result): CounterChart | null {
  const lines = r.series.mp_counters ?? [];
  if (lines.length === 0) return null;
  return {
    labels: lines.map((l) => `C ${l.machine} → ${l.queue}`),
    data: [seconds(r.series.start_ms), ...lines.map((l) => l.values ?? [])],
    resets: (r.series.mp_resets_ms ?? []).map((t) => t / 1000),
  };
}

/**
 * histogramChart is one service's response-time distribution: x is each
 * bucket's lower edge (0 for the first), y its count. Empty buckets at both
 * ends are dropped so the bars fill the chart.
 */
export function histogramChart(s: ServiceStats): ChartData {
  return histogramOf(s.name, s.histogram);
}

/** histogramOf draws a result's histogram (a service's responses, the transactions' commits) as the line name: its non-empty range, each bucket from its lower edge. */
export function histogramOf(name: string, hist: Histogram): ChartData {
  const bounds = hist.bounds_ms ?? [];
  const counts = hist.counts ?? [];
  const n = Math.min(bounds.length, counts.length);
  let lo = 0;
  let hi = n - 1;
  while (lo <= hi && counts[lo] === 0) lo++;
  while (hi >= lo && counts[hi] === 0) hi--;
  const x: number[] = [];
  const y: number[] = [];
  for (let i = lo; i <= hi; i++) {
    x.push(i === 0 ? 0 : bounds[i - 1]);
    y.push(counts[i]);
  }
  return { labels: [name], data: [x, y] };
}

/** One server's bar: its requests and utilization, scaled against the busiest. */
export interface ServerBar {
  id: string;
  lmid: string;
  queue: string;
  requests: number;
  share: number;
  utilization: number;
  requestsWidth: number; // 0..100, relative to the server with most requests
  utilizationWidth: number; // 0..100, absolute
}

/** The most rows a per-server or per-queue table draws: thousands of rows would stall the page. */
export const maxTableRows = 200;

/**
 * capRows keeps at most limit rows, those of the largest weight (ties: the first), in their
 * order, and says how many it left out.
 */
export function capRows<T>(rows: T[], limit: number, weight: (row: T) => number): { shown: T[]; hidden: number } {
  if (rows.length <= limit) return { shown: rows, hidden: 0 };
  const keep = rows
    .map((row, i) => ({ i, w: weight(row) }))
    .sort((a, b) => b.w - a.w || a.i - b.i)
    .slice(0, limit)
    .map((x) => x.i)
    .sort((a, b) => a - b);
  return { shown: keep.map((i) => rows[i]), hidden: rows.length - limit };
}

/** serverBars shapes the per-server bars. */
export function serverBars(r: Result): ServerBar[] {
  const servers = r.servers ?? [];
  const most = servers.reduce((m, s) => Math.max(m, s.requests), 0);
  return servers.map((s) => ({
    id: s.id,
    lmid: s.lmid,
    queue: s.queue,
    requests: s.requests,
    share: s.share,
    utilization: s.utilization,
    requestsWidth: most > 0 ? (100 * s.requests) / most : 0,
    utilizationWidth: Math.min(100, Math.max(0, 100 * s.utilization)),
  }));
}

/** totalQueueLength sums the waiting requests over all queues, per bin. */
export function totalQueueLength(r: Result): number[] {
  const lines = r.series.queue_length ?? [];
  const n = (r.series.start_ms ?? []).length;
  const out = new Array<number>(n).fill(0);
  for (const l of lines) {
    const vs = l.values ?? [];
    for (let i = 0; i < n && i < vs.length; i++) out[i] += vs[i];
  }
  return out;
}

/** One line to overlay: its own x values (seconds) and y values. */
export interface Line {
  label: string;
  x: number[];
  y: number[];
}

/**
 * overlay aligns lines with different bins onto one x axis (the union of their
 * x values). Between its own points a line holds its last value (the bins are
 * steps); before its first point and after its last bin it is null.
 */
export function overlay(lines: Line[]): ChartData {
  const xs = Array.from(new Set(lines.flatMap((l) => l.x))).sort((a, b) => a - b);
  const cols = lines.map((l) => {
    const width = l.x.length > 1 ? l.x[1] - l.x[0] : 0;
    const end = l.x.length > 0 ? l.x[l.x.length - 1] + width : -Infinity;
    let j = -1;
    return xs.map((x) => {
      while (j + 1 < l.x.length && l.x[j + 1] <= x) j++;
      if (j < 0 || x > end || (width > 0 && x === end)) return null;
      return l.y[j] ?? null;
    });
  });
  return { labels: lines.map((l) => l.label), data: [xs, ...cols] };
}

/** A row of the differences table: one figure across variants and its change from the first. */
export interface DiffRow {
  /** the figures table's name */
  name: string;
  label: string;
  values: number[];
  deltas: (number | null)[]; // relative change from the first variant, null when undefined
}

/** differences lines up the headline figures of several results, the first being the baseline. */
export function differences(results: Result[]): DiffRow[] {
  if (results.length === 0) return [];
  const figs = results.map(headline);
  return figs[0].map((f, i) => {
    const values = figs.map((fs) => fs[i].value);
    const base = values[0];
    const deltas = values.map((v) => (base === 0 ? (v === 0 ? 0 : null) : (v - base) / Math.abs(base)));
    return { name: f.name, label: f.label, values, deltas };
  });
}

/** axisSizeFor is the width an axis needs for tick labels measured by measure: ticks, gap and the widest label. */
export function axisSizeFor(values: string[], measure: (text: string) => number): number {
  const widest = values.reduce((w, v) => Math.max(w, v ? measure(v) : 0), 0);
  return Math.max(50, Math.ceil(widest + 10 + 5 + 4)); // tick 10, gap 5, a little air
}

/** The warm-up as the time charts mark it: where (s), its label on the chart and the words of the captions. */
export interface WarmupMark {
  /** x of the mark, in seconds (the time charts' axis) */
  x: number;
  /** drawn at the top of the mark: "warm-up" or "warm-up (detected)" */
  label: string;
  /** said in the captions: "shaded: the warm-up, the first 2 s, found by MSER-5, not in the statistics" */
  caption: string;
}

/** warmupMark is the result's warm-up as the time charts mark it; null when there is none (0). */
export function warmupMark(r: Result): WarmupMark | null {
  if (!(r.warmup_ms > 0)) return null;
  const s = seconds1(r.warmup_ms);
  return r.warmup_detected
    ? { x: r.warmup_ms / 1000, label: "warm-up (detected)", caption: `shaded: the warm-up, the first ${s} s (detected by MSER-5), not in the statistics` }
    : { x: r.warmup_ms / 1000, label: "warm-up", caption: `shaded: the warm-up, the first ${s} s, not in the statistics` };
}

/** seconds1 writes milliseconds as seconds with at most 4 significant digits: 2500 -> "2.5", 1234.5 -> "1.235". */
export function seconds1(ms: number): string {
  return String(Number((ms / 1000).toPrecision(4)));
}
