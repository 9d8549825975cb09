import { describe, expect, it } from "vitest";
import { at, clientRequest, firstAt, nestedRequest, parseDispatch, plainRequest } from "./flowdata";

const log = `id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason
1,BALANCE,SITE1,1000,GRP1/1,GRP1/1,1000,1000,6000,6000,idle
2,BALANCE,SITE1,2000,GRP2/1,GRP2/1,2500,4000,9000,9500,least-load
"x,3",AUDIT,SITE2,3000,,,,,,,TPENOENT
4,BALANCE,SITE1,50000,,GRP1/1,50000,,,60000,TPESVCERR
`;

describe("parseDispatch", () => {
  it("reads a window of the log in issue order, numbering requests by their row", () => {
    const l = parseDispatch(log, { fromUS: 1500, count: 2 });
    expect(l.n).toBe(2);
    expect(Array.from(l.seq)).toEqual([2, 3]);
    expect(l.more).toBe(true);
    expect(l.names.services).toEqual(["BALANCE", "AUDIT"]);
    expect([l.server[1], l.queue[1], l.failed[1], l.failed[0]]).toEqual([-1, -1, 1, 0]);
    expect(Number.isNaN(l.start[1])).toBe(true);
    expect([l.fromUS, l.toUS]).toEqual([2000, 9500]);
    const all = parseDispatch(log, { fromUS: 0, count: 100 });
    expect([all.n, all.more, all.toUS]).toEqual([4, false, 60000]);
    expect(firstAt(all, 2500)).toBe(2);
    expect(firstAt(all, 0)).toBe(0);
    expect(firstAt(all, 1e9)).toBe(4);
  });

  it("refuses what is not a dispatch log", () => {
    expect(() => parseDispatch("time_ms,service\n1,A\n", { fromUS: 0, count: 10 })).toThrow(/dispatch log/);
  });
});

describe("at", () => {
  const l = parseDispatch(log, { fromUS: 0, count: 100 });
  it("follows a request across the network: travel, wait, service, reply", () => {
    const phase = (t: number) => at(l, 1, t, 100)?.phase ?? null;
    expect([1999, 2000, 2400, 3000, 4500, 9200, 9600].map(phase)).toEqual([null, "travel", "travel", "wait", "serve", "reply", null]);
    expect(at(l, 1, 2250, 100)!.progress).toBeCloseTo(0.5);
  });
  it("stretches a local request's trip to the shortest drawn, then serves it", () => {
    const a = at(l, 0, 1050, 100)!;
    expect([a.phase, a.toServer, a.progress]).toEqual(["travel", true, 0.5]);
    expect(at(l, 0, 1200, 100)!.phase).toBe("serve");
  });
  it("shows a failed request at its origin, or in its queue until it fails", () => {
    expect(at(l, 2, 3050, 100)!.phase).toBe("fail");
    expect(at(l, 2, 3200, 100)).toBeNull();
    expect(at(l, 3, 55000, 100)!.phase).toBe("fail");
    expect(at(l, 3, 60001, 100)).toBeNull();
  });
});

describe("parseDispatch under other policies", () => {
  it("knows every dispatch rule's reason, round_robin too, from a failure code", () => {
    const rr = `id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason
1,A,S,0,G/1,G/1,0,0,10,10,round_robin
2,A,S,5,G/2,G/2,5,5,15,15,random
3,A,S,6,,,,,,,TPENOENT
`;
    const l = parseDispatch(rr, { fromUS: 0, count: 10 });
    expect(Array.from(l.failed.subarray(0, l.n))).toEqual([0, 0, 1]);
  });
});

describe("parseDispatch of applications", () => {
  const app = `id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason,parent
tellers:62:0,TRANSFER,SITE1,8709,BANKB2/10,xfer2,10709,10709,21373,23373,least-load,
tellers:62:0.1,WITHDRAWAL,SITE2,12125,BANKB2/2,tlr2,12125,12125,15022,15022,idle,tellers:62:0
7,INQUIRY,SITE1,13000,BANKB1/1,tlr1,13000,13000,14000,14000,round_robin,
tellers:62:0.2,DEPOSIT,SITE2,15022,BANKB1/1,tlr1,17022,17022,19373,21373,idle,tellers:62:0
tellers:1:0.1,DEPOSIT,SITE2,16000,BANKB1/1,tlr1,17000,17000,19000,21000,TPESVCFAIL,tellers:1:0
`;
  it("ties nested requests to their caller in the window and tells client requests apart", () => {
    const l = parseDispatch(app, { fromUS: 0, count: 100 }, ["tellers"]);
    expect(Array.from(l.kind.subarray(0, l.n))).toEqual([clientRequest, nestedRequest, plainRequest, nestedRequest, nestedRequest]);
    expect(Array.from(l.parent.subarray(0, l.n))).toEqual([-1, 0, -1, 0, -1]); // the last one's caller is before the window
    expect(l.firstChild[0]).toBe(12125);
    expect(Number.isNaN(l.firstChild[1])).toBe(true);
  });
  it("tells no client request apart without the client sets' names", () => {
    const l = parseDispatch(app, { fromUS: 0, count: 100 });
    expect(Array.from(l.failed.subarray(0, l.n))).toEqual([0, 0, 0, 0, 1]);
    expect(l.kind[0]).toBe(plainRequest);
  });
  it("leaves a window's nested request whose caller came before it untied", () => {
    const l = parseDispatch(app, { fromUS: 12000, count: 100 }, ["tellers"]);
    expect(Array.from(l.parent.subarray(0, l.n))).toEqual([-1, -1, -1, -1]);
    expect(l.kind[0]).toBe(nestedRequest);
  });
});
