// Pure shaping of a replay's trace block and validation (the result's trace
// and validation) into the text, table rows and chart the results show.
// Nothing here touches the DOM.
import { seconds1, type ChartData } from "./chartdata";
import type { RelativeErrors, Result, TraceRead, Validation, ValidationRow } from "./types";

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

/** validationRows lists the overall row first ("all services"), then each service's, in the result's order. */
export function validationRows(v: Validation): NamedRow[] {
  return [
    { key: "", label: "all services", row: v.overall },
    ...(v.services ?? []).map((row) => ({ key: row.service ?? "", label: row.service ?? "", row })),
  ];
}

/** One line of the validation table: a figure of a row, observed and simulated, and the relative error. */
export interface ValidationLine {
  figure: ValidationFigure;
  observed: number;
  simulated: number;
  error: number | undefined;
}

/** validationLines are a row's figures side by side, in validationFigures' order. */
export function validationLines(row: ValidationRow): ValidationLine[] {
  const err: RelativeErrors = row.relative_error ?? {};
  return validationFigures.map((figure) => ({ figure, observed: row.observed[figure], simulated: row.simulated[figure], error: err[figure] }));
}

/** countsText says how many rows a validation row is over: "1 000 observed, 998 simulated". */
export function countsText(row: ValidationRow): string {
  return `${count(row.observed.count)} observed, ${count(row.simulated.count)} simulated`;
}

/**
 * validationChart is a row's observed and simulated figures as the chart
 * draws them: x is the figure's position (0 mean, 1 p50, 2 p95, 3 p99), one
 * series observed and one simulated. A simulated figure is null when
 * nothing completed.
 */
export function validationChart(row: ValidationRow): ChartData {
  const sim = row.simulated.count > 0;
  return {
    labels: ["observed", "simulated"],
    data: [validationFigures.map((_, i) => i), validationFigures.map((f) => row.observed[f]), validationFigures.map((f) => (sim ? row.simulated[f] : null))],
  };
}

/** validationAbout is the sentence above the table: what was compared and how the error is reckoned. */
export function validationAbout(r: Result): string {
  const v = r.validation!;
  const warm = r.warmup_ms > 0 ? ` issued at or after the warm-up (${seconds1(r.warmup_ms)} s)` : "";
  return `The responses the log observed against the run's, over the same ${count(v.overall.observed.count)} trace rows${warm}; times in ms, relative error = (simulated − observed) / observed. Simulated counts the rows that completed.`;
}
