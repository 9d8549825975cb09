import { describe, expect, it } from "vitest";
import { distParams } from "./inputs";
import vocabulary from "./vocabulary.json";

// vocabulary.json is written from the Go core (go test ./frontend -update) and a
// Go test keeps it equal to core's tables; these tests keep the page's own
// per-value tables complete against it.
describe("vocabulary", () => {
  it("has a parameter list for every distribution the engine knows", () => {
    expect(Object.keys(distParams).sort()).toEqual([...vocabulary.dist].sort());
  });
  it("offers the policies in the engine's order, tuxedo first", () => {
    expect(vocabulary.policy[0]).toBe("tuxedo");
  });
});
