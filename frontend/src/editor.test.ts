import { describe, expect, it } from "vitest";
import { EditorState, Text } from "@codemirror/state";
import { replacedByPaste, toCM } from "./editor";

const doc = Text.of(["*RESOURCES", "MODEL SHM", "LDBAL MAYBE"]); // lines start at 0, 11, 21

describe("toCM", () => {
  const cases: { name: string; line: number; col: number; from: number; to: number }[] = [
    { name: "line and column", line: 3, col: 7, from: 27, to: 32 },
    { name: "column 0 means the line start", line: 2, col: 0, from: 11, to: 20 },
    { name: "column past the end stays on the line", line: 2, col: 99, from: 20, to: 20 },
    { name: "line past the end goes to the last line", line: 9, col: 1, from: 21, to: 32 },
    { name: "line 0 (unknown) goes to the first line", line: 0, col: 0, from: 0, to: 10 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = toCM(doc, { file: "UBBCONFIG", line: c.line, col: c.col, severity: "error", message: "m" });
      expect([got.from, got.to]).toEqual([c.from, c.to]);
    });
  }

  it("keeps the severity and message", () => {
    const got = toCM(doc, { file: "UBBCONFIG", line: 1, col: 1, severity: "warning", message: "unused" });
    expect([got.severity, got.message]).toEqual(["warning", "unused"]);
  });
});

describe("replacedByPaste", () => {
  const state = EditorState.create({ doc: "*RESOURCES\nMODEL SHM\n" });
  const paste = (from: number, to: number, userEvent = "input.paste") =>
    state.update({ changes: { from, to, insert: "*RESOURCES\nMODEL MP\n" }, userEvent });
  it("is a paste over the whole document only", () => {
    expect(replacedByPaste(paste(0, state.doc.length))).toBe(true);
    expect(replacedByPaste(paste(0, 5))).toBe(false); // part of it
    expect(replacedByPaste(paste(0, state.doc.length, "input.type"))).toBe(false); // typed
    const empty = EditorState.create({ doc: "" });
    expect(replacedByPaste(empty.update({ changes: { from: 0, insert: "x" }, userEvent: "input.paste" }))).toBe(true);
  });
});
