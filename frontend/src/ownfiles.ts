// An administrator's own files in the playground: what a dropped or chosen
// file is, the advertise editor for servers without -s, download names.
import { fileText } from "./filetext";
import { h } from "./dom";
import type { Model, Scenario } from "./types";

/** What a file holds, judged by its content (then its name). */
export type FileKind = "ubbconfig" | "dmconfig" | "trace" | "scenario" | "psc";

/** ulogLine is a ULOG line with a TMTRACE record: hhmmss[.mmm].host!process.pid.thread.context: ... TRACE:cat: */
const ulogLine = /^\d{6}(\.\d{3})?\.[^\s!]+![^\s:]+: .*TRACE:[a-z]+:/m;

/** isULOG tells a ULOG file with TMTRACE lines (what `tuxlb fit --ulog` reads) by its content. */
export function isULOG(text: string): boolean {
  return ulogLine.test(text.slice(0, 1 << 16));
}

/**
 * isBinary tells a file that is not text (a spreadsheet, an archive, an
 * image, or text saved as UTF-16) by a NUL character near its start: no
 * UBBCONFIG, log or listing has one, and every such file has some.
 */
export function isBinary(text: string): boolean {
  return text.slice(0, 1 << 16).includes("\0");
}

/** classify tells a UBBCONFIG, a DMCONFIG, a tmadmin psc listing, a CSV log and a scenario apart. */
export function classify(name: string, text: string): FileKind | null {
  if (/^\s*\{/.test(text)) return "scenario";
  if (/^\s*\*DM_[A-Z_]+/m.test(text)) return "dmconfig";
  if (/^\s*\*(RESOURCES|MACHINES|GROUPS|SERVERS|SERVICES)\b/m.test(text)) return "ubbconfig";
  // tmadmin printservice: its table's header, or psc -v's "Service Name:" lines
  if (/^\s*Service Name\s+Routine Name\s+Prog Name\b/m.test(text) || /^\s*Service Name:\s*\S/m.test(text)) return "psc";
  const first = text.split("\n", 1)[0] ?? "";
  if (/\.(csv|tsv|log)$/i.test(name) || /[,;\t|]/.test(first)) return "trace";
  return null;
}

/** fileStem is a file name made of the scenario's name: "two sites" -> "two-sites". */
export function fileStem(name: string | undefined): string {
  const stem = (name ?? "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "");
  return stem || "tuxlb";
}

/** modelNames lists the names a scenario refers to, to tell when they change. */
export function modelNames(m: Model | null): string {
  if (!m) return "";
  const svc = (m.services ?? []).map((s) => s.name).join(",");
  const mach = (m.machines ?? []).map((x) => x.lmid).join(",");
  const grp = (m.groups ?? []).map((g) => g.name).join(",");
  const noS = noDashS(m).join(",");
  return `${svc}|${mach}|${grp}|${noS}`;
}

/** noDashS lists the names of application servers without -s, in file order. */
export function noDashS(m: Model): string[] {
  const out: string[] = [];
  for (const s of m.servers ?? []) {
    if (s.system || s.gateway) continue;
    if (s.advertise_source !== "services" && s.advertise_source !== "scenario") continue;
    if (!out.includes(s.name)) out.push(s.name);
  }
  return out;
}

/** parseList reads "A, B  C" into ["A", "B", "C"]. */
export function parseList(text: string): string[] {
  return text.split(/[\s,]+/).filter((x) => x !== "");
}

/** advertiseEditor edits the advertise map: what each server without -s offers. */
export function advertiseEditor(m: Model | null, sc: Scenario, onChange: () => void): HTMLElement {
  const names = m ? noDashS(m) : [];
  const box = h("div", { class: "form advertise", "data-testid": "advertise-editor" }, h("h3", {}, "What servers without -s offer"));
  if (!names.length) {
    box.append(h("p", { class: "muted" }, "Every server has -s in its CLOPT: nothing to set here."));
    return box;
  }
  box.append(
    h(
      "p",
      { class: "help" },
      "Tuxedo asks the server itself what it advertises; the UBBCONFIG cannot say. Without an entry here the server takes every *SERVICES service. List the services it really offers (separated by commas or spaces).",
    ),
  );
  for (const name of names) {
    const current = sc.advertise?.[name];
    const taken = (m!.servers ?? []).find((s) => s.name === name)?.services ?? [];
    const input = h("input", {
      value: (current ?? taken).join(", "),
      "aria-label": `services of ${name}`,
      "data-testid": `advertise-${name}`,
      list: "known-services",
      size: 40,
    });
    const state = h("span", { class: "muted" }, current ? "from the scenario" : "every *SERVICES service (no entry)");
    input.addEventListener("change", () => {
      const list = parseList(input.value);
      sc.advertise ??= {};
      if (list.length) sc.advertise[name] = list;
      else delete sc.advertise[name];
      if (!Object.keys(sc.advertise).length) delete sc.advertise;
      state.textContent = list.length ? "from the scenario" : "every *SERVICES service (no entry)";
      onChange();
    });
    box.append(h("label", { class: "field wide" }, h("span", {}, name), input, state));
  }
  return box;
}

/**
 * Own is what of the scenario being edited the user gave as their own (a
 * dropped, chosen or pasted file) since an example, a link, a saved run or a
 * scenario document was last loaded; the editors and the scenario hold the
 * texts, so edits made since are kept.
 */
export interface Own {
  /** the UBBCONFIG is the user's: the file's name ("UBBCONFIG" when pasted) */
  ubbName?: string;
  /** the DMCONFIG is the user's */
  dm?: boolean;
  /** the trace is the user's: the file's name */
  traceName?: string;
}

/** A file as it came in: its text and its name. */
export interface Given {
  text: string;
  name: string;
}

/** The files of one drop, choice or paste, by kind. */
export type Incoming = Partial<Record<FileKind, Given>>;

/** What the page holds now: the editors' texts, the trace, and the scenario as JSON. */
export interface Current {
  ubbconfig: string;
  dmconfig: string;
  trace_csv?: string;
  /** How the Trace section reads a log: its column mapping (`--trace-map`) and skip-bad (`--trace-skip-bad`). */
  trace_map?: string;
  trace_skip_bad?: boolean;
  scenario: string;
}

/**
 * filesRequest is the bridge's files request for what came in. A scenario
 * document, or keep (the user asked to keep the scenario's settings), combines
 * the files with that scenario, as `tuxlb run --ubbconfig F SCENARIO.json`
 * does. Otherwise it is a fresh scenario from the files alone and the CLI's
 * defaults, as `tuxlb run --ubbconfig F --dmconfig D --trace L` makes it: the
 * UBBCONFIG in the editor stands in for a file not given, the DMCONFIG only
 * while it goes with that UBBCONFIG (a new UBBCONFIG without one drops an
 * example's), and the trace only when it is the user's own. It returns the
 * request and what is the user's own afterwards.
 */
export function filesRequest(own: Own, cur: Current, got: Incoming, keep: boolean): { request: Record<string, string | boolean>; own: Own } {
  const request: Record<string, string | boolean> = {};
  const next: Own = {};
  if (got.ubbconfig) {
    request.ubbconfig = got.ubbconfig.text;
    request.ubb_name = got.ubbconfig.name;
    next.ubbName = got.ubbconfig.name;
  }
  if (got.dmconfig) {
    request.dmconfig = got.dmconfig.text;
    next.dm = true;
  }
  if (got.trace) {
    request.trace = got.trace.text;
    request.trace_name = got.trace.name;
    next.traceName = got.trace.name;
  }
  // what the servers that advertise at run time offer, as init's --psc
  if (got.psc) request.psc = got.psc.text;
  if (got.scenario || keep) {
    request.scenario = got.scenario ? got.scenario.text : cur.scenario;
    return { request, own: keep && !got.scenario ? { ...own, ...next } : next };
  }
  if (!got.ubbconfig) {
    request.ubbconfig = cur.ubbconfig;
    if (own.ubbName !== undefined) {
      request.ubb_name = own.ubbName;
      next.ubbName = own.ubbName;
    }
  }
  // the DMCONFIG in the editor goes with the UBBCONFIG it was loaded with
  if (!got.dmconfig && cur.dmconfig.trim() && (!got.ubbconfig || own.dm)) {
    request.dmconfig = cur.dmconfig;
    next.dm = own.dm;
  }
  if (!got.trace && own.traceName !== undefined && cur.trace_csv?.trim()) {
    request.trace = cur.trace_csv;
    request.trace_name = own.traceName;
    next.traceName = own.traceName;
  }
  // a log is read as the Trace section says, as --trace-map and
  // --trace-skip-bad go with --trace
  if (request.trace !== undefined) {
    if (cur.trace_map) request.trace_map = cur.trace_map;
    if (cur.trace_skip_bad) request.trace_skip_bad = true;
  }
  if (!next.dm) delete next.dm;
  return { request, own: next };
}

/**
 * readFiles reads files and tells them apart by content (isULOG, classify);
 * what is none of the five is noted and left out.
 */
export async function readFiles(list: File[]): Promise<{ got: Incoming; ulogs: Given[]; read: string[]; notes: string[] }> {
  const got: Incoming = {};
  const ulogs: Given[] = [];
  const read: string[] = [];
  const notes: string[] = [];
  for (const f of list) {
    let text: string;
    try {
      text = await fileText(f);
    } catch (e) {
      notes.push(`${(e as Error).message}, left out`);
      continue;
    }
    if (isBinary(text)) {
      notes.push(`${f.name}: not a text file (a spreadsheet, an archive, or text saved as UTF-16?): save it as UTF-8 text (CSV for a log), left out`);
      continue;
    }
    if (isULOG(text)) {
      // before classify: a tpcall's arguments look like a CSV header
      read.push(`${f.name} as a ULOG`);
      ulogs.push({ text, name: f.name });
      continue;
    }
    const kind = classify(f.name, text);
    if (kind === null) {
      notes.push(`${f.name}: not a UBBCONFIG, DMCONFIG, psc listing, CSV log, ULOG or scenario, left out`);
      continue;
    }
    read.push(`${f.name} as the ${kind === "trace" ? "request log" : kind === "psc" ? "psc listing" : kind}`);
    got[kind] = { text, name: f.name };
  }
  return { got, ulogs, read, notes };
}

/**
 * fileDrop is the box at the top of the Config tab: drop files on it or
 * choose them; keep says whether the user ticked keeping the scenario's
 * settings for them.
 */
export function fileDrop(onFiles: (list: File[]) => void): { el: HTMLElement; keep: () => boolean } {
  const input = h("input", { type: "file", multiple: true, "data-testid": "file-input", "aria-label": "your UBBCONFIG, DMCONFIG, CSV log or ULOG files" });
  const keep = h("input", { type: "checkbox", "data-testid": "files-keep" });
  input.addEventListener("change", () => {
    if (input.files?.length) onFiles(Array.from(input.files));
    input.value = "";
  });
  const el = h(
    "div",
    { class: "dropzone", "data-testid": "file-drop" },
    h("strong", {}, "Your own files: "),
    "drop your UBBCONFIG, DMCONFIG and CSV request log (or ULOG files with TMTRACE lines, and a tmadmin psc listing) here (or paste a UBBCONFIG into the editor), or choose them: ",
    input,
    h(
      "p",
      { class: "help" },
      "They start a fresh scenario with the defaults ",
      h("code", {}, "tuxlb run --ubbconfig F --trace L"),
      " uses, so the page and the command give the same numbers; nothing of the example before them is kept. ULOG files are fitted instead, with the UBBCONFIG given or in the editor, into the scenario ",
      h("code", {}, "tuxlb fit --ulog F --ubbconfig U --out S"),
      " writes.",
    ),
    h("label", { class: "check" }, keep, " keep this scenario's service times, tuning and workload for the new files instead"),
  );
  el.addEventListener("dragover", (e) => {
    e.preventDefault();
    el.classList.add("over");
  });
  el.addEventListener("dragleave", () => el.classList.remove("over"));
  el.addEventListener("drop", (e) => {
    e.preventDefault();
    el.classList.remove("over");
    const list = Array.from(e.dataTransfer?.files ?? []);
    if (list.length) onFiles(list);
  });
  return { el, keep: () => keep.checked };
}
