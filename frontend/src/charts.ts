// uPlot charts: time series (with marks for MP counter resets), histograms as
// bars, and overlays for comparisons. Each chart follows its box's width.
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { axisSizeFor, type ChartData } from "./chartdata";
import { h } from "./dom";
import { forLogScale, integerSplits } from "./sweepdata";

/** The number of line colours, --line-0 .. --line-9 in style.css (one set per colour scheme). */
const lineColors = 10;

/** cssVar reads one of style.css's custom properties as the page's scheme has it now. */
function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

/** color returns the i-th line colour of the current scheme. */
export function color(i: number): string {
  return cssVar(`--line-${i % lineColors}`, "#2563eb");
}

/** alpha returns a #rrggbb colour with an alpha (two hex digits) appended. */
function alpha(c: string, a: string): string {
  return /^#[0-9a-f]{6}$/i.test(c) ? c + a : c;
}

/**
 * axes are the x and y axes in the scheme's colours, read at every draw, so
 * that a chart follows the scheme when it changes (see live).
 */
function axes(xLabel: string, yLabel: string): uPlot.Axis[] {
  const stroke = () => cssVar("--chart-axis", "#4b5563");
  const grid = { stroke: () => cssVar("--chart-grid", "#e5e7eb"), width: 1 };
  return [
    { label: xLabel, stroke, grid, ticks: grid },
    { label: yLabel, size: yAxisSize, stroke, grid, ticks: grid },
  ];
}

/** live are the charts drawn so far, redrawn when the colour scheme changes. */
const live = new Set<uPlot>();

/** mount keeps plot among the live charts and sizes it to its box, now and whenever the box resizes. */
function mount(plot: uPlot, box: HTMLElement): void {
  live.add(plot);
  const fit = () => plot.setSize({ width: Math.max(240, box.clientWidth), height: 220 });
  new ResizeObserver(fit).observe(box);
  requestAnimationFrame(fit);
}

if (typeof matchMedia === "function") {
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
    for (const p of live) {
      if (p.root.isConnected) p.redraw(true, true);
      else live.delete(p);
    }
  });
}

/** Options of one chart. */
export interface ChartOptions {
  title: string;
  xLabel?: string;
  yLabel: string;
  bars?: boolean; // draw as bars (histograms)
  stepped?: boolean; // bins: hold each value until the next
  marks?: number[]; // x values to mark with a vertical line (MP counter resets, percentiles)
  markLabels?: string[]; // a label drawn at the top of each mark
  /** the warm-up: a solid line at x (s) with its label, the time before it shaded (its requests are not in the statistics) */
  warmup?: { x: number; label: string };
  testid?: string;
}

/** chart draws data into a new figure element and returns it. */
export function chart(data: ChartData, o: ChartOptions): HTMLElement {
  const fig = h("figure", {
    class: "chart",
    "data-testid": o.testid ?? null,
    "data-marks": o.marks?.join(",") ?? null,
    "data-warmup": o.warmup ? String(o.warmup.x) : null,
    "data-warmup-label": o.warmup?.label ?? null,
  });
  const box = h("div", { class: "chart-box" });
  fig.append(h("figcaption", {}, o.title), box);
  if (data.data[0].length === 0) {
    box.append(h("p", { class: "muted" }, "No data."));
    return fig;
  }
  const paths = o.bars ? uPlot.paths.bars!({ size: [0.9, 60] }) : o.stepped ? uPlot.paths.stepped!({ align: 1 }) : undefined;
  // a histogram's percentile marks lie within its last bin, past its x: the axis reaches them
  const lastMark = o.bars && o.marks?.length ? Math.max(...o.marks) : null;
  const xScale: uPlot.Scale =
    lastMark === null ? { time: false } : { time: false, range: (_u, lo, hi) => [lo, hi >= lastMark ? hi : lastMark + (lastMark - lo) * 0.02] };
  const opts: uPlot.Options = {
    width: 600,
    height: 220,
    scales: { x: xScale },
    legend: { live: false },
    axes: axes(o.xLabel ?? "time (s)", o.yLabel),
    series: [
      { label: o.xLabel ?? "t (s)" },
      ...data.labels.map((label, i) => ({
        label,
        stroke: () => color(i),
        fill: o.bars ? () => alpha(color(i), "99") : undefined,
        width: o.bars ? 0 : 1.5,
        paths,
        points: { show: false },
      })),
    ],
    hooks:
      o.marks?.length || o.warmup
        ? {
            draw: [
              (u: uPlot) => {
                if (o.warmup) drawWarmup(u, o.warmup.x, o.warmup.label, (o.markLabels ?? []).filter(Boolean).length);
                if (o.marks?.length) drawMarks(u, o.marks, o.markLabels);
              },
            ],
          }
        : {},
  };
  mount(new uPlot(opts, data.data as uPlot.AlignedData, box), box);
  return fig;
}

/**
 * yAxisSize widens the y axis to its longest tick label (uPlot's fixed 50 px
 * let labels such as "200,000" run under the axis title).
 */
export function yAxisSize(u: uPlot, values: string[] | null, axisIdx: number, cycleNum: number): number {
  const axis = u.axes[axisIdx] as uPlot.Axis & { _size?: number };
  if (cycleNum > 1 && axis._size) return axis._size; // settled: keep the size and stop uPlot's re-layout loop
  return axisSizeFor(values ?? [], (text) => {
    u.ctx.font = (axis.font as unknown as string[] | undefined)?.[0] ?? "12px system-ui";
    return u.ctx.measureText(text).width / (window.devicePixelRatio || 1);
  });
}

/** drawMarks draws a dashed vertical line at each x (with its label at the top, when given). */
function drawMarks(u: uPlot, xs: number[], labels?: string[]): void {
  const ctx = u.ctx;
  const dpr = window.devicePixelRatio || 1;
  ctx.save();
  ctx.strokeStyle = cssVar("--chart-axis", "#6b7280");
  ctx.fillStyle = cssVar("--chart-axis", "#6b7280");
  ctx.font = `${Math.round(11 * dpr)}px system-ui, sans-serif`;
  ctx.lineWidth = 1;
  let row = 0; // the row of the next label
  xs.forEach((x, i) => {
    const px = Math.round(u.valToPos(x, "x", true));
    if (px < u.bbox.left || px > u.bbox.left + u.bbox.width) return;
    ctx.setLineDash([4 * dpr, 4 * dpr]);
    ctx.beginPath();
    ctx.moveTo(px, u.bbox.top);
    ctx.lineTo(px, u.bbox.top + u.bbox.height);
    ctx.stroke();
    const label = labels?.[i];
    if (label) {
      ctx.setLineDash([]);
      // the later label one line lower, so that close marks do not overwrite each other
      ctx.textAlign = px > u.bbox.left + u.bbox.width * 0.8 ? "right" : "left";
      ctx.fillText(label, px + (ctx.textAlign === "right" ? -3 : 3) * dpr, u.bbox.top + (12 + 13 * row++) * dpr);
    }
  });
  ctx.restore();
}

/**
 * drawWarmup shades the time before the warm-up (its requests are left out
 * of the statistics) and draws a solid line at x with its label, in the
 * label row after the other marks' (row).
 */
function drawWarmup(u: uPlot, x: number, label: string, row: number): void {
  const ctx = u.ctx;
  const dpr = window.devicePixelRatio || 1;
  const left = u.bbox.left;
  const right = u.bbox.left + u.bbox.width;
  const px = Math.round(u.valToPos(x, "x", true));
  if (px < left) return;
  const edge = Math.min(px, right);
  ctx.save();
  ctx.fillStyle = cssVar("--chart-warmup", "rgba(107, 114, 128, 0.14)");
  ctx.fillRect(left, u.bbox.top, edge - left, u.bbox.height);
  if (px <= right) {
    ctx.strokeStyle = cssVar("--chart-axis", "#6b7280");
    ctx.lineWidth = 1.5 * dpr;
    ctx.beginPath();
    ctx.moveTo(px, u.bbox.top);
    ctx.lineTo(px, u.bbox.top + u.bbox.height);
    ctx.stroke();
    ctx.font = `${Math.round(11 * dpr)}px system-ui, sans-serif`;
    // on a patch of the page's background, so that the lines drawn under it do not hide it
    const rightAligned = px > left + u.bbox.width * 0.7;
    const w = ctx.measureText(label).width;
    const tx = rightAligned ? px - 4 * dpr - w : px + 4 * dpr;
    const ty = u.bbox.top + (12 + 13 * row) * dpr;
    ctx.fillStyle = cssVar("--surface", "#fff");
    ctx.fillRect(tx - 2 * dpr, ty - 10 * dpr, w + 4 * dpr, 13 * dpr);
    ctx.fillStyle = cssVar("--chart-axis", "#6b7280");
    ctx.textAlign = "left";
    ctx.fillText(label, tx, ty);
  }
  ctx.restore();
}

/** Options of a chart of a sweep figure with confidence bands. */
export interface BandChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  bands: number[][]; // per line: the series numbers of its low and high edge
  lines: string[]; // the lines' labels (each line is mean, low, high)
  limit?: number | null; // the objective's limit, drawn as a dashed line
  marks?: number[]; // x values to mark (the best point meeting every objective, per line)
  knees?: number[]; // x values where the figure rises fastest, per line, marked "knee"
  logY?: boolean; // a log scale on y (values at or below 0 are not drawn)
  integerX?: boolean; // the x key takes whole numbers: ticks at whole numbers only
  testid?: string;
}

/** sweepAxes are a sweep chart's axes: whole-number ticks on x for a whole-number key. */
function sweepAxes(o: BandChartOptions): uPlot.Axis[] {
  const [x, y] = axes(o.xLabel, o.yLabel);
  if (o.integerX) {
    x.splits = (u: uPlot, _i: number, min: number, max: number) => integerSplits(min, max, Math.max(2, Math.floor(u.bbox.width / (60 * (window.devicePixelRatio || 1)))));
    x.values = (_u: uPlot, splits: number[]) => splits.map((v) => String(v));
  }
  return [x, y];
}

/** bandChart draws one figure of a sweep: a line per value of the second key with its 95% band. */
export function bandChart(data: ChartData, o: BandChartOptions): HTMLElement {
  const knees = [...new Set(o.knees ?? [])]; // lines whose knee is at the same value: one mark
  const fig = h("figure", {
    class: "chart",
    "data-testid": o.testid ?? null,
    "data-scale": o.logY ? "log" : "linear",
    "data-knees": knees.length ? knees.join(",") : null,
    "data-integer-x": o.integerX ? "true" : null,
  });
  const box = h("div", { class: "chart-box" });
  const legend = h(
    "p",
    { class: "muted" },
    ...o.lines.map((l, i) => h("span", { class: "legend-item" }, h("span", { class: `swatch line-${i % lineColors}`, "aria-hidden": "true" }), `${l} (band: 95% interval)`)),
    o.limit !== null && o.limit !== undefined ? h("span", { class: "legend-item" }, h("span", { class: "swatch dashed", "aria-hidden": "true" }), `objective ${o.limit}`) : null,
    o.marks?.length ? h("span", { class: "legend-item", "data-testid": "sweep-best-mark" }, `dashed upright: the best point meeting every objective, per line`) : null,
    knees.length ? h("span", { class: "legend-item", "data-testid": "sweep-knee" }, `knee (fastest rise) at ${o.xLabel} = ${knees.join(", ")}`) : null,
  );
  fig.append(h("figcaption", {}, o.title), box, legend);
  const series: uPlot.Series[] = [{ label: o.xLabel }];
  data.labels.forEach((label, i) => {
    const line = Math.floor(i / 3);
    const edge = i % 3 !== 0;
    series.push({ label, stroke: edge ? "transparent" : () => color(line), width: edge ? 0 : 1.5, show: true, points: { show: !edge, size: 5 }, spanGaps: true });
  });
  let cols = data.data.slice() as (number | null)[][];
  if (o.logY) cols = forLogScale(cols);
  if (o.limit !== null && o.limit !== undefined && !(o.logY && o.limit <= 0)) {
    series.push({ label: "objective", stroke: () => cssVar("--chart-axis", "#6b7280"), dash: [6, 4], width: 1, points: { show: false } });
    cols.push(data.data[0].map(() => o.limit!));
  }
  const opts: uPlot.Options = {
    width: 600,
    height: 220,
    scales: { x: { time: false }, y: o.logY ? { distr: 3 } : {} },
    legend: { show: false },
    axes: sweepAxes(o),
    series,
    bands: o.bands.map(([lo, hi], i) => ({ series: [hi, lo] as [number, number], fill: () => alpha(color(i), "33") })),
    hooks: {
      draw: [
        (u: uPlot) => {
          if (o.marks?.length) drawMarks(u, o.marks);
          if (knees.length) drawMarks(u, knees, knees.map(() => "knee"));
        },
      ],
    },
  };
  mount(new uPlot(opts, cols as uPlot.AlignedData, box), box);
  return fig;
}

/** Options of a chart of paired bars: two values (say observed and simulated) per category. */
export interface PairChartOptions {
  title: string;
  categories: string[]; // the x axis: one group of two bars per category
  yLabel: string;
  testid?: string;
  attrs?: Record<string, string>;
  /** errors[s][i]: the interval drawn as an error bar on series s's bar of category i (none: no bar) */
  errors?: ({ lo: number; hi: number } | undefined)[][];
}

/**
 * pairChart draws, for each category, its two series as bars side by side
 * (the first left of the category's tick, the second right of it), with a
 * legend of the two; data is ChartData whose x is the category's position.
 */
export function pairChart(data: ChartData, o: PairChartOptions): HTMLElement {
  const fig = h("figure", { class: "chart", "data-testid": o.testid ?? null, ...(o.attrs ?? {}) });
  const box = h("div", { class: "chart-box" });
  const legend = h(
    "p",
    { class: "muted" },
    ...data.labels.map((l, i) => h("span", { class: "legend-item" }, h("span", { class: `swatch bar line-${i % lineColors}`, "aria-hidden": "true" }), l)),
  );
  fig.append(h("figcaption", {}, o.title), box, legend);
  const [x, y] = axes("", o.yLabel);
  delete x.label; // the categories say it: no room kept for an axis title
  x.size = 34;
  x.splits = () => o.categories.map((_, i) => i);
  x.values = (_u: uPlot, splits: number[]) => splits.map((v) => o.categories[v] ?? "");
  x.grid = { show: false };
  const bars = (align: -1 | 1) => uPlot.paths.bars!({ size: [0.38, 56], align });
  const errHi = Math.max(0, ...(o.errors ?? []).flat().map((iv) => iv?.hi ?? 0));
  const opts: uPlot.Options = {
    width: 600,
    height: 220,
    scales: {
      x: { time: false, range: () => [-0.5, o.categories.length - 0.5] },
      y: { range: (_u: uPlot, _min: number, max: number) => [0, Math.max(max, errHi) > 0 ? Math.max(max, errHi) * 1.1 : 1] },
    },
    hooks: o.errors ? { draw: [(u: uPlot) => drawErrors(u, o.errors!)] } : {},
    legend: { show: false },
    axes: [x, y],
    series: [
      { label: "" },
      ...data.labels.map((label, i) => ({
        label,
        stroke: () => color(i),
        fill: () => alpha(color(i), "b3"),
        width: 1,
        paths: bars(i === 0 ? -1 : 1),
        points: { show: false },
      })),
    ],
  };
  mount(new uPlot(opts, data.data as uPlot.AlignedData, box), box);
  return fig;
}

/**
 * drawErrors draws each interval as an error bar (a vertical line with
 * caps) at the middle of its bar: series 0's bars stand left of the
 * category's tick, series 1's right of it, each 0.38 of a category wide
 * and at most 56 px, as pairChart draws them.
 */
function drawErrors(u: uPlot, errors: ({ lo: number; hi: number } | undefined)[][]): void {
  const dpr = window.devicePixelRatio || 1;
  const step = Math.abs(u.valToPos(1, "x", true) - u.valToPos(0, "x", true));
  const w = Math.min(0.38 * step, 56 * dpr);
  const ctx = u.ctx;
  ctx.save();
  ctx.strokeStyle = getComputedStyle(u.root).color || "#000";
  ctx.lineWidth = 1.5 * dpr;
  errors.forEach((ivs, s) =>
    ivs.forEach((iv, i) => {
      if (!iv) return;
      const x = u.valToPos(i, "x", true) + (s === 0 ? -w / 2 : w / 2);
      const lo = u.valToPos(iv.lo, "y", true);
      const hi = u.valToPos(iv.hi, "y", true);
      const cap = Math.min(6 * dpr, w / 3);
      ctx.beginPath();
      ctx.moveTo(x, lo);
      ctx.lineTo(x, hi);
      ctx.moveTo(x - cap, lo);
      ctx.lineTo(x + cap, lo);
      ctx.moveTo(x - cap, hi);
      ctx.lineTo(x + cap, hi);
      ctx.stroke();
    }),
  );
  ctx.restore();
}
