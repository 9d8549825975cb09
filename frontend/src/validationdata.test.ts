import { describe, expect, it } from "vitest";
import type { Result, Validation, ValidationRow } from "./types";
import { count, countsText, intervalText, signedPct, traceLine, undecidedLines, validationAbout, validationChart, validationLines, validationRows, verdictLine } from "./validationdata";

const summary = (count: number, mean: number, p50: number, p95: number, p99: number) => ({ count, mean, p50, p95, p99, max: p99 });

const overall: ValidationRow = {
  observed: summary(4, 5, 4.001, 8, 8),
  simulated: summary(4, 10.86075, 7.111, 22.7, 22.7),
  relative_error: { mean: 1.17215, p50: 0.777306, p95: 1.8375, p99: 1.8375 },
};
const balance: ValidationRow = {
  service: "BALANCE",
  observed: summary(2, 5, 4.001, 6, 6),
  simulated: summary(2, 4.79, 4.2, 5.8, 5.8),
  relative_error: { mean: -0.042, p50: 0.0497, p95: -0.0333, p99: -0.0333 },
};
const nothing: ValidationRow = { service: "DEPOSIT", observed: summary(2, 0, 0, 0, 0), simulated: summary(0, 0, 0, 0, 0), relative_error: {} };

describe("signedPct", () => {
  it("writes a relative error as a signed percentage with a minus sign", () => {
    expect(signedPct(-0.042)).toBe("\u22124.2%");
    expect(signedPct(1.17215)).toBe("+117.2%");
    expect(signedPct(0)).toBe("0.0%");
    expect(signedPct(-0.0004)).toBe("0.0%"); // no "−0.0%"
    expect(signedPct(undefined)).toBe("–");
  });
});

describe("traceLine", () => {
  it("says the rows read and the rows skipped, with the examples", () => {
    expect(traceLine({ rows: 6998, skipped: 2, skipped_examples: ["row 7001: Time: not a number", "row 7002: Service: empty"] })).toBe(
      "Trace: 6\u202f998 rows read, 2 skipped: row 7001: Time: not a number, row 7002: Service: empty.",
    );
    expect(traceLine({ rows: 4, skipped: 0, skipped_examples: null })).toBe("Trace: 4 rows read.");
    expect(traceLine({ rows: 1, skipped: 12, skipped_examples: ["row 2: x"] })).toBe("Trace: 1 row read, 12 skipped: row 2: x, ….");
  });
  it("groups thousands", () => {
    expect([0, 999, 1000, 287000, 1234567].map(count)).toEqual(["0", "999", "1\u202f000", "287\u202f000", "1\u202f234\u202f567"]);
  });
});

describe("validation rows", () => {
  const v = { overall, services: [balance, nothing] };
  it("list all services first, then each service", () => {
    expect(validationRows(v).map((r) => [r.key, r.label])).toEqual([
      ["", "all services"],
      ["BALANCE", "BALANCE"],
      ["DEPOSIT", "DEPOSIT"],
    ]);
    expect(validationRows({ overall, services: null })).toHaveLength(1);
  });
  it("put observed and simulated side by side per figure, with the error", () => {
    expect(validationLines(balance)).toEqual([
      { figure: "mean", observed: 5, simulated: 4.79, error: -0.042 },
      { figure: "p50", observed: 4.001, simulated: 4.2, error: 0.0497 },
      { figure: "p95", observed: 6, simulated: 5.8, error: -0.0333 },
      { figure: "p99", observed: 6, simulated: 5.8, error: -0.0333 },
    ]);
    expect(validationLines(nothing).map((l) => l.error)).toEqual([undefined, undefined, undefined, undefined]);
    expect(countsText(overall)).toBe("4 observed, 4 simulated");
  });
  it("chart the figures as two series by position, nothing simulated as gaps", () => {
    expect(validationChart(overall)).toEqual({
      labels: ["observed", "simulated"],
      data: [
        [0, 1, 2, 3],
        [5, 4.001, 8, 8],
        [10.86075, 7.111, 22.7, 22.7],
      ],
      // a result from before intervals: no error bars
      errors: [
        [undefined, undefined, undefined, undefined],
        [undefined, undefined, undefined, undefined],
      ],
    });
    expect(validationChart(nothing).data[2]).toEqual([null, null, null, null]);
  });
  it("say what was compared, with the warm-up", () => {
    const r = { warmup_ms: 2000, validation: v } as unknown as Result;
    expect(validationAbout(r)).toContain("same 4 trace rows issued at or after the warm-up (2 s)");
    expect(validationAbout({ ...r, warmup_ms: 0 })).not.toContain("warm-up");
  });
});

describe("verdicts with their intervals", () => {
  const judged = (service: string, verdict: string, err: number): ValidationRow => ({
    service,
    observed: summary(100, 10, 9, 20, 30),
    simulated: summary(100, 10 * (1 + err), 9, 20, 30),
    relative_error: { mean: err, p50: 0, p95: 0, p99: 0 },
    observed_ci: { mean: { lo: 9.5, hi: 10.5 }, p99: { lo: 25, hi: 41.25 } },
    simulated_ci: { mean: { lo: 9.9 + 10 * err, hi: 10.25 + 10 * err } },
    relative_ci: { mean: { lo: err - 0.07, hi: err + 0.07 } },
    verdicts: { mean: verdict, p50: "pass", p95: "pass", p99: "pass" },
    verdict,
    throughput_per_s: { observed: 50, simulated: 49.5 },
    ks: { observed_batches: 20, simulated_batches: 20, statistic: 0.15, p_value: 0.97 },
  });
  const v = {
    overall: judged("", "fail", 0.2),
    services: [judged("A", "pass", 0.01), judged("B", "inconclusive", 0.08), judged("C", "fail", 0.15), judged("D", "fail", 0.3)],
    replications: 10,
    tolerance: { mean: 0.1, p50: 0.1, p95: 0.1, p99: 0.1 },
    verdict: "fail",
  };
  it("list the worst service first: failed before inconclusive before passed, the larger error first", () => {
    expect(validationRows(v).map((r) => r.label)).toEqual(["all services", "D", "C", "B", "A"]);
  });
  it("put each figure's intervals and verdict on its line", () => {
    const [mean, , , p99] = validationLines(v.services[2]);
    expect(mean.verdict).toBe("fail");
    expect(mean.observedCI).toEqual({ lo: 9.5, hi: 10.5 });
    expect(intervalText(mean.relativeCI, true)).toBe("[+8.0%, +22.0%]");
    expect(intervalText(p99.observedCI)).toBe("[25, 41.25]");
    expect(intervalText(p99.simulatedCI)).toBe("–");
  });
  it("say the run's verdict, the tolerance and the replications in one sentence", () => {
    expect(verdictLine(v)).toBe("The model fails within ±10%, simulated over 10 replications.");
    const mixed = { ...v, verdict: "pass", replications: 1, tolerance: { mean: 0.1, p50: 0.1, p95: 0.1, p99: 0.2 } };
    expect(verdictLine(mixed)).toBe("The model passes within mean ±10%, p50 ±10%, p95 ±10%, p99 ±20%, one run (no simulated interval: rerun with replications).");
    expect(verdictLine({ overall, services: null })).toBe("");
  });
  it("give throughputs and the KS test under the counts, and error bars to the chart", () => {
    expect(countsText(v.services[0])).toBe("100 observed, 100 simulated; 50 vs 49.5 /s; KS D 0.150, p 0.970");
    const c = validationChart(v.services[0]);
    expect(c.errors[0]).toEqual([{ lo: 9.5, hi: 10.5 }, undefined, undefined, { lo: 25, hi: 41.25 }]);
    expect(c.errors[1][0]).toEqual({ lo: 9.9 + 0.1, hi: 10.25 + 0.1 });
  });
});

describe("undecidedLines", () => {
  // By hand, as the CLI's test: A's p99 observed 12.855 in [12.079, 17.311] (relative width 0.407)
  // against simulated 13.577 in [13.027, 14.127] (0.081), relative [-24.7%, 17.0%] against ±20%:
  // more rows, within 25%. B's mean observed 10 in [9.8, 10.2] (0.04) against simulated 11 in
  // [9, 13] (0.364), relative [-11.8%, 32.7%]: more replications, within 35%. C's p50, one run: no
  // simulated interval. A's mean passes: no line.
  const iv = (lo: number, hi: number) => ({ lo, hi });
  const row = (service: string, obs: number, sim: number): ValidationRow => ({
    service,
    observed: summary(100, obs, obs, obs, obs),
    simulated: summary(100, sim, sim, sim, sim),
    relative_error: {},
  });
  const v: Validation = {
    overall: row("", 1, 1),
    verdict: "inconclusive",
    replications: 5,
    tolerance: { mean: 0.1, p50: 0.1, p95: 0.15, p99: 0.2 },
    services: [
      {
        ...row("A", 12.855, 13.577),
        observed_ci: { mean: iv(12.8, 12.9), p99: iv(12.079, 17.311) },
        simulated_ci: { mean: iv(13.5, 13.6), p99: iv(13.027, 14.127) },
        relative_ci: { mean: iv(-0.03, 0.03), p99: iv(-0.247, 0.17) },
        verdicts: { mean: "pass", p50: "pass", p95: "pass", p99: "inconclusive" },
      },
      {
        ...row("B", 10, 11),
        observed_ci: { mean: iv(9.8, 10.2) },
        simulated_ci: { mean: iv(9, 13) },
        relative_ci: { mean: iv(-0.118, 0.327) },
        verdicts: { mean: "inconclusive", p50: "pass", p95: "pass", p99: "pass" },
      },
      {
        ...row("C", 4, 4.5),
        observed_ci: { p50: iv(3.9, 4.1) },
        relative_ci: { p50: iv(0.097, 0.154) },
        verdicts: { mean: "pass", p50: "inconclusive", p95: "pass", p99: "pass" },
      },
    ],
  };
  it("says which interval is the wider and the tolerance the rows and runs judge within", () => {
    expect(undecidedLines(v)).toEqual([
      "A p99 is inconclusive (its relative interval straddles ±20%): more rows would narrow the observed interval, the wider (a longer log, or a window starting earlier); these rows and runs judge it within ±25%.",
      "B mean is inconclusive (its relative interval straddles ±10%): more replications would narrow the simulated interval, the wider; these rows and runs judge it within ±35%.",
      "C p50 is inconclusive (its relative interval straddles ±10%): one run gives the simulated figure no interval: rerun with replications; these rows and runs judge it within ±20%.",
    ]);
  });
  it("says when no tolerance the validation takes would judge it", () => {
    const wide = { ...v.services![0], relative_ci: { p99: iv(-0.5, 12) } };
    expect(undecidedLines({ ...v, services: [wide] })).toEqual([
      "A p99 is inconclusive (its relative interval straddles ±20%): more rows would narrow the observed interval, the wider (a longer log, or a window starting earlier); no tolerance the validation takes (up to 1000%) judges it with these rows and runs.",
    ]);
  });
  it("says nothing of a validation that passes", () => {
    expect(undecidedLines({ ...v, services: [{ ...v.services![0], verdicts: { mean: "pass", p50: "pass", p95: "pass", p99: "pass" } }] })).toEqual([]);
  });
});
