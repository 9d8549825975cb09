// Share links: the whole scenario, compressed into the URL fragment, so a link
// works with no server at all (the fragment never leaves the browser).
import { compressToEncodedURIComponent, decompressFromEncodedURIComponent } from "lz-string";
import { parseSpec, specJSON, type SweepSpec } from "./sweepdata";
import type { Scenario } from "./types";

/** The fragment key the playground reads: #s=<compressed scenario JSON>. */
export const fragmentKey = "s";

/** The fragment key of the sweep set up in the Sweep tab: &w=<compressed spec JSON>. */
export const sweepKey = "w";

/** encodeFragment returns "#s=..." holding the scenario, and "&w=..." the sweep when there is one. */
export function encodeFragment(sc: Scenario, sweep?: SweepSpec | null): string {
  const w = sweep ? `&${sweepKey}=${compressToEncodedURIComponent(specJSON(sweep))}` : "";
  return `#${fragmentKey}=${compressToEncodedURIComponent(JSON.stringify(sc))}${w}`;
}

/** shareURL returns the full link to the playground page with the scenario (and sweep) in its fragment. */
export function shareURL(pageURL: string, sc: Scenario, sweep?: SweepSpec | null): string {
  const u = new URL(pageURL);
  u.hash = "";
  u.search = "";
  if (u.pathname.startsWith("/s/")) u.pathname = "/";
  return u.toString().replace(/#$/, "") + encodeFragment(sc, sweep);
}

/** The outcome of reading a fragment: no scenario in it, a scenario (and maybe a sweep), or an error to show. */
export type FragmentResult =
  | { kind: "none" }
  | { kind: "scenario"; scenario: Scenario; sweep?: SweepSpec }
  | { kind: "error"; message: string };

/**
 * decodeFragment reads a location.hash. A fragment without "s=" is "none"; one
 * with "s=" that does not decompress to a scenario object is an "error" whose
 * message says what is wrong, so a damaged link is reported, never half-loaded.
 */
export function decodeFragment(hash: string): FragmentResult {
  const h = hash.startsWith("#") ? hash.slice(1) : hash;
  const params = new URLSearchParams(h.replace(/\+/g, "%2B"));
  const packed = params.get(fragmentKey);
  if (packed === null) return { kind: "none" };
  if (packed === "") return { kind: "error", message: "share link: the scenario part (#s=) is empty" };
  let text: string | null;
  try {
    text = decompressFromEncodedURIComponent(packed);
  } catch {
    text = null;
  }
  if (!text) return { kind: "error", message: "share link: the scenario part is damaged (it does not decompress)" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { kind: "error", message: `share link: the scenario is not valid JSON (${(e as Error).message})` };
  }
  const problem = scenarioProblem(value);
  if (problem) return { kind: "error", message: `share link: ${problem}` };
  const packedSweep = params.get(sweepKey);
  if (packedSweep === null) return { kind: "scenario", scenario: value as Scenario };
  let sweep: SweepSpec | null = null;
  try {
    sweep = parseSpec(decompressFromEncodedURIComponent(packedSweep) ?? "");
  } catch {
    sweep = null;
  }
  if (!sweep) return { kind: "error", message: "share link: the sweep part (&w=) is damaged" };
  return { kind: "scenario", scenario: value as Scenario, sweep };
}

/** scenarioProblem says why value cannot be a scenario document, or "" if it can. */
export function scenarioProblem(value: unknown): string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return "the scenario must be a JSON object";
  }
  const v = value as Record<string, unknown>;
  if (typeof v.ubbconfig !== "string") return 'the scenario has no "ubbconfig" text';
  if (typeof v.workload !== "object" || v.workload === null || Array.isArray(v.workload)) {
    return 'the scenario has no "workload" object';
  }
  return "";
}

/** shortLinkID returns the {id} of a /s/{id} path, or "" for any other path. */
export function shortLinkID(pathname: string): string {
  const m = /^\/s\/([A-Za-z0-9_-]+)\/?$/.exec(pathname);
  return m ? m[1] : "";
}
