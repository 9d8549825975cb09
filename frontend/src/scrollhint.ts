// Wide tables and drawings say that they scroll: when a table is wider than
// its box (on a phone, where tables scroll sideways), a line before it says
// so, and its edges are shaded on the side with more to see. A drawing that
// keeps a least size and scrolls in its box (a topology, the call graph, a
// timeline) gets the same line.
import { h } from "./dom";

/** BOXES are the boxes that scroll a drawing sideways when it is wider than they are. */
const BOXES = ".topo, .callgraph-scroll, .timeline-box";

/** hintScrolling watches every table and drawing box under root, now and as they are added. */
export function hintScrolling(root: HTMLElement): void {
  const watched = new WeakSet<Element>();
  const resized = new ResizeObserver((entries) => {
    for (const e of entries) {
      const el = e.target;
      // a watched table or box, the box around a table, or a drawing in a box
      if (watched.has(el)) update(el as HTMLElement);
      for (const c of el.children) if (watched.has(c)) update(c as HTMLElement);
      if (el.parentElement && watched.has(el.parentElement)) update(el.parentElement);
    }
  });
  const watch = (t: HTMLElement) => {
    if (watched.has(t)) return;
    watched.add(t);
    resized.observe(t);
    if (t.tagName === "TABLE") {
      // a table at its narrowest does not shrink with its box: watch the box too
      if (t.parentElement) resized.observe(t.parentElement);
    } else {
      // a drawing drawn later, or larger, in the same box
      for (const c of t.children) resized.observe(c);
    }
    t.addEventListener("scroll", () => update(t), { passive: true });
  };
  const scan = (n: Node) => {
    if (!(n instanceof HTMLElement)) return;
    if (n.tagName === "TABLE" || n.matches(BOXES)) watch(n);
    for (const t of n.querySelectorAll<HTMLElement>("table, " + BOXES)) watch(t);
    // a drawing put into a box already watched
    if (n.parentElement && watched.has(n.parentElement)) {
      resized.observe(n);
      update(n.parentElement);
    }
  };
  new MutationObserver((records) => {
    for (const r of records) r.addedNodes.forEach(scan);
  }).observe(root, { childList: true, subtree: true });
  scan(root);
}

/** update marks t as scrolling (or not) and keeps the hint before it in step. */
function update(t: HTMLElement): void {
  const table = t.tagName === "TABLE";
  // A table whose columns need more than its box has (on any screen) scrolls in
  // the box, as every table does on a phone, rather than widening what holds it.
  const box = t.parentElement;
  if (table && box && !t.classList.contains("u-legend")) {
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
  const what = table ? "the table sideways for more columns" : "the drawing sideways to see all of it";
  if (wide && !hint && t.isConnected) t.before(h("p", { class: "scroll-hint", "data-testid": "scroll-hint" }, `Wider than the screen: scroll ${what} →`));
  if (!wide && hint) hint.remove();
}
