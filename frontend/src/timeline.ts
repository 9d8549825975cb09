// The state timeline: one lane per server instance, coloured by its
// life-cycle state over the run (up, down, restarting, stopping, booting,
// gone), on the same time axis (seconds from 0 to the span) as the charts.
import { h, s } from "./dom";
import { lanes } from "./lifecycle";
import type { Result } from "./types";

const plotW = 600;
const laneH = 14;
const top = 6;

/** stateTimeline draws r's lanes; null when the run has no life cycle. */
export function stateTimeline(r: Result): SVGSVGElement | null {
  if (!r.lifecycle) return null;
  const ls = lanes(r);
  // room for the longest instance name at the labels' 12 px (7 px a character, about)
  const labelW = Math.max(110, 12 + 7 * Math.max(0, ...ls.map((l) => l.server.length)));
  const span = Math.max(r.span_ms, 1);
  const x = (ms: number) => labelW + (ms / span) * plotW;
  const height = top + ls.length * laneH + 24;
  const svg = s("svg", {
    viewBox: `0 0 ${labelW + plotW + 30} ${height}`,
    class: "timeline",
    role: "img",
    "aria-label": "State of each server instance over time",
    "data-testid": "state-timeline",
  });
  svg.style.minWidth = `${Math.round((labelW + plotW + 30) * 0.7)}px`; // readable on a phone: its box scrolls instead
  ls.forEach((lane, i) => {
    const y = top + i * laneH;
    svg.append(s("text", { x: labelW - 6, y: y + laneH - 3, class: "lane-label", "text-anchor": "end" }, lane.server));
    for (const seg of lane.segments) {
      svg.append(
        s(
          "rect",
          { x: x(seg.from_ms), y: y + 1, width: Math.max(0.5, x(seg.to_ms) - x(seg.from_ms)), height: laneH - 2, class: `lane state-${seg.state}` },
          s("title", {}, `${lane.server}: ${seg.state} from ${seg.from_ms / 1000} s to ${seg.to_ms / 1000} s`),
        ),
      );
    }
  });
  const axisY = top + ls.length * laneH + 14;
  for (let k = 0; k <= 4; k++) {
    const ms = (span * k) / 4;
    svg.append(s("text", { x: x(ms), y: axisY, class: "lane-axis", "text-anchor": "middle" }, `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`));
  }
  return svg;
}

/** stateOrder is the order the key lists the states in. */
const stateOrder = ["up", "down", "restarting", "stopping", "booting", "gone"];

/**
 * stateKey names each state r's lanes draw, in the lane's colour, so that the
 * colours can be read without hovering a lane for its title (a phone cannot).
 */
export function stateKey(r: Result): HTMLElement | null {
  if (!r.lifecycle) return null;
  const drawn = new Set(lanes(r).flatMap((l) => l.segments.map((seg) => seg.state)));
  const states = [...stateOrder.filter((st) => drawn.has(st)), ...[...drawn].filter((st) => !stateOrder.includes(st))];
  return h(
    "p",
    { class: "muted", "data-testid": "state-legend" },
    ...states.map((st) => h("span", { class: "legend-item", "data-state": st }, h("span", { class: `swatch bar state-${st}`, "aria-hidden": "true" }), st)),
  );
}
