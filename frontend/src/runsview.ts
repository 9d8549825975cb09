// Saved runs: the list from the server, open one, compare two.
import * as api from "./api";
import { figureText, storedFigures } from "./chartdata";
import { h } from "./dom";

/** RunsView is the saved-runs tab. */
export class RunsView {
  readonly el: HTMLElement;
  private list: HTMLElement;
  private status: HTMLElement;

  constructor(
    private open: (id: string) => void,
    private compare: (ids: string[]) => void,
  ) {
    this.list = h("ul", { class: "runs", "data-testid": "runs-list" });
    this.status = h("p", { class: "muted", role: "status", "data-testid": "runs-status" });
    const refresh = h("button", { type: "button" }, "Refresh");
    refresh.addEventListener("click", () => void this.refresh());
    const cmp = h("button", { type: "button", "data-testid": "runs-compare" }, "Compare selected");
    cmp.addEventListener("click", () => {
      const ids = Array.from(this.list.querySelectorAll<HTMLInputElement>("input:checked")).map((i) => i.value);
      if (ids.length < 2) this.status.textContent = "Pick two (or more) runs to compare.";
      else this.compare(ids);
    });
    this.el = h("div", { class: "saved" }, h("div", { class: "controls" }, refresh, cmp), this.status, this.list);
  }

  /** refresh reloads the list of saved runs. */
  async refresh(): Promise<void> {
    try {
      const runs = await api.listRuns();
      this.status.textContent = runs.length ? "" : "No saved runs yet. Run a scenario and press “Save run”.";
      this.list.replaceChildren(
        ...runs.map((r) => {
          const openBtn = h("button", { type: "button", class: "small" }, "Open");
          openBtn.addEventListener("click", () => this.open(r.id));
          return h(
            "li",
            { "data-run-id": r.id },
            h("label", { class: "check" }, h("input", { type: "checkbox", value: r.id, "aria-label": `select run ${r.id}` }), " ", h("strong", {}, r.name || "(unnamed)")),
            h("span", { class: "muted" }, ` ${r.id} · ${r.created_at}${r.engine_version ? ` · engine ${r.engine_version}` : ""} `),
            openBtn,
            r.headline
              ? h(
                  "dl",
                  { class: "run-figures" },
                  ...storedFigures(r.headline).map((f) => h("div", { "data-figure": f.name }, h("dt", {}, f.label), h("dd", {}, figureText(f.name, f.value)))),
                )
              : null,
          );
        }),
      );
    } catch (e) {
      this.status.textContent = (e as Error).message;
    }
  }
}
