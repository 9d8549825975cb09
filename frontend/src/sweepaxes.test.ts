import { describe, expect, it } from "vitest";
import { forLogScale, integerKey, integerSplits, kneeFigure, kneeIndex, knees, objectiveFigure, type SweepResult } from "./sweepdata";

describe("integer keys", () => {
  it("are keys whose values are all whole numbers", () => {
    expect(integerKey([1, 2, 3])).toBe(true);
    expect(integerKey([0.5, 1])).toBe(false);
    expect(integerKey(["tuxedo", "jsq"])).toBe(false);
    expect(integerKey([])).toBe(false);
  });
  it("get whole ticks: steps of 1, 2, 5, 10...", () => {
    // 1..4 in at most 8 ticks: every whole number, none of uPlot's 0.5 steps
    expect(integerSplits(1, 4, 8)).toEqual([1, 2, 3, 4]);
    // the axis padded to 0.8..4.2 still ticks whole numbers only
    expect(integerSplits(0.8, 4.2, 8)).toEqual([1, 2, 3, 4]);
    // 0..20 in at most 6 ticks: 21 numbers need a step of 5 (0, 5, 10, 15, 20)
    expect(integerSplits(0, 20, 6)).toEqual([0, 5, 10, 15, 20]);
    // 1..16 in at most 9: a step of 2 gives 8 ticks (16 / 2 + 1 = 9 at most)
    expect(integerSplits(1, 16, 9)).toEqual([2, 4, 6, 8, 10, 12, 14, 16]);
    expect(integerSplits(3, 3, 8)).toEqual([3]);
    expect(integerSplits(5, 1, 8)).toEqual([]);
  });
});

describe("kneeIndex", () => {
  it("is the point before the steepest rise", () => {
    // slopes: (12-10)/1 = 2, (20-12)/1 = 8, (80-20)/1 = 60, (90-80)/1 = 10: the rise 3 -> 4 is steepest
    expect(kneeIndex([1, 2, 3, 4, 5], [10, 12, 20, 80, 90])).toBe(2);
  });
  it("divides by the step in x, which need not be even", () => {
    // slopes: (20-10)/1 = 10, (40-20)/10 = 2: the first step is the steeper
    expect(kneeIndex([0, 1, 11], [10, 20, 40])).toBe(0);
  });
  it("skips points with no value", () => {
    // without index 1: slopes (30-10)/2 = 10 and (100-30)/1 = 70
    expect(kneeIndex([1, 2, 3, 4], [10, null, 30, 100])).toBe(2);
  });
  it("is null for a falling or flat figure and for fewer than three points", () => {
    expect(kneeIndex([1, 2, 3], [5, 4, 3])).toBe(null);
    expect(kneeIndex([1, 2, 3], [5, 5, 5])).toBe(null);
    expect(kneeIndex([1, 2], [1, 9])).toBe(null);
  });
});

describe("the knee's figure", () => {
  const result = (objective?: string): SweepResult => ({
    engine_version: "x",
    keys: [{ key: "rate_scale", values: [1, 2, 3] }],
    replications: 1,
    seeds: [1],
    objective,
    total: 3,
    points: [1, 2, 3].map((x, i) => ({ index: i, values: { rate_scale: x }, figures: { response_mean_ms: { mean: [5, 6, 30][i], ci95: 0 }, response_p99_ms: { mean: [10, 50, 60][i], ci95: 0 } } })),
  });
  it("is the objective's, else the mean response", () => {
    expect(objectiveFigure("response_p99_ms<=100")).toBe("response_p99_ms");
    expect(objectiveFigure("response_p99_ms[INQUIRY] <= 100")).toBe("response_p99_ms[INQUIRY]");
    expect(objectiveFigure("")).toBe(null);
    expect(kneeFigure(result("response_p99_ms<=100"))).toBe("response_p99_ms");
    expect(kneeFigure(result())).toBe("response_mean_ms");
  });
  it("marks the first key's value per line", () => {
    // response_mean_ms 5, 6, 30: the rise 2 -> 3 is steepest, knee at rate_scale 2
    expect(knees(result(), "response_mean_ms")).toEqual([2]);
    // response_p99_ms 10, 50, 60: the rise 1 -> 2 is steepest, knee at rate_scale 1
    expect(knees(result(), "response_p99_ms")).toEqual([1]);
  });
});

describe("forLogScale", () => {
  it("keeps x and turns values a log axis cannot show into gaps", () => {
    expect(forLogScale([[0, 1, 2], [0, 5, -1], [null, 2, 3]])).toEqual([[0, 1, 2], [null, 5, null], [null, 2, 3]]);
  });
});
