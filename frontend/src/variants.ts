// Compare variants: the same scenario (and so the same request stream) with one
// thing changed: a policy, LDBAL, MODEL or a tuning reading. Pure functions.
import type { Scenario, Tuning } from "./types";

/** A variant of the scenario under comparison. */
export interface Variant {
  id: string;
  label: string;
  apply: (sc: Scenario) => Scenario;
}

const resourcesHeader = /^\s*\*RESOURCES\b/i;
const sectionHeader = /^\s*\*[A-Z_]+/i;

/** resourceLines finds the *RESOURCES section: [first line after the header, end) or null. */
function resourceSpan(lines: string[]): [number, number] | null {
  const start = lines.findIndex((l) => resourcesHeader.test(l));
  if (start < 0) return null;
  let end = start + 1;
  while (end < lines.length && !sectionHeader.test(lines[end])) end++;
  return [start + 1, end];
}

function keyOf(line: string): string {
  const t = line.trim();
  if (t === "" || t.startsWith("#")) return "";
  return t.split(/\s+/)[0].toUpperCase();
}

/** getResource returns the value of a *RESOURCES parameter (e.g. LDBAL), or "" when unset. */
export function getResource(ubb: string, key: string): string {
  const lines = ubb.split("\n");
  const span = resourceSpan(lines);
  if (!span) return "";
  for (let i = span[0]; i < span[1]; i++) {
    if (keyOf(lines[i]) === key.toUpperCase()) {
      const rest = lines[i].trim().slice(key.length).trim();
      return rest.replace(/\s*#.*$/, "").replace(/^"(.*)"$/, "$1");
    }
  }
  return "";
}

/**
 * setResource sets a *RESOURCES parameter, keeping everything else of the
 * text: the parameter's line is rewritten in place, or added right after the
 * *RESOURCES header (which is added at the top when missing).
 */
export function setResource(ubb: string, key: string, value: string): string {
  const lines = ubb.split("\n");
  const line = `${key.toUpperCase()} ${value}`;
  const span = resourceSpan(lines);
  if (!span) return ["*RESOURCES", line, "", ...lines].join("\n");
  for (let i = span[0]; i < span[1]; i++) {
    if (keyOf(lines[i]) === key.toUpperCase()) {
      const indent = /^\s*/.exec(lines[i])![0];
      lines[i] = indent + line;
      return lines.join("\n");
    }
  }
  lines.splice(span[0], 0, line);
  return lines.join("\n");
}

function withTuning(sc: Scenario, t: Tuning): Scenario {
  return { ...sc, tuning: { ...(sc.tuning ?? {}), ...t } };
}

/** policies are the dispatch policies of SPEC §3 other than tuxedo. */
export const policies = ["round_robin", "random", "jsq", "p2c"];

/**
 * variantsFor lists the variants that make sense for sc: LDBAL and MODEL
 * flipped, the other policies and the non-default tuning readings. The first
 * is always the scenario as it is (the baseline).
 */
export function variantsFor(sc: Scenario): Variant[] {
  const ldbal = (getResource(sc.ubbconfig, "LDBAL") || "N").toUpperCase() === "Y" ? "Y" : "N";
  const model = (getResource(sc.ubbconfig, "MODEL") || "SHM").toUpperCase() === "MP" ? "MP" : "SHM";
  const otherL = ldbal === "Y" ? "N" : "Y";
  const otherM = model === "MP" ? "SHM" : "MP";
  const out: Variant[] = [
    { id: "baseline", label: `as written (${model}, LDBAL ${ldbal}, ${sc.policy || "tuxedo"})`, apply: (s) => s },
    {
      id: `ldbal-${otherL}`,
      label: `LDBAL ${otherL}`,
      apply: (s) => ({ ...s, ubbconfig: setResource(s.ubbconfig, "LDBAL", otherL) }),
    },
    {
      id: `model-${otherM}`,
      label: `MODEL ${otherM}`,
      apply: (s) => ({ ...s, ubbconfig: setResource(s.ubbconfig, "MODEL", otherM) }),
    },
  ];
  for (const p of policies) {
    if (p !== sc.policy) out.push({ id: `policy-${p}`, label: `policy ${p}`, apply: (s) => ({ ...s, policy: p }) });
  }
  if (sc.policy && sc.policy !== "tuxedo") {
    out.push({ id: "policy-tuxedo", label: "policy tuxedo", apply: (s) => ({ ...s, policy: "tuxedo" }) });
  }
  const t = sc.tuning ?? {};
  const flip = (id: string, label: string, tun: Tuning) => out.push({ id, label, apply: (s) => withTuning(s, tun) });
  if (t.idle === "queue") flip("idle-server", "idle: server", { idle: "server" });
  else flip("idle-queue", "idle: queue", { idle: "queue" });
  if (t.netload === "origin") flip("netload-server", "netload: server", { netload: "server" });
  else flip("netload-origin", "netload: origin", { netload: "origin" });
  if (t.mp_counter === "load") flip("mp_counter-both", "mp_counter: load+netload", { mp_counter: "load+netload" });
  else flip("mp_counter-load", "mp_counter: load", { mp_counter: "load" });
  return out;
}
