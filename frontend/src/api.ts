// The REST API of `tuxlb serve` (docs/api.md), for saving runs and short links.
// The playground works without it; these calls fail with a clear message then.
import type { Headline, Result, Scenario } from "./types";

const base = "/api/v1";

/** A saved run as the list shows it. */
export interface RunItem {
  id: string;
  name: string;
  created_at: string;
  engine_version: string;
  headline: Headline | null;
}

/** A saved run with its scenario and result. */
export interface SavedRun {
  id: string;
  scenario: Scenario;
  result: Result;
  created_at: string;
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  let resp: Response;
  try {
    resp = await fetch(base + path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new Error(`the server is not reachable (${(e as Error).message}); run \`tuxlb serve\` to save and share`);
  }
  const text = await resp.text();
  let v: unknown = null;
  try {
    v = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: reported below */
  }
  if (!resp.ok) {
    const p = (v ?? {}) as { detail?: string; title?: string };
    throw new Error(`${method} ${base}${path}: ${p.detail || p.title || `HTTP ${resp.status}`}`);
  }
  if (v === null) throw new Error(`${method} ${base}${path}: the answer is not JSON`);
  return v as T;
}

/** asObject accepts a JSON value stored either as an object or as a JSON string. */
function asObject<T>(v: unknown): T {
  return (typeof v === "string" ? JSON.parse(v) : v) as T;
}

/** saveScenario stores the scenario and returns its short link path (/s/{id}). */
export async function saveScenario(sc: Scenario): Promise<{ id: string; url: string }> {
  return call("POST", "/scenarios", sc);
}

/** getScenario fetches a stored scenario (the body may wrap it as {id, scenario}). */
export async function getScenario(id: string): Promise<Scenario> {
  const v = await call<Record<string, unknown>>("GET", `/scenarios/${encodeURIComponent(id)}`);
  if (typeof v.ubbconfig === "string") return v as unknown as Scenario;
  return asObject<Scenario>(v.scenario);
}

/** saveRun runs the scenario on the server and stores it. */
export async function saveRun(sc: Scenario): Promise<{ id: string }> {
  return call("POST", "/runs", sc);
}

/** listRuns lists saved runs, newest first. */
export async function listRuns(): Promise<RunItem[]> {
  const v = await call<unknown>("GET", "/runs");
  const o = v as Record<string, unknown>;
  const rows = (Array.isArray(v) ? v : (o.runs ?? o.items ?? o.data ?? [])) as Record<string, unknown>[];
  return rows.map((r) => ({
    id: String(r.id),
    name: String(r.name ?? (r.scenario as Scenario | undefined)?.name ?? ""),
    created_at: String(r.created_at ?? ""),
    engine_version: String(r.engine_version ?? ""),
    headline: (r.headline as Headline | undefined) ?? null,
  }));
}

/** getRun fetches one saved run. */
export async function getRun(id: string): Promise<SavedRun> {
  const v = await call<Record<string, unknown>>("GET", `/runs/${encodeURIComponent(id)}`);
  return {
    id: String(v.id),
    scenario: asObject<Scenario>(v.scenario),
    result: asObject<Result>(v.result),
    created_at: String(v.created_at ?? ""),
  };
}

/** getRunResult fetches a saved run's result as the exact bytes `tuxlb run` prints. */
export async function getRunResult(id: string): Promise<string> {
  const resp = await fetch(`${base}/runs/${encodeURIComponent(id)}/result.json`);
  if (!resp.ok) throw new Error(`GET ${base}/runs/${id}/result.json: HTTP ${resp.status}`);
  return resp.text();
}
