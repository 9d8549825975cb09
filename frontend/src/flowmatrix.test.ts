import { describe, expect, it } from "vitest";
import { flowMatrix, flowSentence, percent } from "./flowmatrix";

// Two machines: SITE1 issues 100 requests, 75 served at home (60 idle-first, 15 least-load), 25 sent
// to SITE2 by least-load; SITE2 issues 40, all served at home by first, and 2 more fail at issue.
const flows = [
  { origin: "SITE1", machine: "SITE1", reason: "first", requests: 60 },
  { origin: "SITE1", machine: "SITE1", reason: "least-load", requests: 15 },
  { origin: "SITE1", machine: "SITE2", reason: "least-load", requests: 25 },
  { origin: "SITE2", machine: "", reason: "TPENOENT", requests: 2 },
  { origin: "SITE2", machine: "SITE2", reason: "first", requests: 40 },
];

describe("flowMatrix", () => {
  it("groups by origin and machine, shares of the origin's requests", () => {
    const m = flowMatrix(flows);
    expect(m.origins).toEqual(["SITE1", "SITE2"]);
    expect(m.machines).toEqual(["SITE1", "SITE2", ""]);
    expect(m.total.get("SITE1")).toBe(100);
    expect(m.total.get("SITE2")).toBe(42);
    const home = m.cells.get("SITE1")!.get("SITE1")!;
    expect(home.requests).toBe(75);
    expect(home.share).toBe(0.75);
    expect(home.reasons).toEqual([
      { reason: "first", requests: 60 },
      { reason: "least-load", requests: 15 },
    ]);
    expect(m.cells.get("SITE1")!.get("SITE2")!.share).toBe(0.25);
    expect(m.cells.get("SITE2")!.has("SITE1")).toBe(false);
  });

  it("says each cell in words", () => {
    const m = flowMatrix(flows);
    expect(flowSentence(m.cells.get("SITE1")!.get("SITE2")!)).toBe("SITE1 sends 25% of its requests to SITE2, all by least-load");
    expect(flowSentence(m.cells.get("SITE1")!.get("SITE1")!)).toBe("SITE1 sends 75% of its requests to SITE1: 80% by first, 20% by least-load");
    expect(flowSentence(m.cells.get("SITE2")!.get("")!)).toBe("SITE2 fails 4.8% of its requests at their issue (2 TPENOENT)");
  });

  it("skips empty flows and has nothing for none", () => {
    const m = flowMatrix([{ origin: "A", machine: "A", reason: "first", requests: 0 }]);
    expect(m.origins).toEqual([]);
  });
});

describe("percent", () => {
  it("is whole when it can be, else one decimal", () => {
    expect(percent(0.25)).toBe("25%");
    expect(percent(0.125)).toBe("12.5%");
    expect(percent(1 / 3)).toBe("33.3%");
    expect(percent(1)).toBe("100%");
  });
});
