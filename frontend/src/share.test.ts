import { describe, expect, it } from "vitest";
import { compressToEncodedURIComponent } from "lz-string";
import { decodeExtras, decodeFragment, encodeFragment, shareURL, shortLinkID, shortURL } from "./share";
import type { Scenario } from "./types";

const scenario: Scenario = {
  name: "a <b>bold</b> & \"quoted\" name — ünïcode",
  ubbconfig: '*RESOURCES\nMODEL SHM\nLDBAL Y\n*SERVERS\nsimpserv SRVGRP=G SRVID=1 CLOPT="-s X --"\n',
  services: { X: { service_time: { dist: "exp", mean_ms: 4 } } },
  seed: 7,
  workload: { trace_csv: "time_ms,service\n0,X\n1.5,X\n" },
};

describe("encodeFragment/decodeFragment", () => {
  it("round-trips a scenario exactly", () => {
    const got = decodeFragment(encodeFragment(scenario));
    expect(got).toEqual({ kind: "scenario", scenario });
  });

  it("round-trips through a full share URL", () => {
    const url = shareURL("http://127.0.0.1:8080/s/abc123?x=1#old", scenario);
    const u = new URL(url);
    expect(u.pathname).toBe("/");
    expect(u.search).toBe("");
    expect(decodeFragment(u.hash)).toEqual({ kind: "scenario", scenario });
  });

  it("uses only URL-safe characters", () => {
    const frag = encodeFragment(scenario);
    expect(frag).toMatch(/^#s=[A-Za-z0-9+\-$]+$/);
  });
});

describe("decodeFragment with bad input", () => {
  const cases: { name: string; hash: string; want: string }[] = [
    { name: "no fragment", hash: "", want: "none" },
    { name: "other key", hash: "#tab=results", want: "none" },
    { name: "empty value", hash: "#s=", want: "empty" },
    { name: "garbage", hash: "#s=%%%not-lz", want: "damaged" },
    { name: "not JSON", hash: "#s=" + compressToEncodedURIComponent("{nope"), want: "not valid JSON" },
    { name: "JSON array", hash: "#s=" + compressToEncodedURIComponent("[1,2]"), want: "JSON object" },
    {
      name: "no ubbconfig",
      hash: "#s=" + compressToEncodedURIComponent('{"workload":{}}'),
      want: "ubbconfig",
    },
    {
      name: "no workload",
      hash: "#s=" + compressToEncodedURIComponent('{"ubbconfig":"*RESOURCES"}'),
      want: "workload",
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = decodeFragment(c.hash);
      if (c.want === "none") {
        expect(got.kind).toBe("none");
        return;
      }
      expect(got.kind).toBe("error");
      if (got.kind === "error") expect(got.message).toContain(c.want);
    });
  }
});

describe("shortLinkID", () => {
  const cases: [string, string][] = [
    ["/s/abc_DEF-123", "abc_DEF-123"],
    ["/s/abc/", "abc"],
    ["/", ""],
    ["/s/", ""],
    ["/s/a/b", ""],
    ["/x/abc", ""],
  ];
  for (const [path, want] of cases) {
    it(path, () => expect(shortLinkID(path)).toBe(want));
  }
});

describe("sweep and comparison in the share link", () => {
  const sc = { ubbconfig: "*RESOURCES\n", workload: {} };
  const sweep = { vary: ["rate_scale=0.5..1.5/0.25", "policy=tuxedo,jsq"], replications: 3, objective: "response_p99_ms<=100" };
  const compare = ["", "ldbal=N", "policy=round_robin,tuning.idle=queue"];

  it("round-trips the sweep and the comparison beside the scenario", () => {
    expect(decodeFragment(new URL(shareURL("http://x/", sc, { sweep })).hash)).toEqual({ kind: "scenario", scenario: sc, sweep });
    expect(decodeFragment(new URL(shareURL("http://x/", sc, { sweep, compare })).hash)).toEqual({ kind: "scenario", scenario: sc, sweep, compare });
    expect(decodeFragment(encodeFragment(sc))).toEqual({ kind: "scenario", scenario: sc });
    expect(decodeFragment(encodeFragment(sc) + "&w=garbage").kind).toBe("error");
    expect(decodeFragment(encodeFragment(sc) + "&c=garbage").kind).toBe("error");
  });

  it("puts them in a short link's fragment", () => {
    const link = shortURL("http://x:8080/s/old#s=abc", "/s/AVq9kT3m0bq8x2LwZ1pQ_A", { compare });
    const u = new URL(link);
    expect(u.origin + u.pathname).toBe("http://x:8080/s/AVq9kT3m0bq8x2LwZ1pQ_A");
    expect(decodeExtras(u.hash)).toEqual({ compare });
    expect(shortURL("http://x/", "/s/abc")).toBe("http://x/s/abc");
    expect(decodeExtras("")).toEqual({});
  });
});
