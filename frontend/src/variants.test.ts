import { describe, expect, it } from "vitest";
import { getResource, specProblem, variantsFor } from "./variants";
import type { Scenario } from "./types";

const ubb = `# app
*RESOURCES
IPCKEY 1
MODEL  SHM
LDBAL  Y   # balance

*MACHINES
"h" LMID=site1
`;

describe("getResource", () => {
  const cases: [string, string, string][] = [
    [ubb, "LDBAL", "Y"],
    [ubb, "MODEL", "SHM"],
    [ubb, "ldbal", "Y"],
    [ubb, "MASTER", ""],
    ["*MACHINES\nLDBAL Y\n", "LDBAL", ""],
    ['*RESOURCES\nMASTER "site1"\n', "MASTER", "site1"],
  ];
  for (const [text, key, want] of cases) {
    it(`${key} in ${JSON.stringify(text.slice(0, 20))}`, () => expect(getResource(text, key)).toBe(want));
  }
});

describe("variantsFor", () => {
  const sc: Scenario = { ubbconfig: ubb, workload: {}, policy: "tuxedo" };

  it("starts with the baseline and flips LDBAL and MODEL", () => {
    const specs = variantsFor(sc).map((v) => v.spec);
    expect(specs[0]).toBe("");
    expect(specs).toEqual([
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

  it("offers the other readings of what is set", () => {
    const specs = variantsFor({ ...sc, ubbconfig: "*RESOURCES\nMODEL MP\n", policy: "jsq", tuning: { idle: "queue", mp_counter: "load" } }).map((v) => v.spec);
    expect(specs).toContain("ldbal=Y"); // LDBAL defaults to N
    expect(specs).toContain("model=SHM");
    expect(specs).toContain("policy=tuxedo");
    expect(specs).not.toContain("policy=jsq");
    expect(specs).toContain("tuning.idle=server");
    expect(specs).toContain("tuning.mp_counter=load+netload");
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
