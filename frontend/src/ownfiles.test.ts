import { describe, expect, it } from "vitest";
import { classify, fileStem, filesRequest, isBinary, isULOG, modelNames, noDashS, parseList, readFiles, type Current } from "./ownfiles";
import type { Model } from "./types";

const model: Model = {
  model: "SHM",
  ldbal: true,
  master: "",
  scanunit_us: 10_000_000,
  sanityscan: 12,
  blocktime: 6,
  machines: [{ lmid: "site1", pmid: "h", netload: 0 }],
  groups: [{ name: "G1", grpno: 1, lmids: ["site1"] }],
  servers: [
    { id: "G1/1", name: "bankserv", group: "G1", srvid: 1, lmid: "site1", queue: "G1/1", services: ["BALANCE"], advertise_source: "clopt" },
    { id: "G1/2", name: "legacy", group: "G1", srvid: 2, lmid: "site1", queue: "G1/2", services: ["BALANCE", "AUDIT"], advertise_source: "services" },
    { id: "G1/3", name: "legacy", group: "G1", srvid: 3, lmid: "site1", queue: "G1/3", services: ["BALANCE", "AUDIT"], advertise_source: "services" },
    { id: "G1/4", name: "BBL", group: "G1", srvid: 4, lmid: "site1", queue: "G1/4", services: [], advertise_source: "services", system: true },
  ],
  queues: [],
  services: [
    { name: "AUDIT", load: 50, prio: 50 },
    { name: "BALANCE", load: 50, prio: 50 },
  ],
};

describe("classify", () => {
  it("tells the files apart by content, then name", () => {
    const cases: [string, string, string | null][] = [
      ["ubb.cfg", "# comment\n*RESOURCES\nMODEL SHM\n", "ubbconfig"],
      ["x", "*DM_LOCAL\nLDOM GWGRP=GW\n", "dmconfig"],
      ["dm.cfg", "*DM_RESOURCES\nVERSION=1\n*DM_REMOTE\n", "dmconfig"],
      ["log.csv", "timestamp,svc\n2026-11-29 10:00:00,A\n", "trace"],
      ["app.log", "when;op\n1;A\n", "trace"],
      ["s.json", '  {"ubbconfig": ""}', "scenario"],
      ["notes", "hello", null],
      ["psc.txt", "> psc\nService Name Routine Name Prog Name  Grp Name  ID    Machine  # Done Status\n------------ ------------\nTOUPPER TOUPPER simpserv GROUP1 1 site1 0 AVAIL\n", "psc"],
      ["psc-v.txt", "> psc -v\n\tService Name: TOUPPER\n\tProg Name: /home/app/simpserv\n", "psc"],
    ];
    for (const [name, text, want] of cases) expect(classify(name, text), name).toBe(want);
  });
});

describe("ULOG files", () => {
  const ulog =
    "095955.000.node1!bankclt.4001.1.0: LIBTUX_CAT:262: INFO: Std main starting\n" +
    '100000.100.node1!bankclt.4001.1.0: TRACE:at: { tpcall("TRANSFER", 0x40a0e8, 0, 0x7ffd5c2a90e8, 0x7ffd5c2a90e0, 0x0)\n';
  it("are told by their TMTRACE lines, whole-second stamps too, not by a name", () => {
    expect(isULOG(ulog)).toBe(true);
    expect(isULOG("120000.node2!XFER.5001.1.0: TRACE:ia: { tpacall(\"PRICE\", 0x0, 0, 0x4)\n")).toBe(true);
    // a log without TMTRACE lines has nothing fit reads; a CSV export is not one
    expect(isULOG("095955.000.node1!bankclt.4001.1.0: LIBTUX_CAT:262: INFO: Std main starting\n")).toBe(false);
    expect(isULOG("timestamp,svc\n2026-11-29 10:00:00,A\n")).toBe(false);
  });
  it("are read apart from the other files, before classify takes a tpcall's commas for a CSV header", async () => {
    // as a CSV header the tpcall line would read as a log
    expect(classify("ULOG.120126", ulog.split("\n")[1])).toBe("trace");
    const list = [new File([ulog], "ULOG.120126"), new File([ulog], "ULOG.120127"), new File(["*RESOURCES\nMODEL SHM\n"], "ubb.cfg")];
    const { got, ulogs, read } = await readFiles(list);
    expect(ulogs.map((u) => u.name)).toEqual(["ULOG.120126", "ULOG.120127"]);
    expect(got.ubbconfig?.name).toBe("ubb.cfg");
    expect(got.trace).toBeUndefined();
    expect(read).toEqual(["ULOG.120126 as a ULOG", "ULOG.120127 as a ULOG", "ubb.cfg as the ubbconfig"]);
  });
});

describe("a file that is not text", () => {
  // An .xlsx is a zip: its local file header is "PK\x03\x04", then the
  // version needed (20 = "\x14\x00"), so a NUL in its 6th byte; its first
  // line has commas in the compressed data often enough that classify would
  // take it for a request log.
  const xlsx = "PK\x03\x04\x14\x00\x06\x00\x08\x00,;|\t\ufffd\ufffd\n<xml/>";
  it("is told by a NUL character near its start", () => {
    expect(classify("export.xlsx", xlsx)).toBe("trace");
    expect(isBinary(xlsx)).toBe(true);
    // text saved as UTF-16LE, read as UTF-8: every other byte of ASCII text is 0
    expect(isBinary("t\0i\0m\0e\0,\0s\0v\0c\0")).toBe(true);
    // a Latin-1 CSV's accents decode to U+FFFD but it stays text
    expect(isBinary("time_ms,service\n0,CR\ufffdDIT\n")).toBe(false);
    expect(isBinary("*RESOURCES\nMODEL SHM\n")).toBe(false);
    // past the first 64 KiB, a NUL is not looked for
    expect(isBinary("a,b\n".repeat(1 << 15) + "\0")).toBe(false);
  });
  it("is left out with a note naming it, not read as a request log", async () => {
    const list = [new File([xlsx], "export.xlsx"), new File(["time_ms,service\n0,A\n"], "log.csv")];
    const { got, read, notes } = await readFiles(list);
    expect(got.trace?.name).toBe("log.csv");
    expect(read).toEqual(["log.csv as the request log"]);
    expect(notes).toEqual(["export.xlsx: not a text file (a spreadsheet, an archive, or text saved as UTF-16?): save it as UTF-8 text (CSV for a log), left out"]);
  });
});

describe("fileStem", () => {
  it("makes a file name of the scenario's name", () => {
    expect(fileStem("Two sites: MP, NETLOAD 100")).toBe("two-sites-mp-netload-100");
    expect(fileStem("")).toBe("tuxlb");
    expect(fileStem(undefined)).toBe("tuxlb");
    expect(fileStem("!!!")).toBe("tuxlb");
    expect(fileStem("x".repeat(80)).length).toBe(60);
  });
});

describe("advertise", () => {
  it("lists application servers without -s once each", () => {
    expect(noDashS(model)).toEqual(["legacy"]);
    expect(modelNames(model)).toBe("AUDIT,BALANCE|site1|G1|legacy");
    expect(parseList(" A, B  C,,")).toEqual(["A", "B", "C"]);
  });
});

describe("filesRequest", () => {
  const example: Current = { ubbconfig: "*RESOURCES\nEXAMPLE\n", dmconfig: "*DM_LOCAL\nEX\n", trace_csv: "time_ms,service\n0,X\n", scenario: '{"name":"example"}' };
  const ubb = { text: "*RESOURCES\nMINE\n", name: "ubb.cfg" };
  const log = { text: "ts,svc\n1,A\n", name: "trace.csv" };

  it("passes a psc listing along, as init's --psc", () => {
    const { request } = filesRequest({}, example, { ubbconfig: { text: "*RESOURCES\n", name: "u.cfg" }, psc: { text: "Service Name Routine Name Prog Name\n", name: "psc.txt" } }, false);
    expect(request.psc).toBe("Service Name Routine Name Prog Name\n");
    expect(request.ubbconfig).toBe("*RESOURCES\n");
  });
  it("starts fresh from the files alone, leaving the example's scenario, DMCONFIG and trace behind", () => {
    const { request, own } = filesRequest({}, example, { ubbconfig: ubb, trace: log }, false);
    expect(request).toEqual({ ubbconfig: ubb.text, ubb_name: "ubb.cfg", trace: log.text, trace_name: "trace.csv" });
    expect(own).toEqual({ ubbName: "ubb.cfg", traceName: "trace.csv" });
  });

  it("takes the editors' configuration for a log dropped alone", () => {
    const { request, own } = filesRequest({}, example, { trace: log }, false);
    expect(request).toEqual({ ubbconfig: example.ubbconfig, dmconfig: example.dmconfig, trace: log.text, trace_name: "trace.csv" });
    expect(own).toEqual({ traceName: "trace.csv" });
  });

  it("keeps the user's own UBBCONFIG (as edited), DMCONFIG and log when another file comes", () => {
    const cur: Current = { ubbconfig: "*RESOURCES\nMINE, EDITED\n", dmconfig: "*DM_LOCAL\nMINE\n", trace_csv: log.text, scenario: "{}" };
    const dm = filesRequest({ ubbName: "ubb.cfg", traceName: "trace.csv" }, cur, { dmconfig: { text: "*DM_LOCAL\nNEW\n", name: "dm" } }, false);
    expect(dm.request).toEqual({ ubbconfig: cur.ubbconfig, ubb_name: "ubb.cfg", dmconfig: "*DM_LOCAL\nNEW\n", trace: log.text, trace_name: "trace.csv" });
    const next = filesRequest(dm.own, cur, { ubbconfig: ubb }, false);
    expect(next.request).toEqual({ ubbconfig: ubb.text, ubb_name: "ubb.cfg", dmconfig: cur.dmconfig, trace: log.text, trace_name: "trace.csv" });
    expect(next.own).toEqual({ ubbName: "ubb.cfg", dm: true, traceName: "trace.csv" });
  });

  it("reads a dropped log as the Trace section says: its mapping and skip-bad, as --trace-map and --trace-skip-bad", () => {
    const cur: Current = { ...example, trace_map: "observed=Elapsed(ms)", trace_skip_bad: true };
    expect(filesRequest({}, cur, { ubbconfig: ubb, trace: log }, false).request).toEqual({
      ubbconfig: ubb.text,
      ubb_name: "ubb.cfg",
      trace: log.text,
      trace_name: "trace.csv",
      trace_map: "observed=Elapsed(ms)",
      trace_skip_bad: true,
    });
    // no log in the request: nothing of how to read one
    expect(filesRequest({}, cur, { ubbconfig: ubb }, false).request).toEqual({ ubbconfig: ubb.text, ubb_name: "ubb.cfg" });
  });

  it("combines the files with the scenario when asked to keep it, or with a scenario document", () => {
    expect(filesRequest({}, example, { ubbconfig: ubb }, true).request).toEqual({ scenario: example.scenario, ubbconfig: ubb.text, ubb_name: "ubb.cfg" });
    const doc = filesRequest({ traceName: "old.csv" }, example, { scenario: { text: '{"ubbconfig":""}', name: "s.json" }, ubbconfig: ubb }, false);
    expect(doc.request).toEqual({ scenario: '{"ubbconfig":""}', ubbconfig: ubb.text, ubb_name: "ubb.cfg" });
    expect(doc.own).toEqual({ ubbName: "ubb.cfg" });
  });
});
