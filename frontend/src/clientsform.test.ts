import { describe, expect, it } from "vitest";
import { nameProblem } from "./clientsform";

describe("nameProblem", () => {
  it("says what the engine refuses in a client set's name", () => {
    expect(nameProblem("tellers", ["batch"])).toBe("");
    expect(nameProblem("", [])).toMatch(/a name is needed/);
    for (const bad of ["a:b", "a~b", "a.b", "a,b", 'a"b']) expect(nameProblem(bad, [])).toMatch(/no : ~ \. ,/);
    expect(nameProblem("batch", ["batch"])).toBe("another set has this name");
  });
});
