// Compare variants: the same scenario (and so the same request stream) with one
// thing changed: a policy, LDBAL, MODEL or a tuning reading. A variant is the
// text `tuxlb compare --variant` takes (e.g. "ldbal=N"); the Go core applies it,
// so the page and the CLI change a scenario in exactly the same way.
import vocabulary from "./vocabulary.json";
import type { Scenario } from "./types";

/** A variant of the scenario under comparison; spec "" is the scenario as written. */
export interface Variant {
  id: string;
  label: string;
  spec: string;
}

const resourcesHeader = /^\s*\*RESOURCES\b/i;
const sectionHeader = /^\s*\*[A-Z_]+/i;

function keyOf(line: string): string {
  const t = line.trim();
  if (t === "" || t.startsWith("#")) return "";
  return t.split(/\s+/)[0].toUpperCase();
}

/** getResource returns the value of a *RESOURCES parameter (e.g. LDBAL), or "" when unset. */
export function getResource(ubb: string, key: string): string {
  const lines = ubb.split("\n");
  const start = lines.findIndex((l) => resourcesHeader.test(l));
  if (start < 0) return "";
  for (let i = start + 1; i < lines.length && !sectionHeader.test(lines[i]); i++) {
    if (keyOf(lines[i]) === key.toUpperCase()) {
      const rest = lines[i].trim().slice(key.length).trim();
      return rest.replace(/\s*#.*$/, "").replace(/^"(.*)"$/, "$1");
    }
  }
  return "";
}

/** policies are the engine's dispatch policies (docs/engine.md), tuxedo first. */
export const policies: string[] = vocabulary.policy;

/** specVariant makes a variant from a `--variant` text typed by the user. */
export function specVariant(spec: string): Variant {
  const s = spec.trim();
  return { id: `custom:${s}`, label: s, spec: s };
}

/** validSpec says what is wrong with a `key=value[,key=value]` text, or "" when it is well formed. */
export function specProblem(spec: string): string {
  if (spec.trim() === "") return "empty variant";
  for (const part of spec.split(",")) {
    const i = part.indexOf("=");
    if (i <= 0 || part.slice(0, i).trim() === "") return `"${part.trim()}": want key=value, e.g. ldbal=N or network.latency_ms=2`;
  }
  return "";
}

/**
 * variantsFor lists the variants that make sense for sc: LDBAL and MODEL
 * flipped, the other policies and the non-default tuning readings. The first
 * is always the scenario as it is (the baseline).
 */
export function variantsFor(sc: Scenario): Variant[] {
  const ldbal = (getResource(sc.ubbconfig, "LDBAL") || "N").toUpperCase() === "Y" ? "Y" : "N";
  const model = (getResource(sc.ubbconfig, "MODEL") || "SHM").toUpperCase() === "MP" ? "MP" : "SHM";
  const policy = sc.policy || "tuxedo";
  const v = (spec: string): Variant => ({ id: spec, label: spec, spec });
  const out: Variant[] = [
    { id: "baseline", label: `as written (${model}, LDBAL ${ldbal}, ${policy})`, spec: "" },
    v(`ldbal=${ldbal === "Y" ? "N" : "Y"}`),
    v(`model=${model === "MP" ? "SHM" : "MP"}`),
    ...policies.filter((p) => p !== policy).map((p) => v(`policy=${p}`)),
  ];
  const t = sc.tuning ?? {};
  out.push(v(`tuning.idle=${t.idle === "queue" ? "server" : "queue"}`));
  out.push(v(`tuning.netload=${t.netload === "origin" ? "server" : "origin"}`));
  out.push(v(`tuning.mp_counter=${t.mp_counter === "load" ? "load+netload" : "load"}`));
  return out;
}
