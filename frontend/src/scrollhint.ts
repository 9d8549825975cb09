// Wide tables say that they scroll: when a table is wider than its box (on a
// phone, where tables scroll sideways), a line before it says so, and its
// edges are shaded on the side with more to see.
import { h } from "./dom";

/** hintScrolling watches every table under root, now and as they are added. */
export function hintScrolling(root: HTMLElement): void {
  const watched = new WeakSet<HTMLElement>();
  const resized = new ResizeObserver((entries) => {
    for (const e of entries) {
      const el = e.target as HTMLElement;
      if (el.tagName === "TABLE") update(el);
      else for (const c of el.children) if (c.tagName === "TABLE") update(c as HTMLElement);
    }
  });
  const watch = (t: HTMLElement) => {
    if (watched.has(t)) return;
    watched.add(t);
    resized.observe(t);
    // a table at its narrowest does not shrink with its box: watch the box too
    if (t.parentElement) resized.observe(t.parentElement);
    t.addEventListener("scroll", () => update(t), { passive: true });
  };
  const scan = (n: Node) => {
    if (!(n instanceof HTMLElement)) return;
    if (n.tagName === "TABLE") watch(n);
    for (const t of n.querySelectorAll<HTMLElement>("table")) watch(t);
  };
  new MutationObserver((records) => {
    for (const r of records) r.addedNodes.forEach(scan);
  }).observe(root, { childList: true, subtree: true });
  scan(root);
}

/** update marks t as scrolling (or not) and keeps the hint before it in step. */
function update(t: HTMLElement): void {
  // A table whose columns need more than its box has (on any screen) scrolls in
  // the box, as every table does on a phone, rather than widening what holds it.
  const box = t.parentElement;
  if (box && !t.classList.contains("u-legend")) {
    if (!t.classList.contains("overflows")) {
      if (t.offsetWidth > box.clientWidth + 1) t.classList.add("overflows");
    } else if (t.scrollWidth <= t.clientWidth + 1) t.classList.remove("overflows");
  }
  const wide = t.scrollWidth > t.clientWidth + 1;
  t.classList.toggle("scrolls", wide);
  t.classList.toggle("at-start", t.scrollLeft <= 1);
  t.classList.toggle("at-end", t.scrollLeft + t.clientWidth >= t.scrollWidth - 1);
  const prev = t.previousElementSibling;
  const hint = prev?.classList.contains("scroll-hint") ? prev : null;
  if (wide && !hint && t.isConnected) t.before(h("p", { class: "scroll-hint", "data-testid": "scroll-hint" }, "Wider than the screen: scroll the table sideways for more columns →"));
  if (!wide && hint) hint.remove();
}
