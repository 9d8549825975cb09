// The example gallery: every examples/*.json of the repository, bundled at
// build time. Each one's explanation is examples/NAME.md when there is one,
// else its row in the table of examples/README.md.
import type { Scenario } from "./types";

/** One example scenario of the gallery. */
export interface Example {
  id: string; // file name without .json
  scenario: Scenario;
  about: string;
}

/** base returns a path's file name without its extension. */
export function base(path: string): string {
  return path.replace(/^.*\//, "").replace(/\.[A-Za-z]+$/, "");
}

/**
 * readmeNotes reads the rows "| `NAME.json` | text |" of a Markdown table and
 * returns NAME → text.
 */
export function readmeNotes(md: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of md.split("\n")) {
    const m = /^\|\s*`?([\w.-]+)\.json`?\s*\|(.*)\|\s*$/.exec(line.trim());
    if (m) out.set(m[1], m[2].trim());
  }
  return out;
}

/** A piece of an explanation: plain text, or a `code span`. */
export type Piece = { text: string; code: boolean };

/** pieces splits Markdown-ish text on backticks so code spans can be shown as code (as text, never HTML). */
export function pieces(text: string): Piece[] {
  return text
    .split("`")
    .map((t, i) => ({ text: t, code: i % 2 === 1 }))
    .filter((p) => p.text !== "");
}

const scenarios = import.meta.glob<Scenario>("../../examples/*.json", { eager: true, import: "default" });
const notes = import.meta.glob<string>("../../examples/*.md", { eager: true, query: "?raw", import: "default" });

function allNotes(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, text] of Object.entries(notes)) {
    if (base(path).toLowerCase() === "readme") for (const [k, v] of readmeNotes(text)) if (!out.has(k)) out.set(k, v);
  }
  for (const [path, text] of Object.entries(notes)) {
    if (base(path).toLowerCase() !== "readme") out.set(base(path), text.trim());
  }
  return out;
}

/** examples lists the gallery in file-name order. */
export const examples: Example[] = (() => {
  const about = allNotes();
  return Object.entries(scenarios)
    .map(([path, scenario]) => ({ id: base(path), scenario, about: about.get(base(path)) ?? "" }))
    .sort((a, b) => a.id.localeCompare(b.id));
})();
