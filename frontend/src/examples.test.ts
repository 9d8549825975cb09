import { describe, expect, it } from "vitest";
import { base, pieces, readmeNotes } from "./examples";

describe("readmeNotes", () => {
  it("reads the table rows that name a scenario file", () => {
    const md = [
      "# Examples",
      "| file | what to look at |",
      "|---|---|",
      "| `shm-ldbal-n.json` | Every request goes to `APPGRP/1`. |",
      "| mp-reset.json | Counters reset every 10 s. |",
      "| not a row",
      "| `notes.txt` | ignored |",
    ].join("\n");
    expect(Object.fromEntries(readmeNotes(md))).toEqual({
      "shm-ldbal-n": "Every request goes to `APPGRP/1`.",
      "mp-reset": "Counters reset every 10 s.",
    });
  });
});

describe("pieces", () => {
  const cases: [string, { text: string; code: boolean }[]][] = [
    ["plain", [{ text: "plain", code: false }]],
    [
      "goes to `APPGRP/1` first",
      [
        { text: "goes to ", code: false },
        { text: "APPGRP/1", code: true },
        { text: " first", code: false },
      ],
    ],
    ["`<b>`", [{ text: "<b>", code: true }]],
    ["", []],
  ];
  for (const [text, want] of cases) it(JSON.stringify(text), () => expect(pieces(text)).toEqual(want));
});

describe("base", () => {
  it("drops folders and the extension", () => {
    expect(base("../../examples/mp-netload.json")).toBe("mp-netload");
    expect(base("README.md")).toBe("README");
  });
});
