import { describe, expect, it } from "vitest";
import fixture from "./testdata/optimize-mssq.json";
import { configLabel, decisionText, estimateRows, fraction, guaranteeParts, lines, optimizeSpec, rejectedRow, report, runnerUpRow, spendingText } from "./optimizedata";
import type { Optimization, SweepOptConfig, SweepOptEstimate } from "./types";

const form = { vary: "", objectives: "", costs: "", pcs: "", epsilon: "" };

describe("optimizeSpec", () => {
  it("reads one line per key, objective and cost, comments and blank lines left out", () => {
    const got = optimizeSpec({
      ...form,
      vary: "SERVERS.quotesrv.MIN=1..4/1\n\n# the policy too\npolicy=tuxedo,jsq\n",
      objectives: " wait_mean_ms<=50 \r\nresponse_p99_ms[QUOTE]<=400",
      costs: "SERVERS.quotesrv.MIN=2",
      pcs: "0.9",
      epsilon: "10%",
    });
    expect(got).toEqual({
      spec: {
        vary: ["SERVERS.quotesrv.MIN=1..4/1", "policy=tuxedo,jsq"],
        objectives: ["wait_mean_ms<=50", "response_p99_ms[QUOTE]<=400"],
        costs: ["SERVERS.quotesrv.MIN=2"],
        pcs: 0.9,
        epsilon: 0.1,
      },
    });
  });
  it("leaves the knobs out when blank (the core's defaults)", () => {
    expect(optimizeSpec({ ...form, vary: "rate_scale=1,2", objectives: "wait_mean_ms<=5" })).toEqual({ spec: { vary: ["rate_scale=1,2"], objectives: ["wait_mean_ms<=5"] } });
  });
  it("names the box and line at fault", () => {
    const err = (f: Partial<typeof form>) => {
      const r = optimizeSpec({ ...form, vary: "rate_scale=1,2", objectives: "wait_mean_ms<=5", ...f });
      return "error" in r ? r.error : "";
    };
    expect(err({ vary: "" })).toMatch(/^Vary: give at least one/);
    expect(err({ vary: "a=1\nb=2\nc=3" })).toMatch(/one or two keys/);
    expect(err({ vary: "rate_scale=1\npolicy" })).toMatch(/^Vary, line 2: "policy"/);
    expect(err({ objectives: "" })).toMatch(/^Objectives: give at least one/);
    expect(err({ objectives: "wait_mean_ms<=5\nwait_p99_ms=3" })).toMatch(/^Objectives, line 2: .* no <= or >=/);
    expect(err({ costs: "SERVERS.a.MIN" })).toMatch(/^Cost, line 1/);
    expect(err({ pcs: "0.4" })).toMatch(/^PCS/);
    expect(err({ pcs: "1" })).toMatch(/^PCS/);
    expect(err({ epsilon: "150%" })).toMatch(/^ε/);
    expect(err({ epsilon: "five" })).toMatch(/^ε/);
  });
});

describe("fraction and lines", () => {
  it("reads a percentage or a plain fraction", () => {
    expect(fraction("5%")).toBeCloseTo(0.05, 12);
    expect(fraction(" 0.05 ")).toBe(0.05);
    expect(fraction("12.5 %")).toBeCloseTo(0.125, 12);
    expect(fraction("")).toBeNaN();
    expect(fraction("5%%")).toBeNaN();
    expect(fraction("0x10")).toBeNaN();
  });
  it("drops blank and comment lines", () => {
    expect(lines("a\n  \n# no\n b ")).toEqual(["a", "b"]);
  });
});

// A hand-made report over one key: MIN=1 rejected by the first-stage screen,
// MIN=2 chosen, MIN=3 left undecided, MIN=4 never run.
function estimate(over: Partial<SweepOptEstimate>): SweepOptEstimate {
  return { objective: "wait_mean_ms<=10", mean: 5, ci95: 0.5, decision: "feasible", decided_at: 20, verdict: "yes", ...over };
}
function config(min: number, over: Partial<SweepOptConfig>): SweepOptConfig {
  return { index: min - 1, values: { "SERVERS.s.MIN": min }, cost: 2 * min, status: "feasible", replications: 20, objectives: [estimate({})], ...over };
}
// fmt: 31.25 to two decimals (between 1 and 100), 4 an integer
const missed = estimate({ mean: 31.25, ci95: 4, decision: "infeasible", decided_at: 10, screened: true, verdict: "no" });
const hand: Optimization = {
  engine_version: "0",
  keys: [{ key: "SERVERS.s.MIN", values: [1, 2, 3, 4] }],
  objectives: [{ objective: "wait_mean_ms<=10", figure: "wait_mean_ms", limit: 10, epsilon: 0.5 }],
  cost: "2 × SERVERS.s.MIN",
  method: { procedure: "p", pcs: 0.95, epsilon_rel: 0.05, first_stage: 10, batch: 5, window: 2, max_replications: 100, decisions: 4, alpha_per_decision: 0.0125, h2: 1, t_screen: 1, t_cap: 1 },
  seeds: [],
  feasible: true,
  chosen: config(2, { ubbconfig_diff: ["-14: simpserv MIN=1", "+14: simpserv MIN=2"] }),
  rejected: [config(1, { status: "infeasible", replications: 10, objectives: [missed], missed })],
  runners_up: [config(3, { status: "undecided", replications: 15, objectives: [estimate({ decision: "undecided", decided_at: undefined })] })],
  not_examined: 1,
  // 45 spent; 4 configurations × 20 (the most any needed) = 80
  replications: { spent: 45, most_needed: 20, full_grid: 80 },
  guarantee: "With probability at least 95%…",
};

describe("report", () => {
  it("states the choice, its estimates, why each cheaper one was rejected, the runners-up and the spending", () => {
    const r = report(hand);
    expect(r.headline).toBe("Chosen: SERVERS.s.MIN=2, cost 4.");
    expect(r.chosen).toEqual({
      label: "SERVERS.s.MIN=2",
      cost: "4",
      replications: 20,
      rows: [{ objective: "wait_mean_ms<=10", interval: "5 ± 0.500", decision: "feasible after 20 replications", tone: "met" }],
      diff: ["-14: simpserv MIN=1", "+14: simpserv MIN=2"],
    });
    expect(r.rejected).toEqual([
      { label: "SERVERS.s.MIN=1", cost: "2", replications: 10, why: "misses wait_mean_ms<=10: 31.25 ± 4, infeasible after 10 replications (first-stage t-test)" },
    ]);
    expect(r.runnersUp).toEqual([{ label: "SERVERS.s.MIN=3", cost: "6", replications: 15, why: "undecided when the search stopped" }]);
    expect(r.notExamined).toBe(1);
    // (80 − 45) / 80 = 43.75% → 44%
    expect(r.spending).toBe("45 replications spent; the full grid of 4 configurations, each run to the most any needed (20), is 80 (44% fewer).");
    expect(r.objectives).toEqual(["wait_mean_ms<=10 (ε = 0.500)"]);
  });
  it("shows the closest configuration when none meets every objective", () => {
    const closest = config(4, { status: "infeasible", worst_violation: 0.125, missed, objectives: [missed] });
    const r = report({ ...hand, feasible: false, chosen: null, closest, rejected: [hand.rejected![0], closest], runners_up: [] });
    expect(r.headline).toBe("No configuration of the grid meets every objective; the closest is SERVERS.s.MIN=4 (worst relative violation 12.5%).");
    expect(r.chosen?.label).toBe("SERVERS.s.MIN=4");
    expect(r.chosen?.rows[0].tone).toBe("missed");
    expect(r.rejected).toHaveLength(2);
  });
  it("words each way a decision is made as the CLI's text report does", () => {
    expect(decisionText(estimate({ decision: "undecided" }))).toBe("undecided");
    expect(decisionText(estimate({ decision: "infeasible", capped: true, decided_at: 100 }))).toBe("infeasible at the cap of 100 replications (by the sum's sign, outside the guarantee)");
    expect(decisionText(estimate({ cap_test: true, decided_at: 100 }))).toBe("feasible after 100 replications (t-test at the cap)");
    expect(estimateRows(config(1, { objectives: [estimate({ decision: "undecided" })] }))[0].tone).toBe("open");
  });
  it("labels a configuration of two keys in the keys' order", () => {
    const two = { ...hand, keys: [{ key: "policy", values: ["tuxedo"] }, { key: "SERVERS.s.MIN", values: [1] }] };
    expect(configLabel(two, config(1, { values: { "SERVERS.s.MIN": 1, policy: "tuxedo" } }))).toBe("policy=tuxedo SERVERS.s.MIN=1");
  });
});

describe("a report of tuxlb optimize --format json", () => {
  const r = fixture as unknown as Optimization;
  it("shapes every configuration the CLI reported", () => {
    const got = report(r);
    expect(got.chosen?.label).toBe(configLabel(r, r.chosen!));
    expect(got.rejected.map((x) => x.label)).toEqual(r.rejected!.map((c) => configLabel(r, c)));
    // every rejected configuration names the objective it was declared to miss
    got.rejected.forEach((x, i) => expect(x.why.startsWith(`misses ${r.rejected![i].missed!.objective}: `)).toBe(true));
    expect(got.runnersUp).toHaveLength(r.runners_up!.length);
    expect(rejectedRow(r, r.rejected![0]).replications).toBe(r.rejected![0].replications);
    expect(spendingText(r).startsWith(`${r.replications.spent} replications spent`)).toBe(true);
    expect(got.guarantee).toBe(r.guarantee);
    if (r.runners_up!.length) expect(runnerUpRow(r, r.runners_up![0]).label).toBe(configLabel(r, r.runners_up![0]));
  });
});

describe("guaranteeParts", () => {
  it("keeps the probability statement first and folds the sentences after it", () => {
    const g =
      "With probability at least 95%, when the objectives' figures are normal enough: no configuration cheaper than MIN=2 meets every objective by more than ε (5% of each limit), and MIN=2 meets every objective within ε. " +
      "The means and 95% half-widths shown are over the replications the search stopped on. " +
      "For those, run MIN=2 again on other seeds: tuxlb compare --no-baseline --variant 'MIN=2,seed=2' --replications 20 with the same objectives.";
    const p = guaranteeParts(g);
    expect(p.lead).toBe(
      "With probability at least 95%, when the objectives' figures are normal enough: no configuration cheaper than MIN=2 meets every objective by more than ε (5% of each limit), and MIN=2 meets every objective within ε.",
    );
    expect(p.more).toEqual([
      "The means and 95% half-widths shown are over the replications the search stopped on.",
      "For those, run MIN=2 again on other seeds: tuxlb compare --no-baseline --variant 'MIN=2,seed=2' --replications 20 with the same objectives.",
    ]);
    expect(guaranteeParts("One sentence.")).toEqual({ lead: "One sentence.", more: [] });
  });
});
