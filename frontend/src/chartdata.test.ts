import { describe, expect, it } from "vitest";
import fixture from "./testdata/result-mp.json";
import vocabulary from "./vocabulary.json";
import {
  axisSizeFor,
  combine,
  defaultView,
  topLines,
  counterChart,
  differences,
  figureText,
  fmt,
  headline,
  histogramChart,
  histogramOf,
  overlay,
  qDepthChart,
  queueLengthChart,
  serverBars,
  storedFigures,
  capRows,
  totalQueueLength,
} from "./chartdata";
import type { Histogram, Result } from "./types";

const result = fixture as unknown as Result;

describe("headline", () => {
  const hl = {
    issued: 10, completed: 9, failed: 1, timed_out: 2, wait_mean_ms: 1.5, wait_p95_ms: 4, wait_p99_ms: 6, response_mean_ms: 3,
    response_p95_ms: 20, response_p99_ms: 25, response_max_ms: 30, utilization_max: 0.5, jain_utilization: 0.6, network_share: 0.25,
    max_over_mean: 1.2, saturated_machines: 0, span_ms: 900, network_sent: 3, response_p50_ms: 2, throughput_per_s: 10,
  };
  it("lists the figures table's summary rows in its order, with its labels, valued from the result's headline", () => {
    const got = headline({ ...result, headline: hl } as Result);
    expect(got.map((f) => f.name)).toEqual(vocabulary.figures.filter((f) => f.summary).map((f) => f.name));
    const byName = Object.fromEntries(got.map((f) => [f.name, f]));
    expect(byName["utilization_max"]).toEqual({ name: "utilization_max", label: "Busiest server", value: 0.5 });
    expect(byName["span_ms"].label).toBe("Simulated span (ms)");
    expect(byName["max_over_mean"].value).toBe(1.2);
    // figures the table does not mark summary stay out of it
    expect(byName["throughput_per_s"]).toBeUndefined();
  });
  it("computes nothing for a result made before results carried a headline: its figures are missing", () => {
    const got = headline({ ...result, headline: undefined } as unknown as Result);
    expect(got.length).toBeGreaterThan(10);
    for (const f of got) expect(Number.isNaN(f.value), f.name).toBe(true);
    expect(figureText("utilization_max", NaN)).toBe("–");
  });
});

describe("a saved run's figures", () => {
  const hl = {
    issued: 600, completed: 598, failed: 2, timed_out: 0, wait_mean_ms: 1.25, wait_p95_ms: 4, wait_p99_ms: 6,
    response_mean_ms: 3.5, response_p95_ms: 9, response_p99_ms: 12.5, utilization_max: 0.8125, jain_utilization: 0.97,
    network_sent: 150, network_share: 0.25,
  };
  it("are the table's main figures of the summary that the stored headline keeps, labelled and written as the summary has them", () => {
    const got = storedFigures(hl);
    expect(got.map((f) => f.name)).toEqual(["failed", "wait_mean_ms", "response_mean_ms", "response_p99_ms", "utilization_max"]);
    const summary = new Set(headline({ ...result, headline: hl } as Result).map((f) => f.name));
    for (const f of got) expect(summary.has(f.name), f.name).toBe(true); // the page finds each in the summary
    const byName = Object.fromEntries(got.map((f) => [f.name, f]));
    expect(byName["utilization_max"].label).toBe("Busiest server");
    expect(figureText("utilization_max", byName["utilization_max"].value)).toBe("81.3%");
    expect(figureText("network_share", 0.25)).toBe("25.0%");
    expect(figureText("wait_mean_ms", byName["wait_mean_ms"].value)).toBe(fmt(1.25));
    expect(byName["failed"].value).toBe(2);
    expect(figureText("jain_utilization", 0.97)).toBe(fmt(0.97)); // an index, not a share: no percentage
  });
});

describe("time series", () => {
  it("puts bin starts in seconds on x and one line per queue", () => {
    const got = queueLengthChart(result);
    expect(got.labels).toEqual(["G1/1", "G2/1"]);
    expect(got.data).toEqual([
      [0, 1, 2, 3],
      [0, 1, 0.5, 0],
      [0, 0.25, 0, 0],
    ]);
  });

  it("draws one depth line per /Q queue, named QSPACE:Q, none without queue spaces", () => {
    expect(qDepthChart(result)).toBeNull();
    const depth = (series: number[]) => ({ max: 0, mean: 0, series });
    const summary = { count: 0, mean: 0, p50: 0, p95: 0, p99: 0, max: 0 };
    const q = (name: string, series: number[]) => ({ name, enqueued: 0, forwarded: 0, retried: 0, to_error_queue: 0, dropped: 0, depth: depth(series), time_in_queue_ms: summary });
    const withQ = { ...result, qspaces: [{ name: "QS", queues: [q("REQ", [0, 2, 3.5, 1]), q("ERR", [0, 0, 1, 1])] }] } as Result;
    const got = qDepthChart(withQ);
    expect(got?.labels).toEqual(["QS:REQ", "QS:ERR"]);
    expect(got?.data).toEqual([
      [0, 1, 2, 3],
      [0, 2, 3.5, 1],
      [0, 0, 1, 1],
    ]);
  });

  it("sums the queues per bin", () => {
    expect(totalQueueLength(result)).toEqual([0, 1.25, 0.5, 0]);
  });

  it("labels MP counters by machine and queue and marks resets in seconds", () => {
    const got = counterChart(result);
    expect(got?.labels).toEqual(["C site1 → G1/1", "C site1 → G2/1"]);
    expect(got?.resets).toEqual([2]);
    expect(got?.data[1]).toEqual([100, 200, 50, 150]);
  });

  it("has no counter chart without counters", () => {
    const shm = { ...result, series: { ...result.series, mp_counters: undefined } } as Result;
    expect(counterChart(shm)).toBeNull();
  });
});

describe("histogramChart", () => {
  it("uses lower bucket edges and trims empty ends", () => {
    const got = histogramChart(result.services![0]);
    expect(got.data).toEqual([
      [2, 5, 10],
      [3, 4, 2],
    ]);
  });

  it("handles an empty histogram", () => {
    const s = { ...result.services![0], histogram: { bounds_ms: null, counts: null } };
    expect(histogramChart(s).data).toEqual([[], []]);
  });
});

describe("serverBars", () => {
  it("scales requests against the busiest server and utilization absolutely", () => {
    const got = serverBars(result).map((b) => [b.id, b.requestsWidth, b.utilizationWidth]);
    expect(got).toEqual([
      ["G1/1", 100, 50],
      ["G2/1", 50, 25],
      ["G2/2", 0, 0],
    ]);
  });
});

describe("capRows", () => {
  it("keeps the heaviest rows in their order, ties to the first, and counts the rest", () => {
    const rows = [3, 9, 1, 9, 4, 0, 4];
    expect(capRows(rows, 3, (x) => x)).toEqual({ shown: [9, 9, 4], hidden: 4 });
    expect(capRows(rows, 4, (x) => x)).toEqual({ shown: [9, 9, 4, 4], hidden: 3 });
    expect(capRows(rows, 7, (x) => x)).toEqual({ shown: rows, hidden: 0 });
  });
});

describe("overlay", () => {
  const cases = [
    {
      name: "same bins",
      lines: [
        { label: "a", x: [0, 1, 2], y: [1, 2, 3] },
        { label: "b", x: [0, 1, 2], y: [4, 5, 6] },
      ],
      want: [
        [0, 1, 2],
        [1, 2, 3],
        [4, 5, 6],
      ],
    },
    {
      name: "different widths hold the step value",
      lines: [
        { label: "a", x: [0, 1, 2, 3], y: [1, 2, 3, 4] },
        { label: "b", x: [0, 2], y: [10, 20] },
      ],
      want: [
        [0, 1, 2, 3],
        [1, 2, 3, 4],
        [10, 10, 20, 20],
      ],
    },
    {
      name: "a shorter line ends with null",
      lines: [
        { label: "a", x: [0, 1, 2, 3], y: [1, 2, 3, 4] },
        { label: "b", x: [0, 1], y: [7, 8] },
      ],
      want: [
        [0, 1, 2, 3],
        [1, 2, 3, 4],
        [7, 8, null, null],
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => expect(overlay(c.lines).data).toEqual(c.want));
  }
});

describe("differences", () => {
  it("gives relative changes from the first result", () => {
    const base = { ...result, headline: { wait_mean_ms: 1.5 } } as Result;
    const worse = { ...result, headline: { wait_mean_ms: 3 } } as Result;
    const row = differences([base, worse]).find((r) => r.name === "wait_mean_ms")!;
    expect(row.values).toEqual([1.5, 3]);
    expect(row.deltas).toEqual([0, 1]);
  });

  it("has no relative change from a zero baseline", () => {
    const a = { ...result, headline: { timed_out: 0 } } as Result;
    const b = { ...result, headline: { timed_out: 2 } } as Result;
    const row = differences([a, b]).find((r) => r.name === "timed_out")!;
    expect(row.deltas).toEqual([0, null]);
  });
});

describe("fmt", () => {
  const cases: [number | null, string][] = [
    [3, "3"],
    [1234.567, "1234.6"],
    [12.345, "12.35"],
    [0.012345, "0.0123"],
    [null, "–"],
    [NaN, "–"],
  ];
  for (const [n, want] of cases) it(String(n), () => expect(fmt(n)).toBe(want));
});

describe("axisSizeFor", () => {
  const measure = (t: string) => t.length * 7; // 7 px per character
  it("keeps uPlot's 50 px for short labels", () => {
    expect(axisSizeFor(["0", "50", "100"], measure)).toBe(50);
  });
  it("widens to the longest label", () => {
    expect(axisSizeFor(["0", "100,000", "200,000"], measure)).toBe(49 + 19);
  });
  it("ignores missing labels", () => {
    expect(axisSizeFor(["", "1,000,000"], measure)).toBe(63 + 19);
  });
});

describe("large applications", () => {
  const lines = [
    { name: "G1/1", values: [1, 1] },
    { name: "G1/2", values: [0, 0.5] },
    { name: "G2/1", values: [0.2, 0.2] },
    { name: "G3/1", values: [0.9, 0.7] },
  ];
  it("combines lines by key, as a mean or a sum", () => {
    const group = (n: string) => n.split("/")[0];
    expect(combine(lines, group, "mean")).toEqual([
      { name: "G1 (2, mean)", values: [0.5, 0.75] },
      { name: "G2", values: [0.2, 0.2] },
      { name: "G3", values: [0.9, 0.7] },
    ]);
    expect(combine(lines, group, "sum")[0]).toEqual({ name: "G1 (2)", values: [1, 1.5] });
  });
  it("keeps the top n by average, in their order, and folds the rest", () => {
    // Averages: G1/1 1, G1/2 0.25, G2/1 0.2, G3/1 0.8: the top 2 are G1/1 and G3/1.
    expect(topLines(lines, 2, "sum")).toEqual([
      { name: "G1/1", values: [1, 1] },
      { name: "G3/1", values: [0.9, 0.7] },
      { name: "2 others", values: [0.2, 0.7] },
    ]);
    expect(topLines(lines, 0, "sum")).toBe(lines);
    expect(topLines(lines, 4, "sum")).toBe(lines);
  });
  it("groups only large applications by default", () => {
    expect(defaultView(10)).toEqual({ by: "each", top: 0 });
    expect(defaultView(30)).toEqual({ by: "group", top: 8 });
  });
});

describe("compare colours", () => {
  it("follow better and worse", async () => {
    const { changeClass } = await import("./compareview");
    // the direction is the figures table's, for every figure it names
    expect(changeClass("wait_mean_ms", 0.2)).toBe("worse");
    expect(changeClass("wait_mean_ms", -0.2)).toBe("better");
    expect(changeClass("jain_utilization", 0.1)).toBe("better");
    expect(changeClass("jain_utilization", -0.1)).toBe("worse");
    expect(changeClass("completed", 0.1)).toBe("better");
    expect(changeClass("max_over_mean", 0.1)).toBe("worse");
    expect(changeClass("issued", 0.1)).toBe("");
    expect(changeClass("span_ms", 0.1)).toBe("");
    expect(changeClass("network_share", 0)).toBe("");
  });
});

describe("histogramOf", () => {
  it("draws the transactions' commit times as a service's responses are drawn: the non-empty range, each bucket from its lower edge", () => {
    expect(histogramOf("commits", { bounds_ms: [1, 2, 3, 4], counts: [0, 5, 0, 2] })).toEqual({ labels: ["commits"], data: [[1, 2, 3], [5, 0, 2]] });
    expect(histogramOf("commits", { bounds_ms: null, counts: null } as unknown as Histogram)).toEqual({ labels: ["commits"], data: [[], []] });
  });
});
