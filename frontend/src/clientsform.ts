// The clients editor: the client sets of workload.generate.clients, beside
// the streams. Each set is a closed loop of people at terminals: count,
// origin, think time, the services they ask for (by weight, or a script),
// and what they retry. It edits the scenario in place (the JSON tab shows
// the same document) and calls onChange, as the streams table does.
import { formatScript, parseScript, scriptService } from "./appdata";
import { h } from "./dom";
import { distEditor, numInput, routeCell, type Known } from "./inputs";
import type { ClientSet, Dist, Scenario } from "./types";
import vocabulary from "./vocabulary.json";

type OnChange = () => void;

/** The codes a client may retry on, in the engine's order; TPETIME is the default. */
const retryCodes: string[] = vocabulary["retry.on"];

/**
 * optionalDist edits a distribution that may be left out (a think time, a
 * backoff: 0 when absent): its editor and a button to remove it, or a
 * button to give one.
 */
function optionalDist(label: string, testid: string, get: () => Dist | undefined, set: (d: Dist | undefined) => void, fresh: () => Dist, onChange: OnChange): HTMLElement {
  const box = h("span", { class: "opt-dist", "data-testid": testid });
  const draw = () => {
    const d = get();
    if (!d) {
      const give = h("button", { type: "button", class: "small", "aria-label": `give a ${label}` }, "Give one");
      give.addEventListener("click", () => {
        set(fresh());
        draw();
        onChange();
      });
      box.replaceChildren(h("span", { class: "muted" }, "none (0 ms) "), give);
      return;
    }
    const remove = h("button", { type: "button", class: "small", "aria-label": `remove the ${label}` }, "None");
    remove.addEventListener("click", () => {
      set(undefined);
      draw();
      onChange();
    });
    box.replaceChildren(distEditor(label, d, onChange), remove);
  };
  draw();
  return box;
}

/** freeName is a set name no other set has: clients, clients2, ... */
function freeName(sets: ClientSet[]): string {
  const names = new Set(sets.map((c) => c.name));
  for (let i = 1; ; i++) {
    const n = i === 1 ? "clients" : `clients${i}`;
    if (!names.has(n)) return n;
  }
}

/** nameProblem says what the engine would refuse in a set's name, or "". */
export function nameProblem(name: string, others: string[]): string {
  if (name === "") return "a name is needed (it names the requests: NAME:client:n)";
  if (/[:~.,"\n\r]/.test(name)) return "no : ~ . , or quotes (request ids are built from the name)";
  if (others.includes(name)) return "another set has this name";
  return "";
}

/** clientsForm edits sc.workload.generate.clients (data-testid=clients-form). */
export function clientsForm(sc: Scenario, known: Known, onChange: OnChange): HTMLElement {
  const list = (): ClientSet[] => sc.workload.generate?.clients ?? [];
  const store = (sets: ClientSet[]) => {
    const g = (sc.workload.generate ??= { duration_ms: 10000 });
    if (sets.length) g.clients = sets;
    else delete g.clients;
  };
  const body = h("div", { class: "client-sets" });
  const redraw = () => {
    const sets = list();
    body.replaceChildren(...sets.map((cs, i) => setBox(cs, i)));
    if (!sets.length) body.append(h("p", { class: "muted" }, "No client sets: the generated requests are the streams' alone."));
  };
  const setBox = (cs: ClientSet, i: number): HTMLElement => {
    const n = i + 1;
    const tid = (what: string) => `client-${n}-${what}`;
    const legend = h("legend", {}, `Client set ${n}`);
    const name = h("input", { value: cs.name, size: 12, "aria-label": `client set ${n} name`, "data-testid": tid("name") });
    const nameErr = h("span", { class: "error", role: "alert" });
    const checkName = () => (nameErr.textContent = nameProblem(cs.name, list().filter((o) => o !== cs).map((o) => o.name)));
    name.addEventListener("input", () => {
      cs.name = name.value.trim();
      checkName();
      onChange();
    });
    checkName();
    const count = numInput("Clients", cs.count, (v) => {
      cs.count = v === undefined ? 0 : Math.trunc(v);
      onChange();
    }, { min: "1", max: "100000", step: "1", "data-testid": tid("count") });
    const origin = h(
      "select",
      { "aria-label": `client set ${n} origin`, "data-testid": tid("origin") },
      h("option", { value: "" }, "(master)"),
      ...known.machines.map((m) => h("option", { value: m }, m)),
    );
    if (cs.origin && !known.machines.includes(cs.origin)) origin.append(h("option", { value: cs.origin }, `${cs.origin} (not in the configuration)`));
    origin.value = cs.origin ?? "";
    origin.addEventListener("change", () => {
      if (origin.value) cs.origin = origin.value;
      else delete cs.origin;
      onChange();
    });
    const think = optionalDist("think", tid("think"), () => cs.think, (d) => (d ? (cs.think = d) : delete cs.think), () => ({ dist: "exp", mean_ms: 1000 }), onChange);

    // What they ask for: services drawn by weight, or a script cycled in order.
    const how = h(
      "select",
      { "aria-label": `client set ${n} requests`, "data-testid": tid("mode") },
      h("option", { value: "services" }, "services drawn by weight"),
      h("option", { value: "script" }, "a script, in order"),
    );
    how.value = cs.script ? "script" : "services";
    const asks = h("div", { class: "client-asks" });
    const drawAsks = () => {
      if (cs.script) {
        const text = h("input", {
          value: formatScript(cs.script),
          class: "script",
          placeholder: "CLOSE, REPORT=10500",
          "aria-label": `client set ${n} script`,
          "data-testid": tid("script"),
        });
        const err = h("span", { class: "error", role: "alert" });
        text.addEventListener("input", () => {
          const got = parseScript(text.value);
          if ("error" in got) {
            err.textContent = got.error;
            return;
          }
          err.textContent = "";
          cs.script = got;
          onChange();
        });
        asks.replaceChildren(
          h("label", { class: "field wide-input" }, h("span", {}, "Script (SERVICE or SERVICE=routing value, comma-separated; client k starts at entry k mod its length)"), text),
          err,
        );
        return;
      }
      const services = (cs.services ??= []);
      const rows = services.map((sv, j) => {
        const svc = h("input", { value: sv.service, list: "known-services", "aria-label": `client set ${n} service ${j + 1}`, "data-testid": `${tid("service")}-${j + 1}` });
        svc.addEventListener("input", () => {
          sv.service = svc.value.trim();
          onChange();
        });
        const weight = h("input", { type: "number", step: "any", min: "0", value: sv.weight ?? "", placeholder: "1", "aria-label": `client set ${n} service ${j + 1} weight` });
        weight.addEventListener("input", () => {
          const v = weight.value.trim() === "" ? undefined : Number(weight.value);
          if (v === undefined || !Number.isFinite(v)) delete sv.weight;
          else sv.weight = v;
          onChange();
        });
        const del = h("button", { type: "button", class: "small", "aria-label": `remove client set ${n} service ${j + 1}` }, "Remove");
        del.addEventListener("click", () => {
          services.splice(j, 1);
          drawAsks();
          onChange();
        });
        return h("tr", {}, h("td", {}, svc), h("td", {}, weight), h("td", {}, routeCell(sv, `client set ${n} service ${j + 1} routing value`, known, onChange)), h("td", {}, del));
      });
      const add = h("button", { type: "button", class: "small", "data-testid": tid("service-add") }, "Add service");
      add.addEventListener("click", () => {
        services.push({ service: known.services[0] ?? "" });
        drawAsks();
        onChange();
      });
      asks.replaceChildren(
        h(
          "table",
          { class: "streams client-services" },
          h("thead", {}, h("tr", {}, h("th", {}, "Service"), h("th", {}, "Weight"), h("th", {}, "Routing value"), h("th", {}))),
          h("tbody", {}, ...rows),
        ),
        add,
      );
    };
    how.addEventListener("change", () => {
      if (how.value === "script") {
        cs.script = (cs.services ?? []).map((sv) => sv.service).filter(Boolean);
        if (!cs.script.length) cs.script = [known.services[0] ?? ""];
        delete cs.services;
      } else {
        cs.services = [...new Set((cs.script ?? []).map((e) => scriptService(e)).filter((s) => !s.includes(":")))].map((service) => ({ service }));
        delete cs.script;
      }
      drawAsks();
      onChange();
    });
    drawAsks();

    // Retries: how many, on which codes, after what backoff.
    const tidy = () => {
      const r = cs.retry;
      if (r && r.max === undefined && r.on === undefined && r.backoff === undefined) delete cs.retry;
    };
    const max = numInput("at most", cs.retry?.max, (v) => {
      if (v === undefined) {
        if (cs.retry) delete cs.retry.max;
      } else (cs.retry ??= {}).max = Math.trunc(v);
      tidy();
      onChange();
    }, { min: "0", max: "1000", step: "1", placeholder: "0", "data-testid": tid("retry-max") });
    const boxes = retryCodes.map((code) => {
      const box = h("input", { type: "checkbox", "aria-label": `client set ${n} retries on ${code}`, "data-testid": `${tid("retry")}-${code}` });
      box.checked = (cs.retry?.on ?? ["TPETIME"]).includes(code);
      box.addEventListener("change", () => {
        const on = retryCodes.filter((_, k) => boxes[k].checked);
        if (on.length) (cs.retry ??= {}).on = on;
        else {
          if (cs.retry) delete cs.retry.on; // none ticked: the default, TPETIME
          boxes[0].checked = true;
        }
        tidy();
        onChange();
      });
      return box;
    });
    const backoff = optionalDist(
      "backoff",
      tid("backoff"),
      () => cs.retry?.backoff,
      (d) => {
        if (d) (cs.retry ??= {}).backoff = d;
        else if (cs.retry) delete cs.retry.backoff;
        tidy();
      },
      () => ({ dist: "const", ms: 500 }),
      onChange,
    );
    const remove = h("button", { type: "button", class: "small", "aria-label": `remove client set ${n}`, "data-testid": tid("remove") }, "Remove set");
    remove.addEventListener("click", () => {
      const sets = list();
      sets.splice(i, 1);
      store(sets);
      redraw();
      onChange();
    });
    return h(
      "fieldset",
      { class: "client-set", "data-testid": `client-${n}` },
      legend,
      h("div", { class: "client-row" }, h("label", { class: "field" }, h("span", {}, "Name"), name), count, h("label", { class: "field" }, h("span", {}, "Origin"), origin), remove),
      nameErr,
      h("div", { class: "client-row" }, h("span", { class: "field-label" }, "Think time"), think),
      h("div", { class: "client-row" }, h("label", { class: "field" }, h("span", {}, "Requests"), how)),
      asks,
      h(
        "div",
        { class: "client-row retry" },
        h("span", { class: "field-label" }, "Retries"),
        max,
        h("span", { class: "retry-on" }, "on ", ...retryCodes.map((code, k) => h("label", { class: "inline" }, boxes[k], ` ${code}`))),
      ),
      h("div", { class: "client-row" }, h("span", { class: "field-label" }, "Backoff"), backoff),
    );
  };
  redraw();
  const add = h("button", { type: "button", "data-testid": "client-add" }, "Add client set");
  add.addEventListener("click", () => {
    const sets = list();
    sets.push({ name: freeName(sets), count: 10, think: { dist: "exp", mean_ms: 1000 }, services: [{ service: known.services[0] ?? "" }] });
    store(sets);
    redraw();
    onChange();
  });
  return h(
    "div",
    { class: "clients", "data-testid": "clients-form" },
    h("h4", {}, "Clients: people at terminals"),
    h(
      "p",
      { class: "muted" },
      "Each client thinks, issues a request, waits for its outcome (its reply, its failure, or TPETIME at the deadline: SCANUNIT × BLOCKTIME, or the service's BLOCKTIME), then thinks again; after a failure it retries up to the given number of times on the codes ticked, after a backoff. No client request is issued after the duration (docs/scenario.md, Applications).",
    ),
    body,
    add,
  );
}
