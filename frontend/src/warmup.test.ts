import { describe, expect, it } from "vitest";
import { warmupMark } from "./chartdata";
import type { Result } from "./types";

describe("warmupMark", () => {
  it("marks the warm-up on the time charts' axis (s), saying when it was detected", () => {
    expect(warmupMark({ warmup_ms: 0 } as Result)).toBeNull();
    expect(warmupMark({ warmup_ms: 2500 } as Result)).toEqual({ x: 2.5, label: "warm-up", caption: "shaded: the warm-up, the first 2.5 s, not in the statistics" });
    const auto = warmupMark({ warmup_ms: 1234, warmup_detected: true } as Result)!;
    expect(auto.x).toBeCloseTo(1.234);
    expect(auto.label).toBe("warm-up (detected)");
    expect(auto.caption).toContain("detected by MSER-5");
  });
});
