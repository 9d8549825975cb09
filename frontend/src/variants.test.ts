import { describe, expect, it } from "vitest";
import { getResource, setResource, variantsFor } from "./variants";
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
  ];
  for (const [text, key, want] of cases) {
    it(`${key} in ${JSON.stringify(text.slice(0, 20))}`, () => expect(getResource(text, key)).toBe(want));
  }
});

describe("setResource", () => {
  it("rewrites an existing line in place", () => {
    const got = setResource(ubb, "LDBAL", "N");
    expect(got).toBe(ubb.replace("LDBAL  Y   # balance", "LDBAL N"));
  });

  it("adds a missing parameter right after the header", () => {
    const got = setResource(ubb, "MASTER", "site1");
    expect(got.split("\n").slice(1, 3)).toEqual(["*RESOURCES", "MASTER site1"]);
    expect(getResource(got, "MASTER")).toBe("site1");
  });

  it("does not touch a same-named word in another section", () => {
    const text = "*RESOURCES\nMODEL SHM\n*SERVICES\nLDBAL LOAD=1\n";
    expect(setResource(text, "LDBAL", "Y")).toBe("*RESOURCES\nLDBAL Y\nMODEL SHM\n*SERVICES\nLDBAL LOAD=1\n");
  });

  it("adds the section when there is none", () => {
    expect(setResource("*MACHINES\n", "MODEL", "MP")).toBe("*RESOURCES\nMODEL MP\n\n*MACHINES\n");
  });
});

describe("variantsFor", () => {
  const sc: Scenario = { ubbconfig: ubb, workload: {}, policy: "tuxedo" };

  it("starts with the baseline and flips LDBAL and MODEL", () => {
    const vs = variantsFor(sc);
    expect(vs[0].id).toBe("baseline");
    expect(vs[0].apply(sc)).toBe(sc);
    const ids = vs.map((v) => v.id);
    expect(ids).toContain("ldbal-N");
    expect(ids).toContain("model-MP");
    const flipped = vs.find((v) => v.id === "ldbal-N")!.apply(sc);
    expect(getResource(flipped.ubbconfig, "LDBAL")).toBe("N");
    expect(sc.ubbconfig).toBe(ubb); // the original is untouched
  });

  it("offers the other policies and tuning readings", () => {
    const vs = variantsFor({ ...sc, policy: "jsq", tuning: { idle: "queue" } });
    const ids = vs.map((v) => v.id);
    expect(ids).not.toContain("policy-jsq");
    expect(ids).toContain("policy-tuxedo");
    expect(ids).toContain("idle-server");
    const v = vs.find((x) => x.id === "netload-origin")!.apply({ ...sc, tuning: { idle: "queue" } });
    expect(v.tuning).toEqual({ idle: "queue", netload: "origin" });
  });
});
