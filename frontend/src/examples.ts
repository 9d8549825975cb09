// The example gallery: every examples/*.json of the repository, bundled at
// build time, with the examples/*.md of the same name as its explanation.
import type { Scenario } from "./types";

/** One example scenario of the gallery. */
export interface Example {
  id: string; // file name without .json
  scenario: Scenario;
  about: string;
}

const scenarios = import.meta.glob<Scenario>("../../examples/*.json", { eager: true, import: "default" });
const notes = import.meta.glob<string>("../../examples/*.md", { eager: true, query: "?raw", import: "default" });

function base(path: string): string {
  return path.replace(/^.*\//, "").replace(/\.[a-z]+$/, "");
}

/** examples lists the gallery in file-name order. */
export const examples: Example[] = Object.entries(scenarios)
  .map(([path, scenario]) => {
    const id = base(path);
    const note = Object.entries(notes).find(([p]) => base(p) === id)?.[1] ?? "";
    return { id, scenario, about: note.trim() };
  })
  .sort((a, b) => a.id.localeCompare(b.id));
