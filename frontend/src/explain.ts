// Explain mode: step through requests one at a time (or jump to any), see
// every candidate as the dispatch rule saw it, the rule that chose, and the
// choice drawn on the topology.
import { clientIDText, parseClientID, type Kin, type Lineage } from "./appdata";
import { fmt } from "./chartdata";
import { h } from "./dom";
import { statesAt } from "./lifecycle";
import { greyOut, highlight, topology } from "./topology";
import type { Candidate, Explanation, Model, Result } from "./types";

/** Fetch loads explanations first..first+count-1 (fewer at the end of the run). */
export type Fetch = (first: number, count: number) => Promise<Explanation[]>;

/**
 * What explain mode knows of the scenario's applications: the client sets'
 * names, whether a service calls others, and the run's lineage (who called
 * whom, by request number), found once per scenario.
 */
export interface Apps {
  clientSets: () => string[];
  calls: (service: string) => boolean;
  lineage: () => Promise<Lineage | null>;
}

const noApps: Apps = { clientSets: () => [], calls: () => false, lineage: () => Promise.resolve(null) };

const page = 25;

/** ExplainView is the explain tab. */
export class ExplainView {
  readonly el: HTMLElement;
  private cache = new Map<number, Explanation>();
  private seq = 1;
  /** Counts the resets: explanations asked for before the last one are another scenario's. */
  private resets = 0;
  private seqInput: HTMLInputElement;
  private body: HTMLElement;
  private status: HTMLElement;
  private topo: HTMLElement;

  constructor(
    private fetch: Fetch,
    private model: () => Model | null,
    private result: () => Result | null = () => null,
    private apps: Apps = noApps,
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
    this.resets++;
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
      const asked = this.resets;
      try {
        const list = await this.fetch(seq, page);
        // The scenario changed while the core worked (an example loaded, a
        // field edited): these are the old one's requests, neither shown
        // nor cached for the new one.
        if (this.resets !== asked) return;
        for (const e of list) this.cache.set(e.seq, e);
      } catch (e) {
        if (this.resets === asked) this.status.textContent = (e as Error).message;
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

  /** link is a button that shows request kin's explanation. */
  private link(kin: Kin, testid: string, text: string): HTMLElement {
    const b = h("button", { type: "button", class: "link", "data-testid": testid, "data-seq": kin.seq }, text);
    b.addEventListener("click", () => void this.show(kin.seq));
    return b;
  }

  /**
   * family shows a nested request's parent (linked) and how it was issued,
   * and a caller's nested requests (linked), once the run's lineage is
   * known; each block says it is looking until then.
   */
  private family(e: Explanation): HTMLElement[] {
    const out: HTMLElement[] = [];
    const parent = e.parent
      ? h(
          "p",
          { class: "explain-parent", "data-testid": "explain-parent" },
          `A nested request (${e.mode || "tpcall"}) of request `,
          h("span", { class: "parent-ref" }, e.parent),
          `, issued by ${e.issued_by || "its server"} on ${e.origin}.`,
        )
      : null;
    const kids = this.apps.calls(e.service) ? h("div", { class: "explain-children", "data-testid": "explain-children" }, h("span", { class: "muted" }, "Finding the nested requests it issued…")) : null;
    if (parent) out.push(parent);
    if (kids) out.push(kids);
    if (!out.length) return out;
    void this.apps.lineage().then(
      (l) => {
        if (!l || this.seq !== e.seq) return;
        const p = l.parent.get(e.seq);
        if (parent && p) parent.querySelector(".parent-ref")!.replaceWith(this.link(p, "explain-parent-link", `#${p.seq} ${p.id} (${p.service})`));
        if (kids) {
          const list = l.children.get(e.seq) ?? [];
          kids.replaceChildren(
            list.length ? `It issued ${list.length} nested request${list.length > 1 ? "s" : ""}: ` : "It issued no nested request (a step whose p draw failed is skipped; a failed step stops the rest).",
            ...list.flatMap((k, i) => [i ? ", " : "", this.link(k, "explain-child", `#${k.seq} ${k.id} ${k.service}`), h("span", { class: "muted" }, ` (${k.reason})`)]),
          );
        }
      },
      (err: Error) => {
        if (kids) kids.replaceChildren(h("span", { class: "muted" }, `Its nested requests could not be found: ${err.message}`));
      },
    );
    return out;
  }

  private render(e: Explanation): void {
    const cands = e.candidates ?? [];
    const client = parseClientID(e.id, this.apps.clientSets());
    const head = h(
      "p",
      { class: "explain-head" },
      h("strong", {}, `Request #${e.seq}`),
      e.id && e.id !== String(e.seq) ? ` (id ${e.id})` : "",
      ` — ${e.service} from ${e.origin} at ${fmt(e.issue_us / 1000)} ms — ${e.algorithm}`,
      client && !e.parent ? h("span", { class: "muted", "data-testid": "explain-client" }, ` — a client request: ${clientIDText(client)}`) : "",
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
    this.body.replaceChildren(head, ...this.family(e), routing, rule, h("p", { class: "explain-text", "data-testid": "explain-text" }, e.text), failure, h("div", { class: "table-wrap" }, table));
    const m = this.model();
    if (m) {
      const svg = topology(m, null);
      highlight(svg, cands.map((c) => c.server), e.winner, e.server);
      // a nested request: the instance that issued it (it holds the caller's request meanwhile)
      if (e.issued_by) for (const g of svg.querySelectorAll<SVGGElement>("g.server")) if (g.dataset.server === e.issued_by) g.classList.add("caller");
      // instances down or gone when the request was issued are greyed out:
      // the candidates as the rule saw them, the others from the run's life cycle
      const states = statesAt(this.result(), e.issue_us / 1000);
      for (const c of cands) if (c.state) states.set(c.server, c.state);
      greyOut(svg, states);
      this.topo.replaceChildren(h("figure", {}, h("figcaption", {}, e.issued_by ? `Candidates (outlined), the winner (filled) and the caller ${e.issued_by} (dashed)` : "Candidates (outlined) and the winner (filled)"), svg));
    }
  }
}
