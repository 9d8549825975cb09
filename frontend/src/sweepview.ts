// The sweep tab: one or two keys over a grid of values, replications and an
// objective, run in several Web Workers (each its own copy of the Go core),
// reduced by the core into the JSON `tuxlb sweep --format json` prints, and
// drawn: each figure against the first key with its 95% band, one line per
// value of the second key.
import { bandChart } from "./charts";
import { fmt } from "./chartdata";
import { download, h } from "./dom";
import { Engine, EngineError } from "./engine";
import { figureChart, integerKey, kneeFigure, knees, lastMeeting, objectiveLimit, rangeText, shownFigures, specJSON, type SweepResult, type SweepSpec } from "./sweepdata";
import type { Scenario } from "./types";

/** The keys offered in the key boxes (any key tuxlb sweep takes can be typed). */
const keyHints = ["rate_scale", "policy", "ldbal", "model", "network.latency_ms", "tuning.idle", "tuning.netload", "tuning.mp_counter"];

/** keyBox is one varied key: its name, its VALUES, and a range builder that writes start..end/step. */
function keyBox(n: number, key: string, values: string): { el: HTMLElement; key: HTMLInputElement; values: HTMLInputElement } {
  const k = h("input", { value: key, list: "sweep-keys", "aria-label": `key ${n}`, "data-testid": `sweep-key${n}`, placeholder: n === 1 ? "rate_scale" : "(none)" });
  const v = h("input", { value: values, "aria-label": `values of key ${n}`, "data-testid": `sweep-values${n}`, placeholder: "a,b,c or start..end/step", class: "variant-spec" });
  const start = h("input", { size: 5, "aria-label": `start ${n}`, "data-testid": `sweep-start${n}`, placeholder: "start" });
  const end = h("input", { size: 5, "aria-label": `end ${n}`, "data-testid": `sweep-end${n}`, placeholder: "end" });
  const step = h("input", { size: 5, "aria-label": `step ${n}`, "data-testid": `sweep-step${n}`, placeholder: "step" });
  const use = h("button", { type: "button", "data-testid": `sweep-range${n}` }, "Use range");
  use.addEventListener("click", () => (v.value = rangeText(start.value, end.value, step.value)));
  const el = h("fieldset", { class: "variants" }, h("legend", {}, n === 1 ? "Key (x axis)" : "Second key (one line per value, optional)"), k, " = ", v, h("span", { class: "muted" }, " range: "), start, end, step, use);
  return { el, key: k, values: v };
}

/** SweepView is the Sweep tab. */
export class SweepView {
  readonly el: HTMLElement;
  private k1 = keyBox(1, "rate_scale", "0.5..1.5/0.25");
  private k2 = keyBox(2, "", "");
  private reps = h("input", { type: "number", min: 1, max: 100, value: 3, "aria-label": "replications", "data-testid": "sweep-reps", size: 4 });
  private objective = h("input", { placeholder: "e.g. response_p99_ms<=200", "aria-label": "objective", "data-testid": "sweep-objective" });
  private workers = h("input", {
    type: "number",
    min: 1,
    max: 16,
    value: Math.max(1, Math.min(navigator.hardwareConcurrency || 2, 8)),
    "aria-label": "workers",
    "data-testid": "sweep-workers",
    size: 3,
  });
  private runBtn = h("button", { type: "button", class: "primary", "data-testid": "sweep-run" }, "Run sweep");
  private cancelBtn = h("button", { type: "button", "data-testid": "sweep-cancel", disabled: true }, "Cancel");
  private jsonBtn = h("button", { type: "button", "data-testid": "sweep-download-json", disabled: true }, "Download JSON");
  private csvBtn = h("button", { type: "button", "data-testid": "sweep-download-csv", disabled: true }, "Download CSV");
  private progress = h("progress", { max: 1, value: 0, "data-testid": "sweep-progress", "aria-label": "sweep progress" });
  private status = h("span", { class: "muted", role: "status", "data-testid": "sweep-status" });
  private out = h("div", { "data-testid": "sweep-view" });
  private logY = h("input", { type: "checkbox", "data-testid": "sweep-log", "aria-label": "log scale" });
  private last: SweepResult | null = null;
  private engines: Engine[] = [];
  private canceled = false;
  /** shared is the sweep last run or loaded from a link: what share links carry. */
  shared: SweepSpec | null = null;
  private text = { json: "", csv: "" };

  constructor(
    private scenario: () => Scenario,
    private tool: Engine,
  ) {
    this.runBtn.addEventListener("click", () => void this.run());
    this.cancelBtn.addEventListener("click", () => this.cancel());
    this.jsonBtn.addEventListener("click", () => download("tuxlb-sweep.json", "application/json", this.text.json));
    this.csvBtn.addEventListener("click", () => download("tuxlb-sweep.csv", "text/csv", this.text.csv));
    this.logY.addEventListener("change", () => this.last && this.show(this.last));
    this.el = h(
      "div",
      { class: "sweep" },
      h(
        "p",
        { class: "muted" },
        "Run the scenario over a grid of values, several replications per point, as ",
        h("code", {}, "tuxlb sweep --vary KEY=VALUES"),
        " does: the keys are those of compare variants plus the UBBCONFIG's (SERVERS.<name>[@<group>].MIN, SERVICES.<name>.LOAD, MACHINES.<lmid>.NETLOAD...).",
      ),
      h("datalist", { id: "sweep-keys" }, ...keyHints.map((k) => h("option", { value: k }))),
      this.k1.el,
      this.k2.el,
      h(
        "div",
        { class: "controls" },
        h("label", {}, "Replications ", this.reps),
        h("label", {}, "Objective ", this.objective),
        h("label", {}, "Workers ", this.workers),
      ),
      h("div", { class: "controls" }, this.runBtn, this.cancelBtn, this.progress, this.status),
      h("div", { class: "controls" }, this.jsonBtn, this.csvBtn, h("label", {}, this.logY, " Log scale (y axes)")),
      this.out,
    );
  }

  /** spec is the sweep as set up in the tab; null when no key is given. */
  spec(): SweepSpec | null {
    const vary: string[] = [];
    for (const k of [this.k1, this.k2]) {
      if (k.key.value.trim()) vary.push(`${k.key.value.trim()}=${k.values.value.trim()}`);
    }
    if (!vary.length) return null;
    const spec: SweepSpec = { vary };
    const reps = Number(this.reps.value);
    if (Number.isInteger(reps) && reps > 0) spec.replications = reps;
    if (this.objective.value.trim()) spec.objective = this.objective.value.trim();
    return spec;
  }

  /** setSpec fills the tab from a spec (a share link). */
  setSpec(spec: SweepSpec): void {
    const boxes = [this.k1, this.k2];
    boxes.forEach((b, i) => {
      const [key, ...rest] = (spec.vary[i] ?? "").split("=");
      b.key.value = key ?? "";
      b.values.value = rest.join("=");
    });
    this.reps.value = String(spec.replications ?? 1);
    this.objective.value = spec.objective ?? "";
    this.shared = spec;
  }

  private pool(n: number): Engine[] {
    while (this.engines.length < n) this.engines.push(new Engine());
    return this.engines.slice(0, n);
  }

  private cancel(): void {
    this.canceled = true;
    for (const e of this.engines) if (e.busy) e.cancel();
  }

  /** run runs the sweep set up in the tab on the workers and draws it as the runs come in. */
  async run(): Promise<void> {
    const spec = this.spec();
    if (!spec) {
      this.status.textContent = "Give the first key and its values.";
      return;
    }
    const scenario = JSON.stringify(this.scenario());
    const sj = specJSON(spec);
    this.shared = spec;
    this.canceled = false;
    this.runBtn.disabled = true;
    this.cancelBtn.disabled = false;
    this.progress.value = 0;
    try {
      const plan = await this.tool.call<{ points: number; units: number; replications: number; order: number[] }>({
        op: "sweepPlan",
        scenario,
        spec: sj,
      });
      const samples: (string | null)[] = new Array(plan.units).fill(null);
      let next = 0;
      let done = 0;
      let failure: Error | null = null;
      let lastDraw = 0;
      const n = Math.max(1, Math.min(Number(this.workers.value) || 1, 16, plan.units));
      this.status.textContent = `${plan.points} points × ${plan.replications} replications on ${n} workers…`;
      const work = async (e: Engine) => {
        await e.ready;
        // the units go out largest first (plan.order), so the workers end together
        while (!this.canceled && !failure && next < plan.units) {
          const u = plan.order[next++];
          try {
            const a = await e.call<{ sample: string }>({ op: "sweepUnit", scenario, spec: sj, unit: u });
            samples[u] = a.sample;
          } catch (err) {
            if (!(err instanceof EngineError && err.core.code === "canceled")) failure = err as Error;
            return;
          }
          done++;
          this.progress.value = done / plan.units;
          this.status.textContent = `${done} of ${plan.units} runs`;
          if (Date.now() - lastDraw > 700 && done < plan.units) {
            lastDraw = Date.now();
            void this.reduce(scenario, sj, samples);
          }
        }
      };
      await Promise.all(this.pool(n).map(work));
      await this.reduce(scenario, sj, samples);
      if (failure) this.status.textContent = (failure as Error).message;
      else if (this.canceled) this.status.textContent = `Canceled after ${done} of ${plan.units} runs.`;
      else this.status.textContent = `Done: ${plan.points} points × ${plan.replications} replications.`;
    } catch (e) {
      this.status.textContent = e instanceof EngineError ? `${e.core.code}: ${e.core.message}` : (e as Error).message;
    } finally {
      this.runBtn.disabled = false;
      this.cancelBtn.disabled = true;
    }
  }

  /** reduce asks the core for the result of the samples so far and draws it. */
  private async reduce(scenario: string, spec: string, samples: (string | null)[]): Promise<void> {
    const a = await this.tool.call<{ result: string; csv: string }>({ op: "sweepReduce", scenario, spec, samples: JSON.stringify(samples) });
    this.text = { json: a.result, csv: a.csv };
    this.jsonBtn.disabled = this.csvBtn.disabled = false;
    this.show(JSON.parse(a.result) as SweepResult);
  }

  /** show draws a sweep result: a chart per figure, then the table. */
  show(r: SweepResult): void {
    this.last = r;
    const k0 = r.keys[0];
    const numeric = k0.values.every((v) => typeof v === "number");
    const marks = numeric ? (lastMeeting(r).filter((v) => typeof v === "number") as number[]) : [];
    const kf = kneeFigure(r);
    const shown = shownFigures(r);
    const figures = shown.includes(kf) ? shown : [kf, ...shown];
    const charts = figures.map((f) => {
      const c = figureChart(r, f);
      return bandChart(c, {
        title: `${f} against ${k0.key}${numeric ? "" : ` (${k0.values.join(", ")})`}`,
        xLabel: k0.key,
        yLabel: f,
        bands: c.bands,
        lines: c.lines,
        limit: objectiveLimit(r.objective, f),
        marks,
        knees: f === kf ? knees(r, f) : [],
        logY: this.logY.checked,
        integerX: integerKey(k0.values),
        testid: `sweep-chart-${f}`,
      });
    });
    const figs = shownFigures(r);
    const table = h(
      "table",
      { class: "plain", "data-testid": "sweep-table" },
      h("caption", {}, `${r.points.length} of ${r.total} points, ${r.replications} replications each (mean ± 95% half-width)`),
      h("thead", {}, h("tr", {}, ...r.keys.map((k) => h("th", {}, k.key)), ...figs.map((f) => h("th", {}, f)), r.objective ? h("th", {}, "meets") : null)),
      h(
        "tbody",
        {},
        ...r.points.map((p) =>
          h(
            "tr",
            {},
            ...r.keys.map((k) => h("th", { scope: "row" }, String(p.values[k.key]))),
            ...figs.map((f) => h("td", {}, p.figures[f] ? `${fmt(p.figures[f].mean)} ± ${fmt(p.figures[f].ci95)}` : "–")),
            r.objective ? h("td", {}, p.meets ? "yes" : "no") : null,
          ),
        ),
      ),
    );
    const lines = (r.lines ?? []).map((l, i) => {
      const label = Object.entries(l.values).map(([k, v]) => `${k}=${v}`).join(" ") || "all points";
      const at = lastMeeting(r)[i];
      return h("li", {}, `${label}: ${at === null ? "no point meets it" : `last point meeting it along ${k0.key}: ${k0.key}=${at}`}`);
    });
    this.out.replaceChildren(
      ...(r.objective ? [h("p", {}, `Objective ${r.objective}:`), h("ul", { "data-testid": "sweep-lines" }, ...lines)] : []),
      ...charts,
      table,
    );
  }
}
