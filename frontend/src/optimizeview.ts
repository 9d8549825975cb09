// The Optimize tab: the cheapest configuration of a grid that meets every
// objective, with a stated probability, as `tuxlb optimize` finds it. The
// search runs in a Web Worker of its own (the Go core's optimizer, one run
// after another: each round depends on the figures of the rounds before),
// and its report is the JSON `tuxlb optimize --format json` prints.
import { download, h } from "./dom";
import { Engine, EngineError } from "./engine";
import { guaranteeParts, optimizeSpec, report, type ConfigRow, type OptimizeReport } from "./optimizedata";
import type { Optimization, Scenario } from "./types";

/** configList lists configurations, one sentence each (they read on a phone's width): label, cost, replications, and why. */
function configList(testid: string, caption: string, rows: ConfigRow[]): HTMLElement[] {
  return [
    h("p", { class: "help" }, caption),
    h(
      "ul",
      { "data-testid": testid },
      ...rows.map((r) => h("li", {}, h("strong", {}, r.label), ` (cost ${r.cost}, ${r.replications} replications): `, h("span", { "data-field": "why" }, r.why))),
    ),
  ];
}

/** OptimizeView is the Optimize tab. */
export class OptimizeView {
  readonly el: HTMLElement;
  private vary = h("textarea", { rows: 2, spellcheck: "false", "aria-label": "varied keys, one KEY=VALUES per line", "data-testid": "optimize-vary", placeholder: "SERVERS.simpserv.MIN=1..6/1" });
  private objectives = h("textarea", {
    rows: 3,
    spellcheck: "false",
    "aria-label": "objectives, one per line",
    "data-testid": "optimize-objectives",
    placeholder: "response_p99_ms<=200\nwait_mean_ms[TOUPPER]<=20",
  });
  private costs = h("textarea", { rows: 2, spellcheck: "false", "aria-label": "cost weights, one KEY=WEIGHT per line", "data-testid": "optimize-costs", placeholder: "(none: the server instances booted)" });
  private pcs = h("input", { value: "0.95", "aria-label": "probability of a correct selection", "data-testid": "optimize-pcs", class: "narrow", size: 5 });
  private epsilon = h("input", { value: "5%", "aria-label": "indifference zone ε", "data-testid": "optimize-epsilon", class: "narrow", size: 5 });
  private runBtn = h("button", { type: "button", class: "primary", "data-testid": "optimize-run" }, "Optimize");
  private cancelBtn = h("button", { type: "button", "data-testid": "optimize-cancel", disabled: true }, "Cancel");
  private jsonBtn = h("button", { type: "button", "data-testid": "optimize-download-json", disabled: true }, "Download JSON");
  private progress = h("progress", { max: 1, value: 0, "data-testid": "optimize-progress", "aria-label": "optimization progress" });
  private status = h("span", { class: "muted", role: "status", "data-testid": "optimize-status" });
  private out = h("div", { "data-testid": "optimize-view", class: "table-wrap" });
  private engine: Engine | null = null;
  private json = "";

  constructor(private scenario: () => Scenario) {
    this.runBtn.addEventListener("click", () => void this.run());
    this.cancelBtn.addEventListener("click", () => this.engine?.busy && this.engine.cancel());
    this.jsonBtn.addEventListener("click", () => download("tuxlb-optimize.json", "application/json", this.json));
    this.el = h(
      "div",
      { class: "optimize" },
      h(
        "p",
        { class: "muted" },
        "Find the cheapest configuration of a grid that meets every objective, with a stated probability, as ",
        h("code", {}, "tuxlb optimize --vary KEY=VALUES --objective FIGURE<=X"),
        " does: configurations are examined in increasing cost, each run only as many replications as its decisions need.",
      ),
      h("label", {}, "Vary (one or two KEY=VALUES lines, as a sweep's keys)", this.vary),
      h("label", {}, "Objectives (one per line, FIGURE<=X or FIGURE>=X)", this.objectives),
      h("label", {}, "Cost (KEY=WEIGHT per line on varied keys; none: the server instances booted)", this.costs),
      h("div", { class: "controls" }, h("label", {}, "PCS ", this.pcs), h("label", {}, "ε (of each limit) ", this.epsilon)),
      h(
        "p",
        { class: "help" },
        "PCS is the probability of a correct selection asked for; ε the indifference zone: a mean within ε of a limit may be declared either way. Runs in one worker, one replication after another (the CLI with --jobs 1 gives the same bytes).",
      ),
      h("div", { class: "controls" }, this.runBtn, this.cancelBtn, this.progress, this.status, this.jsonBtn),
      this.out,
    );
  }

  /** run runs the optimization set up in the tab and shows its report. */
  async run(): Promise<void> {
    const got = optimizeSpec({ vary: this.vary.value, objectives: this.objectives.value, costs: this.costs.value, pcs: this.pcs.value, epsilon: this.epsilon.value });
    if ("error" in got) {
      this.status.textContent = got.error;
      return;
    }
    this.engine ??= new Engine();
    this.runBtn.disabled = true;
    this.cancelBtn.disabled = false;
    this.progress.value = 0;
    this.status.textContent = "Starting…";
    try {
      await this.engine.ready;
      const a = await this.engine.call<{ result: string }>({ op: "optimize", scenario: JSON.stringify(this.scenario()), spec: JSON.stringify(got.spec) }, (done, most) => {
        // the search stops when its decisions are made: the bar is out of the most it could take
        this.progress.value = most > 0 ? done / most : 0;
        this.status.textContent = `${done} runs (at most ${most})…`;
      });
      this.json = a.result;
      this.jsonBtn.disabled = false;
      const r = JSON.parse(a.result) as Optimization;
      this.progress.value = 1;
      this.status.textContent = `Done: ${r.replications.spent} runs.`;
      this.show(report(r));
    } catch (e) {
      if (e instanceof EngineError && e.core.code === "canceled") this.status.textContent = "Canceled.";
      else this.status.textContent = e instanceof EngineError ? `${e.core.code}: ${e.core.message}` : (e as Error).message;
    } finally {
      this.runBtn.disabled = false;
      this.cancelBtn.disabled = true;
    }
  }

  /** show draws a shaped report. */
  show(r: OptimizeReport): void {
    const parts: HTMLElement[] = [h("p", { class: "verdict-line", "data-testid": "optimize-headline" }, r.headline)];
    if (r.chosen) {
      parts.push(
        h(
          "table",
          { class: "plain", "data-testid": "optimize-chosen" },
          h("caption", {}, `${r.chosen.label}: cost ${r.chosen.cost}, ${r.chosen.replications} replications`),
          h("thead", {}, h("tr", {}, h("th", {}, "objective"), h("th", {}, "mean ± 95% half-width"), h("th", {}, "decision"))),
          h(
            "tbody",
            {},
            ...r.chosen.rows.map((x) =>
              h(
                "tr",
                {},
                h("th", { scope: "row" }, x.objective),
                h("td", {}, x.interval),
                h("td", { class: `verdict ${x.tone === "met" ? "pass" : x.tone === "missed" ? "fail" : "inconclusive"}` }, x.decision),
              ),
            ),
          ),
        ),
      );
      if (r.chosen.diff.length) parts.push(h("p", { class: "help" }, "UBBCONFIG changes:"), h("pre", { "data-testid": "optimize-diff" }, r.chosen.diff.join("\n")));
    }
    if (r.rejected.length) parts.push(...configList("optimize-rejected", r.chosen ? "Cheaper configurations, rejected:" : "Rejected:", r.rejected));
    if (r.runnersUp.length) parts.push(...configList("optimize-runners-up", "Runners-up (dearer, examined while the search went on):", r.runnersUp));
    if (r.notExamined > 0) parts.push(h("p", { class: "muted" }, `${r.notExamined} dearer configurations not run.`));
    const g = guaranteeParts(r.guarantee);
    parts.push(
      h("p", { "data-testid": "optimize-spending" }, r.spending),
      h("p", { class: "muted" }, `Objectives: ${r.objectives.join("; ")}. Cost: ${r.cost}.`),
      h("p", { "data-testid": "optimize-guarantee" }, g.lead),
    );
    if (g.more.length)
      parts.push(h("details", { "data-testid": "optimize-guarantee-more" }, h("summary", {}, "What else the guarantee says"), ...g.more.map((x) => h("p", { class: "help" }, x))));
    this.out.replaceChildren(...parts);
  }
}
