// The routing-value field of a generated stream, as the workload form edits
// it: a numeric distribution (uniform, normal, exp) or a weighted list of
// values written as text, "10001:5, 55555:3, ACME". Pure functions, so the
// form's parsing is tested without a page.
import type { RouteSpec } from "./types";

/** The three ways a stream can give routing values in the form. */
export type RouteKind = "none" | "numbers" | "list";

/** routeKind says which way spec gives values. */
export function routeKind(spec: RouteSpec | undefined): RouteKind {
  if (!spec) return "none";
  return spec.values ? "list" : "numbers";
}

/** The two parameters each distribution takes, as the form labels them. */
export const routeDistParams: Record<string, [keyof RouteSpec, keyof RouteSpec | null]> = {
  uniform: ["min", "max"],
  normal: ["mean", "sd"],
  exp: ["mean", null],
};

/** A value that reads as a number (as the engine compares numbers: no exponent). */
const numberText = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/**
 * readValue reads one routing value as the lists write it: a number when it
 * reads as one and prints back the same, else a string ('quoted' keeps a
 * number-like value a string).
 */
export function readValue(v: string): string | number {
  if (v.length >= 2 && v.startsWith("'") && v.endsWith("'")) return v.slice(1, -1);
  if (numberText.test(v) && Number.isFinite(Number(v)) && String(Number(v)) === v.replace(/^\+/, "")) return Number(v);
  return v;
}

/** valueText writes a routing value back as readValue reads it; a string holding one of special is quoted too. */
export function valueText(v: string | number, special = ",:"): string {
  const text = String(v);
  if (typeof v === "string" && (numberText.test(v) || [...special].some((c) => v.includes(c)))) return `'${v}'`;
  return text;
}

/**
 * parseRouteList reads "value[:weight], ..." into values and weights (weights
 * left out when all are 1). A value that reads as a number becomes a number,
 * unless quoted ('007' stays the string 007). Returns an error message
 * naming the item for bad input.
 */
export function parseRouteList(text: string): { values: (string | number)[]; weights?: number[] } | { error: string } {
  const values: (string | number)[] = [];
  const weights: number[] = [];
  const items = text.split(",").map((x) => x.trim());
  if (items.length === 1 && items[0] === "") return { error: "give at least one value" };
  for (const [i, item] of items.entries()) {
    if (item === "") return { error: `item ${i + 1} is empty` };
    let v = item;
    let w = 1;
    const colon = item.lastIndexOf(":");
    if (colon > 0 && !(item.startsWith("'") && item.endsWith("'"))) {
      const wt = item.slice(colon + 1).trim();
      w = Number(wt);
      if (wt === "" || !Number.isFinite(w) || w < 0) return { error: `item ${i + 1}: weight "${wt}" is not a number >= 0` };
      v = item.slice(0, colon).trim();
    }
    values.push(readValue(v));
    if (values[values.length - 1] === "") return { error: `item ${i + 1}: empty value` };
    weights.push(w);
  }
  return weights.every((w) => w === 1) ? { values } : { values, weights };
}

/** formatRouteList writes a list spec back as parseRouteList reads it. */
export function formatRouteList(spec: RouteSpec): string {
  return (spec.values ?? [])
    .map((v, i) => {
      const text = valueText(v);
      const w = spec.weights?.[i];
      return w === undefined || w === 1 ? text : `${text}:${w}`;
    })
    .join(", ");
}
