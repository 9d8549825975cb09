// The Web Worker that runs the Go core (tuxlb.wasm). The page sends it
// requests; long runs report progress; the page cancels by terminating it.
// fit, the sweeps and optimize live in a second module (tuxlb-tools.wasm),
// kept out of the page's first download: the worker loads it beside the
// first the first time one of them is asked for.
/// <reference lib="webworker" />

export {}; // a module for TypeScript; Vite bundles it as a classic worker

/** The functions wasm/main.go installs on globalThis.tuxlb. */
interface Bridge {
  validate(ubb: string, dm: string, advertise: string): string;
  run(scenario: string, opts: object): string;
  takeDispatch(): string;
  explain(scenario: string, first: number, count: number, opts: object): string;
  adapt(scenario: string): string;
  files(request: string): string;
  version: string;
}

/** The functions wasm/tools/main.go installs on globalThis.tuxlbTools. */
interface Tools {
  fit(request: string): string;
  sweepPlan(scenario: string, spec: string): string;
  sweepUnit(scenario: string, spec: string, unit: number, opts: object): string;
  sweepPending(scenario: string, spec: string, samples: string): string;
  sweepReduce(scenario: string, spec: string, samples: string): string;
  optimize(scenario: string, spec: string, opts: object): string;
  version: string;
}

declare const Go: new () => { importObject: WebAssembly.Imports; run(i: WebAssembly.Instance): Promise<void> };
declare const self: DedicatedWorkerGlobalScope & { tuxlb?: Bridge; tuxlbReady?: () => void; tuxlbTools?: Tools; tuxlbToolsReady?: () => void };

/** A request from the page. */
type Request =
  | { type: "init"; execURL: string; wasmURL: string; toolsURL: string }
  | { id: number; op: "validate"; ubb: string; dm: string; advertise: string }
  | { id: number; op: "run"; scenario: string; opts: { policy?: string; seed?: string; dispatch?: boolean; variant?: string } }
  | { id: number; op: "explain"; scenario: string; first: number; count: number; opts: { policy?: string; seed?: string } }
  | { id: number; op: "sweepPlan"; scenario: string; spec: string }
  | { id: number; op: "sweepUnit"; scenario: string; spec: string; unit: number }
  | { id: number; op: "sweepPending"; scenario: string; spec: string; samples: string }
  | { id: number; op: "sweepReduce"; scenario: string; spec: string; samples: string }
  | { id: number; op: "optimize"; scenario: string; spec: string }
  | { id: number; op: "adapt"; scenario: string }
  | { id: number; op: "files"; request: string }
  | { id: number; op: "fit"; request: string };

let bridge: Promise<Bridge> | null = null;
let tools: Promise<Tools> | null = null;
let toolsURL = "";

/** start runs the Go module at url (wasm_exec.js loaded) until it calls ready. */
async function start(url: string, ready: Promise<void>): Promise<void> {
  const go = new Go();
  const resp = await fetch(url);
  if (!resp.ok) throw new Error(`loading ${url}: HTTP ${resp.status}`);
  const { instance } = await WebAssembly.instantiate(await resp.arrayBuffer(), go.importObject);
  void go.run(instance);
  await ready;
}

async function load(execURL: string, wasmURL: string): Promise<Bridge> {
  importScripts(execURL);
  await start(wasmURL, new Promise<void>((resolve) => (self.tuxlbReady = resolve)));
  return self.tuxlb!;
}

/** loadTools loads the second module once, after the first (again on the next call if it failed). */
function loadTools(): Promise<Tools> {
  tools ??= bridge!
    .then(async () => {
      await start(toolsURL, new Promise<void>((resolve) => (self.tuxlbToolsReady = resolve)));
      return self.tuxlbTools!;
    })
    .catch((e: Error) => {
      tools = null;
      throw e;
    });
  return tools;
}

/** inTools says whether op is the second module's. */
function inTools(op: string): boolean {
  return op === "fit" || op === "optimize" || op.startsWith("sweep");
}

self.onmessage = async (ev: MessageEvent<Request>) => {
  const msg = ev.data;
  if ("type" in msg) {
    bridge = load(msg.execURL, msg.wasmURL);
    toolsURL = msg.toolsURL;
    bridge.then(
      (b) => self.postMessage({ type: "ready", version: b.version }),
      (e: Error) => self.postMessage({ type: "fatal", message: e.message }),
    );
    return;
  }
  let b: Bridge;
  let t: Tools | null = null;
  try {
    b = await bridge!;
    if (inTools(msg.op)) t = await loadTools();
  } catch (e) {
    self.postMessage({ id: msg.id, type: "done", answer: JSON.stringify({ error: { code: "internal", message: (e as Error).message } }) });
    return;
  }
  let answer: string;
  switch (msg.op) {
    case "validate":
      answer = b.validate(msg.ubb, msg.dm, msg.advertise);
      break;
    case "run": {
      const progress = (done: number, total: number) => self.postMessage({ id: msg.id, type: "progress", done, total });
      answer = b.run(msg.scenario, { ...msg.opts, progress });
      if (msg.opts.dispatch) {
        // the log comes as a string of its own, not inside the answer's JSON
        self.postMessage({ id: msg.id, type: "done", answer, dispatch: b.takeDispatch() });
        return;
      }
      break;
    }
    case "explain":
      answer = b.explain(msg.scenario, msg.first, msg.count, msg.opts);
      break;
    case "sweepPlan":
      answer = t!.sweepPlan(msg.scenario, msg.spec);
      break;
    case "sweepUnit":
      answer = t!.sweepUnit(msg.scenario, msg.spec, msg.unit, {});
      break;
    case "sweepPending":
      answer = t!.sweepPending(msg.scenario, msg.spec, msg.samples);
      break;
    case "sweepReduce":
      answer = t!.sweepReduce(msg.scenario, msg.spec, msg.samples);
      break;
    case "optimize": {
      const progress = (done: number, total: number) => self.postMessage({ id: msg.id, type: "progress", done, total });
      answer = t!.optimize(msg.scenario, msg.spec, { progress });
      break;
    }
    case "adapt":
      answer = b.adapt(msg.scenario);
      break;
    case "files":
      answer = b.files(msg.request);
      break;
    case "fit":
      answer = t!.fit(msg.request);
      break;
  }
  self.postMessage({ id: msg.id, type: "done", answer });
};
