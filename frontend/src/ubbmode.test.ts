import { describe, expect, it } from "vitest";
import { StringStream } from "@codemirror/language";
import { parser } from "./ubbmode";

/** tokens runs the mode over lines and returns [text, style] pairs (whitespace dropped). */
function tokens(lines: string[]): [string, string | null][] {
  const state = parser.startState!(2);
  const out: [string, string | null][] = [];
  for (const line of lines) {
    const s = new StringStream(line, 4, 2);
    while (!s.eol()) {
      const style = parser.token(s, state);
      const text = s.current();
      if (text.trim()) out.push([text, style]);
      s.start = s.pos;
    }
  }
  return out;
}

describe("UBBCONFIG mode", () => {
  const cases: { name: string; lines: string[]; want: [string, string | null][] }[] = [
    { name: "section header", lines: ["*RESOURCES"], want: [["*RESOURCES", "heading"]] },
    {
      name: "resource line",
      lines: ["LDBAL Y", "SCANUNIT 10MS"],
      want: [
        ["LDBAL", "variableName"],
        ["Y", null],
        ["SCANUNIT", "variableName"],
        ["10MS", "number"],
      ],
    },
    {
      name: "entry with parameters, a string and a comment",
      lines: ['simpserv SRVGRP=G1 MIN=2 CLOPT="-s A,B -- x" # two'],
      want: [
        ["simpserv", "variableName"],
        ["SRVGRP", "keyword"],
        ["=", "operator"],
        ["G1", null],
        ["MIN", "keyword"],
        ["=", "operator"],
        ["2", "number"],
        ["CLOPT", "keyword"],
        ["=", "operator"],
        ['"-s A,B -- x"', "string"],
        ["# two", "comment"],
      ],
    },
    {
      name: "a quoted name and an escaped quote",
      lines: ['"host 1" LMID=site1 ENV="a\\"b"'],
      want: [
        ['"host 1"', "string"],
        ["LMID", "keyword"],
        ["=", "operator"],
        ["site1", null],
        ["ENV", "keyword"],
        ["=", "operator"],
        ['"a\\"b"', "string"],
      ],
    },
  ];
  for (const c of cases) it(c.name, () => expect(tokens(c.lines)).toEqual(c.want));
});
