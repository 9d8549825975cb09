// The results view: headline figures, per-server bars, charts, the topology
// with each one's share, and tables for queues and machines.
import { chart } from "./charts";
import {
  counterChart,
  defaultView,
  failureChart,
  fmt,
  headline,
  histogramChart,
  manyLines,
  pct,
  queueLengthChart,
  serverBars,
  topLines,
  utilizationChart,
  type ChartView,
  type CounterChart,
} from "./chartdata";
import { h } from "./dom";
import { statesAt } from "./lifecycle";
import { stateTimeline } from "./timeline";
import { greyOut, topology } from "./topology";
import type { Model, Result } from "./types";

/** summary is the headline figures as a definition list (data-testid=summary). */
export function summary(r: Result): HTMLElement {
  const dl = h("dl", { class: "figures" });
  for (const f of headline(r)) {
    const value = f.key === "utilization.max" || f.key === "network.share" ? pct(f.value) : fmt(f.value);
    dl.append(h("div", { class: "figure", "data-figure": f.key }, h("dt", {}, f.label), h("dd", {}, value)));
  }
  const failed = Object.entries(r.requests.failed ?? {});
  return h(
    "section",
    { class: "summary", "data-testid": "summary", "aria-label": "Summary" },
    h(
      "p",
      { class: "runline" },
      `${r.name ? r.name + " — " : ""}${r.model}, LDBAL ${r.ldbal ? "Y" : "N"}, policy ${r.policy}, seed ${r.seed}, engine ${r.engine_version}`,
    ),
    dl,
    failed.length ? h("p", { class: "muted" }, "Failed: " + failed.map(([k, v]) => `${k} ${v}`).join(", ")) : null,
    h(
      "p",
      { class: "muted" },
      `Tuning: idle=${r.tuning.idle}, netload=${r.tuning.netload}, mp_counter=${r.tuning.mp_counter}, mp_reset_ms=${r.tuning.mp_reset_ms}, gateway_forward_ms=${r.tuning.gateway_forward_ms}${r.tuning.boot_ms !== undefined ? `, boot_ms=${r.tuning.boot_ms}` : ""}`,
    ),
  );
}

/** serverTable shows requests and utilization per server as bars. */
export function serverTable(r: Result): HTMLElement {
  const rows = serverBars(r).map((b) =>
    h(
      "tr",
      {},
      h("th", { scope: "row" }, b.id),
      h("td", {}, b.lmid),
      h("td", {}, b.queue),
      h("td", { class: "bar-cell" }, h("span", { class: "bar req", "data-w": b.requestsWidth.toFixed(1) }), h("span", { class: "bar-label" }, `${b.requests} (${pct(b.share)})`)),
      h("td", { class: "bar-cell" }, h("span", { class: "bar util", "data-w": b.utilizationWidth.toFixed(1) }), h("span", { class: "bar-label" }, pct(b.utilization))),
    ),
  );
  const table = h(
    "table",
    { class: "servers", "data-testid": "server-table" },
    h("caption", {}, "Requests and utilization per server"),
    h("thead", {}, h("tr", {}, h("th", {}, "Server"), h("th", {}, "Machine"), h("th", {}, "Queue"), h("th", {}, "Requests (share)"), h("th", {}, "Utilization"))),
    h("tbody", {}, ...rows),
  );
  // Widths through the CSSOM: allowed by a strict CSP, unlike style attributes.
  for (const bar of table.querySelectorAll<HTMLElement>(".bar")) bar.style.width = `${bar.dataset.w}%`;
  return table;
}

function queueTable(r: Result): HTMLElement {
  return h(
    "table",
    { class: "plain" },
    h("caption", {}, "Queues"),
    h("thead", {}, h("tr", {}, ...["Queue", "Group", "Machine", "Servers", "Enqueued", "Max length", "Avg length", "Wait mean (ms)", "Wait p95 (ms)"].map((t) => h("th", {}, t)))),
    h(
      "tbody",
      {},
      ...(r.queues ?? []).map((q) =>
        h(
          "tr",
          {},
          h("th", { scope: "row" }, q.name),
          h("td", {}, q.group),
          h("td", {}, q.lmid),
          h("td", {}, (q.servers ?? []).join(", ")),
          h("td", {}, fmt(q.enqueued)),
          h("td", {}, fmt(q.max_length)),
          h("td", {}, fmt(q.avg_length)),
          h("td", {}, fmt(q.wait_ms.mean)),
          h("td", {}, fmt(q.wait_ms.p95)),
        ),
      ),
    ),
  );
}

function machineTable(r: Result): HTMLElement {
  return h(
    "table",
    { class: "plain" },
    h("caption", {}, "Machines"),
    h("thead", {}, h("tr", {}, ...["Machine", "Utilization", "NETLOAD", "Issued", "Served", "Local", "Sent", "Received"].map((t) => h("th", {}, t)))),
    h(
      "tbody",
      {},
      ...(r.machines ?? []).map((m) =>
        h(
          "tr",
          {},
          h("th", { scope: "row" }, m.lmid),
          h("td", {}, m.utilization === undefined ? "–" : pct(m.utilization)),
          ...[m.netload, m.issued, m.served, m.local, m.sent, m.received].map((v) => h("td", {}, fmt(v))),
        ),
      ),
    ),
  );
}

/** topCounters keeps the n counter lines of the largest average (all when n is 0). */
function topCounters(c: CounterChart, n: number): CounterChart {
  if (n <= 0 || c.labels.length <= n) return c;
  const lines = topLines(
    c.labels.map((name, i) => ({ name, values: c.data[i + 1] as number[] })),
    n,
    "mean",
  );
  return { labels: lines.map((l) => l.name), data: [c.data[0], ...lines.map((l) => l.values)], resets: c.resets };
}

/** viewControls chooses how a large application's charts group their lines. */
function viewControls(view: ChartView, redraw: () => void): HTMLElement {
  const by = h(
    "select",
    { "aria-label": "lines per", "data-testid": "chart-by" },
    ...(
      [
        ["each", "each server or queue"],
        ["group", "server group"],
        ["machine", "machine"],
      ] as const
    ).map(([v, t]) => h("option", { value: v, selected: view.by === v }, t)),
  );
  const top = h(
    "select",
    { "aria-label": "lines shown", "data-testid": "chart-top" },
    ...[5, 8, 10, 20, 0].map((n) => h("option", { value: String(n), selected: view.top === n }, n ? `top ${n}` : "all")),
  );
  by.addEventListener("change", () => {
    view.by = by.value as ChartView["by"];
    redraw();
  });
  top.addEventListener("change", () => {
    view.top = Number(top.value);
    redraw();
  });
  return h(
    "div",
    { class: "chart-view", "data-testid": "chart-view" },
    h("span", { class: "muted" }, "A large application: "),
    h("label", {}, "one line per ", by),
    h("label", {}, "showing ", top, " (the rest as one line)"),
  );
}

/** results renders a whole result; model (when known) draws the topology. */
export function results(r: Result, model: Model | null): HTMLElement {
  const charts = h("div", { class: "charts" });
  const lines = Math.max((r.series.queue_length ?? []).length, (r.series.utilization ?? []).length);
  const view: ChartView = defaultView(lines);
  const counters = counterChart(r);
  const draw = (): HTMLElement[] => {
    const out = [
      chart(queueLengthChart(r, view), { title: "Queue length over time", yLabel: "waiting requests", stepped: true, testid: "chart-queue" }),
      chart(utilizationChart(r, view), { title: "Utilization over time", yLabel: "busy fraction", stepped: true, testid: "chart-util" }),
    ];
    const fails = failureChart(r);
    if (fails) {
      out.push(chart(fails, { title: "Failed requests over time (by code)", yLabel: "requests", stepped: true, testid: "chart-failures" }));
    }
    if (counters) {
      out.push(
        chart(topCounters(counters, view.top), {
          title: "MP counters C_m(q) (dashed lines: resets)",
          yLabel: "counter",
          marks: counters.resets,
          testid: "chart-counters",
        }),
      );
    }
    return out;
  };
  let timeFigs = draw();
  charts.append(...timeFigs);
  const controls =
    lines > manyLines
      ? viewControls(view, () => {
          const next = draw();
          timeFigs.forEach((f, i) => f.replaceWith(next[i]));
          timeFigs = next;
        })
      : null;
  for (const s of r.services ?? []) {
    if (s.issued === 0) continue;
    const { p95, p99 } = s.response_ms;
    charts.append(
      chart(histogramChart(s), {
        title: `Response time, ${s.name} (dashed: p95 ${fmt(p95)} ms, p99 ${fmt(p99)} ms)`,
        xLabel: "response time (ms)",
        yLabel: "requests",
        bars: true,
        marks: [p95, p99],
        markLabels: ["p95", "p99"],
        testid: `chart-histogram-${s.name}`,
      }),
    );
  }
  const warnings = r.warnings ?? [];
  const timeline = stateTimeline(r);
  if (timeline) charts.prepend(h("figure", { class: "chart wide" }, h("figcaption", {}, "Server states over time (up, down, restarting, stopping, booting, gone)"), timeline));
  let topo: SVGSVGElement | null = null;
  if (model) {
    topo = topology(model, r);
    greyOut(topo, statesAt(r, r.span_ms)); // the states at the end of the run
  }
  return h(
    "div",
    { class: "results" },
    summary(r),
    warnings.length ? h("ul", { class: "warnings", "data-testid": "warnings" }, ...warnings.map((w) => h("li", {}, w))) : null,
    topo ? h("figure", { class: "topo", "data-testid": "topology" }, h("figcaption", {}, r.lifecycle ? "Topology and share of requests (instances not up at the end greyed out)" : "Topology and share of requests"), topo) : null,
    serverTable(r),
    controls,
    charts,
    queueTable(r),
    machineTable(r),
  );
}
