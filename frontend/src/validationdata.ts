// Pure shaping of a replay's trace block and validation (the result's trace
// and validation) into the text, table rows and chart the results show.
// Nothing here touches the DOM.
import { seconds1, type ChartData } from "./chartdata";
import type { Interval, Intervals, RelativeErrors, Result, TraceRead, Validation, ValidationRow } from "./types";

/** The figures a validation row compares, in the order shown. */
export const validationFigures = ["mean", "p50", "p95", "p99"] as const;
export type ValidationFigure = (typeof validationFigures)[number];

/** count writes a whole number with a narrow no-break space between thousands: 6 998. */
export function count(n: number): string {
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, "\u202f");
}

/**
 * signedPct writes a relative error as a signed percentage with one
 * decimal: "+3.1%", "−4.2%" (a minus sign, not a hyphen), "0.0%"; "–" when
 * there is none (the observed figure is zero, or nothing completed).
 */
export function signedPct(x: number | undefined | null): string {
  if (x === undefined || x === null || !Number.isFinite(x)) return "–";
  const p = (100 * x).toFixed(1);
  if (Number(p) === 0) return "0.0%";
  return x > 0 ? `+${p}%` : `\u2212${p.slice(1)}%`;
}

/**
 * traceLine says what reading the trace found: "Trace: 6 998 rows read, 2
 * skipped: row 7001: ..., row 7002: ..." (the examples the result gives,
 * "…" when it gives fewer than it skipped).
 */
export function traceLine(t: TraceRead): string {
  const read = `Trace: ${count(t.rows)} ${t.rows === 1 ? "row" : "rows"} read`;
  if (!t.skipped) return `${read}.`;
  const ex = t.skipped_examples ?? [];
  const more = ex.length < t.skipped ? (ex.length ? ", …" : "") : "";
  return `${read}, ${count(t.skipped)} skipped${ex.length ? `: ${ex.join(", ")}` : ""}${more}.`;
}

/** A validation row as the page lists it: its key ("" for all services) and label. */
export interface NamedRow {
  key: string;
  label: string;
  row: ValidationRow;
}

/** How bad a verdict is: fail before inconclusive before pass (a row without one, from before verdicts, last). */
export function verdictRank(v: string | undefined): number {
  return v === "fail" ? 0 : v === "inconclusive" ? 1 : v === "pass" ? 2 : 3;
}

/** worstError is a row's largest relative error, in size (0 without one). */
function worstError(row: ValidationRow): number {
  return Math.max(0, ...Object.values(row.relative_error ?? {}).map((x) => Math.abs(x ?? 0)));
}

/**
 * validationRows lists the overall row first ("all services"), then the
 * services' worst first: by verdict (fail, inconclusive, pass), then by
 * their largest relative error, then in the result's order.
 */
export function validationRows(v: Validation): NamedRow[] {
  const services = (v.services ?? []).map((row, i) => ({ key: row.service ?? "", label: row.service ?? "", row, i }));
  services.sort((a, b) => verdictRank(a.row.verdict) - verdictRank(b.row.verdict) || worstError(b.row) - worstError(a.row) || a.i - b.i);
  return [{ key: "", label: "all services", row: v.overall }, ...services.map(({ key, label, row }) => ({ key, label, row }))];
}

/** intervalText writes a 95% interval as "[lo, hi]" ("–" when there is none); pct writes the bounds as signed percentages. */
export function intervalText(iv: Interval | undefined, pct = false): string {
  if (!iv) return "–";
  const f = (x: number) => (pct ? signedPct(x) : fmtMS(x));
  return `[${f(iv.lo)}, ${f(iv.hi)}]`;
}

/** fmtMS writes a time in ms with at most 3 decimals. */
function fmtMS(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(Math.abs(x) >= 100 ? 1 : 3).replace(/0+$/, "").replace(/\.$/, "");
}

/**
 * verdictLine is the sentence that heads the section: the run's verdict,
 * the tolerances, how many replications the simulated figures are the mean
 * of, and the window; "" for a result from before verdicts.
 */
export function verdictLine(v: Validation): string {
  if (!v.verdict) return "";
  const t = v.tolerance;
  const tol = t ? ` within ${[...new Set(validationFigures.map((f) => t[f]))].length === 1 ? `±${(100 * t.mean).toFixed(0)}%` : validationFigures.map((f) => `${f} ±${(100 * t[f]).toFixed(0)}%`).join(", ")}` : "";
  const reps = v.replications && v.replications > 1 ? `, simulated over ${v.replications} replications` : ", one run (no simulated interval: rerun with replications)";
  const from = v.from_ms ? `, rows from ${seconds1(v.from_ms)} s` : "";
  const word = v.verdict === "pass" ? "passes" : v.verdict === "fail" ? "fails" : "is inconclusive";
  return `The model ${word}${tol}${reps}${from}.`;
}

/** One line of the validation table: a figure of a row, observed and simulated with their 95% intervals, the relative error with its interval, and the verdict. */
export interface ValidationLine {
  figure: ValidationFigure;
  observed: number;
  simulated: number;
  error: number | undefined;
  observedCI?: Interval;
  simulatedCI?: Interval;
  relativeCI?: Interval;
  verdict?: string;
}

/** validationLines are a row's figures side by side, in validationFigures' order. */
export function validationLines(row: ValidationRow): ValidationLine[] {
  const err: RelativeErrors = row.relative_error ?? {};
  const ci = (x: Intervals | undefined, f: ValidationFigure) => x?.[f];
  return validationFigures.map((figure) => ({
    figure,
    observed: row.observed[figure],
    simulated: row.simulated[figure],
    error: err[figure],
    observedCI: ci(row.observed_ci, figure),
    simulatedCI: ci(row.simulated_ci, figure),
    relativeCI: ci(row.relative_ci, figure),
    verdict: row.verdicts?.[figure],
  }));
}

/**
 * undecidedLines say, for each inconclusive figure of the services, which of its two intervals is
 * the wider relative to its figure (the observed: more rows would decide it; the simulated: more
 * replications) and the tolerance the rows and runs at hand judge it within (its relative
 * interval's farther end, rounded up to 5%), as the CLI's text output does.
 */
export function undecidedLines(v: Validation): string[] {
  const width = (iv: Interval | undefined, x: number) => (iv && x > 0 ? (iv.hi - iv.lo) / x : 0);
  const out: string[] = [];
  for (const row of v.services ?? []) {
    for (const l of validationLines(row)) {
      if (l.verdict !== "inconclusive" || !l.relativeCI) continue;
      const how = !l.simulatedCI
        ? "one run gives the simulated figure no interval: rerun with replications"
        : width(l.simulatedCI, l.simulated) > width(l.observedCI, l.observed)
          ? "more replications would narrow the simulated interval, the wider"
          : "more rows would narrow the observed interval, the wider (a longer log, or a window starting earlier)";
      const within = Math.ceil(Math.max(-l.relativeCI.lo, l.relativeCI.hi) * 20 - 1e-9) * 5;
      const judge = within <= 1000 ? `these rows and runs judge it within ±${within}%` : "no tolerance the validation takes (up to 1000%) judges it with these rows and runs";
      const tol = v.tolerance ? `±${(100 * v.tolerance[l.figure]).toFixed(0)}%` : "its tolerance";
      out.push(`${row.service ?? "all"} ${l.figure} is inconclusive (its relative interval straddles ${tol}): ${how}; ${judge}.`);
    }
  }
  return out;
}

/** countsText says how many rows a validation row is over: "1 000 observed, 998 simulated", with the throughputs and the KS test when the result gives them. */
export function countsText(row: ValidationRow): string {
  const parts = [`${count(row.observed.count)} observed, ${count(row.simulated.count)} simulated`];
  if (row.throughput_per_s) parts.push(`${fmtMS(row.throughput_per_s.observed)} vs ${fmtMS(row.throughput_per_s.simulated)} /s`);
  if (row.ks) parts.push(`KS D ${row.ks.statistic.toFixed(3)}, p ${row.ks.p_value < 0.001 ? "< 0.001" : row.ks.p_value.toFixed(3)}`);
  return parts.join("; ");
}

/**
 * validationChart is a row's observed and simulated figures as the chart
 * draws them: x is the figure's position (0 mean, 1 p50, 2 p95, 3 p99), one
 * series observed and one simulated. A simulated figure is null when
 * nothing completed.
 */
export function validationChart(row: ValidationRow): ChartData & { errors: (Interval | undefined)[][] } {
  const sim = row.simulated.count > 0;
  return {
    labels: ["observed", "simulated"],
    data: [validationFigures.map((_, i) => i), validationFigures.map((f) => row.observed[f]), validationFigures.map((f) => (sim ? row.simulated[f] : null))],
    // each bar's 95% interval, drawn as an error bar
    errors: [validationFigures.map((f) => row.observed_ci?.[f]), validationFigures.map((f) => (sim ? row.simulated_ci?.[f] : undefined))],
  };
}

/** validationAbout is the sentence above the table: what was compared and how the error is reckoned. */
export function validationAbout(r: Result): string {
  const v = r.validation!;
  const warm = r.warmup_ms > 0 ? ` issued at or after the warm-up (${seconds1(r.warmup_ms)} s)` : "";
  return `The responses the log observed against the run's, over the same ${count(v.overall.observed.count)} trace rows${warm}; times in ms, relative error = (simulated − observed) / observed. Simulated counts the rows that completed.`;
}
