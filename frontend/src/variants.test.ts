import { describe, expect, it } from "vitest";
import { specProblem, variantsFor } from "./variants";
import type { Model, Scenario } from "./types";

const ubb = `*RESOURCES
MODEL  SHM
LDBAL  Y   # balance
*MACHINES
"h" LMID=site1
`;

/** modelOf is a parsed model with only what variantsFor reads set. */
function modelOf(model: string, ldbal: boolean): Model {
  return { model, ldbal, master: "", scanunit_us: 10_000_000, sanityscan: 12, blocktime: 6, machines: [], groups: [], servers: [], queues: [], services: [] };
}

describe("variantsFor", () => {
  const sc: Scenario = { ubbconfig: ubb, workload: {}, policy: "tuxedo" };

  it("starts with the baseline and flips LDBAL and MODEL as the parsed model has them", () => {
    const vs = variantsFor(sc, modelOf("SHM", true));
    expect(vs[0]).toEqual({ id: "baseline", label: "as written (SHM, LDBAL Y, tuxedo)", spec: "" });
    expect(vs.map((v) => v.spec)).toEqual([
      "",
      "ldbal=N",
      "model=MP",
      "policy=round_robin",
      "policy=random",
      "policy=jsq",
      "policy=p2c",
      "tuning.idle=queue",
      "tuning.netload=origin",
      "tuning.mp_counter=load",
    ]);
  });

  it("reads the model, not the text", () => {
    // The text says SHM and LDBAL Y; the model (what the Go parser read) wins.
    const specs = variantsFor({ ...sc, policy: "jsq", tuning: { idle: "queue", mp_counter: "load" } }, modelOf("MP", false)).map((v) => v.spec);
    expect(specs).toContain("ldbal=Y");
    expect(specs).toContain("model=SHM");
    expect(specs).toContain("policy=tuxedo");
    expect(specs).not.toContain("policy=jsq");
    expect(specs).toContain("tuning.idle=server");
    expect(specs).toContain("tuning.mp_counter=load+netload");
  });

  it("assumes the defaults without claiming them when there is no model", () => {
    const vs = variantsFor(sc, null);
    expect(vs[0].label).toBe("as written (tuxedo)");
    expect(vs.map((v) => v.spec)).toContain("ldbal=Y");
    expect(vs.map((v) => v.spec)).toContain("model=MP");
  });
});

describe("specProblem", () => {
  const cases: [string, boolean][] = [
    ["ldbal=N", true],
    ["network.latency_ms=2,policy=p2c", true],
    ["", false],
    ["ldbal", false],
    ["=N", false],
    ["ldbal=N,", false],
  ];
  for (const [spec, ok] of cases) it(JSON.stringify(spec), () => expect(specProblem(spec) === "").toBe(ok));
});
