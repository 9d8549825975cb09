// The playground page: inputs on the left, results on the right, the Go core
// in a worker. Everything is built with DOM calls; no scenario text is ever
// parsed as HTML.
import * as api from "./api";
import { hasCalls, lineage, type Lineage } from "./appdata";
import { callGraphView } from "./callgraph";
import { clientsForm } from "./clientsform";
import { CompareView, type Compared } from "./compareview";
import { debounce, download, h } from "./dom";
import { ConfigEditor } from "./editor";
import { Engine, EngineError, type RunAnswer } from "./engine";
import { examples, pieces } from "./examples";
import { eventsForm } from "./eventsform";
import { eventTargets, kindOf, sortEvents } from "./lifecycle";
import { ExplainView } from "./explain";
import { FlowView } from "./flow";
import { servicesForm, tuningForm, workloadForm, type Known } from "./inputs";
import { advertiseEditor, classify, fileDrop, fileStem, filesRequest, modelNames, readFiles, type Given, type Incoming, type Own } from "./ownfiles";
import { formatTraceMap } from "./tracemap";
import { results } from "./results";
import { RunsView } from "./runsview";
import { hintScrolling } from "./scrollhint";
import { decodeExtras, decodeFragment, scenarioProblem, shortLinkID, type Shared } from "./share";
import { ShareBox } from "./sharebox";
import { Store } from "./store";
import { SweepView } from "./sweepview";
import { OptimizeView } from "./optimizeview";
import { topology } from "./topology";
import { elideTrace, restoreTrace, type HeldTrace } from "./tracetable";
import type { CoreError, Diagnostic, Explanation, LifeEvent, Model, Result, Scenario, Stream } from "./types";
import { buildTabs, registerView, selectView } from "./views";
import "./style.css";

/** The page's state: the scenario being edited and what it produced (store.ts). */
const store = new Store();

/** jsonTraceLimit is the longest trace (characters) the JSON tab shows; a longer one is held back. */
const jsonTraceLimit = 200_000;

const runEngine = new Engine(); // runs and comparisons; cancel terminates it
const toolEngine = new Engine(); // validation and explanations, so they never wait for a long run

// ---- layout ----------------------------------------------------------------

const banner = h("p", { class: "banner", role: "alert", hidden: true, "data-testid": "banner" });
/** sayKeeps: the banner says what was wrong with a link; see say. */
let sayKeeps = false;
/**
 * say puts text in the banner above the tabs ("" hides it). keeps marks what
 * was wrong with the link the page was opened with: the check of the first
 * example's configuration, made just after, does not clear it as stale.
 */
function say(text: string, keeps = false): void {
  banner.textContent = text;
  banner.hidden = text === "";
  sayKeeps = keeps && text !== "";
}

// Config: the two editors and the diagnostics.
const diagnostics = h("ul", { class: "diagnostics", "data-testid": "diagnostics", "aria-live": "polite" });
const ubbBox = h("div", { class: "editor", "data-testid": "ubbconfig-editor" });
const dmBox = h("div", { class: "editor dm", "data-testid": "dmconfig-editor" });
const revalidate = debounce(() => void validate(), 300);
// A whole UBBCONFIG or DMCONFIG pasted over the editor's text is the user's
// own file: it starts a fresh scenario, as a dropped file does.
const pasted = (kind: "ubbconfig" | "dmconfig", text: string): boolean => {
  if (classify("", text) !== kind) return false;
  if (kind === "ubbconfig") store.scenario.ubbconfig = text;
  else store.scenario.dmconfig = text;
  void takeIncoming({ [kind]: { text, name: kind.toUpperCase() } }, [`Read the pasted ${kind.toUpperCase()}.`]);
  return true;
};
const ubbEditor = new ConfigEditor(
  ubbBox,
  "UBBCONFIG",
  (text) => {
    store.scenario.ubbconfig = text;
    changed();
    revalidate();
  },
  (text) => pasted("ubbconfig", text),
);
const dmEditor = new ConfigEditor(
  dmBox,
  "DMCONFIG",
  (text) => {
    if (text.trim()) store.scenario.dmconfig = text;
    else delete store.scenario.dmconfig;
    changed();
    revalidate();
  },
  (text) => pasted("dmconfig", text),
);
const preview = h("div", { class: "topo", "data-testid": "topology-preview" });
const callBox = h("div", { "data-testid": "callgraph-box" });
const advertiseBox = h("div");
const fitNotes = h("ul", { class: "notes", "data-testid": "fit-notes", "aria-live": "polite" });
const drop = fileDrop((list) => void takeFiles(list));
const configPanel = h(
  "div",
  {},
  drop.el,
  fitNotes,
  h("h3", {}, "UBBCONFIG"),
  ubbBox,
  h("h3", {}, "DMCONFIG (optional)"),
  dmBox,
  h("h3", {}, "Parser messages"),
  diagnostics,
  advertiseBox,
  preview,
  callBox,
);

const workloadPanel = h("div");
const timingPanel = h("div");
const jsonText = h("textarea", { rows: 24, spellcheck: "false", "aria-label": "scenario JSON", "data-testid": "scenario-json", class: "json" });
const jsonApply = h("button", { type: "button", "data-testid": "scenario-json-load" }, "Load this JSON");
const jsonPanel = h("div", {}, h("p", { class: "muted" }, "The whole scenario document (docs/scenario.md). Edit and load it to change anything the forms do not show."), jsonText, jsonApply);
/** The trace the JSON tab holds back while it shows a marker in its place (elideTrace). */
let heldTrace: HeldTrace | null = null;
jsonApply.addEventListener("click", () => {
  try {
    const v = JSON.parse(jsonText.value);
    restoreTrace(v, heldTrace);
    const problem = scenarioProblem(v);
    if (problem) throw new Error(problem);
    loadScenario(v as Scenario);
    say("");
  } catch (e) {
    say(`Scenario JSON: ${(e as Error).message}`);
  }
});

const gallery = h(
  "div",
  { class: "gallery" },
  ...examples.map((ex) => {
    const b = h("button", { type: "button", class: "primary small", "data-testid": `example-${ex.id}` }, "Load");
    b.addEventListener("click", () => {
      loadScenario(structuredClone(ex.scenario));
      selectView("config");
    });
    const about = h("p", {}, ...pieces(ex.about).map((p) => (p.code ? h("code", {}, p.text) : p.text)));
    return h("article", { class: "example" }, h("h3", {}, ex.scenario.name || ex.id), h("p", { class: "muted" }, `examples/${ex.id}.json`), about, b);
  }),
);

registerView({ id: "examples", label: "Examples", side: "input", order: 10, panel: gallery });
registerView({ id: "config", label: "Config", side: "input", order: 20, panel: configPanel });
registerView({ id: "workload", label: "Workload", side: "input", order: 30, panel: workloadPanel });
registerView({ id: "timing", label: "Timing & tuning", side: "input", order: 40, panel: timingPanel });
registerView({
  id: "json",
  label: "JSON",
  side: "input",
  order: 50,
  panel: jsonPanel,
  shown: () => {
    const { doc, held } = elideTrace(store.scenario, jsonTraceLimit);
    heldTrace = held;
    jsonText.value = JSON.stringify(doc, null, 2);
  },
});
const inputTabs = buildTabs("input", "Scenario");

// Run bar.
const runBtn = h("button", { type: "button", class: "primary", "data-testid": "run", title: "Run (Ctrl+Enter, Cmd+Enter on a Mac)" }, "Run");
const cancelBtn = h("button", { type: "button", "data-testid": "cancel", disabled: true }, "Cancel");
const progress = h("progress", { max: 1, value: 0, "data-testid": "progress", "aria-label": "run progress" });
const runStatus = h("span", { class: "muted", role: "status", "data-testid": "run-status" });
runBtn.addEventListener("click", () => void run());
// Ctrl+Enter (Cmd+Enter on a Mac) runs, from anywhere, editors included.
window.addEventListener(
  "keydown",
  (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      e.stopPropagation();
      if (!runBtn.disabled) void run();
    }
  },
  true,
);
cancelBtn.addEventListener("click", () => runEngine.cancel());

// Results side.
const resultsPanel = h("div", { "data-testid": "results" }, h("p", { class: "muted" }, "Run the scenario to see where the requests go."));
const downloadBtn = h("button", { type: "button", "data-testid": "download-result", disabled: true }, "Download result JSON");
const dispatchBtn = h("button", { type: "button", "data-testid": "download-dispatch", disabled: true }, "Download dispatch CSV");
const saveRunBtn = h("button", { type: "button", "data-testid": "save-run", disabled: true }, "Save run");
downloadBtn.addEventListener("click", () => download(`${resultStem()}-result.json`, "application/json", store.resultText));
dispatchBtn.addEventListener("click", () => void downloadDispatch());
saveRunBtn.addEventListener("click", () => void saveRun());
store.on("result", () => {
  if (!store.result) return;
  resultsPanel.replaceChildren(results(store.result, store.resultModel));
  downloadBtn.disabled = dispatchBtn.disabled = saveRunBtn.disabled = false;
});

const explainView = new ExplainView(
  async (first, count) => {
    const a = await toolEngine.call<{ explanations: Explanation[] }>({ op: "explain", scenario: JSON.stringify(store.scenario), first, count, opts: {} });
    return a.explanations;
  },
  () => store.model,
  () => store.result,
  {
    clientSets: () => (store.scenario.workload.generate?.clients ?? []).map((c) => c.name),
    calls: (service) => (store.scenario.services?.[service]?.calls ?? []).length > 0,
    lineage: () => lineageOf(),
  },
);
store.on("scenario", () => explainView.reset());
const compareView = new CompareView(() => store.scenario, () => store.model, runScenario);
const refreshCompare = debounce(() => compareView.refresh(), 500);
store.on("scenario", refreshCompare);
store.on("model", () => compareView.refresh()); // the baseline's MODEL and LDBAL come from the model
const sweepView = new SweepView(() => store.scenario, toolEngine);
const optimizeView = new OptimizeView(() => store.scenario);
const flowView = new FlowView(
  () => store.resultScenario || JSON.stringify(store.scenario),
  () => (store.resultScenario ? store.resultModel : store.model),
  (scenario) => dispatchOf(scenario),
  (seq) => {
    selectView("explain");
    void explainView.show(seq);
  },
);
const runsView = new RunsView(
  (id) => void openRun(id),
  (ids) => void compareRuns(ids),
);

registerView({
  id: "results",
  label: "Results",
  side: "output",
  order: 10,
  panel: h("div", {}, h("div", { class: "controls" }, downloadBtn, dispatchBtn, saveRunBtn), resultsPanel),
});
registerView({
  id: "explain",
  label: "Explain",
  side: "output",
  order: 20,
  panel: explainView.el,
  shown: () => {
    if (!explainView.el.querySelector("table")) void explainView.show(1);
  },
});
registerView({ id: "compare", label: "Compare", side: "output", order: 30, panel: compareView.el });
registerView({ id: "sweep", label: "Sweep", side: "output", order: 40, panel: sweepView.el });
registerView({ id: "optimize", label: "Optimize", side: "output", order: 45, panel: optimizeView.el });
registerView({ id: "flow", label: "Flow", side: "output", order: 50, panel: flowView.el, shown: () => flowView.shown() });
registerView({ id: "runs", label: "Saved runs", side: "output", order: 60, panel: runsView.el, shown: () => void runsView.refresh() });
const outputTabs = buildTabs("output", "Results");

// Share.
const shareBox = new ShareBox(
  () => store.scenario,
  () => ({ sweep: sweepView.shared ?? undefined, compare: compareView.shared ?? undefined }),
);

const version = h("span", { class: "muted", "data-testid": "version" });
document.querySelector("#app")!.append(
  h(
    "header",
    {},
    h("div", { class: "brand" }, h("h1", {}, "tuxlb ", h("span", { class: "sub" }, "Tuxedo load balancing, simulated")), version),
    shareBox.el,
  ),
  banner,
  h(
    "main",
    {},
    h("section", { class: "inputs", "aria-label": "Scenario" }, h("div", { class: "runbar" }, runBtn, cancelBtn, progress, runStatus), inputTabs.el),
    h("section", { class: "outputs", "aria-label": "Results" }, outputTabs.el),
  ),
);
hintScrolling(document.querySelector<HTMLElement>("#app")!);
runEngine.ready.then(
  () => (version.textContent = `engine ${runEngine.version}`),
  (e: Error) => say(e.message),
);

// ---- behaviour ---------------------------------------------------------------

function known(): Known {
  const m = store.model;
  return {
    services: (m?.services ?? []).map((s) => s.name),
    machines: (m?.machines ?? []).map((x) => x.lmid),
    routed: Object.fromEntries((m?.services ?? []).filter((s) => s.routing).map((s) => [s.name, s.routing as string])),
  };
}

/** resultStem names downloads after the scenario of the shown result. */
function resultStem(): string {
  try {
    return fileStem((JSON.parse(store.resultScenario) as Scenario).name);
  } catch {
    return "tuxlb";
  }
}

/**
 * showNotes lists what was made of the user's files above the editor; error,
 * when given, says why they were not taken, last. It stays there, unlike the
 * banner, which the next check of a configuration that parses clears.
 */
function showNotes(notes: string[], error = ""): void {
  fitNotes.replaceChildren(...notes.map((n) => h("li", {}, n)), ...(error ? [h("li", { class: "error" }, error)] : []));
}

function drawForms(): void {
  advertiseBox.replaceChildren(
    advertiseEditor(store.model, store.scenario, () => {
      changed();
      void validate();
    }),
  );
  workloadPanel.replaceChildren(
    workloadForm(store.scenario, known(), changed, clientsForm(store.scenario, known(), changed), lateTrace),
    eventsForm(store.scenario, store.model, changed),
  );
  timingPanel.replaceChildren(servicesForm(store.scenario, known(), changed), tuningForm(store.scenario, changed));
  const dl = h("datalist", { id: "known-services" }, ...known().services.map((s) => h("option", { value: s })));
  workloadPanel.append(dl);
  drawCallGraph();
}

/** lateTrace takes a trace file read after the forms it was chosen in were drawn again. */
function lateTrace(text: string): void {
  if (text.trim()) store.scenario.workload.trace_csv = text;
  else delete store.scenario.workload.trace_csv;
  changed();
  drawForms();
}

/** changed is called after every edit of the scenario; what depends on it listens (store.on("scenario")). */
function changed(): void {
  store.emit("scenario");
}

/** drawCallGraph draws the scenario's call graph in the Config tab. */
function drawCallGraph(): void {
  callBox.replaceChildren(callGraphView(store.scenario, store.model));
}
const redrawCallGraph = debounce(drawCallGraph, 300);
store.on("scenario", redrawCallGraph);

/** loads counts the scenarios loaded: what validate found for one loaded since is dropped. */
let loads = 0;

/**
 * loadScenario makes sc the scenario being edited; own says what of it are
 * the user's own files. It settles once the forms are drawn with sc's model,
 * false if another scenario was loaded before that.
 */
function loadScenario(sc: Scenario, own: Own = {}): Promise<boolean> {
  const load = ++loads;
  store.scenario = sc;
  store.own = own;
  sc.workload ??= {};
  ubbEditor.setText(sc.ubbconfig ?? "");
  dmEditor.setText(sc.dmconfig ?? "");
  store.model = null;
  store.parked = { services: {}, streams: [], events: [] };
  drawForms();
  changed();
  store.emit("model"); // none until validate has one
  // The forms are drawn again with the model's names once validate has it:
  // busy until then, so that what waits on them (assistive technology, the
  // browser tests) waits for the forms that stay.
  const forms = [advertiseBox, workloadPanel, timingPanel];
  for (const f of forms) f.setAttribute("aria-busy", "true");
  return validate().then(() => {
    if (loads !== load) return false; // another scenario was loaded meanwhile: its own validate draws its forms
    drawForms();
    for (const f of forms) f.removeAttribute("aria-busy");
    return true;
  });
}

/**
 * fit makes the scenario fit a configuration whose names changed (a pasted
 * UBBCONFIG): what it no longer knows is dropped with a note and kept aside
 * (it comes back if the name does), new services get a service time.
 */
async function fit(m: Model): Promise<void> {
  const sc = store.scenario;
  const svcs = new Set((m.services ?? []).map((x) => x.name));
  const lmids = new Set((m.machines ?? []).map((x) => x.lmid));
  const fits = (st: Stream) => svcs.has(st.service) && (!st.origin || lmids.has(st.origin));
  for (const [name, spec] of Object.entries(store.parked.services)) {
    if (svcs.has(name) && !sc.services?.[name]) {
      (sc.services ??= {})[name] = spec;
      delete store.parked.services[name];
    }
  }
  // events whose target (an instance, a group, a machine) is gone wait aside too
  const targets = new Set(eventTargets(m).map((t) => t.value));
  const aims = (ev: LifeEvent) => targets.has(kindOf(ev).target);
  const evBack = store.parked.events.filter(aims);
  store.parked.events = [...store.parked.events.filter((ev) => !aims(ev)), ...(sc.events ?? []).filter((ev) => !aims(ev))];
  if (evBack.length) sc.events = sortEvents([...(sc.events ?? []), ...evBack]);
  const back = store.parked.streams.filter(fits);
  store.parked.streams = store.parked.streams.filter((st) => !fits(st));
  if (back.length && sc.workload.generate) (sc.workload.generate.streams ??= []).push(...back);
  for (const [name, spec] of Object.entries(sc.services ?? {})) if (!svcs.has(name)) store.parked.services[name] = spec;
  store.parked.streams.push(...(sc.workload.generate?.streams ?? []).filter((st) => !fits(st)));
  const load = loads;
  const a = await toolEngine.call<{ scenario: Scenario; notes: string[] }>({ op: "adapt", scenario: JSON.stringify(sc) });
  if (loads !== load) return; // a scenario loaded meanwhile is not replaced by this one
  // The editors may have moved on while the core worked: keep their text.
  a.scenario.ubbconfig = store.scenario.ubbconfig;
  if (store.scenario.dmconfig) a.scenario.dmconfig = store.scenario.dmconfig;
  else delete a.scenario.dmconfig;
  a.scenario.workload ??= {};
  store.scenario = a.scenario;
  showNotes(a.notes.length ? [...a.notes] : []);
  drawForms();
  changed();
}

/** takeFiles reads dropped or chosen files, telling them apart by their content. */
async function takeFiles(list: File[]): Promise<void> {
  const load = loads;
  const { got, ulogs, read, notes } = await readFiles(list);
  if (!read.length) showNotes(notes);
  else if (ulogs.length) await takeULOGs(got, ulogs, [`Read ${read.join(", ")}.`, ...notes], load);
  else await takeIncoming(got, [`Read ${read.join(", ")}.`, ...notes], load);
}

/** The bridge's fit answer, as POST /api/v1/fit gives it. */
interface FitAnswer {
  report: { warnings?: string[]; services: Record<string, unknown> };
  scenario?: Scenario;
  scenario_warnings?: string[];
}

/**
 * takeULOGs fits ULOG files into a fresh scenario, as `tuxlb fit --ulog F...
 * --ubbconfig U [--dmconfig D] --out S` writes it: with the UBBCONFIG (and
 * DMCONFIG) dropped alongside, else the editors' texts. load is the count of
 * scenarios loaded when the files were given: one loaded since wins.
 */
async function takeULOGs(got: Incoming, ulogs: Given[], notes: string[], load: number): Promise<void> {
  const request: Record<string, unknown> = { ulog: ulogs };
  const own: Own = {};
  if (got.ubbconfig) {
    request.ubbconfig = got.ubbconfig.text;
    request.ubb_name = got.ubbconfig.name;
    own.ubbName = got.ubbconfig.name;
  } else {
    request.ubbconfig = ubbEditor.text;
    if (store.own.ubbName !== undefined) {
      request.ubb_name = store.own.ubbName;
      own.ubbName = store.own.ubbName;
    }
  }
  if (got.dmconfig) {
    request.dmconfig = got.dmconfig.text;
    own.dm = true;
  } else if (!got.ubbconfig && dmEditor.text.trim()) request.dmconfig = dmEditor.text;
  if (got.psc) request.psc = got.psc.text;
  const left = got.trace ? [`${got.trace.name}: left out: the scenario is fitted from the ULOG files (replay the log against it afterwards).`] : [];
  try {
    const a = await toolEngine.call<FitAnswer>({ op: "fit", request: JSON.stringify(request) });
    if (loads !== load) return; // a scenario loaded meanwhile (an example picked while the fit's module loaded) stays
    if (!a.scenario) throw new Error("the fit made no scenario");
    loadScenario(a.scenario, own);
    const n = Object.keys(a.report.services ?? {}).length;
    showNotes([
      ...notes,
      ...left,
      `Fitted ${n} services from ${ulogs.length} ULOG file${ulogs.length === 1 ? "" : "s"}: the scenario tuxlb fit --ulog ... --ubbconfig ... --out writes.`,
      ...(a.report.warnings ?? []),
      ...(a.scenario_warnings ?? []),
    ]);
    say("");
    selectView("config");
  } catch (e) {
    if (loads !== load) return;
    showNotes([...notes, ...left], `Your ULOG files were not taken: ${errorText(e)}`);
  }
}

/**
 * takeIncoming makes the scenario of the user's files the way `tuxlb run
 * --ubbconfig --dmconfig --trace` does (filesRequest says with what else).
 * load is the count of scenarios loaded when the files were given: one loaded
 * since wins.
 */
async function takeIncoming(got: Incoming, notes: string[], load = loads): Promise<void> {
  const keep = drop.keep();
  const cur = {
    ubbconfig: ubbEditor.text,
    dmconfig: dmEditor.text,
    trace_csv: store.scenario.workload.trace_csv,
    trace_map: formatTraceMap(store.scenario.workload.columns),
    trace_skip_bad: store.scenario.workload.trace_skip_bad,
    scenario: JSON.stringify({ ...store.scenario, ubbconfig: ubbEditor.text }),
  };
  const { request, own } = filesRequest(store.own, cur, got, keep);
  try {
    const a = await toolEngine.call<{ scenario: Scenario; notes: string[] }>({ op: "files", request: JSON.stringify(request) });
    if (loads !== load) return; // a scenario loaded while the core worked (an example picked) stays
    loadScenario(a.scenario, own);
    const how =
      request.scenario === undefined
        ? "A fresh scenario: what you gave and the defaults tuxlb run --ubbconfig uses; nothing of the scenario before is kept."
        : got.scenario
          ? "The scenario document, with the files in place of its parts."
          : "This scenario's settings kept, fitted to the new files.";
    showNotes([...notes, how, ...a.notes]);
    say("");
    selectView("config");
  } catch (e) {
    if (loads !== load) return;
    // in the notes, not the banner: the check just below clears the banner
    // when the configuration parses (a log refused, not the configuration)
    showNotes(notes, `Your files were not taken: ${errorText(e)}`);
    revalidate(); // a pasted text stays in the editor, its errors shown there
  }
}

/** isDMConfig says whether a diagnostic is about the DMCONFIG editor's text. */
function isDMConfig(d: Diagnostic): boolean {
  return d.source ? d.source === "dmconfig" : d.file === "dmconfig";
}

/** isConfig says whether a diagnostic is about one of the two editors' texts (not a field of the scenario, nor the trace). */
function isConfig(d: Diagnostic): boolean {
  return !d.source || d.source === "ubbconfig" || d.source === "dmconfig";
}

function diagnosticText(d: Diagnostic): string {
  if (!d.file && d.field) return `${d.field}: ${d.message}`;
  return `${d.file}${d.line ? `:${d.line}${d.col ? `:${d.col}` : ""}` : ""}: ${d.severity === "warning" ? "warning: " : ""}${d.message}`;
}

function showDiagnostics(diags: Diagnostic[], message: string): void {
  diagnostics.replaceChildren(...diags.map((d) => h("li", { class: d.severity === "warning" ? "warning" : "error", "data-line": d.line }, diagnosticText(d))));
  if (!diags.length && message) diagnostics.append(h("li", { class: "error" }, message));
  if (!diags.length && !message) diagnostics.append(h("li", { class: "ok" }, "No problems."));
  ubbEditor.show(diags.filter((d) => isConfig(d) && !isDMConfig(d)));
  dmEditor.show(diags.filter((d) => isConfig(d) && isDMConfig(d)));
}

/** configOf is what validate reads of a scenario: the same text, the same model. */
function configOf(sc: Scenario): { ubb: string; dm: string; advertise: string } {
  return { ubb: sc.ubbconfig, dm: sc.dmconfig ?? "", advertise: JSON.stringify(sc.advertise ?? {}) };
}

/** modelConfig is the configOf (as JSON) that store.model was read from. */
let modelConfig = "";

/** validate runs the Go parser on the editors' text and shows what it says. */
async function validate(): Promise<void> {
  const sc = store.scenario;
  const load = loads;
  const config = configOf(sc);
  try {
    const a = await toolEngine.call<{ model: Model }>({ op: "validate", ...config });
    // Another scenario was loaded while the core worked (a JSON load just
    // after the first example): this model is not its model. Taking it would
    // make the next validate "fit" the new scenario to a change of names that
    // never happened (and give its empty workload default streams).
    if (loads !== load) return;
    const before = store.model;
    store.model = a.model;
    modelConfig = JSON.stringify(config);
    store.emit("model");
    if (!sayKeeps) say(""); // the configuration is fine now: an old error above the tabs is stale, not a link's
    showDiagnostics(a.model.warnings ?? [], "");
    if (before && modelNames(before) !== modelNames(a.model)) await fit(a.model);
    else advertiseBox.replaceChildren(advertiseEditor(store.model, store.scenario, () => { changed(); void validate(); }));
    preview.replaceChildren(h("figure", { class: "topo" }, h("figcaption", {}, "Topology"), topology(a.model, null)));
    drawCallGraph(); // where each service is served comes from the model
  } catch (e) {
    if (loads !== load) return;
    const ce = e instanceof EngineError ? e.core : ({ code: "internal", message: (e as Error).message } as CoreError);
    showDiagnostics(ce.diagnostics ?? [], ce.message);
    preview.replaceChildren();
  }
}

/** runScenario runs sc (with a compare variant applied, "" for none) in the run worker. */
async function runScenario(sc: Scenario, variant: string, onProgress: (done: number, total: number) => void): Promise<Result> {
  const a = await runEngine.call<RunAnswer>({ op: "run", scenario: JSON.stringify(sc), opts: { variant } }, onProgress);
  return JSON.parse(a.result) as Result;
}

function busy(on: boolean): void {
  runBtn.disabled = on;
  cancelBtn.disabled = !on;
  if (on) progress.removeAttribute("value");
}

function errorText(e: unknown): string {
  if (e instanceof EngineError) {
    if (e.core.code === "canceled") return "Canceled.";
    const config = (e.core.diagnostics ?? []).filter(isConfig);
    if (config.length) showDiagnostics(config, e.core.message);
    return `${e.core.code}: ${e.core.message}`;
  }
  return (e as Error).message;
}

/** run plays the scenario and shows the result. */
async function run(): Promise<void> {
  busy(true);
  runStatus.textContent = "Running…";
  const scenarioJSON = JSON.stringify(store.scenario);
  try {
    const a = await runEngine.call<RunAnswer>({ op: "run", scenario: scenarioJSON, opts: {} }, (done, total) => {
      if (total > 0) progress.value = Math.min(1, done / total);
      runStatus.textContent = `${done.toLocaleString("en")} requests${total ? ` of ~${total.toLocaleString("en")}` : ""}`;
    });
    await showResult(JSON.parse(a.result) as Result, a.result, scenarioJSON);
    runStatus.textContent = "Done.";
    progress.value = 1;
  } catch (e) {
    runStatus.textContent = errorText(e);
    progress.value = 0;
  } finally {
    busy(false);
  }
}

/**
 * showResult shows a result with the model of the scenario that made it:
 * another may have been loaded while it ran, or its own not validated yet.
 */
async function showResult(r: Result, text: string, scenarioJSON: string): Promise<void> {
  const model = await modelOf(JSON.parse(scenarioJSON) as Scenario);
  store.result = r;
  store.resultText = text;
  store.resultScenario = scenarioJSON;
  store.resultModel = model;
  store.emit("result"); // the results panel draws it
  selectView("results");
}

/** modelOf is the model of sc's configuration: the page's when it was read from it, else the parser's (null when it has errors). */
async function modelOf(sc: Scenario): Promise<Model | null> {
  const config = configOf(sc);
  if (store.model && JSON.stringify(config) === modelConfig) return store.model;
  try {
    return (await toolEngine.call<{ model: Model }>({ op: "validate", ...config })).model;
  } catch {
    return null;
  }
}

/** The run's lineage (who called whom, by request number), for the scenario it was found for. */
let lineageCache: { scenario: string; lineage: Promise<Lineage | null> } | null = null;

/**
 * lineageOf finds who called whom in the scenario being edited, once per
 * scenario: the tool worker runs it with the dispatch log on (its parent
 * column), as explain mode numbers the requests. null when no service calls
 * another.
 */
function lineageOf(): Promise<Lineage | null> {
  if (!hasCalls(store.scenario)) return Promise.resolve(null);
  const scenario = JSON.stringify(store.scenario);
  if (lineageCache?.scenario !== scenario) {
    const p = toolEngine.call<RunAnswer>({ op: "run", scenario, opts: { dispatch: true } }).then((a) => lineage(a.dispatch ?? ""));
    lineageCache = { scenario, lineage: p };
    p.catch(() => {
      if (lineageCache?.lineage === p) lineageCache = null; // try again next time
    });
  }
  return lineageCache.lineage;
}

/** dispatchOf runs a scenario with the dispatch log on and returns the log. */
async function dispatchOf(scenario: string): Promise<string> {
  busy(true);
  runStatus.textContent = "Running for the dispatch log…";
  try {
    const a = await runEngine.call<RunAnswer>({ op: "run", scenario, opts: { dispatch: true } });
    runStatus.textContent = "Done.";
    progress.value = 1; // busy(true) made the bar indeterminate: end it, as run() does
    return a.dispatch ?? "";
  } catch (e) {
    runStatus.textContent = errorText(e);
    progress.value = 0;
    throw e;
  } finally {
    busy(false);
  }
}

/** downloadDispatch re-runs the scenario of the shown result with the dispatch log on. */
async function downloadDispatch(): Promise<void> {
  const log = await dispatchOf(store.resultScenario).catch(() => null);
  if (log !== null) download(`${resultStem()}-dispatch.csv`, "text/csv", log);
}

async function saveRun(): Promise<void> {
  try {
    const { id } = await api.saveRun(JSON.parse(store.resultScenario));
    runStatus.textContent = `Saved as run ${id}.`;
    await runsView.refresh();
    selectView("runs");
  } catch (e) {
    say((e as Error).message);
  }
}

async function openRun(id: string): Promise<void> {
  const load = loads;
  try {
    const saved = await api.getRun(id);
    // The stored bytes, for download; re-encoding in the browser could print numbers differently.
    const text = await api.getRunResult(id).catch(() => JSON.stringify(saved.result, null, 2) + "\n");
    if (loads !== load) return; // a scenario loaded while the server answered (an example picked) stays
    await loadScenario(saved.scenario);
    await showResult(saved.result, text, JSON.stringify(saved.scenario));
    runStatus.textContent = `Opened run ${id}.`;
  } catch (e) {
    say((e as Error).message);
  }
}

async function compareRuns(ids: string[]): Promise<void> {
  const items: Compared[] = [];
  for (const id of ids) {
    try {
      const r = await api.getRun(id);
      items.push({ label: `run ${id}${r.scenario.name ? ` (${r.scenario.name})` : ""}`, result: r.result });
    } catch (e) {
      items.push({ label: `run ${id}`, error: (e as Error).message });
    }
  }
  compareView.show(items);
  selectView("compare");
}

/**
 * openShared loads a shared scenario (a link's) and runs it, then the
 * comparison and the sweep the link was shared from, so whoever opens it
 * sees what the sender saw without pressing anything.
 */
async function openShared(sc: Scenario, x: Shared): Promise<void> {
  // Another scenario loaded before the core had read this one (an example
  // picked while the core loaded) is the user's choice: the link's run,
  // comparison and sweep are not for it.
  if (!(await loadScenario(sc))) return;
  const load = loads;
  selectView("config");
  if (x.sweep) sweepView.setSpec(x.sweep);
  if (x.compare) compareView.setSpecs(x.compare);
  await run();
  if (loads !== load) return; // the same for one loaded while the link's ran
  // On a phone (one column, style.css's 700 px) the results come after the
  // scenario, screens below: bring them into view, unless the reader has
  // scrolled meanwhile.
  if (store.result && scrollY === 0 && matchMedia("(max-width: 700px)").matches) document.querySelector("section.outputs")?.scrollIntoView({ block: "start" });
  if (x.compare) {
    selectView("compare");
    await compareView.run();
  }
  if (x.sweep) {
    selectView("sweep");
    await sweepView.run();
  }
}

/** start opens the scenario of a short link, a fragment link, or the first example. */
async function start(): Promise<void> {
  const id = shortLinkID(location.pathname);
  if (id) {
    const x = decodeExtras(location.hash);
    if ("error" in x) say(x.error, true);
    try {
      const sc = await api.getScenario(id);
      // An example picked while the server was slow to answer stays.
      if (loads === 0) await openShared(sc, "error" in x ? {} : x);
      return;
    } catch (e) {
      say(`Short link ${id}: ${(e as Error).message}`, true);
    }
  }
  const frag = decodeFragment(location.hash);
  if (frag.kind === "scenario") {
    await openShared(frag.scenario, frag);
    return;
  }
  if (frag.kind === "error") say(frag.message, true);
  if (examples.length && loads === 0) void loadScenario(structuredClone(examples[0].scenario)); // none picked while a short link was asked for
}

window.addEventListener("hashchange", () => {
  if (shortLinkID(location.pathname)) return; // a short link's fragment only carries its sweep or comparison
  const frag = decodeFragment(location.hash);
  if (frag.kind === "scenario") void openShared(frag.scenario, frag);
  else if (frag.kind === "error") say(frag.message, true);
});

void start();
