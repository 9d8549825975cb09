// Pure shaping of a sweep (the JSON `tuxlb sweep --format json` prints) into
// charts and table rows, and the sweep's spec as the page keeps and shares it.
// Nothing here touches the DOM.
import type { ChartData } from "./chartdata";
import type * as Gen from "./types";
import type { MeanCI } from "./types";
import vocabulary from "./vocabulary.json";

/** A value of a sweep key: a number, or a name (LDBAL=Y, a policy). */
type KeyValue = number | string;

/**
 * The sweep result, as sweep.Result (core/sweep) encodes it: the generated
 * contract's types (types.ts), narrowed where the Go side guarantees more
 * than its types say: the keys, seeds, points and their values and figures
 * are never null (the result is built whole), and a key's values are
 * numbers or names.
 */
export type SweepResult = Omit<Gen.SweepResult, "keys" | "seeds" | "points" | "lines" | "cross_lines"> & {
  keys: { key: string; values: KeyValue[] }[];
  seeds: number[];
  points: SweepPoint[];
  lines?: SweepLine[];
  cross_lines?: SweepLine[];
};

/** One point of a sweep (Gen.SweepPoint, its values and figures never null). */
export type SweepPoint = Omit<Gen.SweepPoint, "values" | "figures" | "replications"> & {
  values: Record<string, KeyValue>;
  figures: Record<string, MeanCI>;
  /** How many runs the figures are over (with a precision, as many as it took); absent in a result made before it was written. */
  replications?: number;
};

/** A line of a sweep along a key (Gen.SweepLine): its best point by the key's rule, and that said in words. */
export type SweepLine = Omit<Gen.SweepLine, "values" | "last_meeting" | "best"> & {
  values: Record<string, KeyValue>;
  last_meeting: PointRef | null;
  best?: PointRef | null;
};

/** A point named by its index and values (Gen.SweepPointRef). */
type PointRef = Omit<Gen.SweepPointRef, "values"> & { values: Record<string, KeyValue> };

/** The sweep spec: what sweep.Spec (core/sweep) takes. */
export interface SweepSpec {
  vary: string[];
  /** Per point; with a precision, the batch. */
  replications?: number;
  objective?: string;
  /** More objectives, all held at once with objective. */
  objectives?: string[];
  /** Run batches until the 95% half-width of every objective's figure (else response_mean_ms) is at most this fraction of its mean. */
  precision?: number;
  /** With a precision, the most replications per point (the core's default: 50). */
  max_replications?: number;
}

/** The figures the page draws, in order: the main figures of the core's figures table. */
export const sweepFigures: string[] = vocabulary.figures.filter((f) => f.table).map((f) => f.name);

/** shownFigures are the figures a result is drawn with: the main ones, the objectives' own and those asked for by name. */
export function shownFigures(r: SweepResult): string[] {
  const extra = [...(r.objectives ?? []).map((o) => o.figure), ...(r.objective_figure ? [r.objective_figure] : []), ...(r.figures ?? [])];
  const out = [...sweepFigures];
  for (const f of extra) if (!out.includes(f)) out.push(f);
  return out;
}

/** objectiveTexts are a result's objectives: its list, else its single objective. */
export function objectiveTexts(r: SweepResult): string[] {
  return r.objectives ? r.objectives.map((o) => o.text) : r.objective ? [r.objective] : [];
}

/** splitObjectives reads the page's objective field: objectives separated by ";" (blank ones dropped). */
export function splitObjectives(text: string): string[] {
  return text
    .split(";")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** lineSummaries says, per line along each key, the best value that meets every objective (the core's words). */
export function lineSummaries(r: SweepResult): string[] {
  const k0 = r.keys[0].key;
  return [...(r.lines ?? []), ...(r.cross_lines ?? [])].map((l) => {
    const label = Object.entries(l.values).map(([k, v]) => `at ${k}=${v}`).join(" ");
    const text = l.summary ?? (l.last_meeting ? `last point meeting it along ${k0}: ${k0}=${l.last_meeting.values[k0]}` : "no point meets it");
    return label ? `${label}: ${text}` : text;
  });
}

/** verdictText is a point's verdict for the table: with one objective its verdict, with several yes when all are yes. */
export function verdictText(p: SweepPoint): string {
  if (p.verdicts && p.verdicts.length === 1) return p.verdicts[0];
  return p.meets ? "yes" : "no";
}

/** figureLabels are the figures table's labels by name. */
export const figureLabels: Record<string, string> = Object.fromEntries(vocabulary.figures.map((f) => [f.name, f.label]));

/** rangeText writes the VALUES of a range builder: start..end/step. */
export function rangeText(start: string, end: string, step: string): string {
  return `${start.trim()}..${end.trim()}/${step.trim()}`;
}

/** specJSON is the spec as the bridge takes it (fields in sweep.Spec's order, empty ones left out). */
export function specJSON(spec: SweepSpec): string {
  const out: SweepSpec = { vary: spec.vary };
  if (spec.replications) out.replications = spec.replications;
  if (spec.objective) out.objective = spec.objective;
  if (spec.objectives && spec.objectives.length) out.objectives = spec.objectives;
  if (spec.precision !== undefined && spec.precision !== 0) out.precision = spec.precision;
  if (spec.max_replications) out.max_replications = spec.max_replications;
  return JSON.stringify(out);
}

/** parseSpec reads a spec from a share link; null when it is not one. */
export function parseSpec(text: string): SweepSpec | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== "object" || v === null) return null;
  const o = v as Record<string, unknown>;
  if (!Array.isArray(o.vary) || o.vary.length < 1 || o.vary.length > 2 || !o.vary.every((x) => typeof x === "string")) return null;
  const spec: SweepSpec = { vary: o.vary as string[] };
  if (typeof o.replications === "number" && Number.isInteger(o.replications) && o.replications > 0) spec.replications = o.replications;
  if (typeof o.objective === "string" && o.objective) spec.objective = o.objective;
  if (Array.isArray(o.objectives) && o.objectives.length && o.objectives.every((x) => typeof x === "string" && x)) spec.objectives = o.objectives as string[];
  if (typeof o.precision === "number" && Number.isFinite(o.precision) && o.precision > 0) spec.precision = o.precision;
  if (typeof o.max_replications === "number" && Number.isInteger(o.max_replications) && o.max_replications > 0) spec.max_replications = o.max_replications;
  return spec;
}

/**
 * figureChart shapes one figure against the first key: x is the first key's
 * value (its position for a key of words), one line per value of the second
 * key (one line with one key), each with its band (mean - ci95, mean + ci95;
 * its low end at least 0, as every figure is).
 * Points not done yet are null. lines lists each line's label.
 */
export function figureChart(r: SweepResult, figure: string): ChartData & { bands: number[][]; lines: string[] } {
  const k0 = r.keys[0];
  const numeric = k0.values.every((v) => typeof v === "number");
  const xs = k0.values.map((v, i) => (numeric ? (v as number) : i));
  const k1 = r.keys[1];
  const nLines = k1 ? k1.values.length : 1;
  const byIndex = new Map(r.points.map((p) => [p.index, p]));
  const labels: string[] = [];
  const cols: (number | null)[][] = [];
  const bands: number[][] = [];
  const lines: string[] = [];
  for (let l = 0; l < nLines; l++) {
    const label = k1 ? `${k1.key}=${k1.values[l]}` : figure;
    lines.push(label);
    const mean: (number | null)[] = [];
    const lo: (number | null)[] = [];
    const hi: (number | null)[] = [];
    for (let i = 0; i < xs.length; i++) {
      const f = byIndex.get(l * xs.length + i)?.figures[figure];
      mean.push(f ? f.mean : null);
      lo.push(f ? Math.max(f.mean - f.ci95, 0) : null); // every figure is at least 0: a wait's band stops there
      hi.push(f ? f.mean + f.ci95 : null);
    }
    const at = cols.length;
    cols.push(mean, lo, hi);
    labels.push(label, `${label} −ci95`, `${label} +ci95`);
    bands.push([at + 2, at + 3]); // uPlot series numbers (x is 0): this line's mean is at + 1, low at + 2, high at + 3
  }
  return { labels, data: [xs, ...cols], bands, lines };
}

/** lastMeeting returns, per line along the first key, the first key's value of its best point meeting every objective (by the key's rule; a result without it: the last meeting in the order given), null: none. */
export function lastMeeting(r: SweepResult): (number | string | null)[] {
  const k0 = r.keys[0].key;
  return (r.lines ?? []).map((l) => {
    const at = l.best !== undefined ? l.best : l.last_meeting;
    return at ? at.values[k0] : null;
  });
}

/** limitOf is the limit of the first objective on a figure, or null. */
export function limitOf(r: SweepResult, figure: string): number | null {
  for (const o of objectiveTexts(r)) {
    const x = objectiveLimit(o, figure);
    if (x !== null) return x;
  }
  return null;
}

/** objectiveLimit reads the X of FIGURE<=X / FIGURE>=X, or null. */
export function objectiveLimit(objective: string | undefined, figure: string): number | null {
  const m = /^\s*([A-Za-z0-9_.]+(?:\[[^\]]+\])?)\s*(<=|>=)\s*(-?[0-9.eE+-]+)\s*$/.exec(objective ?? "");
  if (!m || m[1] !== figure) return null;
  const x = Number(m[3]);
  return Number.isFinite(x) ? x : null;
}

/** integerKey says whether the values of a key are all whole numbers (SERVERS.X.MIN, a count): its axis gets whole ticks. */
export function integerKey(values: (number | string)[]): boolean {
  return values.length > 0 && values.every((v) => typeof v === "number" && Number.isInteger(v));
}

/**
 * integerSplits are the ticks of an axis of whole numbers from min to max: a
 * step of 1, 2, 5, 10, 20, 50... (the smallest that gives at most maxTicks
 * ticks), each tick a multiple of the step, never a fraction.
 */
export function integerSplits(min: number, max: number, maxTicks: number): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max) || max < min) return [];
  const span = Math.max(1, Math.floor(max) - Math.ceil(min));
  let step = 1;
  for (let mag = 1; ; mag *= 10) {
    const s = [1, 2, 5].map((m) => m * mag).find((s) => span / s + 1 <= Math.max(1, maxTicks));
    if (s !== undefined) {
      step = s;
      break;
    }
  }
  const out: number[] = [];
  for (let x = Math.ceil(min / step) * step; x <= max; x += step) out.push(x);
  return out;
}

/**
 * kneeIndex is where a figure rises fastest: the index i whose step to the
 * next point (i + 1) has the largest positive slope (y[i+1] - y[i]) / (x[i+1] -
 * x[i]), points with no value skipped. The knee marker stands at x[i], the
 * last value before that rise. Null with fewer than three points or when the
 * figure never rises.
 */
export function kneeIndex(xs: number[], ys: (number | null)[]): number | null {
  const pts = xs.map((x, i) => ({ x, y: ys[i], i })).filter((p): p is { x: number; y: number; i: number } => p.y !== null && p.y !== undefined && Number.isFinite(p.y));
  if (pts.length < 3) return null;
  let best: number | null = null;
  let bestSlope = 0;
  for (let j = 0; j + 1 < pts.length; j++) {
    const dx = pts[j + 1].x - pts[j].x;
    if (dx <= 0) continue;
    const slope = (pts[j + 1].y - pts[j].y) / dx;
    if (slope > bestSlope) {
      bestSlope = slope;
      best = pts[j].i;
    }
  }
  return best;
}

/** objectiveFigure is the FIGURE of FIGURE<=X / FIGURE>=X, or null. */
export function objectiveFigure(objective: string | undefined): string | null {
  const m = /^\s*([A-Za-z0-9_.]+(?:\[[^\]]*\])?)\s*(<=|>=)/.exec(objective ?? "");
  return m ? m[1] : null;
}

/** kneeFigure is the figure whose knee the charts mark: the first objective's, else response_mean_ms. */
export function kneeFigure(r: SweepResult): string {
  return objectiveFigure(objectiveTexts(r)[0]) ?? "response_mean_ms";
}

/** knees gives, per line of a figure's chart, the first key's value at its knee (numeric first keys only). */
export function knees(r: SweepResult, figure: string): number[] {
  if (!r.keys[0].values.every((v) => typeof v === "number")) return [];
  const c = figureChart(r, figure);
  const xs = c.data[0] as number[];
  const out: number[] = [];
  for (let l = 0; l < c.lines.length; l++) {
    const k = kneeIndex(xs, c.data[1 + 3 * l] as (number | null)[]);
    if (k !== null) out.push(xs[k]);
  }
  return out;
}

/** forLogScale drops the values a log axis cannot show (zero and below become gaps). */
export function forLogScale(cols: (number | null)[][]): (number | null)[][] {
  return cols.map((col, i) => (i === 0 ? col : col.map((v) => (v !== null && v > 0 ? v : null))));
}

/** showsReplications says whether a sweep's table needs a column of each point's replications: with a precision, or when they differ from the result's. */
export function showsReplications(r: SweepResult): boolean {
  const has = r.points.some((p) => p.replications !== undefined);
  return has && (r.precision !== undefined || r.points.some((p) => p.replications !== undefined && p.replications !== r.replications));
}

/** tableCaption says what a sweep's table holds: its points done and how they were replicated. */
export function tableCaption(r: SweepResult): string {
  const points = `${r.points.length} of ${r.total} points`;
  if (r.precision === undefined) return `${points}, ${r.replications} replications each (mean ± 95% half-width)`;
  const rel = `${+(r.precision * 100).toPrecision(6)}%`;
  const most = r.max_replications ? `, at most ${r.max_replications}` : "";
  return `${points}, replications in batches of ${r.replications} until the 95% half-width of ${r.precision_figures ? `each of ${r.precision_figures.join(", ")}` : (r.precision_figure ?? "response_mean_ms")} is at most ${rel} of its mean${most} (mean ± 95% half-width)`;
}

/**
 * inRounds runs a sweep to a precision the way the CLI's pool does: it asks
 * pending for the units the samples so far call for, runs them (run resolves
 * false when it stopped early: canceled or failed), and asks again, until
 * pending gives none. It resolves with the number of rounds run and whether
 * the sweep is complete.
 */
export async function inRounds(pending: () => Promise<number[]>, run: (units: number[], round: number) => Promise<boolean>): Promise<{ rounds: number; complete: boolean }> {
  for (let round = 1; ; round++) {
    const units = await pending();
    if (!units.length) return { rounds: round - 1, complete: true };
    if (!(await run(units, round))) return { rounds: round, complete: false };
  }
}
