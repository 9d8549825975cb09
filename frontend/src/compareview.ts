// The compare tab: the same scenario under several variants, run one after the
// other in the worker, with overlaid charts and a table of differences.
import { chart } from "./charts";
import { better, differences, figureText, overlay, pct, totalQueueLength, type Line } from "./chartdata";
import { h } from "./dom";
import type { Model, Result, Scenario } from "./types";
import { specProblem, specVariant, variantsFor, type Variant } from "./variants";

/** RunOne runs the scenario with a variant applied ("" for none) and returns its result. */
export type RunOne = (sc: Scenario, variant: string, progress: (done: number, total: number) => void) => Promise<Result>;

/** A compared result with its label, or the error that variant ran into. */
export interface Compared {
  label: string;
  result?: Result;
  error?: string;
}

/** comparison draws compared results: the overlay charts and the differences table. */
export function comparison(items: Compared[]): HTMLElement {
  const ok = items.filter((i) => i.result) as Required<Pick<Compared, "label" | "result">>[];
  const rows = differences(ok.map((i) => i.result));
  const table = h(
    "table",
    { class: "plain diff", "data-testid": "compare-table" },
    h("caption", {}, "Differences (change from the first column)"),
    h("thead", {}, h("tr", {}, h("th", {}, "Figure"), ...ok.map((i) => h("th", {}, i.label)))),
    h(
      "tbody",
      {},
      ...rows.map((r) =>
        h(
          "tr",
          {},
          h("th", { scope: "row" }, r.label),
          ...r.values.map((v, j) => {
            const d = r.deltas[j];
            const delta = j === 0 || d === null ? "" : ` (${d >= 0 ? "+" : ""}${(100 * d).toFixed(1)}%)`;
            return h("td", { class: j > 0 && d !== null ? changeClass(r.name, d) : "" }, figureText(r.name, v) + delta);
          }),
        ),
      ),
    ),
  );
  const lines: Line[] = ok.map((i) => ({
    label: i.label,
    x: (i.result.series.start_ms ?? []).map((t) => t / 1000),
    y: totalQueueLength(i.result),
  }));
  const errs = items.filter((i) => i.error);
  return h(
    "div",
    { class: "comparison" },
    errs.length ? h("ul", { class: "warnings" }, ...errs.map((e) => h("li", {}, `${e.label}: ${e.error}`))) : null,
    ok.length ? table : null,
    ok.length ? chart(overlay(lines), { title: "Waiting requests, all queues", yLabel: "waiting requests", stepped: true }) : null,
    ok.length ? shareTable(ok) : null,
  );
}

/** changeClass colours a change of the figure named name by whether it is better or worse, as the figures table says (more fairness is better, more waiting worse; a change of how many were issued is neither). */
export function changeClass(name: string, d: number): string {
  const way = better(name);
  if (d === 0 || way === "") return "";
  return d > 0 === (way === "higher") ? "better" : "worse";
}

/** shareTable lines up each server's share of requests across the results. */
function shareTable(items: { label: string; result: Result }[]): HTMLElement {
  const ids = Array.from(new Set(items.flatMap((i) => (i.result.servers ?? []).map((s) => s.id))));
  return h(
    "table",
    { class: "plain" },
    h("caption", {}, "Share of requests per server"),
    h("thead", {}, h("tr", {}, h("th", {}, "Server"), ...items.map((i) => h("th", {}, i.label)))),
    h(
      "tbody",
      {},
      ...ids.map((id) =>
        h(
          "tr",
          {},
          h("th", { scope: "row" }, id),
          ...items.map((i) => {
            const s = (i.result.servers ?? []).find((x) => x.id === id);
            return h("td", {}, s ? `${pct(s.share)} · util ${pct(s.utilization)}` : "–");
          }),
        ),
      ),
    ),
  );
}

/** CompareView lets the user pick variants of the current scenario and run them. */
export class CompareView {
  readonly el: HTMLElement;
  private picks: HTMLElement;
  private out: HTMLElement;
  private status: HTMLElement;
  private custom: Variant[] = [];
  private checked = new Set(["baseline", "ldbal=Y", "ldbal=N", "policy=jsq"]);
  /** shared is the comparison last run (its variant texts, "" for the scenario as written): what share links carry. */
  shared: string[] | null = null;

  constructor(
    private scenario: () => Scenario,
    private model: () => Model | null,
    private runOne: RunOne,
  ) {
    this.picks = h("fieldset", { class: "variants" });
    this.out = h("div", { "data-testid": "compare-view" });
    this.status = h("p", { class: "muted", role: "status" });
    const run = h("button", { type: "button", class: "primary", "data-testid": "compare-run" }, "Run comparison");
    run.addEventListener("click", () => void this.run());
    const spec = h("input", { placeholder: "e.g. network.latency_ms=2", "aria-label": "another variant", "data-testid": "compare-spec", class: "variant-spec" });
    const add = h("button", { type: "button", "data-testid": "compare-add" }, "Add variant");
    const addSpec = () => {
      const problem = specProblem(spec.value);
      if (problem) {
        this.status.textContent = problem;
        return;
      }
      const v = specVariant(spec.value);
      if (!this.custom.some((c) => c.id === v.id)) this.custom.push(v);
      this.checked.add(v.id);
      spec.value = "";
      this.status.textContent = "";
      this.refresh();
    };
    add.addEventListener("click", addSpec);
    spec.addEventListener("keydown", (e) => {
      if (e.key === "Enter") addSpec();
    });
    this.el = h(
      "div",
      { class: "compare" },
      h(
        "p",
        { class: "muted" },
        "Every variant sees the identical request stream: same arrivals, same service times. A variant is what ",
        h("code", {}, "tuxlb compare --variant"),
        " takes: key=value, several joined with commas.",
      ),
      this.picks,
      h("div", { class: "controls" }, spec, add, run),
      this.status,
      this.out,
    );
  }

  /** refresh lists the variants of the current scenario, keeping what is ticked. */
  refresh(): void {
    for (const box of this.picks.querySelectorAll<HTMLInputElement>("input[type=checkbox]")) {
      if (box.checked) this.checked.add(box.value);
      else this.checked.delete(box.value);
    }
    this.draw();
  }

  /** setSpecs ticks exactly the variants of a comparison (a share link's), adding those not offered. */
  setSpecs(specs: string[]): void {
    this.checked = new Set(["baseline"]);
    for (const spec of specs) {
      let v = spec === "" ? undefined : this.variants().find((k) => k.spec === spec);
      if (spec !== "" && !v) {
        v = specVariant(spec);
        this.custom.push(v);
      }
      if (v) this.checked.add(v.id);
    }
    this.shared = specs;
    this.draw();
  }

  private draw(): void {
    this.checked.add("baseline");
    this.picks.replaceChildren(
      h("legend", {}, "Variants"),
      ...this.variants().map((v) =>
        h(
          "label",
          { class: "check" },
          h("input", { type: "checkbox", value: v.id, checked: this.checked.has(v.id), disabled: v.id === "baseline", "data-variant": v.id }),
          " ",
          v.spec ? h("code", {}, v.label) : v.label,
        ),
      ),
    );
  }

  private variants(): Variant[] {
    return [...variantsFor(this.scenario(), this.model()), ...this.custom];
  }

  /** show draws already-computed results (e.g. two saved runs). */
  show(items: Compared[]): void {
    this.status.textContent = "";
    this.out.replaceChildren(comparison(items));
  }

  /** run runs the ticked variants one after the other and shows them side by side. */
  async run(): Promise<void> {
    const sc = this.scenario();
    const chosen = new Set(Array.from(this.picks.querySelectorAll<HTMLInputElement>("input:checked")).map((i) => i.value));
    const vs = this.variants().filter((v) => chosen.has(v.id));
    this.shared = vs.map((v) => v.spec);
    const items: Compared[] = [];
    for (const [i, v] of vs.entries()) {
      this.status.textContent = `Running ${v.label} (${i + 1} of ${vs.length})…`;
      try {
        const r = await this.runOne(sc, v.spec, (done, total) => {
          this.status.textContent = `Running ${v.label} (${i + 1} of ${vs.length}): ${done}${total ? ` of ~${total}` : ""} requests`;
        });
        items.push({ label: v.label, result: r });
      } catch (e) {
        if ((e as Error).message === "canceled") {
          this.status.textContent = "Canceled.";
          return;
        }
        items.push({ label: v.label, error: (e as Error).message });
      }
    }
    this.show(items);
  }
}
