import { describe, expect, it } from "vitest";
import { formatTraceMap, parseTraceMap, rateScaleProblem, traceMapKeys } from "./tracemap";

describe("traceMapKeys", () => {
  it("are TraceMap's JSON fields in the Go type's order, as --trace-map takes them", () => {
    expect(traceMapKeys).toEqual(["time", "time_unit", "service", "origin", "service_ms", "service_unit", "prio", "id", "route", "buftype", "delimiter", "observed", "date_order", "tz", "status"]);
  });
});

describe("parseTraceMap", () => {
  it("reads key=COLUMN,key=COLUMN as the CLI does, trimming keys and columns", () => {
    expect(parseTraceMap("observed=Elapsed(ms)")).toEqual({ observed: "Elapsed(ms)" });
    expect(parseTraceMap(" time = Timestamp , service=Svc,time_unit=rfc3339,tz=Europe/Paris ")).toEqual({
      time: "Timestamp",
      service: "Svc",
      time_unit: "rfc3339",
      tz: "Europe/Paris",
    });
    expect(parseTraceMap("route=a=b")).toEqual({ route: "a=b" }); // only the first = splits
    expect(parseTraceMap("time=a,time=b")).toEqual({ time: "b" }); // the last wins
    expect(parseTraceMap("status=Return Code,observed=Elapsed(ms)")).toEqual({ status: "Return Code", observed: "Elapsed(ms)" });
  });
  it("takes delimiter=tab (or \\t) as a tab and a delimiter as written", () => {
    expect(parseTraceMap("delimiter=tab")).toEqual({ delimiter: "\t" });
    expect(parseTraceMap("delimiter=\\t")).toEqual({ delimiter: "\t" });
    expect(parseTraceMap("delimiter=;,service=s")).toEqual({ delimiter: ";", service: "s" });
    expect(parseTraceMap("delimiter= ")).toEqual({ delimiter: " " });
  });
  it("is no mapping for empty text, and leaves out keys without a column", () => {
    expect(parseTraceMap("")).toBeNull();
    expect(parseTraceMap("   ")).toBeNull();
    expect(parseTraceMap("observed=")).toEqual({});
  });
  it("names an unknown key and a part that is not key=COLUMN", () => {
    const bad = parseTraceMap("time=ts,elapsed=Elapsed(ms)");
    expect(bad).toHaveProperty("error");
    expect((bad as { error: string }).error).toMatch(/unknown key "elapsed"/);
    expect((bad as { error: string }).error).toContain("observed");
    expect((parseTraceMap("time") as { error: string }).error).toMatch(/"time": want key=COLUMN/);
    expect((parseTraceMap("time=a,") as { error: string }).error).toMatch(/want key=COLUMN/);
    expect((parseTraceMap("=a") as { error: string }).error).toMatch(/want key=COLUMN/);
  });
});

describe("formatTraceMap", () => {
  it("writes the mapping back in TraceMap's order, a tab as tab, and round-trips", () => {
    const m = { observed: "Elapsed(ms)", delimiter: "\t", time: "Timestamp", date_order: "dmy" };
    expect(formatTraceMap(m)).toBe("time=Timestamp,delimiter=tab,observed=Elapsed(ms),date_order=dmy");
    expect(parseTraceMap(formatTraceMap(m))).toEqual(m);
    expect(formatTraceMap(undefined)).toBe("");
    expect(formatTraceMap({})).toBe("");
    expect(formatTraceMap({ status: "rc", time: "ts" })).toBe("time=ts,status=rc");
  });
});

describe("rateScaleProblem", () => {
  it("takes numbers above 0 and empty (1)", () => {
    for (const ok of ["", "1", "0.5", "2.5", "1e1"]) expect(rateScaleProblem(ok)).toBe("");
    for (const bad of ["0", "-1", "x", "Infinity"]) expect(rateScaleProblem(bad)).toMatch(/> 0/);
  });
});
