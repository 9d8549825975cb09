import { describe, expect, it } from "vitest";
import { formatRouteList, parseRouteList, routeKind } from "./route";

describe("parseRouteList", () => {
  it("reads numbers, strings and weights", () => {
    expect(parseRouteList("10001:5, 55555:3, ACME")).toEqual({ values: [10001, 55555, "ACME"], weights: [5, 3, 1] });
  });
  it("leaves weights out when all are 1", () => {
    expect(parseRouteList("1, 2, -3.5")).toEqual({ values: [1, 2, -3.5] });
  });
  it("keeps quoted numbers and numbers that would change as strings", () => {
    expect(parseRouteList("'007', 007, 1e5")).toEqual({ values: ["007", "007", "1e5"] });
  });
  it("names the bad item", () => {
    expect(parseRouteList("a, , b")).toEqual({ error: "item 2 is empty" });
    expect(parseRouteList("a:x")).toEqual({ error: 'item 1: weight "x" is not a number >= 0' });
    expect(parseRouteList("a:-1")).toEqual({ error: 'item 1: weight "-1" is not a number >= 0' });
    expect(parseRouteList("  ")).toEqual({ error: "give at least one value" });
  });
});

describe("formatRouteList", () => {
  it("round-trips through parseRouteList", () => {
    for (const spec of [
      { values: [10001, 55555, "ACME"], weights: [5, 3, 1] },
      { values: ["007", 7, "a:b"] },
    ]) {
      expect(parseRouteList(formatRouteList(spec))).toEqual(spec);
    }
  });
});

describe("routeKind", () => {
  it("tells the three ways apart", () => {
    expect(routeKind(undefined)).toBe("none");
    expect(routeKind({ dist: "uniform", min: 1, max: 2 })).toBe("numbers");
    expect(routeKind({ values: ["a"] })).toBe("list");
  });
});
