import { describe, expect, it } from "vitest";
import { Store, type StoreEvent } from "./store";

describe("Store", () => {
  it("starts with the page's empty state", () => {
    const s = new Store();
    expect(s.scenario).toEqual({ ubbconfig: "", workload: {} });
    expect([s.model, s.result, s.resultText, s.resultScenario]).toEqual([null, null, "", ""]);
    expect(s.parked).toEqual({ services: {}, streams: [], events: [] });
    expect(s.own).toEqual({});
  });

  it("calls each listener once per emit, in the order they subscribed, only for its kind", () => {
    const s = new Store();
    const got: string[] = [];
    s.on("scenario", () => got.push("scenario 1"));
    s.on("result", () => got.push("result"));
    s.on("scenario", () => got.push("scenario 2"));
    s.on("model", () => got.push("model"));
    s.emit("scenario");
    expect(got).toEqual(["scenario 1", "scenario 2"]);
    got.length = 0;
    for (const k of ["model", "result", "scenario"] as StoreEvent[]) s.emit(k);
    expect(got).toEqual(["model", "result", "scenario 1", "scenario 2"]);
  });

  it("lets a listener read what changed", () => {
    const s = new Store();
    let seen = "";
    s.on("result", () => (seen = s.resultText));
    s.resultText = "{}";
    s.emit("result");
    expect(seen).toBe("{}");
  });

  it("stops calling a listener once unsubscribed, and only that subscription", () => {
    const s = new Store();
    const got: string[] = [];
    const same = () => got.push("same");
    const off1 = s.on("model", same);
    s.on("model", same); // the same function twice: two subscriptions
    const offOther = s.on("model", () => got.push("other"));
    s.emit("model");
    expect(got).toEqual(["same", "same", "other"]);
    off1();
    offOther();
    offOther(); // twice is harmless
    got.length = 0;
    s.emit("model");
    expect(got).toEqual(["same"]);
  });

  it("finishes an emit with the listeners it started with", () => {
    const s = new Store();
    const got: string[] = [];
    let offB = () => {};
    s.on("scenario", () => {
      got.push("a");
      offB();
      s.on("scenario", () => got.push("late"));
    });
    offB = s.on("scenario", () => got.push("b"));
    s.emit("scenario");
    expect(got).toEqual(["a", "b"]);
  });
});
