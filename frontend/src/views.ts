// The page's tabs: every view registers itself once (registerView), and the two
// tab bars, the scenario's (input) and the results' (output), are built from
// the registry in the views' order.
import { h } from "./dom";

export type Side = "input" | "output";

export interface View {
  /** The tab's name: the button is `tab-${id}` (id and data-testid), both carry data-tab=id. */
  id: string;
  /** The button's text. */
  label: string;
  /** input: the scenario's tabs, on the left; output: the results', on the right. */
  side: Side;
  /** Where the tab goes in its bar: lowest first (registration order among equals). */
  order: number;
  /** What the tab shows, or a function making it when the bar is built. */
  panel: HTMLElement | (() => HTMLElement);
  /** Called when the user opens the tab (every click on it, after it is selected); a programmatic select does not call it. */
  shown?: () => void;
}

/** A built tab bar: el holds the tablist and the panels. */
export interface TabBar {
  el: HTMLElement;
  /** select shows the tab id (and hides the others' panels) without calling its shown hook. */
  select(id: string): void;
}

type Attrs = Record<string, string>;

/** tabAttrs are the attributes of a view's tab button. */
export function tabAttrs(id: string): Attrs {
  return { type: "button", role: "tab", "data-tab": id, "data-testid": `tab-${id}`, id: `tab-${id}` };
}

/** panelAttrs are the attributes of the element holding a view's panel. */
export function panelAttrs(id: string): Attrs {
  return { role: "tabpanel", "data-tab": id, "aria-labelledby": `tab-${id}` };
}

export class Registry {
  private views: View[] = [];
  private bars = new Map<Side, TabBar>();

  /** register adds a view; its id must be new, and its side's bar not built yet. */
  register(v: View): void {
    if (this.views.some((x) => x.id === v.id)) throw new Error(`view ${v.id}: registered twice`);
    if (this.bars.has(v.side)) throw new Error(`view ${v.id}: the ${v.side} tabs are built already`);
    this.views.push(v);
  }

  /** list gives side's views in tab order. */
  list(side: Side): View[] {
    return this.views.filter((v) => v.side === side).sort((a, b) => a.order - b.order); // sort is stable
  }

  /** build makes side's tab bar (a tablist named name), the first tab selected. */
  build(side: Side, name: string): TabBar {
    const items = this.list(side);
    if (!items.length) throw new Error(`no ${side} views`);
    const bar = h("div", { class: "tabs", role: "tablist", "aria-label": name });
    const panels = h("div", { class: "panels" });
    const tabs: [string, HTMLElement, HTMLElement][] = [];
    const select = (id: string) => {
      for (const [tid, b, p] of tabs) {
        b.setAttribute("aria-selected", String(tid === id));
        p.hidden = tid !== id;
      }
    };
    for (const v of items) {
      const b = h("button", tabAttrs(v.id), v.label);
      b.addEventListener("click", () => {
        select(v.id);
        v.shown?.();
      });
      const p = h("div", panelAttrs(v.id), typeof v.panel === "function" ? v.panel() : v.panel);
      bar.append(b);
      panels.append(p);
      tabs.push([v.id, b, p]);
    }
    select(items[0].id);
    const built = { el: h("div", { class: "tabbed" }, bar, panels), select };
    this.bars.set(side, built);
    return built;
  }

  /** select shows the tab id in whichever bar has it, as a click does but without its shown hook. */
  select(id: string): void {
    const v = this.views.find((x) => x.id === id);
    const bar = v && this.bars.get(v.side);
    if (!bar) throw new Error(`view ${id}: no such tab`);
    bar.select(id);
  }
}

/** The page's registry. */
export const views = new Registry();

/** registerView adds a view to the page's tabs. */
export function registerView(v: View): void {
  views.register(v);
}

/** buildTabs builds the page's tab bar of side. */
export function buildTabs(side: Side, name: string): TabBar {
  return views.build(side, name);
}

/** selectView switches to the tab id, wherever it is. */
export function selectView(id: string): void {
  views.select(id);
}
