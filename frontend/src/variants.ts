// Compare variants: the same scenario (and so the same request stream) with one
// thing changed: a policy, LDBAL, MODEL or a tuning reading. A variant is the
// text `tuxlb compare --variant` takes (e.g. "ldbal=N"); the Go core applies it,
// so the page and the CLI change a scenario in exactly the same way. What the
// UBBCONFIG says (MODEL, LDBAL) comes from the model the Go parser returned.
import vocabulary from "./vocabulary.json";
import type { Model, Scenario } from "./types";

/** A variant of the scenario under comparison; spec "" is the scenario as written. */
export interface Variant {
  id: string;
  label: string;
  spec: string;
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
 * variantsFor lists the variants that make sense for sc, whose UBBCONFIG the
 * Go parser read into model (null while it has not, or cannot): LDBAL and
 * MODEL flipped, the other policies and the non-default tuning readings. The
 * first is always the scenario as it is (the baseline). Without a model,
 * LDBAL N and MODEL SHM (the defaults) are assumed and not claimed.
 */
export function variantsFor(sc: Scenario, model: Model | null): Variant[] {
  const ldbal = model?.ldbal ? "Y" : "N";
  const mdl = model?.model === "MP" ? "MP" : "SHM";
  const policy = sc.policy || "tuxedo";
  const v = (spec: string): Variant => ({ id: spec, label: spec, spec });
  const out: Variant[] = [
    { id: "baseline", label: model ? `as written (${mdl}, LDBAL ${ldbal}, ${policy})` : `as written (${policy})`, spec: "" },
    v(`ldbal=${ldbal === "Y" ? "N" : "Y"}`),
    v(`model=${mdl === "MP" ? "SHM" : "MP"}`),
    ...policies.filter((p) => p !== policy).map((p) => v(`policy=${p}`)),
  ];
  const t = sc.tuning ?? {};
  out.push(v(`tuning.idle=${t.idle === "queue" ? "server" : "queue"}`));
  out.push(v(`tuning.netload=${t.netload === "origin" ? "server" : "origin"}`));
  out.push(v(`tuning.mp_counter=${t.mp_counter === "load" ? "load+netload" : "load"}`));
  return out;
}
