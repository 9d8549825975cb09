import { describe, expect, it } from "vitest";
import { eventTargets, kindOf, lanes, makeEvent, sortEvents, stateAt, statesAt } from "./lifecycle";
import type { Model, Result } from "./types";

const result = (changes: Result["lifecycle"], servers: { id: string; state?: string }[], span = 5000): Result =>
  ({ span_ms: span, lifecycle: changes, servers }) as unknown as Result;

const ch = (at_ms: number, server: string, from: string, to: string, cause = "x") => ({ at_us: at_ms * 1000, at_ms, server, from, to, cause });

describe("events", () => {
  it("reads and makes events of each kind", () => {
    expect(kindOf({ at_ms: 1, shutdown: "G1/2" })).toEqual({ kind: "shutdown", target: "G1/2" });
    expect(makeEvent(5, "boot", "machine:SITE2")).toEqual({ at_ms: 5, boot: "machine:SITE2" });
  });
  it("sorts by time, keeping the listed order at equal times", () => {
    const evs = [makeEvent(300, "kill", "a"), makeEvent(100, "boot", "b"), makeEvent(300, "boot", "c"), makeEvent(100, "kill", "d")];
    expect(sortEvents(evs).map((e) => kindOf(e).target)).toEqual(["b", "d", "a", "c"]);
  });
  it("offers instances, groups and machines as targets", () => {
    const m = {
      servers: [{ id: "G1/1", name: "srv" }],
      groups: [{ name: "G1" }],
      machines: [{ lmid: "SITE1" }],
    } as unknown as Model;
    expect(eventTargets(m).map((t) => t.value)).toEqual(["G1/1", "group:G1", "machine:SITE1"]);
    expect(eventTargets(null)).toEqual([]);
  });
});

describe("state timeline", () => {
  // testdata/spec/75: shutdown while busy, boot, kill, restart cancelled
  const r = result(
    [
      ch(100, "G1/1", "up", "stopping"),
      ch(1000, "G1/1", "stopping", "gone"),
      ch(1500, "G1/1", "gone", "booting"),
      ch(2500, "G1/1", "booting", "up"),
      ch(2600, "G1/1", "up", "down"),
      ch(4000, "G1/1", "down", "restarting"),
      ch(4500, "G1/1", "restarting", "gone"),
    ],
    [{ id: "G1/1", state: "gone" }, { id: "G1/2", state: "up" }],
    4700,
  );
  it("makes one lane per instance from 0 to the span", () => {
    const [a, b] = lanes(r);
    expect(a.segments.map((s) => [s.from_ms, s.to_ms, s.state])).toEqual([
      [0, 100, "up"],
      [100, 1000, "stopping"],
      [1000, 1500, "gone"],
      [1500, 2500, "booting"],
      [2500, 2600, "up"],
      [2600, 4000, "down"],
      [4000, 4500, "restarting"],
      [4500, 4700, "gone"],
    ]);
    expect(b.segments).toEqual([{ from_ms: 0, to_ms: 4700, state: "up" }]);
  });
  it("leaves out instants: a crash noticed at once", () => {
    const q = result([ch(2000, "G1/1", "up", "down"), ch(2000, "G1/1", "down", "restarting"), ch(3000, "G1/1", "restarting", "up")], [{ id: "G1/1" }], 3100);
    expect(lanes(q)[0].segments.map((s) => s.state)).toEqual(["up", "restarting", "up"]);
  });
  it("starts a spare gone", () => {
    const q = result([ch(10000, "G1/3", "gone", "booting"), ch(11000, "G1/3", "booting", "up")], [{ id: "G1/3" }], 20000);
    expect(lanes(q)[0].segments[0]).toEqual({ from_ms: 0, to_ms: 10000, state: "gone" });
  });
  it("tells the state at a time, after the changes of that instant", () => {
    expect(stateAt(r, "G1/1", 50)).toBe("up");
    expect(stateAt(r, "G1/1", 100)).toBe("stopping");
    expect(stateAt(r, "G1/1", 3000)).toBe("down");
    expect(stateAt(r, "G1/2", 3000)).toBe("up");
    expect(statesAt(r, 4600).get("G1/1")).toBe("gone");
    expect(statesAt(result(undefined, [{ id: "x" }]), 0).size).toBe(0);
  });
});
