// The call graph: who calls whom (services.*.calls), with each call's mode
// and probability on its arrow, and what drives it (client sets, streams)
// on the left. Drawn from the scenario (and the model, for where each
// service is served) every time either changes; names go in as text nodes.
import { callGraph, edgeText, hasApplications } from "./appdata";
import { h, s } from "./dom";
import type { Model, Scenario } from "./types";

const boxW = 150;
const boxH = 42;
const colGap = 96;
const rowGap = 18;
const pad = 10;

let markers = 0; // arrowhead ids, unique in the page

/** callGraphView draws sc's call graph (data-testid=callgraph) and lists its calls (callgraph-edges). */
export function callGraphView(sc: Scenario, m: Model | null): HTMLElement {
  if (!hasApplications(sc)) {
    return h(
      "p",
      { class: "muted", "data-testid": "callgraph-none" },
      "Call graph: no service calls another and no client set runs (services.S.calls, workload.generate.clients in the JSON tab; docs/scenario.md, Applications).",
    );
  }
  const g = callGraph(sc, m);
  const x = (col: number) => pad + col * (boxW + colGap);
  const y = (row: number) => pad + row * (boxH + rowGap);
  const width = pad * 2 + g.cols * boxW + Math.max(0, g.cols - 1) * colGap;
  const height = pad * 2 + g.rows * boxH + Math.max(0, g.rows - 1) * rowGap;
  const id = `cg-arrow-${++markers}`;
  const svg = s("svg", {
    viewBox: `0 0 ${width} ${height}`,
    class: "callgraph",
    role: "img",
    "aria-label": "Call graph: what asks for which service, and which services call which",
    "data-testid": "callgraph",
  });
  svg.append(
    s("defs", {}, s("marker", { id, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, s("path", { d: "M0,0 L10,5 L0,10 z", class: "cg-arrowhead" }))),
  );
  const at = new Map(g.nodes.map((n) => [n.id, n]));
  const labels: SVGElement[] = [];
  for (const e of g.edges) {
    const a = at.get(e.from);
    const b = at.get(e.to);
    if (!a || !b) continue;
    const x1 = x(a.col) + boxW;
    const y1 = y(a.row) + boxH / 2;
    const x2 = b.col > a.col ? x(b.col) : x(b.col) + boxW / 2;
    const y2 = b.col > a.col ? y(b.row) + boxH / 2 : y(b.row) + boxH;
    const d = b.col > a.col ? `M${x1},${y1} C${x1 + colGap / 2},${y1} ${x2 - colGap / 2},${y2} ${x2},${y2}` : `M${x1},${y1} C${x1 + colGap},${y1 + boxH * 1.5} ${x2},${y2 + boxH} ${x2},${y2}`;
    const cls = `cg-edge${e.calls.length ? " call" : " source"}${e.warn ? " warn" : ""}${e.back ? " back" : ""}`;
    const title = e.calls.length ? e.calls.map((c) => `${c.from} → ${c.to}: ${edgeText(c)}`).join("\n") + (e.warn ? `\n${e.warn}` : "") : `${a.label} → ${b.label}${e.label ? `: ${e.label} of its requests` : ""}`;
    svg.append(s("path", { d, class: cls, "marker-end": `url(#${id})` }, s("title", {}, title)));
    if (e.label) {
      const text = (e.warn ? "⚠ " : "") + e.label;
      const mx = b.col > a.col ? (x1 + x2) / 2 : x1 + colGap / 2;
      const my = b.col > a.col ? (y1 + y2) / 2 : y1 + boxH;
      const w = Math.min(colGap - 4, 6 * text.length + 8);
      labels.push(
        s(
          "g",
          { class: `cg-label${e.warn ? " warn" : ""}` },
          s("rect", { x: mx - w / 2, y: my - 8, width: w, height: 16, rx: 3, class: "cg-label-bg" }),
          s("text", { x: mx, y: my + 4, "text-anchor": "middle", ...(6 * text.length + 8 > colGap - 4 ? { textLength: String(w - 6), lengthAdjust: "spacingAndGlyphs" } : {}) }, text),
          s("title", {}, title),
        ),
      );
    }
  }
  for (const n of g.nodes) {
    const nx = x(n.col);
    const ny = y(n.row);
    const fit = (text: string, max: number) => (text.length > max ? { textLength: String(boxW - 16), lengthAdjust: "spacingAndGlyphs" } : {});
    svg.append(
      s(
        "g",
        { class: `cg-node ${n.kind}`, "data-node": n.kind === "service" ? n.label : n.id },
        s("rect", { x: nx, y: ny, width: boxW, height: boxH, rx: n.kind === "source" ? 14 : 5, class: "cg-box" }),
        s("text", { x: nx + 8, y: ny + 17, class: "cg-name", ...fit(n.label, 19) }, n.label),
        n.sub ? s("text", { x: nx + 8, y: ny + 33, class: "cg-sub", ...fit(n.sub, 24) }, n.sub) : null,
        s("title", {}, `${n.label}${n.sub ? ` (${n.sub})` : ""}`),
      ),
    );
  }
  svg.append(...labels); // over the arrows and boxes
  svg.style.maxWidth = `${width}px`; // never drawn larger than life
  svg.style.minWidth = `${Math.round(width * 0.7)}px`; // nor so small that it cannot be read: the box scrolls instead
  // the calls in words, each pair's warning after its first call
  const calls = g.edges.flatMap((e) => e.calls.map((c, k) => ({ c, warn: k === 0 ? e.warn : undefined })));
  const list = h(
    "ul",
    { class: "callgraph-edges", "data-testid": "callgraph-edges" },
    ...calls.map(({ c, warn }) =>
      h("li", { "data-call": `${c.from}>${c.to}` }, h("strong", {}, `${c.from} → ${c.to}`), `: ${edgeText(c)}`, warn ? h("span", { class: "warn-text" }, ` ⚠ ${warn}`) : null),
    ),
  );
  if (!calls.length) list.append(h("li", { class: "muted" }, "No service calls another: every request goes straight to its service."));
  return h(
    "figure",
    { class: "callgraph-fig" },
    h("figcaption", {}, "Call graph: who asks for which service, and who calls whom"),
    h("div", { class: "callgraph-scroll" }, svg),
    list,
    h("p", { class: "muted small" }, "Calls are edited in the JSON tab (services.S.calls: service, mode tpcall | tpacall | tpforward, p, route); clients in the Workload tab."),
  );
}
