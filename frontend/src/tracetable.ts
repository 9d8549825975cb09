// The trace as a table: its columns, how many rows, and the rows themselves
// in a virtualised list (only those in view are in the page), so a log of
// hundreds of thousands of rows opens at once instead of filling a text area.
import { h } from "./dom";

/** TraceShape is what the table shows of a trace: where its rows start, its delimiter and columns. */
export interface TraceShape {
  /** starts[i] is the offset of data row i (the header is not a row); blank lines are left out */
  starts: Uint32Array;
  rows: number;
  delimiter: string;
  columns: string[];
}

/** sniffDelimiter picks the delimiter of a header line as the core does: a comma, else ; tab or |. */
export function sniffDelimiter(header: string): string {
  if (header.includes(",")) return ",";
  for (const d of [";", "\t", "|"]) if (header.includes(d)) return d;
  return ",";
}

/** splitRow splits one CSV line on the delimiter, honouring double quotes ("" inside quotes is a quote). */
export function splitRow(line: string, delimiter: string): string[] {
  if (!line.includes('"')) return line.split(delimiter);
  const out: string[] = [];
  let cur = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === delimiter) {
      out.push(cur);
      cur = "";
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/** traceShape indexes a trace's rows in one pass over the text (no row is split until shown). */
export function traceShape(text: string): TraceShape {
  const headerEnd = text.indexOf("\n");
  const header = (headerEnd < 0 ? text : text.slice(0, headerEnd)).replace(/\r$/, "").replace(/^\ufeff/, "");
  const delimiter = sniffDelimiter(header);
  let starts = new Uint32Array(1024);
  let rows = 0;
  let at = headerEnd < 0 ? text.length : headerEnd + 1;
  while (at < text.length) {
    let end = text.indexOf("\n", at);
    if (end < 0) end = text.length;
    const blank = end === at || (end === at + 1 && text[at] === "\r");
    if (!blank) {
      if (rows === starts.length) {
        const grown = new Uint32Array(starts.length * 2);
        grown.set(starts);
        starts = grown;
      }
      starts[rows++] = at;
    }
    at = end + 1;
  }
  return { starts, rows, delimiter, columns: splitRow(header, delimiter).map((c) => c.trim()) };
}

/** rowAt returns data row i of text, split into its fields. */
export function rowAt(text: string, shape: TraceShape, i: number): string[] {
  const from = shape.starts[i];
  let to = text.indexOf("\n", from);
  if (to < 0) to = text.length;
  return splitRow(text.slice(from, to).replace(/\r$/, ""), shape.delimiter);
}

const rowHeight = 22; // px, fixed so that the list can be virtualised
const viewRows = 14; // rows in view
const overscan = 6; // rows drawn beyond the view on each side

/**
 * traceTable shows a trace: a line with its size and columns, then its rows
 * (numbered from 1, as the core's errors number them) in a scrolling list
 * that draws only the rows in view.
 */
export function traceTable(text: string, what: string): HTMLElement {
  const shape = traceShape(text);
  const cols = shape.columns;
  const delim = shape.delimiter === "\t" ? "tab" : shape.delimiter;
  const about = h(
    "p",
    { class: "trace-about", "data-testid": "trace-about" },
    h("strong", {}, `${shape.rows.toLocaleString("en")} rows`),
    `, ${cols.length} columns (${delim}-separated): `,
    ...cols.flatMap((c, i) => [i ? ", " : "", h("code", {}, c)]),
    `. ${what}`,
  );
  const head = h("div", { class: "trace-row trace-head", role: "row" }, h("span", { role: "columnheader" }, "#"), ...cols.map((c) => h("span", { role: "columnheader" }, c)));
  const body = h("div", { class: "trace-body", role: "rowgroup" });
  const spacer = h("div", { class: "trace-spacer" });
  const scroller = h("div", { class: "trace-scroll", tabindex: "0", "data-testid": "trace-table", role: "table", "aria-label": "trace rows", "aria-rowcount": String(shape.rows + 1) }, head, spacer);
  spacer.append(body);
  spacer.style.height = `${shape.rows * rowHeight}px`;
  scroller.style.setProperty("--trace-cols", String(cols.length));
  let drawn = "";
  const draw = () => {
    const first = Math.max(0, Math.floor(scroller.scrollTop / rowHeight) - overscan);
    const last = Math.min(shape.rows, first + viewRows + 2 * overscan);
    if (drawn === `${first}-${last}`) return;
    drawn = `${first}-${last}`;
    body.style.transform = `translateY(${first * rowHeight}px)`;
    const out: HTMLElement[] = [];
    for (let i = first; i < last; i++) {
      const fields = rowAt(text, shape, i);
      out.push(h("div", { class: "trace-row", role: "row", "aria-rowindex": String(i + 2), "data-row": String(i + 1) }, h("span", { class: "muted" }, String(i + 1)), ...fields.map((f) => h("span", { role: "cell" }, f))));
    }
    body.replaceChildren(...out);
  };
  scroller.addEventListener("scroll", () => requestAnimationFrame(draw), { passive: true });
  draw();
  return h("div", { class: "trace-view" }, about, shape.rows ? scroller : h("p", { class: "muted" }, "No rows after the header."));
}

/** A long trace held back from the JSON tab: the text shown in its place, and the trace itself. */
export interface HeldTrace {
  marker: string;
  text: string;
}

/**
 * elideTrace returns the scenario as the JSON tab shows it: a trace longer
 * than limit characters replaced by a marker (a text area of megabytes takes
 * seconds), and the trace held back to put back on load (restoreTrace).
 */
export function elideTrace<S extends { workload: { trace_csv?: string } }>(sc: S, limit: number): { doc: S; held: HeldTrace | null } {
  const text = sc.workload.trace_csv;
  if (text === undefined || text.length <= limit) return { doc: sc, held: null };
  const marker = `(the trace's ${traceShape(text).rows.toLocaleString("en")} rows are kept as they are: too long to show here, see the Workload tab)`;
  return { doc: { ...sc, workload: { ...sc.workload, trace_csv: marker } }, held: { marker, text } };
}

/** restoreTrace puts a held trace back where its marker still stands (v is the JSON tab's document). */
export function restoreTrace(v: unknown, held: HeldTrace | null): void {
  const w = (v as { workload?: { trace_csv?: unknown } } | null)?.workload;
  if (held && w && w.trace_csv === held.marker) w.trace_csv = held.text;
}
