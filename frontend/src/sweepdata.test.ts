import { describe, expect, it } from "vitest";
import {
  figureChart,
  inRounds,
  lastMeeting,
  limitOf,
  lineSummaries,
  objectiveLimit,
  objectiveTexts,
  parseSpec,
  rangeText,
  showsReplications,
  shownFigures,
  specJSON,
  splitObjectives,
  sweepFigures,
  tableCaption,
  verdictText,
  type SweepResult,
} from "./sweepdata";

const result: SweepResult = {
  engine_version: "0.1.0",
  keys: [
    { key: "rate_scale", values: [0.5, 1] },
    { key: "policy", values: ["tuxedo", "jsq"] },
  ],
  replications: 2,
  seeds: [1, 2],
  objective: "response_p99_ms<=100",
  total: 4,
  points: [
    { index: 0, values: { rate_scale: 0.5, policy: "tuxedo" }, figures: { response_p99_ms: { mean: 50, ci95: 5 } }, meets: true },
    { index: 1, values: { rate_scale: 1, policy: "tuxedo" }, figures: { response_p99_ms: { mean: 150, ci95: 20 } }, meets: false },
    { index: 3, values: { rate_scale: 1, policy: "jsq" }, figures: { response_p99_ms: { mean: 90, ci95: 4 } }, meets: true },
  ],
  lines: [
    { values: { policy: "tuxedo" }, last_meeting: { index: 0, values: { rate_scale: 0.5, policy: "tuxedo" } } },
    { values: { policy: "jsq" }, last_meeting: { index: 3, values: { rate_scale: 1, policy: "jsq" } } },
  ],
};

describe("figureChart", () => {
  it("puts one line per value of the second key, with its band, and leaves points not done empty", () => {
    const c = figureChart(result, "response_p99_ms");
    expect(c.data[0]).toEqual([0.5, 1]);
    expect(c.lines).toEqual(["policy=tuxedo", "policy=jsq"]);
    expect(c.data[1]).toEqual([50, 150]); // tuxedo mean
    expect(c.data[2]).toEqual([45, 130]); // mean - ci95
    expect(c.data[3]).toEqual([55, 170]); // mean + ci95
    expect(c.data[4]).toEqual([null, 90]); // jsq: point 2 not done
    expect(c.bands).toEqual([
      [2, 3],
      [5, 6],
    ]);
  });
  it("stops a band at 0, which no figure is below", () => {
    const near0: SweepResult = {
      ...result,
      keys: [{ key: "rate_scale", values: [0.5] }],
      points: [{ index: 0, values: { rate_scale: 0.5 }, figures: { wait_mean_ms: { mean: 0.4, ci95: 0.9 } }, meets: true }],
    };
    const c = figureChart(near0, "wait_mean_ms");
    expect(c.data[2]).toEqual([0]); // 0.4 - 0.9 would be -0.5
    expect(c.data[3]).toEqual([1.3]);
  });
  it("uses positions for a key of words", () => {
    const words: SweepResult = { ...result, keys: [{ key: "policy", values: ["tuxedo", "jsq", "p2c"] }], points: [] };
    expect(figureChart(words, "failed").data[0]).toEqual([0, 1, 2]);
  });
});

describe("objective", () => {
  it("reads the limit of the charted figure only", () => {
    expect(objectiveLimit("response_p99_ms<=100", "response_p99_ms")).toBe(100);
    expect(objectiveLimit("throughput_per_s >= 9.5", "throughput_per_s")).toBe(9.5);
    expect(objectiveLimit("response_p99_ms[INQUIRY]<=100", "response_p99_ms[INQUIRY]")).toBe(100);
    expect(objectiveLimit("response_p99_ms[INQUIRY]<=100", "response_p99_ms")).toBe(null);
    expect(objectiveLimit("response_p99_ms<=100", "wait_mean_ms")).toBeNull();
    expect(objectiveLimit(undefined, "wait_mean_ms")).toBeNull();
  });
  it("names the last meeting value per line", () => {
    expect(lastMeeting(result)).toEqual([0.5, 1]);
  });
});

describe("spec", () => {
  it("round-trips through the share link and builds ranges", () => {
    const spec = { vary: [`rate_scale=${rangeText("0.5", "1.5", "0.25")}`], replications: 3, objective: "response_p99_ms<=100" };
    expect(spec.vary[0]).toBe("rate_scale=0.5..1.5/0.25");
    expect(parseSpec(specJSON(spec))).toEqual(spec);
    expect(specJSON({ vary: ["policy=jsq"] })).toBe('{"vary":["policy=jsq"]}');
  });
  it("refuses what is not a spec", () => {
    for (const bad of ["", "{", "[]", '{"vary":[]}', '{"vary":["a=1","b=2","c=3"]}', '{"vary":[1]}']) expect(parseSpec(bad)).toBeNull();
  });
});

describe("shownFigures", () => {
  it("is the figures table's main figures, and the objective's own when it is not one of them", () => {
    expect(sweepFigures).toContain("network_sent");
    expect(sweepFigures).not.toContain("crossed_network");
    const r = { keys: [], points: [], total: 0, replications: 1, seeds: [], engine_version: "" } as unknown as SweepResult;
    expect(shownFigures(r)).toEqual(sweepFigures);
    expect(shownFigures({ ...r, objective_figure: "response_p99_ms" })).toEqual(sweepFigures);
    expect(shownFigures({ ...r, objective_figure: "response_p99_ms[INQUIRY]" })).toEqual([...sweepFigures, "response_p99_ms[INQUIRY]"]);
  });
});

describe("a sweep to a precision", () => {
  it("keeps precision and max_replications in the spec, in sweep.Spec's order, through a share link", () => {
    const spec = { vary: ["rate_scale=0.5,1"], replications: 2, objective: "response_p99_ms<=100", precision: 0.05, max_replications: 10 };
    expect(specJSON(spec)).toBe('{"vary":["rate_scale=0.5,1"],"replications":2,"objective":"response_p99_ms<=100","precision":0.05,"max_replications":10}');
    expect(parseSpec(specJSON(spec))).toEqual(spec);
    expect(parseSpec('{"vary":["a=1"],"precision":-1,"max_replications":2.5}')).toEqual({ vary: ["a=1"] });
    expect(specJSON({ vary: ["a=1"], precision: -0.1 })).toBe('{"vary":["a=1"],"precision":-0.1}'); // the core says why not
  });

  it("shows each point's replications and says how they were run", () => {
    const precise: SweepResult = { ...result, precision: 0.05, max_replications: 10, precision_figure: "response_p99_ms", points: result.points.map((p, i) => ({ ...p, replications: 2 + 2 * i })) };
    expect(showsReplications(precise)).toBe(true);
    expect(tableCaption(precise)).toBe("3 of 4 points, replications in batches of 2 until the 95% half-width of response_p99_ms is at most 5% of its mean, at most 10 (mean ± 95% half-width)");
    const fixed: SweepResult = { ...result, points: result.points.map((p) => ({ ...p, replications: 2 })) };
    expect(showsReplications(fixed)).toBe(false);
    expect(showsReplications(result)).toBe(false); // an older result without them
    expect(tableCaption(fixed)).toBe("3 of 4 points, 2 replications each (mean ± 95% half-width)");
  });

  it("runs in rounds until the core asks for no more units", async () => {
    // a fake core: 2 points, batches of 2, point 0 precise after its first batch, point 1 after its second
    const asked = [[0, 1, 6, 7], [8, 9], []];
    const ran: number[][] = [];
    const got = await inRounds(
      async () => asked[ran.length],
      async (units, round) => {
        expect(round).toBe(ran.length + 1);
        ran.push(units);
        return true;
      },
    );
    expect(got).toEqual({ rounds: 2, complete: true });
    expect(ran).toEqual([
      [0, 1, 6, 7],
      [8, 9],
    ]);
    const stopped = await inRounds(
      async () => [0],
      async () => false,
    );
    expect(stopped).toEqual({ rounds: 1, complete: false });
  });
});

describe("several objectives", () => {
  // SERVERS.PAYSRV.MIN=4,3,2 given high to low: the core's best (the fewest
  // that meets, MIN=3) is marked, not the last meeting in the order given.
  const several: SweepResult = {
    engine_version: "0.5.0",
    keys: [{ key: "SERVERS.PAYSRV.MIN", values: [4, 3, 2] }],
    replications: 5,
    seeds: [1, 2, 3, 4, 5],
    objectives: [
      { text: "response_p99_ms[PAYMENT]<=80", figure: "response_p99_ms[PAYMENT]", op: "<=", limit: 80 },
      { text: "response_p99_ms[QUOTE]<=150", figure: "response_p99_ms[QUOTE]", op: "<=", limit: 150 },
    ],
    judged_on: "interval",
    figures: ["wait_p95_ms[PAYMENT]"],
    total: 3,
    points: [
      { index: 0, values: { "SERVERS.PAYSRV.MIN": 4 }, figures: {}, meets: true, verdicts: ["yes", "yes"] },
      { index: 1, values: { "SERVERS.PAYSRV.MIN": 3 }, figures: {}, meets: true, verdicts: ["yes", "yes"] },
      { index: 2, values: { "SERVERS.PAYSRV.MIN": 2 }, figures: {}, meets: false, verdicts: ["unsure", "yes"] },
    ],
    lines: [
      {
        values: {},
        last_meeting: { index: 1, values: { "SERVERS.PAYSRV.MIN": 3 } },
        along: "SERVERS.PAYSRV.MIN",
        rule: "smallest",
        best: { index: 1, values: { "SERVERS.PAYSRV.MIN": 3 } },
        summary: "fewest SERVERS.PAYSRV.MIN that meets all 2 objectives: 3 (SERVERS.PAYSRV.MIN=2 may miss response_p99_ms[PAYMENT]<=80: 95% interval 78.2–83.6)",
      },
    ],
  };
  it("reads the objectives, their figures, limits and the figures asked for", () => {
    expect(objectiveTexts(several)).toEqual(["response_p99_ms[PAYMENT]<=80", "response_p99_ms[QUOTE]<=150"]);
    expect(objectiveTexts(result)).toEqual(["response_p99_ms<=100"]);
    expect(shownFigures(several)).toEqual([...sweepFigures, "response_p99_ms[PAYMENT]", "response_p99_ms[QUOTE]", "wait_p95_ms[PAYMENT]"]);
    expect(limitOf(several, "response_p99_ms[QUOTE]")).toBe(150);
    expect(limitOf(several, "response_p99_ms")).toBeNull();
  });
  it("marks the best point and says it in the core's words", () => {
    expect(lastMeeting(several)).toEqual([3]);
    expect(lineSummaries(several)).toEqual([several.lines![0].summary]);
    expect(lineSummaries(result)).toEqual(["at policy=tuxedo: last point meeting it along rate_scale: rate_scale=0.5", "at policy=jsq: last point meeting it along rate_scale: rate_scale=1"]);
  });
  it("gives one objective's verdict, or yes when all say yes", () => {
    expect(verdictText({ index: 0, values: {}, figures: {}, meets: false, verdicts: ["unsure"] })).toBe("unsure");
    expect(verdictText(several.points[2])).toBe("no");
    expect(verdictText(several.points[1])).toBe("yes");
  });
  it("takes objectives separated by ; and keeps them in the spec", () => {
    expect(splitObjectives(" a<=1 ; b>=2;; ")).toEqual(["a<=1", "b>=2"]);
    const spec = { vary: ["SERVERS.PAYSRV.MIN=2..4/1"], objectives: ["response_p99_ms[PAYMENT]<=80", "response_p99_ms[QUOTE]<=150"] };
    expect(specJSON(spec)).toBe('{"vary":["SERVERS.PAYSRV.MIN=2..4/1"],"objectives":["response_p99_ms[PAYMENT]<=80","response_p99_ms[QUOTE]<=150"]}');
    expect(parseSpec(specJSON(spec))).toEqual(spec);
    expect(parseSpec('{"vary":["a=1"],"objectives":[1]}')).toEqual({ vary: ["a=1"] });
  });
  it("names every figure the precision is asked of", () => {
    const r = { ...several, precision: 0.05, precision_figure: "response_p99_ms[PAYMENT]", precision_figures: ["response_p99_ms[PAYMENT]", "response_p99_ms[QUOTE]"] };
    expect(tableCaption(r)).toContain("the 95% half-width of each of response_p99_ms[PAYMENT], response_p99_ms[QUOTE] is at most 5% of its mean");
  });
});
