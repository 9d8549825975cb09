import { describe, expect, it } from "vitest";
import {
  callEdges,
  callGraph,
  clientIDText,
  clientTargets,
  clientValue,
  edgeText,
  formatScript,
  lineage,
  machineMarks,
  parseClientID,
  parseScript,
  scriptService,
} from "./appdata";
import type { Model, Result, Scenario, ScriptEntry } from "./types";
import bankappJSON from "../../examples/bankapp-transfer.json";
import deadlockJSON from "../../examples/self-call-deadlock.json";

const bankapp = bankappJSON as Scenario;
const deadlock = deadlockJSON as Scenario;

describe("callEdges", () => {
  it("lists bankapp's TRANSFER calls in order, with their mode and the child's route", () => {
    expect(callEdges(bankapp)).toEqual([
      { from: "TRANSFER", to: "WITHDRAWAL", step: 1, mode: "tpcall", p: 1, route: "inherited" },
      { from: "TRANSFER", to: "DEPOSIT", step: 2, mode: "tpcall", p: 1, route: "uniform 10000..79999" },
    ]);
  });
  it("says a step in words, leaving the defaults out", () => {
    const sc = {
      ubbconfig: "",
      workload: {},
      services: { A: { calls: [{ service: "B", mode: "tpacall", p: 0.3, route: 10500 }, { service: "C", route: "inherit" }, { service: "D", route: { values: [1, 2] } }] } },
    } as Scenario;
    expect(callEdges(sc).map(edgeText)).toEqual(["step 1, tpacall, p 0.3, route = 10500", "step 2, tpcall", "step 3, tpcall, route one of 2 values"]);
  });
});

describe("callGraph", () => {
  it("puts the tellers first, the services they ask for next, and the called services after their caller", () => {
    const g = callGraph(bankapp, null);
    const at = Object.fromEntries(g.nodes.map((n) => [n.label, [n.col, n.row]]));
    expect(at).toEqual({ "tellers ×120": [0, 0], TRANSFER: [1, 0], INQUIRY: [1, 1], WITHDRAWAL: [2, 0], DEPOSIT: [2, 1] });
    expect(g.edges.map((e) => `${e.from} -> ${e.to} ${e.label}`)).toEqual([
      "clients:0 -> svc:TRANSFER 33.3%",
      "clients:0 -> svc:INQUIRY 66.7%",
      "svc:TRANSFER -> svc:WITHDRAWAL 1. tpcall",
      "svc:TRANSFER -> svc:DEPOSIT 2. tpcall",
    ]);
    expect([g.cols, g.rows]).toEqual([3, 2]);
  });
  it("flags a call whose callee waits in the caller's own queue", () => {
    const m = { servers: [{ id: "SHOP/1", queue: "shopq", services: ["ORDER", "PRICE"] }] } as unknown as Model;
    const g = callGraph(deadlock, m);
    const e = g.edges.find((x) => x.to === "svc:PRICE")!;
    expect(e.warn).toMatch(/queue shopq/);
    expect(g.nodes.find((n) => n.label === "PRICE")!.sub).toBe("queue shopq, 1 server");
  });
  it("draws a cycle's closing call backwards instead of looping forever", () => {
    const sc = { ubbconfig: "", workload: {}, services: { A: { calls: [{ service: "B" }] }, B: { calls: [{ service: "A" }] } } } as Scenario;
    const g = callGraph(sc, null);
    expect(g.edges.filter((e) => e.back).length).toBe(1);
  });
});

describe("client sets", () => {
  it("share their requests by weight, or by script entries", () => {
    expect(clientTargets(bankapp.workload.generate!.clients![0]).map((t) => [t.service, t.share.toFixed(3)])).toEqual([
      ["TRANSFER", "0.333"],
      ["INQUIRY", "0.667"],
    ]);
    expect(clientTargets({ name: "b", count: 1, script: ["CLOSE", { service: "REPORT", route: 1 }, "CLOSE", "X"] })).toEqual([
      { service: "CLOSE", share: 0.5 },
      { service: "REPORT", share: 0.25 },
      { service: "X", share: 0.25 },
    ]);
  });
  it("read a script written as text and write it back", () => {
    const script = parseScript("CLOSE, REPORT=10500, OPEN='007', NOTE=ACME");
    expect(script).toEqual(["CLOSE", { service: "REPORT", route: 10500 }, { service: "OPEN", route: "007" }, { service: "NOTE", route: "ACME" }]);
    expect(formatScript(script as never)).toBe("CLOSE, REPORT=10500, OPEN='007', NOTE=ACME");
    expect(parseScript("A,,B")).toEqual({ error: "entry 2 is empty" });
    expect(parseScript("=5")).toEqual({ error: "entry 1: no service before =" });
    expect(parseScript("A=")).toEqual({ error: "entry 1: no value after =" });
    expect(parseScript(" ")).toEqual({ error: "give at least one service" });
  });
});

describe("parseClientID", () => {
  it("takes client ids apart: set, client, request, retry, nested steps", () => {
    expect(parseClientID("tellers:3:17")).toEqual({ set: "tellers", client: 3, n: 17, retry: 0, steps: [] });
    expect(parseClientID("tellers:3:17~1")).toEqual({ set: "tellers", client: 3, n: 17, retry: 1, steps: [] });
    expect(parseClientID("tellers:62:0.2.1")).toEqual({ set: "tellers", client: 62, n: 0, retry: 0, steps: [2, 1] });
    expect(clientIDText(parseClientID("tellers:3:17~2")!)).toBe("client 3 of tellers, its request 17 (retry 2)");
  });
  it("knows other ids are not clients'", () => {
    expect(parseClientID("17")).toBeNull();
    expect(parseClientID("a:b:c")).toBeNull();
    expect(parseClientID("batch:1:2", ["tellers"])).toBeNull();
  });
});

describe("lineage", () => {
  const log = `id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason,parent
tellers:48:0,INQUIRY,SITE1,7388,BANKB2/1,tlr2,9388,9388,9779,11779,least-load,
tellers:62:0,TRANSFER,SITE1,8709,BANKB2/10,xfer2,10709,10709,21373,23373,least-load,
tellers:62:0.1,WITHDRAWAL,SITE2,12125,BANKB2/2,tlr2,12125,12125,15022,15022,idle,tellers:62:0
"a,b",INQUIRY,SITE1,13000,BANKB1/1,tlr1,13000,13000,14000,14000,idle,
tellers:62:0.2,DEPOSIT,SITE2,15022,BANKB1/1,tlr1,17022,17022,19373,21373,TPESVCERR,tellers:62:0
"a,b.1",AUDIT,SITE1,14000,BANKB1/2,tlr1,14000,14000,15000,15000,idle,"a,b"
`;
  it("finds each nested request's parent and each caller's children by their numbers", () => {
    const l = lineage(log);
    expect(l.parent.get(3)).toEqual({ seq: 2, id: "tellers:62:0", service: "TRANSFER", reason: "least-load" });
    expect(l.children.get(2)).toEqual([
      { seq: 3, id: "tellers:62:0.1", service: "WITHDRAWAL", reason: "idle" },
      { seq: 5, id: "tellers:62:0.2", service: "DEPOSIT", reason: "TPESVCERR" },
    ]);
    expect(l.parent.get(6)?.seq).toBe(4); // quoted ids too
    expect(l.parent.has(1)).toBe(false);
    expect(l.children.has(1)).toBe(false);
  });
  it("finds none in a log without the parent column", () => {
    const l = lineage("id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason\n1,A,S,0,G/1,G/1,0,0,1,1,idle\n");
    expect([l.parent.size, l.children.size]).toEqual([0, 0]);
  });
});

describe("results of applications", () => {
  it("mark machine changes at their time in seconds", () => {
    const r = { machine_changes: [{ at_us: 45e6, at_ms: 45000, lmid: "SITE2", change: "lost" }, { at_us: 6e7, at_ms: 60000, lmid: "SITE2", change: "noticed" }] } as Result;
    expect(machineMarks(r)).toEqual({ xs: [45, 60], labels: ["SITE2 lost", "SITE2 noticed"] });
    expect(machineMarks({} as Result)).toEqual({ xs: [], labels: [] });
  });
  it("read a client set's figures by dotted key", () => {
    expect(clientValue({ response_ms: { p95: 34.911 }, count: 3 }, "response_ms.p95")).toBe(34.911);
    expect(clientValue({ count: 3 }, "count")).toBe(3);
  });
});

describe("/Q in the call graph and the client form", () => {
  it("draws an enqueue step as a call of its queue, and reads and writes enqueues in a script", () => {
    const sc = {
      ubbconfig: "",
      services: { ORDER: { calls: [{ enqueue: "QS:SHIP" }, { service: "AUDIT", mode: "tpacall" }] } },
      workload: { generate: { duration_ms: 1000, streams: [{ enqueue: "QS:SHIP", arrivals: "poisson", rate_per_s: 5 }] } },
    } as unknown as Scenario;
    expect(callEdges(sc).map((c) => `${c.from}→${c.to} ${c.mode}`)).toEqual(["ORDER→QS:SHIP tpenqueue", "ORDER→AUDIT tpacall"]);
    const script = parseScript("ORDER, QS:SHIP, PAY=10500");
    expect(script).toEqual(["ORDER", { enqueue: "QS:SHIP" }, { service: "PAY", route: 10500 }]);
    expect(formatScript(script as ScriptEntry[])).toBe("ORDER, QS:SHIP, PAY=10500");
    expect(scriptService({ enqueue: "QS:SHIP" })).toBe("QS:SHIP");
  });
});
