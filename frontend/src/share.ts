// Share links: the whole scenario, compressed into the URL fragment, so a link
// works with no server at all (the fragment never leaves the browser).
import { compressToEncodedURIComponent, decompressFromEncodedURIComponent } from "lz-string";
import { parseSpec, specJSON, type SweepSpec } from "./sweepdata";
import type { Scenario } from "./types";

/** The fragment key the playground reads: #s=<compressed scenario JSON>. */
export const fragmentKey = "s";

/** The fragment key of the sweep set up in the Sweep tab: &w=<compressed spec JSON>. */
export const sweepKey = "w";

/** The fragment key of the comparison last run: &c=<compressed JSON array of variant texts, "" the scenario as written>. */
export const compareKey = "c";

/**
 * linkLimit is the longest link every browser and chat tool takes (about
 * 2 000 characters); a longer one is stored on the server as a short link.
 */
export const linkLimit = 2000;

/** What a link carries beside the scenario: the sweep or comparison it was shared from, to run on open. */
export interface Shared {
  sweep?: SweepSpec;
  compare?: string[];
}

/** extrasFragment is "&w=...&c=..." for what a link carries beside its scenario ("" for nothing). */
export function extrasFragment(x: Shared = {}): string {
  let out = "";
  if (x.sweep) out += `&${sweepKey}=${compressToEncodedURIComponent(specJSON(x.sweep))}`;
  if (x.compare?.length) out += `&${compareKey}=${compressToEncodedURIComponent(JSON.stringify(x.compare))}`;
  return out;
}

/** encodeFragment returns "#s=..." holding the scenario, then what else the link carries. */
export function encodeFragment(sc: Scenario, x: Shared = {}): string {
  return `#${fragmentKey}=${compressToEncodedURIComponent(JSON.stringify(sc))}${extrasFragment(x)}`;
}

/** pageURL is the playground's own address for pageHref: no query, no fragment, no /s/ path. */
function pageURL(pageHref: string): string {
  const u = new URL(pageHref);
  u.hash = "";
  u.search = "";
  if (u.pathname.startsWith("/s/")) u.pathname = "/";
  return u.toString().replace(/#$/, "");
}

/** shareURL returns the full link to the playground page with the scenario (and what else) in its fragment. */
export function shareURL(pageHref: string, sc: Scenario, x: Shared = {}): string {
  return pageURL(pageHref) + encodeFragment(sc, x);
}

/** shortURL returns the short link of a stored scenario (path /s/{id}) with what else the link carries in its fragment. */
export function shortURL(pageHref: string, path: string, x: Shared = {}): string {
  const extras = extrasFragment(x);
  return new URL(path, pageHref).href.replace(/#.*$/, "") + (extras ? "#" + extras.slice(1) : "");
}

/** The outcome of reading a fragment: no scenario in it, a scenario (and what else it carries), or an error to show. */
export type FragmentResult =
  | { kind: "none" }
  | ({ kind: "scenario"; scenario: Scenario } & Shared)
  | { kind: "error"; message: string };

/**
 * decodeFragment reads a location.hash. A fragment without "s=" is "none"; one
 * with "s=" that does not decompress to a scenario object is an "error" whose
 * message says what is wrong, so a damaged link is reported, never half-loaded.
 */
export function decodeFragment(hash: string): FragmentResult {
  const params = fragmentParams(hash);
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
  const x = decodeExtras(hash);
  if ("error" in x) return { kind: "error", message: x.error };
  return { kind: "scenario", scenario: value as Scenario, ...x };
}

function fragmentParams(hash: string): URLSearchParams {
  const h = hash.startsWith("#") ? hash.slice(1) : hash;
  return new URLSearchParams(h.replace(/\+/g, "%2B"));
}

/** decodeExtras reads what a fragment carries beside a scenario (a short link's fragment has only these). */
export function decodeExtras(hash: string): Shared | { error: string } {
  const params = fragmentParams(hash);
  const out: Shared = {};
  const packedSweep = params.get(sweepKey);
  if (packedSweep !== null) {
    let sweep: SweepSpec | null = null;
    try {
      sweep = parseSpec(decompressFromEncodedURIComponent(packedSweep) ?? "");
    } catch {
      sweep = null;
    }
    if (!sweep) return { error: "share link: the sweep part (&w=) is damaged" };
    out.sweep = sweep;
  }
  const packedCompare = params.get(compareKey);
  if (packedCompare !== null) {
    let list: unknown = null;
    try {
      list = JSON.parse(decompressFromEncodedURIComponent(packedCompare) ?? "");
    } catch {
      list = null;
    }
    if (!Array.isArray(list) || !list.length || !list.every((v) => typeof v === "string")) return { error: "share link: the comparison part (&c=) is damaged" };
    out.compare = list as string[];
  }
  return out;
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
