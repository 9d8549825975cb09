import { describe, expect, it } from "vitest";
import { queueLabel, squeeze, tmsQueues } from "./topology";
import type { Result } from "./types";

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

describe("tmsQueues", () => {
  it("draws a group's TMS servers as one MSSQ queue from the result, none without a result", () => {
    const sv = (id: string, group: string, queue: string, tms: boolean) => ({ id, group, queue, tms });
    const r = {
      servers: [sv("G1/1", "G1", "G1/1", false), sv("G1/30001", "G1", "G1/TMS", true), sv("G1/30002", "G1", "G1/TMS", true), sv("QG/30001", "QG", "QG/TMS", true)],
    } as unknown as Result;
    expect(tmsQueues(r, "G1")).toEqual([
      {
        name: "G1/TMS",
        servers: [
          { id: "G1/30001", srvid: 30001, system: true, gateway: false },
          { id: "G1/30002", srvid: 30002, system: true, gateway: false },
        ],
      },
    ]);
    expect(tmsQueues(r, "G2")).toEqual([]);
    expect(tmsQueues(null, "G1")).toEqual([]);
  });
});
