// The results view: headline figures, per-server bars, charts, the topology
// with each one's share, and tables for queues and machines.
import { chart } from "./charts";
import {
  capRows,
  counterChart,
  defaultView,
  failureChart,
  figureText,
  fmt,
  headline,
  histogramChart,
  manyLines,
  maxTableRows,
  histogramOf,
  pct,
  qDepthChart,
  queueLengthChart,
  serverBars,
  topLines,
  utilizationChart,
  warmupMark,
  type ChartView,
  type CounterChart,
} from "./chartdata";
import { clientColumns, clientValue, machineMarks } from "./appdata";
import { h } from "./dom";
import { statesAt } from "./lifecycle";
import { stateKey, stateTimeline } from "./timeline";
import { flowMatrixView } from "./flowmatrix";
import { greyOut, topology } from "./topology";
import type { ClientStats, Model, QSpaceStats, Result, TransactionStats, WorkstationStats } from "./types";
import { traceRead, validationView } from "./validation";

/** summary is the headline figures as a definition list (data-testid=summary). */
export function summary(r: Result): HTMLElement {
  const dl = h("dl", { class: "figures" });
  for (const f of headline(r)) {
    dl.append(h("div", { class: "figure", "data-figure": f.name }, h("dt", {}, f.label), h("dd", {}, figureText(f.name, f.value))));
  }
  // the figures are the core's, read from the result's headline: one made
  // before results carried it (engine 0.4) has none, and the page computes
  // none of its own
  if (!r.headline) dl.append(h("p", { class: "muted", "data-testid": "no-headline" }, `Made by engine ${r.engine_version} before results carried their headline figures: rerun it for them.`));
  // runs with calls or clients: the requests servers issued, the retries clients issued
  if (r.requests.nested !== undefined) dl.append(h("div", { class: "figure", "data-figure": "requests.nested" }, h("dt", {}, "Nested (issued by servers)"), h("dd", {}, fmt(r.requests.nested))));
  if (r.requests.retried !== undefined) dl.append(h("div", { class: "figure", "data-figure": "requests.retried" }, h("dt", {}, "Retried by clients"), h("dd", {}, fmt(r.requests.retried))));
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
  // In runs with calls: the time each server held a request waiting for its nested requests' replies.
  const held = new Map((r.servers ?? []).filter((sv) => sv.held_ms !== undefined).map((sv) => [sv.id, sv]));
  const heldCell = (id: string) => {
    const sv = held.get(id);
    if (!sv) return h("td", {}, "–");
    const share = sv.busy_ms > 0 ? ` (${pct((sv.held_ms ?? 0) / sv.busy_ms)} of busy)` : "";
    return h("td", { "data-held": String(sv.held_ms) }, `${fmt(sv.held_ms)}${sv.held_ms ? share : ""}`);
  };
  // Multithreaded servers (MAXDISPATCHTHREADS): each instance's threads, the most busy at once, and each thread's requests.
  const mt = new Map((r.servers ?? []).filter((sv) => (sv.threads ?? 1) > 1).map((sv) => [sv.id, sv]));
  const threadsCell = (id: string) => {
    const sv = (r.servers ?? []).find((x) => x.id === id);
    if (!sv) return h("td", {}, "–");
    const k = sv.threads ?? 1;
    const per = (sv.by_thread ?? []).map((t) => `${t.thread}: ${t.requests}`).join(", ");
    return h(
      "td",
      { "data-threads": String(k), "data-threads-used": String(sv.threads_used ?? 1), title: per ? `requests per thread: ${per}` : null },
      k > 1 ? `${sv.threads_used ?? 0} of ${k} at most` : "1",
    );
  };
  const bars = capRows(serverBars(r), maxTableRows, (b) => b.requests);
  const cut = bars.hidden ? ` — the ${bars.shown.length} with the most requests; ${bars.hidden} more in the result's JSON` : "";
  const rows = bars.shown.map((b) =>
    h(
      "tr",
      {},
      h("th", { scope: "row" }, b.id),
      h("td", {}, b.lmid),
      h("td", {}, b.queue),
      h("td", { class: "bar-cell" }, h("span", { class: "bar req", "data-w": b.requestsWidth.toFixed(1) }), h("span", { class: "bar-label" }, `${b.requests} (${pct(b.share)})`)),
      h("td", { class: "bar-cell" }, h("span", { class: "bar util", "data-w": b.utilizationWidth.toFixed(1) }), h("span", { class: "bar-label" }, pct(b.utilization))),
      held.size ? heldCell(b.id) : null,
      mt.size ? threadsCell(b.id) : null,
    ),
  );
  const table = h(
    "table",
    { class: "servers", "data-testid": "server-table" },
    h(
      "caption",
      {},
      (held.size ? "Requests and utilization per server (held: waiting for nested replies, part of busy)" : "Requests and utilization per server") +
        (mt.size ? "; a multithreaded server's utilization is over all its threads" : "") +
        cut,
    ),
    h(
      "thead",
      {},
      h("tr", {}, h("th", {}, "Server"), h("th", {}, "Machine"), h("th", {}, "Queue"), h("th", {}, "Requests (share)"), h("th", {}, "Utilization"), held.size ? h("th", {}, "Held (ms)") : null, mt.size ? h("th", {}, "Threads busy") : null),
    ),
    h("tbody", {}, ...rows),
  );
  // Widths through the CSSOM: allowed by a strict CSP, unlike style attributes.
  for (const bar of table.querySelectorAll<HTMLElement>(".bar")) bar.style.width = `${bar.dataset.w}%`;
  return table;
}

function queueTable(r: Result): HTMLElement {
  const qs = capRows(r.queues ?? [], maxTableRows, (q) => q.enqueued);
  return h(
    "table",
    { class: "plain" },
    h("caption", {}, qs.hidden ? `Queues — the ${qs.shown.length} that enqueued the most; ${qs.hidden} more in the result's JSON` : "Queues"),
    h("thead", {}, h("tr", {}, ...["Queue", "Group", "Machine", "Servers", "Enqueued", "Max length", "Avg length", "Wait mean (ms)", "Wait p95 (ms)"].map((t) => h("th", {}, t)))),
    h(
      "tbody",
      {},
      ...qs.shown.map((q) =>
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

/** failedText writes a code → count map: "TPESVCFAIL 70, TPETIME 2", or 0. */
function failedText(failed: Record<string, number> | null | undefined): string {
  const list = Object.entries(failed ?? {});
  return list.length ? list.map(([k, v]) => `${k} ${v}`).join(", ") : "0";
}

/** serviceTable shows each service's requests and times, and the calls its servers issued (runs with calls). */
export function serviceTable(r: Result): HTMLElement {
  const calls = (r.services ?? []).some((sv) => sv.calls_issued !== undefined);
  const heads = ["Service", "LOAD", "PRIO", "Issued", "Completed", "Failed", "Timed out", "Wait mean", "Response mean", "p95", "p99"];
  if (calls) heads.push("Calls issued");
  return h(
    "table",
    { class: "plain compact", "data-testid": "service-table" },
    h("caption", {}, `Services (times in ms${calls ? "; calls issued: the nested requests their servers made" : ""})`),
    h("thead", {}, h("tr", {}, ...heads.map((t) => h("th", {}, t)))),
    h(
      "tbody",
      {},
      ...(r.services ?? []).map((sv) =>
        h(
          "tr",
          { "data-service": sv.name },
          h("th", { scope: "row" }, sv.name),
          ...[sv.load, sv.prio, sv.issued, sv.completed].map((v) => h("td", {}, fmt(v))),
          h("td", {}, failedText(sv.failed)),
          ...[sv.timed_out, sv.wait_ms.mean, sv.response_ms.mean, sv.response_ms.p95, sv.response_ms.p99].map((v) => h("td", {}, fmt(v))),
          calls ? h("td", { "data-field": "calls_issued", "data-value": String(sv.calls_issued ?? "") }, sv.calls_issued === undefined ? "–" : fmt(sv.calls_issued)) : null,
        ),
      ),
    ),
  );
}

/**
 * clientTable shows each client set's figures (runs with clients). Each
 * cell carries its exact value (data-value, as the result has it) beside
 * the rounded text.
 */
export function clientTable(clients: ClientStats[]): HTMLElement {
  const cell = (c: ClientStats, key: string) => {
    const v = clientValue(c, key);
    if (key === "failed") return h("td", { "data-field": key, "data-value": JSON.stringify(v ?? {}) }, failedText(v as Record<string, number> | null));
    return h("td", { "data-field": key, "data-value": String(v) }, fmt(v as number));
  };
  // clients through a workstation listener: those it could not place
  const cols: [string, string][] = clients.some((c) => c.not_connected !== undefined) ? [...clientColumns, ["not_connected", "Not connected"]] : clientColumns;
  return h(
    "table",
    { class: "plain compact", "data-testid": "client-table" },
    h("caption", {}, "Client sets (times in ms; cycle: the mean response plus the mean think or backoff)"),
    h("thead", {}, h("tr", {}, h("th", {}, "Client set"), ...cols.map(([, label]) => h("th", {}, label)))),
    h(
      "tbody",
      {},
      ...clients.map((c) => h("tr", { "data-client": c.name }, h("th", { scope: "row", "data-field": "name" }, c.name), ...cols.map(([key]) => cell(c, key)))),
    ),
  );
}

/**
 * workstationTable shows each workstation listener (WSL): its machine, the
 * handlers (WSH) it started, the clients each holds, and the clients it
 * could not place (runs with clients connecting through a WSL).
 */
export function workstationTable(ws: WorkstationStats[]): HTMLElement {
  return h(
    "table",
    { class: "plain compact", "data-testid": "workstation-table" },
    h("caption", {}, "Workstation listeners: the clients each handler (WSH) holds"),
    h("thead", {}, h("tr", {}, h("th", {}, "WSL"), h("th", {}, "Machine"), h("th", {}, "Handlers"), h("th", {}, "Clients per handler"), h("th", {}, "Not connected"))),
    h(
      "tbody",
      {},
      ...ws.map((w) =>
        h(
          "tr",
          { "data-wsl": w.id },
          h("th", { scope: "row" }, w.id),
          h("td", {}, w.machine),
          h("td", { "data-field": "handlers" }, fmt(w.handlers)),
          h("td", { "data-field": "clients" }, (w.clients ?? []).map((n, i) => `WSH ${i + 1}: ${n}`).join(", ") || "–"),
          h("td", { "data-field": "not_connected", class: w.not_connected ? "warning-cell" : "" }, fmt(w.not_connected)),
        ),
      ),
    ),
  );
}

/**
 * qspaceTable shows each /Q queue (runs whose scenario has qspaces): its
 * messages enqueued, forwarded, put back for a retry, moved to the error
 * queue and dropped, its depth (largest and mean) and the time its
 * forwarded messages spent in it.
 */
export function qspaceTable(qspaces: QSpaceStats[]): HTMLElement {
  return h(
    "table",
    { class: "plain compact", "data-testid": "qspace-table" },
    h("caption", {}, "/Q queues: messages stored by enqueues and drained by the TMQFORWARD servers"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ...["Queue", "Enqueued", "Forwarded", "Retried", "To error queue", "Dropped", "Depth max", "Depth mean", "In queue mean (ms)", "In queue p95 (ms)", "In queue max (ms)"].map((t) => h("th", {}, t)),
      ),
    ),
    h(
      "tbody",
      {},
      ...qspaces.flatMap((qs) =>
        (qs.queues ?? []).map((q) =>
          h(
            "tr",
            { "data-queue": `${qs.name}:${q.name}` },
            h("th", { scope: "row" }, `${qs.name}:${q.name}`),
            ...(
              [
                ["enqueued", q.enqueued],
                ["forwarded", q.forwarded],
                ["retried", q.retried],
                ["to_error_queue", q.to_error_queue],
                ["dropped", q.dropped],
                ["depth.max", q.depth.max],
                ["depth.mean", q.depth.mean],
                ["time_in_queue_ms.mean", q.time_in_queue_ms.mean],
                ["time_in_queue_ms.p95", q.time_in_queue_ms.p95],
                ["time_in_queue_ms.max", q.time_in_queue_ms.max],
              ] as [string, number][]
            ).map(([key, v]) => h("td", { "data-field": key, "data-value": String(v) }, fmt(v))),
          ),
        ),
      ),
    ),
  );
}

/**
 * transactionTable shows the transactions of a run with AUTOTRAN services:
 * how many started, committed (in one or two phases) and were aborted (on
 * TRANTIME or a failing owner), their participants, and the commit's time
 * (from its start to the owner's end: prepares and commits at the TMS
 * queues).
 */
export function transactionTable(t: TransactionStats): HTMLElement {
  const cells: [string, string, number][] = [
    ["started", "Started", t.started],
    ["committed", "Committed", t.committed],
    ["one_phase", "One-phase", t.one_phase],
    ["two_phase", "Two-phase", t.two_phase],
    ["aborted.timeout", "Aborted: TRANTIME", t.aborted?.timeout ?? 0],
    ["aborted.failed", "Aborted: owner failed", t.aborted?.failed ?? 0],
    ["participants_mean", "Groups per transaction", t.participants_mean],
    ["commit_ms.mean", "Commit mean (ms)", t.commit_ms.mean],
    ["commit_ms.p95", "Commit p95 (ms)", t.commit_ms.p95],
    ["commit_ms.p99", "Commit p99 (ms)", t.commit_ms.p99],
    ["commit_ms.max", "Commit max (ms)", t.commit_ms.max],
  ];
  return h(
    "table",
    { class: "plain compact", "data-testid": "transaction-table" },
    h("caption", {}, "Transactions (AUTOTRAN): commits at the groups' TMS queues"),
    h("thead", {}, h("tr", {}, ...cells.map(([, label]) => h("th", {}, label)))),
    h("tbody", {}, h("tr", {}, ...cells.map(([key, , v]) => h("td", { "data-field": key, "data-value": String(v) }, fmt(v))))),
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
  return { labels: lines.map((l) => l.name), data: [c.data[0], ...lines.map((l) => l.values ?? [])], resets: c.resets };
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
  // a lost machine: dashed lines where it was lost, noticed and restored
  const mm = machineMarks(r);
  const marked = mm.xs.length ? { marks: mm.xs, markLabels: mm.labels } : {};
  // the warm-up: a solid line where it ends, the time before it shaded
  const wm = warmupMark(r);
  const warm = wm ? { warmup: { x: wm.x, label: wm.label } } : {};
  const notes = [mm.xs.length ? "dashed: machine changes" : "", wm ? wm.caption : ""].filter(Boolean);
  const also = notes.length ? ` (${notes.join("; ")})` : "";
  const draw = (): HTMLElement[] => {
    const out = [
      chart(queueLengthChart(r, view), { title: `Queue length over time${also}`, yLabel: "waiting requests", stepped: true, testid: "chart-queue", ...marked, ...warm }),
      chart(utilizationChart(r, view), { title: `Utilization over time${also}`, yLabel: "busy fraction", stepped: true, testid: "chart-util", ...marked, ...warm }),
    ];
    const depth = qDepthChart(r);
    if (depth) {
      out.push(chart(depth, { title: "/Q queue depth over time (messages stored, not held by a forwarder)", yLabel: "messages", stepped: true, testid: "chart-qdepth", ...marked, ...warm }));
    }
    const fails = failureChart(r);
    if (fails) {
      out.push(chart(fails, { title: `Failed requests over time (by code)${also}`, yLabel: "requests", stepped: true, testid: "chart-failures", ...marked, ...warm }));
    }
    if (counters) {
      out.push(
        chart(topCounters(counters, view.top), {
          title: `MP counters C_m(q) (dashed lines: resets${wm ? `; ${wm.caption}` : ""})`,
          yLabel: "counter",
          marks: counters.resets,
          testid: "chart-counters",
          ...warm,
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
  const tx = r.transactions;
  if (tx && tx.committed > 0 && tx.commit_histogram) {
    const { p95, p99 } = tx.commit_ms;
    charts.append(
      chart(histogramOf("commits", tx.commit_histogram), {
        title: `Commit time, from a commit's start to its owner's end (dashed: p95 ${fmt(p95)} ms, p99 ${fmt(p99)} ms)`,
        xLabel: "commit time (ms)",
        yLabel: "transactions",
        bars: true,
        marks: [p95, p99],
        markLabels: ["p95", "p99"],
        testid: "chart-commit",
      }),
    );
  }
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
  if (timeline) charts.prepend(h("figure", { class: "chart wide timeline-box" }, h("figcaption", {}, "Server states over time (up, down, restarting, stopping, booting, gone)"), timeline, stateKey(r)));
  let topo: SVGSVGElement | null = null;
  if (model) {
    topo = topology(model, r);
    greyOut(topo, statesAt(r, r.span_ms)); // the states at the end of the run
  }
  const changes = r.machine_changes ?? [];
  return h(
    "div",
    { class: "results" },
    summary(r),
    traceRead(r),
    warnings.length ? h("ul", { class: "warnings", "data-testid": "warnings" }, ...warnings.map((w) => h("li", {}, w))) : null,
    changes.length
      ? h("p", { class: "machine-changes", "data-testid": "machine-changes" }, "Machines: ", changes.map((c) => `${c.lmid} ${c.change} at ${fmt(c.at_ms / 1000)} s`).join(", "), " (dashed lines on the time charts).")
      : null,
    validationView(r),
    r.clients?.length ? clientTable(r.clients) : null,
    r.workstation?.length ? workstationTable(r.workstation) : null,
    r.transactions ? transactionTable(r.transactions) : null,
    r.qspaces?.length ? qspaceTable(r.qspaces) : null,
    h(
      "div",
      { class: "topo-row" },
      topo ? h("figure", { class: "topo", "data-testid": "topology" }, h("figcaption", {}, r.lifecycle ? "Topology and share of requests (instances not up at the end greyed out)" : "Topology and share of requests"), topo) : null,
      flowMatrixView(r.flows),
    ),
    serverTable(r),
    controls,
    charts,
    serviceTable(r),
    queueTable(r),
    machineTable(r),
  );
}
