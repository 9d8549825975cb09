// The column mapping of a request log (workload.columns) as text, in the
// syntax of the CLI's --trace-map: key=COLUMN,key=COLUMN. Nothing here
// touches the DOM.
import type { TraceMap } from "./types";

/**
 * Every key a mapping may give, in the order of TraceMap's fields (the Go
 * scenario.TraceMap's JSON names): the Record makes the compiler check that
 * none is missing or extra.
 */
const keyOrder: Record<keyof TraceMap, number> = {
  time: 0,
  time_unit: 1,
  service: 2,
  origin: 3,
  service_ms: 4,
  service_unit: 5,
  prio: 6,
  id: 7,
  route: 8,
  buftype: 9,
  delimiter: 10,
  observed: 11,
  date_order: 12,
  tz: 13,
  status: 14,
};

/** traceMapKeys are the keys of a column mapping, in TraceMap's order. */
export const traceMapKeys = (Object.keys(keyOrder) as (keyof TraceMap)[]).sort((a, b) => keyOrder[a] - keyOrder[b]);

/**
 * parseTraceMap reads key=COLUMN,key=COLUMN as `tuxlb run --trace-map` does
 * (starter.ParseTraceMap): keys and columns are trimmed, a delimiter is taken
 * as written (`tab` or `\t` is a tab), a key given twice keeps its last
 * column. A key with no column is left out. Empty text is no mapping (null);
 * a part that is not key=COLUMN or an unknown key is an error naming it.
 */
export function parseTraceMap(text: string): TraceMap | null | { error: string } {
  if (text.trim() === "") return null;
  const m: Record<string, string> = {};
  for (const part of text.split(",")) {
    const eq = part.indexOf("=");
    const key = (eq < 0 ? part : part.slice(0, eq)).trim();
    if (eq < 0 || key === "") return { error: `"${part}": want key=COLUMN, e.g. time=ts,service=svc` };
    if (!(key in keyOrder)) return { error: `unknown key "${key}" (want one of ${traceMapKeys.join(", ")})` };
    let val = part.slice(eq + 1);
    if (key === "delimiter" && (val === "tab" || val === "\\t")) val = "\t";
    else if (key !== "delimiter") val = val.trim();
    m[key] = val;
  }
  const out: TraceMap = {};
  for (const k of traceMapKeys) if (m[k]) out[k] = m[k];
  return out;
}

/** formatTraceMap writes a mapping as key=COLUMN,key=COLUMN in TraceMap's order (a tab delimiter as `tab`); "" for none. */
export function formatTraceMap(m: TraceMap | undefined): string {
  if (!m) return "";
  return traceMapKeys
    .filter((k) => m[k])
    .map((k) => `${k}=${k === "delimiter" && m[k] === "\t" ? "tab" : m[k]}`)
    .join(",");
}

/** rateScaleProblem says what is wrong with a replay speed typed in ("" when it is a number > 0, or empty: 1). */
export function rateScaleProblem(text: string): string {
  if (text.trim() === "") return "";
  const v = Number(text);
  return Number.isFinite(v) && v > 0 ? "" : "want a number > 0 (1 plays the log as it came, 2 twice as fast)";
}
