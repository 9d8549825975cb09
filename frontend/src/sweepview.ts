// The sweep tab: one or two keys over a grid of values, replications and an
// objective, run in several Web Workers (each its own copy of the Go core),
// reduced by the core into the JSON `tuxlb sweep --format json` prints, and
// drawn: each figure against the first key with its 95% band, one line per
// value of the second key. A sweep to a precision runs in rounds: the core
// says which units the samples so far call for (sweepPending), the workers
// run them, and so on until it asks for none, as `tuxlb sweep --precision`
// does.
import { bandChart } from "./charts";
import { fmt } from "./chartdata";
import { download, h } from "./dom";
import { Engine, EngineError } from "./engine";
import {
  figureChart,
  inRounds,
  integerKey,
  kneeFigure,
  knees,
  lastMeeting,
  limitOf,
  lineSummaries,
  objectiveTexts,
  splitObjectives,
  verdictText,
  rangeText,
  showsReplications,
  shownFigures,
  specJSON,
  tableCaption,
  type SweepResult,
  type SweepSpec,
} from "./sweepdata";
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
  private objective = h("input", { placeholder: "e.g. response_p99_ms[PAYMENT]<=80; response_p99_ms[QUOTE]<=150", "aria-label": "objectives, separated by ;", "data-testid": "sweep-objective" });
  private precision = h("input", {
    type: "number",
    min: "0",
    step: "any",
    placeholder: "e.g. 0.05",
    "aria-label": "precision (relative half-width)",
    "data-testid": "sweep-precision",
    class: "narrow",
  });
  private maxReps = h("input", { type: "number", min: 2, max: 100, placeholder: "50", "aria-label": "max replications", "data-testid": "sweep-max-reps", class: "narrow" });
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
        h("label", {}, "Objectives (separated by ;) ", this.objective),
        h("label", {}, "Workers ", this.workers),
      ),
      h(
        "div",
        { class: "controls" },
        h("label", {}, "Precision (relative half-width) ", this.precision),
        h("label", {}, "Max replications ", this.maxReps),
      ),
      h(
        "p",
        { class: "help" },
        "With a precision, each point runs its replications in batches (of the replications above) until the 95% half-width of every objective's figure (else response_mean_ms) is at most that fraction of its mean, or it has run the most replications, as ",
        h("code", {}, "tuxlb sweep --precision 0.05"),
        " does.",
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
    const objs = splitObjectives(this.objective.value);
    if (objs.length === 1) spec.objective = objs[0];
    else if (objs.length > 1) spec.objectives = objs;
    const precision = this.precision.value.trim() === "" ? NaN : Number(this.precision.value);
    if (Number.isFinite(precision) && precision !== 0) spec.precision = precision;
    const most = Number(this.maxReps.value);
    if (this.maxReps.value.trim() !== "" && Number.isInteger(most) && most > 0) spec.max_replications = most;
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
    // none given: the core's default (the scenario's replications, else 1; with a precision, batches of 5), as the sender had it
    this.reps.value = spec.replications === undefined ? "" : String(spec.replications);
    this.objective.value = [...(spec.objective ? [spec.objective] : []), ...(spec.objectives ?? [])].join("; ");
    this.precision.value = spec.precision === undefined ? "" : String(spec.precision);
    this.maxReps.value = spec.max_replications === undefined ? "" : String(spec.max_replications);
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
    this.status.textContent = "Starting…"; // (the first sweep of a visit fetches the second module first)
    try {
      const plan = await this.tool.call<{ points: number; units: number; replications: number; max_replications?: number; order: number[] }>({
        op: "sweepPlan",
        scenario,
        spec: sj,
      });
      const precise = plan.max_replications !== undefined;
      const samples: (string | null)[] = new Array(plan.units).fill(null);
      let done = 0;
      let failure: Error | null = null;
      let lastDraw = 0;
      const n = Math.max(1, Math.min(Number(this.workers.value) || 1, 16, plan.units));
      const how = precise ? `${plan.points} points, replications in batches of ${plan.replications} (at most ${plan.max_replications})` : `${plan.points} points × ${plan.replications} replications`;
      this.status.textContent = `${how} on ${n} workers…`;
      // runUnits hands the units out to the workers in the order given (the largest runs first, so they end together).
      const runUnits = async (units: number[], round: number): Promise<boolean> => {
        let next = 0;
        let inRound = 0;
        const work = async (e: Engine) => {
          await e.ready;
          while (!this.canceled && !failure && next < units.length) {
            const u = units[next++];
            try {
              const a = await e.call<{ sample: string }>({ op: "sweepUnit", scenario, spec: sj, unit: u });
              samples[u] = a.sample;
            } catch (err) {
              if (!(err instanceof EngineError && err.core.code === "canceled")) failure = err as Error;
              return;
            }
            done++;
            inRound++;
            // with a precision, the runs a sweep takes are not known beforehand: the bar is out of the most it can take
            this.progress.value = done / plan.units;
            this.status.textContent = precise ? `${done} runs (round ${round}: ${inRound} of ${units.length})` : `${done} of ${plan.units} runs`;
            if (Date.now() - lastDraw > 700 && (precise || done < plan.units)) {
              lastDraw = Date.now();
              void this.reduce(scenario, sj, samples);
            }
          }
        };
        await Promise.all(this.pool(Math.min(n, units.length)).map(work));
        return !this.canceled && !failure;
      };
      let rounds = 1;
      if (precise) {
        const pending = async () => (await this.tool.call<{ units: number[] }>({ op: "sweepPending", scenario, spec: sj, samples: JSON.stringify(samples) })).units;
        rounds = (await inRounds(pending, runUnits)).rounds;
      } else await runUnits(plan.order, 1);
      await this.reduce(scenario, sj, samples);
      if (failure) this.status.textContent = (failure as Error).message;
      else if (this.canceled) this.status.textContent = precise ? `Canceled after ${done} runs.` : `Canceled after ${done} of ${plan.units} runs.`;
      else if (precise) {
        this.progress.value = 1;
        this.status.textContent = `Done: ${plan.points} points, ${done} runs in ${rounds} rounds (batches of ${plan.replications}, at most ${plan.max_replications} per point).`;
      } else this.status.textContent = `Done: ${plan.points} points × ${plan.replications} replications.`;
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
        limit: limitOf(r, f),
        marks,
        knees: f === kf ? knees(r, f) : [],
        logY: this.logY.checked,
        integerX: integerKey(k0.values),
        testid: `sweep-chart-${f}`,
      });
    });
    const figs = shownFigures(r);
    const reps = showsReplications(r);
    const objs = objectiveTexts(r);
    const several = objs.length > 1;
    const table = h(
      "table",
      { class: "plain", "data-testid": "sweep-table" },
      h("caption", {}, tableCaption(r)),
      h(
        "thead",
        {},
        h("tr", {}, ...r.keys.map((k) => h("th", {}, k.key)), reps ? h("th", {}, "replications") : null, ...figs.map((f) => h("th", {}, f)), ...(several ? objs.map((o) => h("th", {}, o)) : []), objs.length ? h("th", {}, "meets") : null),
      ),
      h(
        "tbody",
        {},
        ...r.points.map((p) =>
          h(
            "tr",
            {},
            ...r.keys.map((k) => h("th", { scope: "row" }, String(p.values[k.key]))),
            reps ? h("td", { "data-field": "replications" }, p.replications === undefined ? "–" : String(p.replications)) : null,
            ...figs.map((f) => h("td", {}, p.figures[f] ? `${fmt(p.figures[f].mean)} ± ${fmt(p.figures[f].ci95)}` : "–")),
            ...(several ? objs.map((_, i) => h("td", { "data-field": "verdict" }, p.verdicts?.[i] ?? "–")) : []),
            objs.length ? h("td", { "data-field": "meets" }, verdictText(p)) : null,
          ),
        ),
      ),
    );
    const lines = lineSummaries(r).map((s) => h("li", {}, s));
    const judged =
      r.judged_on === "value"
        ? `Verdicts judged on the value: ${r.note ?? "one replication per point"}.`
        : "Verdicts: yes when the 95% interval lies within the limit, no when beyond it, unsure when it holds the limit.";
    this.out.replaceChildren(
      ...(objs.length
        ? [h("p", {}, `${several ? "Objectives, all held at once" : "Objective"}: ${objs.join(", ")}. ${judged}`), h("ul", { "data-testid": "sweep-lines" }, ...lines)]
        : []),
      ...charts,
      table,
    );
  }
}
