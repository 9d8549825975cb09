// A replay's results: what reading the log found (the result's trace block)
// and how the run's responses compare with those the log observed (its
// validation): a table per service and overall, and a chart of the two.
import { fmt } from "./chartdata";
import { pairChart } from "./charts";
import { h } from "./dom";
import type { Result } from "./types";
import { countsText, intervalText, signedPct, traceLine, undecidedLines, validationAbout, validationChart, validationFigures, validationLines, validationRows, verdictLine, type NamedRow } from "./validationdata";

/** traceRead is the line saying what reading the trace found (data-testid=trace-read); null when the result has no trace block. */
export function traceRead(r: Result): HTMLElement | null {
  if (!r.trace) return null;
  return h("p", { class: r.trace.skipped ? "trace-read skipped" : "trace-read", "data-testid": "trace-read" }, traceLine(r.trace));
}

/** validationTable lines up, per service and overall (the worst service first), the observed and simulated figures with their 95% intervals, their relative error and each figure's verdict. */
function validationTable(rows: NamedRow[]): HTMLElement {
  const body = rows.flatMap(({ key, label, row }) =>
    validationLines(row).map((l, i) =>
      h(
        "tr",
        { "data-service": key || "all", "data-figure": l.figure, class: i === 0 ? "group-start" : null },
        i === 0
          ? h(
              "th",
              { scope: "rowgroup", rowspan: validationFigures.length },
              h("span", { class: "service-name" }, label),
              row.verdict ? h("span", { class: `verdict ${row.verdict}`, "data-field": "service-verdict" }, row.verdict) : null,
              h("span", { class: "counts" }, countsText(row)),
            )
          : null,
        h("th", { scope: "row" }, l.figure),
        h("td", { "data-field": "observed", "data-value": String(l.observed) }, fmt(l.observed), h("span", { class: "ci" }, intervalText(l.observedCI))),
        h(
          "td",
          { "data-field": "simulated", "data-value": String(l.simulated) },
          row.simulated.count > 0 ? fmt(l.simulated) : "–",
          row.simulated.count > 0 && l.simulatedCI ? h("span", { class: "ci" }, intervalText(l.simulatedCI)) : null,
        ),
        h(
          "td",
          { "data-field": "relative_error", "data-value": l.error === undefined ? "" : String(l.error), class: "error-cell" },
          signedPct(l.error),
          l.relativeCI ? h("span", { class: "ci" }, intervalText(l.relativeCI, true)) : null,
        ),
        h("td", { "data-field": "verdict", "data-value": l.verdict ?? "", class: l.verdict ? `verdict ${l.verdict}` : "" }, l.verdict ?? "–"),
      ),
    ),
  );
  return h(
    "table",
    { class: "plain compact validation-table", "data-testid": "validation-table" },
    h("caption", {}, "Observed and simulated response times (ms)"),
    h(
      "thead",
      {},
      h("tr", {}, h("th", {}, "Service"), h("th", {}, "Figure"), h("th", {}, "Observed [95%]"), h("th", {}, "Simulated [95%]"), h("th", {}, "Relative error [95%]"), h("th", {}, "Verdict")),
    ),
    h("tbody", {}, ...body),
  );
}

/**
 * validationView is the "Replay validation" section (data-testid=validation):
 * what was compared, the table, and the chart of one row at a time (all
 * services first; a selector picks a service). null when the result has no
 * validation.
 */
export function validationView(r: Result): HTMLElement | null {
  if (!r.validation) return null;
  const rows = validationRows(r.validation);
  const slot = h("div", { class: "validation-chart-slot" });
  const draw = (key: string) => {
    const named = rows.find((x) => x.key === key) ?? rows[0];
    const data = validationChart(named.row);
    slot.replaceChildren(
      pairChart(data, {
        errors: data.errors,
        title: `Observed vs simulated response, ${named.label} (ms)`,
        categories: [...validationFigures],
        yLabel: "response (ms)",
        testid: "validation-chart",
        attrs: { "data-service": named.key || "all" },
      }),
    );
  };
  const pick =
    rows.length > 1
      ? h("select", { "aria-label": "service charted", "data-testid": "validation-service" }, ...rows.map((x) => h("option", { value: x.key }, x.label)))
      : null;
  pick?.addEventListener("change", () => draw(pick.value));
  draw("");
  return h(
    "section",
    { class: "validation", "data-testid": "validation", "aria-label": "Replay validation" },
    h("h3", {}, "Replay validation"),
    r.validation.verdict ? h("p", { class: `verdict-line verdict ${r.validation.verdict}`, "data-testid": "validation-verdict" }, verdictLine(r.validation)) : null,
    h("p", { class: "muted" }, validationAbout(r)),
    ...undecidedLines(r.validation).map((line) => h("p", { class: "undecided", "data-testid": "validation-undecided" }, line)),
    h(
      "div",
      { class: "validation-body" },
      h("div", { class: "validation-table-box" }, validationTable(rows)),
      h("div", { class: "validation-chart-box" }, pick ? h("label", { class: "chart-view" }, "Chart of ", pick) : null, slot),
    ),
  );
}
