// The Optimize tab's pure part: the form's lines read into the spec the
// bridge's optimize takes (what `tuxlb optimize` takes), and the report
// (`tuxlb optimize --format json`) shaped into what the tab shows: the
// choice, its estimates, the cheaper configurations and why each was
// rejected, the runners-up, and the replications spent against the full grid.
import { fmt } from "./chartdata";
import type { Optimization, OptimizeSpec, SweepOptConfig, SweepOptEstimate } from "./types";

/** The form's texts: vary, objectives and costs one per line; pcs and epsilon as typed. */
export interface OptimizeForm {
  vary: string;
  objectives: string;
  costs: string;
  pcs: string;
  epsilon: string;
}

/** lines splits a box's text into its non-empty lines, trimmed; a line starting with # is a comment. */
export function lines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

/** fraction reads "5%" or "0.05" as 0.05; NaN when it is neither. */
export function fraction(text: string): number {
  let t = text.trim();
  let scale = 1;
  if (t.endsWith("%")) {
    t = t.slice(0, -1).trim();
    scale = 0.01;
  }
  if (t === "" || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return NaN;
  return Number(t) * scale;
}

/** optimizeSpec reads the form: the spec, or the error naming the box and line at fault. */
export function optimizeSpec(f: OptimizeForm): { spec: OptimizeSpec } | { error: string } {
  const vary = lines(f.vary);
  if (!vary.length) return { error: "Vary: give at least one KEY=VALUES line, e.g. SERVERS.simpserv.MIN=1..6/1." };
  if (vary.length > 2) return { error: `Vary: ${vary.length} lines; an optimization varies one or two keys.` };
  const bad = vary.findIndex((l) => !/^[^=]+=.+$/.test(l));
  if (bad >= 0) return { error: `Vary, line ${bad + 1}: "${vary[bad]}" is not KEY=VALUES.` };
  const objectives = lines(f.objectives);
  if (!objectives.length) return { error: "Objectives: give at least one line FIGURE<=X or FIGURE>=X, e.g. response_p99_ms<=200." };
  const badObj = objectives.findIndex((l) => !/(<=|>=)/.test(l));
  if (badObj >= 0) return { error: `Objectives, line ${badObj + 1}: "${objectives[badObj]}" has no <= or >=.` };
  const costs = lines(f.costs);
  const badCost = costs.findIndex((l) => !/^[^=]+=.+$/.test(l));
  if (badCost >= 0) return { error: `Cost, line ${badCost + 1}: "${costs[badCost]}" is not KEY=WEIGHT.` };
  const spec: OptimizeSpec = { vary, objectives };
  if (costs.length) spec.costs = costs;
  if (f.pcs.trim() !== "") {
    const pcs = fraction(f.pcs);
    if (!(pcs > 0.5 && pcs < 1)) return { error: `PCS: want a probability between 0.5 and 1 (0.95 or 95%), got "${f.pcs.trim()}".` };
    spec.pcs = pcs;
  }
  if (f.epsilon.trim() !== "") {
    const eps = fraction(f.epsilon);
    if (!(eps > 0 && eps < 1)) return { error: `ε: want a fraction of each limit between 0 and 1 (5% or 0.05), got "${f.epsilon.trim()}".` };
    spec.epsilon = eps;
  }
  return { spec };
}

/** configLabel is a configuration as KEY=VALUE pairs, in the keys' order. */
export function configLabel(r: Optimization, c: SweepOptConfig): string {
  return (r.keys ?? []).map((k) => `${k.key}=${String(c.values?.[k.key])}`).join(" ");
}

/** decisionText says how an objective's decision was made, as the CLI's text report does. */
export function decisionText(e: SweepOptEstimate): string {
  if (e.decision === "undecided") return "undecided";
  const at = e.decided_at ?? 0;
  if (e.capped) return `${e.decision} at the cap of ${at} replications (by the sum's sign, outside the guarantee)`;
  if (e.screened) return `${e.decision} after ${at} replications (first-stage t-test)`;
  if (e.cap_test) return `${e.decision} after ${at} replications (t-test at the cap)`;
  return `${e.decision} after ${at} replications`;
}

/** One objective's estimate as a row: the interval and the decision. */
export interface EstimateRow {
  objective: string;
  interval: string;
  decision: string;
  /** met, missed or open: how the decision reads against the objective. */
  tone: "met" | "missed" | "open";
}

/** estimateRows are a configuration's objectives as rows. */
export function estimateRows(c: SweepOptConfig): EstimateRow[] {
  return (c.objectives ?? []).map((e) => ({
    objective: e.objective,
    interval: `${fmt(e.mean)} ± ${fmt(e.ci95)}`,
    decision: decisionText(e),
    tone: e.decision === "feasible" ? "met" : e.decision === "infeasible" ? "missed" : "open",
  }));
}

/** A configuration as the tab lists it. */
export interface ConfigRow {
  label: string;
  cost: string;
  replications: number;
  /** why: for a rejected one, the objective it misses and how that was decided; else its status. */
  why: string;
}

/** rejectedRow says why a cheaper configuration was rejected: the objective it misses, its interval, how decided. */
export function rejectedRow(r: Optimization, c: SweepOptConfig): ConfigRow {
  const m = c.missed;
  const why = m ? `misses ${m.objective}: ${fmt(m.mean)} ± ${fmt(m.ci95)}, ${decisionText(m)}` : c.status;
  return { label: configLabel(r, c), cost: fmt(c.cost), replications: c.replications, why };
}

/** runnerUpRow is a dearer configuration examined while the search went on. */
export function runnerUpRow(r: Optimization, c: SweepOptConfig): ConfigRow {
  const why = c.status === "undecided" ? "undecided when the search stopped" : c.status;
  return { label: configLabel(r, c), cost: fmt(c.cost), replications: c.replications, why };
}

/** spendingText compares the replications spent with the full grid's at the same precision. */
export function spendingText(r: Optimization): string {
  const s = r.replications;
  const configs = (r.keys ?? []).reduce((n, k) => n * (k.values?.length ?? 1), 1);
  const saved = s.full_grid > 0 ? Math.round((100 * (s.full_grid - s.spent)) / s.full_grid) : 0;
  const tail = s.full_grid > s.spent ? ` (${saved}% fewer)` : "";
  return `${s.spent} replications spent; the full grid of ${configs} configurations, each run to the most any needed (${s.most_needed}), is ${s.full_grid}${tail}.`;
}

/** OptimizeReport is the report shaped for the tab. */
export interface OptimizeReport {
  /** headline: the choice and its cost, or that none of the grid meets every objective. */
  headline: string;
  /** chosen: the chosen configuration's rows (or, when none is, the closest one's); null when there is neither. */
  chosen: { label: string; cost: string; replications: number; rows: EstimateRow[]; diff: string[] } | null;
  rejected: ConfigRow[];
  runnersUp: ConfigRow[];
  notExamined: number;
  spending: string;
  objectives: string[];
  cost: string;
  guarantee: string;
}

/**
 * guaranteeParts splits an optimization's guarantee into its first sentence,
 * the probability statement, and the sentences after it (what was decided
 * outside it, what the figures shown mean, how to check them), which the tab
 * shows folded.
 */
export function guaranteeParts(g: string): { lead: string; more: string[] } {
  const [lead, ...more] = g.split(/(?<=\.)\s+(?=[A-Z])/);
  return { lead: lead ?? "", more };
}

/** report shapes an optimization's report for the tab. */
export function report(r: Optimization): OptimizeReport {
  const c = r.chosen ?? r.closest ?? null;
  let headline: string;
  if (r.chosen) headline = `Chosen: ${configLabel(r, r.chosen)}, cost ${fmt(r.chosen.cost)}.`;
  else if (r.closest)
    headline = `No configuration of the grid meets every objective; the closest is ${configLabel(r, r.closest)} (worst relative violation ${((r.closest.worst_violation ?? 0) * 100).toFixed(1)}%).`;
  else headline = "No configuration of the grid meets every objective.";
  return {
    headline,
    chosen: c ? { label: configLabel(r, c), cost: fmt(c.cost), replications: c.replications, rows: estimateRows(c), diff: c.ubbconfig_diff ?? [] } : null,
    rejected: (r.rejected ?? []).map((x) => rejectedRow(r, x)),
    runnersUp: (r.runners_up ?? []).map((x) => runnerUpRow(r, x)),
    notExamined: r.not_examined,
    spending: spendingText(r),
    objectives: (r.objectives ?? []).map((o) => `${o.objective} (ε = ${fmt(o.epsilon)})`),
    cost: r.cost,
    guarantee: r.guarantee,
  };
}
