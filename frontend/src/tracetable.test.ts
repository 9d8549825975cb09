import { describe, expect, it } from "vitest";
import { elideTrace, restoreTrace, rowAt, sniffDelimiter, splitRow, traceShape } from "./tracetable";

describe("traceShape", () => {
  it("indexes the rows after the header, leaving blank lines out", () => {
    const text = "\ufefftimestamp;svc;elapsed_ms\r\n2026-11-29 10:00:00,000;BALANCE;4\r\n\r\n2026-11-29 10:00:00,250;DEPOSIT;2\n\n";
    const s = traceShape(text);
    expect([s.rows, s.delimiter, s.columns]).toEqual([2, ";", ["timestamp", "svc", "elapsed_ms"]]);
    expect(rowAt(text, s, 0)).toEqual(["2026-11-29 10:00:00,000", "BALANCE", "4"]);
    expect(rowAt(text, s, 1)).toEqual(["2026-11-29 10:00:00,250", "DEPOSIT", "2"]);
  });

  it("counts a large trace in one pass", () => {
    const n = 300_000;
    const text = "time_ms,service\n" + Array.from({ length: n }, (_, i) => `${i},TOUPPER`).join("\n");
    const s = traceShape(text);
    expect(s.rows).toBe(n);
    expect(rowAt(text, s, n - 1)).toEqual([String(n - 1), "TOUPPER"]);
  });

  it("has no rows for a header alone", () => {
    expect(traceShape("time_ms,service").rows).toBe(0);
    expect(traceShape("time_ms,service\n").rows).toBe(0);
  });
});

describe("sniffDelimiter and splitRow", () => {
  it("pick the delimiter as the core does and honour quotes", () => {
    expect(["a,b;c", "a;b", "a\tb", "a|b", "ab"].map(sniffDelimiter)).toEqual([",", ";", "\t", "|", ","]);
    expect(splitRow('1,"A, B",""x"",3', ",")).toEqual(["1", "A, B", "x", "3"]);
    expect(splitRow('1,"say ""hi""",2', ",")).toEqual(["1", 'say "hi"', "2"]);
  });
});

describe("elideTrace and restoreTrace", () => {
  const trace = "time_ms,service\n" + "1,X\n".repeat(1000);
  const sc = { ubbconfig: "u", workload: { trace_csv: trace } };
  it("hold a long trace back from the JSON tab and put it back on load", () => {
    const { doc, held } = elideTrace(sc, 100);
    expect(doc.workload.trace_csv).toContain("1,000 rows");
    expect(sc.workload.trace_csv).toBe(trace); // the scenario itself is untouched
    const edited = JSON.parse(JSON.stringify({ ...doc, name: "edited" }));
    restoreTrace(edited, held);
    expect(edited).toEqual({ ...sc, name: "edited" });
    const replaced = { ...doc, workload: { trace_csv: "time_ms,service\n0,X\n" } };
    restoreTrace(replaced, held);
    expect(replaced.workload.trace_csv).toBe("time_ms,service\n0,X\n"); // a new trace typed in stays
    expect(elideTrace(sc, 1e6)).toEqual({ doc: sc, held: null });
  });
});
