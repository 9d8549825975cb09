import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { panelAttrs, Registry, tabAttrs, type View } from "./views";

// The tests run in node, with no DOM: a minimal element, enough for dom.ts's h
// and for the tab bar.
class FakeElement {
  attrs = new Map<string, string>();
  children: (FakeElement | string)[] = [];
  hidden = false;
  private listeners = new Map<string, (() => void)[]>();
  constructor(readonly tagName: string) {}
  setAttribute(k: string, v: string) {
    this.attrs.set(k, v);
  }
  getAttribute(k: string): string | null {
    return this.attrs.get(k) ?? null;
  }
  append(...nodes: (FakeElement | string)[]) {
    this.children.push(...nodes);
  }
  addEventListener(type: string, fn: () => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  click() {
    for (const fn of this.listeners.get("click") ?? []) fn();
  }
  get text(): string {
    return this.children.map((c) => (typeof c === "string" ? c : c.text)).join("");
  }
  el(i: number): FakeElement {
    return this.children[i] as FakeElement;
  }
}

const fake = (tag = "div") => new FakeElement(tag) as unknown as HTMLElement;

beforeEach(() => {
  vi.stubGlobal("document", { createElement: (tag: string) => new FakeElement(tag) });
});
afterEach(() => {
  vi.unstubAllGlobals();
});

function view(id: string, order: number, more: Partial<View> = {}): View {
  return { id, label: id.toUpperCase(), side: "output", order, panel: fake(), ...more };
}

/** parts takes a built bar apart: its tablist, its buttons and its panels. */
function parts(el: HTMLElement) {
  const tabbed = el as unknown as FakeElement;
  const bar = tabbed.el(0);
  const panels = tabbed.el(1);
  return { tabbed, bar, buttons: bar.children as FakeElement[], panels: panels.children as FakeElement[] };
}

describe("tabAttrs and panelAttrs", () => {
  it("are the tab's and panel's attributes", () => {
    expect(tabAttrs("flow")).toEqual({ type: "button", role: "tab", "data-tab": "flow", "data-testid": "tab-flow", id: "tab-flow" });
    expect(panelAttrs("flow")).toEqual({ role: "tabpanel", "data-tab": "flow", "aria-labelledby": "tab-flow" });
  });
});

describe("Registry", () => {
  it("lists a side's views by order, registration order among equals", () => {
    const r = new Registry();
    r.register(view("c", 30));
    r.register(view("a", 10));
    r.register(view("in", 5, { side: "input" }));
    r.register(view("b2", 20));
    r.register(view("b1", 20));
    expect(r.list("output").map((v) => v.id)).toEqual(["a", "b2", "b1", "c"]);
    expect(r.list("input").map((v) => v.id)).toEqual(["in"]);
  });

  it("refuses an id twice, and a view after its bar is built", () => {
    const r = new Registry();
    r.register(view("a", 10));
    expect(() => r.register(view("a", 20, { side: "input" }))).toThrow(/registered twice/);
    r.build("output", "Results");
    expect(() => r.register(view("b", 20))).toThrow(/built already/);
    r.register(view("in", 10, { side: "input" })); // the other side is not built yet
  });

  it("builds the tabs in order with their attributes, the first selected", () => {
    const r = new Registry();
    const made = fake();
    r.register(view("runs", 60, { label: "Saved runs" }));
    r.register(view("results", 10, { label: "Results" }));
    r.register(view("explain", 20, { label: "Explain", panel: () => made }));
    const { tabbed, bar, buttons, panels } = parts(r.build("output", "Results").el);
    expect(tabbed.getAttribute("class")).toBe("tabbed");
    expect([bar.getAttribute("class"), bar.getAttribute("role"), bar.getAttribute("aria-label")]).toEqual(["tabs", "tablist", "Results"]);
    expect(buttons.map((b) => b.tagName)).toEqual(["button", "button", "button"]);
    expect(buttons.map((b) => b.text)).toEqual(["Results", "Explain", "Saved runs"]);
    expect(buttons.map((b) => Object.fromEntries(b.attrs))).toEqual(
      ["results", "explain", "runs"].map((id) => ({ ...tabAttrs(id), "aria-selected": String(id === "results") })),
    );
    expect(panels.map((p) => Object.fromEntries(p.attrs))).toEqual(["results", "explain", "runs"].map(panelAttrs));
    expect(panels.map((p) => p.hidden)).toEqual([false, true, true]);
    expect(panels[1].children).toEqual([made]); // a function panel is made when the bar is built
  });

  it("selects a tab on a click and then calls its shown hook, every click", () => {
    const r = new Registry();
    const got: string[] = [];
    let selectedWhenShown = "";
    r.register(view("results", 10));
    r.register(
      view("flow", 20, {
        shown: () => {
          got.push("flow");
          selectedWhenShown = buttons[1].getAttribute("aria-selected")!;
        },
      }),
    );
    const { buttons, panels } = parts(r.build("output", "Results").el);
    buttons[1].click();
    expect(got).toEqual(["flow"]);
    expect(selectedWhenShown).toBe("true");
    expect(buttons.map((b) => b.getAttribute("aria-selected"))).toEqual(["false", "true"]);
    expect(panels.map((p) => p.hidden)).toEqual([true, false]);
    buttons[0].click(); // no hook
    expect(panels.map((p) => p.hidden)).toEqual([false, true]);
    buttons[1].click();
    buttons[1].click();
    expect(got).toEqual(["flow", "flow", "flow"]);
  });

  it("selects programmatically in whichever bar has the tab, without the shown hook", () => {
    const r = new Registry();
    const shown = vi.fn();
    r.register(view("config", 20, { side: "input" }));
    r.register(view("examples", 10, { side: "input" }));
    r.register(view("results", 10));
    r.register(view("explain", 20, { shown }));
    const input = parts(r.build("input", "Scenario").el);
    const output = parts(r.build("output", "Results").el);
    r.select("explain");
    expect(shown).not.toHaveBeenCalled();
    expect(output.panels.map((p) => p.hidden)).toEqual([true, false]);
    expect(input.panels.map((p) => p.hidden)).toEqual([false, true]); // the other bar is untouched
    r.select("config");
    expect(input.buttons.map((b) => b.getAttribute("aria-selected"))).toEqual(["false", "true"]);
    expect(output.panels.map((p) => p.hidden)).toEqual([true, false]);
    expect(() => r.select("nowhere")).toThrow(/no such tab/);
  });
});
