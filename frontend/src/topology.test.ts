import { describe, expect, it } from "vitest";
import { queueLabel, squeeze } from "./topology";

describe("squeeze", () => {
  it("leaves short text alone", () => {
    expect(squeeze("70", 2, 18)).toEqual({});
  });
  it("fits a 3-digit SRVID into its circle", () => {
    expect(squeeze("100", 2, 18)).toEqual({ textLength: "18", lengthAdjust: "spacingAndGlyphs" });
  });
});

describe("queueLabel", () => {
  it("shortens long queue names and adds the share", () => {
    expect(queueLabel("WORKSTATION/10", 0)).toBe("WORKSTATION/… 0.0%");
    expect(queueLabel("APPGRP1/1", undefined)).toBe("APPGRP1/1");
  });
});
