// The events editor: kills, shutdowns and boots of instances, groups or
// machines at points in time. It edits scenario.events in place (the JSON
// tab shows the same list) and keeps it in time order, as the engine wants.
import { h } from "./dom";
import { eventKinds, eventTargets, kindOf, makeEvent, sortEvents } from "./lifecycle";
import type { LifeEvent, Model, Scenario } from "./types";

/** eventsForm edits sc.events and tuning.boot_ms; model gives the targets. */
export function eventsForm(sc: Scenario, model: Model | null, onChange: () => void): HTMLElement {
  const targets = eventTargets(model);
  const rows = h("tbody");
  const list = (): LifeEvent[] => sc.events ?? [];
  const store = (evs: LifeEvent[]) => {
    if (evs.length) sc.events = evs;
    else delete sc.events;
  };
  const redraw = () => rows.replaceChildren(...list().map((ev, i) => row(ev, i)));
  const row = (ev: LifeEvent, i: number): HTMLElement => {
    const { kind, target } = kindOf(ev);
    const at = h("input", { type: "number", step: "any", min: "0", value: ev.at_ms, "aria-label": `event ${i + 1} time (ms)`, "data-testid": `event-${i + 1}-at` });
    // moving an event in time re-sorts the list once the value is committed
    at.addEventListener("change", () => {
      const v = Number(at.value);
      if (at.value.trim() === "" || !Number.isFinite(v) || v < 0) return;
      ev.at_ms = v;
      store(sortEvents(list()));
      redraw();
      onChange();
    });
    const kindSel = h("select", { "aria-label": `event ${i + 1} kind`, "data-testid": `event-${i + 1}-kind` }, ...eventKinds.map((k) => h("option", { value: k }, k)));
    kindSel.value = kind;
    const targetSel = h(
      "select",
      { "aria-label": `event ${i + 1} target`, "data-testid": `event-${i + 1}-target` },
      ...targets.map((t) => h("option", { value: t.value }, t.label)),
    );
    if (target && !targets.some((t) => t.value === target)) targetSel.append(h("option", { value: target }, `${target} (not in the configuration)`));
    targetSel.value = target;
    const replace = () => {
      list()[i] = makeEvent(ev.at_ms, kindSel.value, targetSel.value);
      onChange();
    };
    kindSel.addEventListener("change", replace);
    targetSel.addEventListener("change", replace);
    const del = h("button", { type: "button", class: "small", "aria-label": `remove event ${i + 1}` }, "Remove");
    del.addEventListener("click", () => {
      const evs = list();
      evs.splice(i, 1);
      store(evs);
      redraw();
      onChange();
    });
    return h("tr", {}, h("td", {}, at), h("td", {}, kindSel), h("td", {}, targetSel), h("td", {}, del));
  };
  redraw();
  const add = h("button", { type: "button", "data-testid": "event-add" }, "Add event");
  add.addEventListener("click", () => {
    const evs = list();
    const last = evs.length ? evs[evs.length - 1].at_ms : 0;
    evs.push(makeEvent(last + 1000, "kill", targets[0]?.value ?? ""));
    store(evs);
    redraw();
    onChange();
  });
  const boot = h("input", { type: "number", step: "any", min: "0", value: sc.tuning?.boot_ms ?? "", placeholder: "1000", "aria-label": "boot time (ms)" });
  boot.addEventListener("input", () => {
    const v = boot.value.trim() === "" ? undefined : Number(boot.value);
    if (v === undefined || !Number.isFinite(v)) {
      if (sc.tuning) delete sc.tuning.boot_ms;
    } else (sc.tuning ??= {}).boot_ms = v;
    onChange();
  });
  return h(
    "div",
    { class: "form", "data-testid": "events-form" },
    h("h3", {}, "Events: servers that die, stop and boot"),
    h(
      "p",
      { class: "muted" },
      "kill crashes an up instance (the BBL notices at its next sanity scan; until then a server that died idle still looks idle), shutdown stops one after its request, boot brings a gone one (or a spare) up after the boot time. A group or a machine means every instance there. Events run in time order (docs/engine.md, Life cycle).",
    ),
    h(
      "table",
      { class: "streams events" },
      h("thead", {}, h("tr", {}, h("th", {}, "At (ms)"), h("th", {}, "Event"), h("th", {}, "Target"), h("th", {}))),
      rows,
    ),
    add,
    h("label", { class: "field" }, h("span", {}, "Boot time (ms)"), boot),
  );
}
