// Explain mode: step through requests one at a time (or jump to any), see
// every candidate as the dispatch rule saw it, the rule that chose, and the
// choice drawn on the topology.
import { fmt } from "./chartdata";
import { h } from "./dom";
import { statesAt } from "./lifecycle";
import { greyOut, highlight, topology } from "./topology";
import type { Candidate, Explanation, Model, Result } from "./types";

/** Fetch loads explanations first..first+count-1 (fewer at the end of the run). */
export type Fetch = (first: number, count: number) => Promise<Explanation[]>;

const page = 25;

/** ExplainView is the explain tab. */
export class ExplainView {
  readonly el: HTMLElement;
  private cache = new Map<number, Explanation>();
  private seq = 1;
  private seqInput: HTMLInputElement;
  private body: HTMLElement;
  private status: HTMLElement;
  private topo: HTMLElement;

  constructor(
    private fetch: Fetch,
    private model: () => Model | null,
    private result: () => Result | null = () => null,
  ) {
    this.seqInput = h("input", { type: "number", min: "1", step: "1", value: "1", "aria-label": "request number", "data-testid": "explain-seq" });
    const prev = h("button", { type: "button", "data-testid": "explain-prev", "aria-label": "previous request" }, "◀ Prev");
    const next = h("button", { type: "button", "data-testid": "explain-next", "aria-label": "next request" }, "Next ▶");
    const go = h("button", { type: "button", "data-testid": "explain-go" }, "Go");
    prev.addEventListener("click", () => void this.show(this.seq - 1));
    next.addEventListener("click", () => void this.show(this.seq + 1));
    go.addEventListener("click", () => void this.show(Number(this.seqInput.value)));
    this.seqInput.addEventListener("keydown", (e) => {
      if (e.key === "Enter") void this.show(Number(this.seqInput.value));
    });
    this.status = h("p", { class: "muted", "data-testid": "explain-status", role: "status" });
    this.body = h("div", { class: "explain-body", "data-testid": "explain-view" });
    this.topo = h("div", { class: "topo" });
    this.el = h(
      "div",
      { class: "explain" },
      h("p", { class: "muted" }, "Why did each request go where it went? Step through them; the candidates are the instances that advertise the service, as the rule saw them at that moment."),
      h("div", { class: "controls" }, prev, h("label", { class: "field" }, h("span", {}, "Request #"), this.seqInput), go, next),
      this.status,
      this.body,
      this.topo,
    );
  }

  /** reset forgets cached explanations (the scenario changed). */
  reset(): void {
    this.cache.clear();
    this.body.replaceChildren();
    this.topo.replaceChildren();
    this.status.textContent = "";
  }

  /** show displays request seq, loading a page of explanations when needed. */
  async show(seq: number): Promise<void> {
    if (!Number.isInteger(seq) || seq < 1) {
      this.status.textContent = "Request numbers start at 1.";
      return;
    }
    let ex = this.cache.get(seq);
    if (!ex) {
      this.status.textContent = `Explaining requests ${seq}–${seq + page - 1}…`;
      try {
        const list = await this.fetch(seq, page);
        for (const e of list) this.cache.set(e.seq, e);
      } catch (e) {
        this.status.textContent = (e as Error).message;
        return;
      }
      ex = this.cache.get(seq);
      if (!ex) {
        this.status.textContent = `The run has fewer than ${seq} requests.`;
        return;
      }
    }
    this.seq = seq;
    this.seqInput.value = String(seq);
    this.status.textContent = "";
    this.render(ex);
  }

  private render(e: Explanation): void {
    const cands = e.candidates ?? [];
    const head = h(
      "p",
      { class: "explain-head" },
      h("strong", {}, `Request #${e.seq}`),
      e.id && e.id !== String(e.seq) ? ` (id ${e.id})` : "",
      ` — ${e.service} from ${e.origin} at ${fmt(e.issue_us / 1000)} ms — ${e.algorithm}`,
    );
    const rule = h("p", { "data-testid": "explain-rule" }, "Rule: ", h("strong", {}, e.rule), e.winner ? ` → queue ${e.winner}${e.server ? `, server ${e.server}` : ""}` : "");
    // Columns in the order the rules read them; W(q), C_m(q) and the cost only
    // when the rule that ran uses them.
    const cols: [string, (c: Candidate) => string, boolean][] = [
      ["Queue", (c) => c.queue, true],
      ["Machine", (c) => c.lmid, true],
      ["Local", (c) => (c.local ? "yes" : "no"), true],
      ["State", (c) => c.state ?? "", cands.some((c) => c.state)],
      ["Idle", (c) => (c.idle ? "idle" : "busy"), true],
      ["n(q)", (c) => String(c.n), true],
      ["Waiting", (c) => String(c.waiting), true],
      ["W(q)", (c) => (c.work !== undefined ? String(c.work) : ""), cands.some((c) => c.work !== undefined)],
      ["C_m(q)", (c) => (c.counter !== undefined ? String(c.counter) : ""), cands.some((c) => c.counter !== undefined)],
      ["LOAD", (c) => String(c.load), true],
      ["NETLOAD", (c) => String(c.netload), true],
      ["Cost", (c) => c.cost ?? "", cands.some((c) => c.cost)],
      ["Note", (c) => c.note ?? "", true],
    ];
    const shown = cols.filter(([, , show]) => show);
    const table = h(
      "table",
      { class: "plain candidates", "data-testid": "explain-candidates" },
      h("caption", {}, "Candidates in scan order"),
      h("thead", {}, h("tr", {}, h("th", {}, "Server"), ...shown.map(([name]) => h("th", {}, name)))),
      h(
        "tbody",
        {},
        ...cands.map((c) =>
          h(
            "tr",
            { class: c.chosen ? "chosen" : "" },
            h("th", { scope: "row" }, c.chosen ? `✔ ${c.server}` : c.server),
            ...shown.map(([name, get]) => h("td", { class: name === "Cost" ? "cost" : "" }, get(c))),
          ),
        ),
      ),
    );
    const r = e.routing;
    const routing = r
      ? h(
          "p",
          { "data-testid": "explain-routing" },
          "Routing first: ",
          h("strong", {}, r.criterion),
          ` (field ${r.field}) — value ${r.value === "" ? "none" : r.value}`,
          r.range ? ` — range ${r.range}` : " — no range",
          r.range ? ` — group ${r.group === "*" ? "any" : r.group}${r.fallback ? " (the catch-all's, the range's group has no server)" : ""} — ${r.candidates} candidate(s) left` : " — TPESYSTEM",
        )
      : "";
    const failure = e.failure ? h("p", { class: "explain-failure", "data-testid": "explain-failure" }, e.failure) : "";
    this.body.replaceChildren(head, routing, rule, h("p", { class: "explain-text", "data-testid": "explain-text" }, e.text), failure, h("div", { class: "table-wrap" }, table));
    const m = this.model();
    if (m) {
      const svg = topology(m, null);
      highlight(svg, cands.map((c) => c.server), e.winner, e.server);
      // instances down or gone when the request was issued are greyed out:
      // the candidates as the rule saw them, the others from the run's life cycle
      const states = statesAt(this.result(), e.issue_us / 1000);
      for (const c of cands) if (c.state) states.set(c.server, c.state);
      greyOut(svg, states);
      this.topo.replaceChildren(h("figure", {}, h("figcaption", {}, "Candidates (outlined) and the winner (filled)"), svg));
    }
  }
}
