// The page's handle on the simulation worker: promise-based calls, progress
// callbacks, and cancel (terminate the worker and start a fresh one).
import type { CoreError } from "./types";
// The Go core and Go's loader for it, as Vite emits them: under content-hashed
// names (assets/tuxlb-HASH.wasm), so they can be cached for a year. The
// second module (fit and optimize) is fetched by the worker only when one of
// them is first asked for.
import execAsset from "../wasm/wasm_exec.js?url";
import wasmAsset from "../wasm/tuxlb.wasm?url";
import toolsAsset from "../wasm/tuxlb-tools.wasm?url";

/** A failed call: the core's error (with diagnostics when the config is wrong). */
export class EngineError extends Error {
  constructor(public readonly core: CoreError) {
    super(core.message);
  }
}

interface Pending {
  resolve: (answer: unknown) => void;
  reject: (e: Error) => void;
  progress?: (done: number, total: number) => void;
}

/** Engine is one worker running tuxlb.wasm. */
export class Engine {
  private worker!: Worker;
  private next = 1;
  private pending = new Map<number, Pending>();
  /** version is the engine version the loaded core reports, once ready. */
  version = "";
  /** ready settles when the WASM core has loaded (or failed to). */
  ready!: Promise<void>;

  constructor() {
    this.start();
  }

  private start(): void {
    this.worker = new Worker(new URL("./worker.ts", import.meta.url), { type: "classic" });
    this.ready = new Promise((resolve, reject) => {
      this.worker.onmessage = (ev: MessageEvent) => {
        const m = ev.data;
        if (m.type === "ready") {
          this.version = JSON.parse(m.version).engine_version ?? "";
          resolve();
        } else if (m.type === "fatal") {
          reject(new Error(`the simulator did not load: ${m.message}`));
        } else this.receive(m);
      };
    });
    this.ready.catch(() => {}); // reported by whoever awaits it
    this.worker.postMessage({
      type: "init",
      execURL: new URL(execAsset, location.href).href,
      wasmURL: new URL(wasmAsset, location.href).href,
      toolsURL: new URL(toolsAsset, location.href).href,
    });
  }

  private receive(m: { id: number; type: string; done?: number; total?: number; answer?: string; dispatch?: string }): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    if (m.type === "progress") {
      p.progress?.(m.done ?? 0, m.total ?? 0);
      return;
    }
    this.pending.delete(m.id);
    let v: { error?: CoreError };
    try {
      v = JSON.parse(m.answer ?? "");
    } catch {
      p.reject(new Error("the simulator's answer is not JSON"));
      return;
    }
    if (v.error) p.reject(new EngineError(v.error));
    else p.resolve(m.dispatch === undefined ? v : { ...v, dispatch: m.dispatch });
  }

  /** call sends one request and resolves with the bridge's answer object. */
  call<T>(req: Record<string, unknown>, progress?: (done: number, total: number) => void): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (a: unknown) => void, reject, progress });
      this.worker.postMessage({ ...req, id });
    });
  }

  /** cancel stops whatever the worker is doing: it is terminated and replaced. */
  cancel(): void {
    this.worker.terminate();
    for (const p of this.pending.values()) p.reject(new EngineError({ code: "canceled", message: "canceled" }));
    this.pending.clear();
    this.start();
  }

  /** busy reports whether a call is in flight. */
  get busy(): boolean {
    return this.pending.size > 0;
  }
}

/** The answer of run: the result bytes exactly as `tuxlb run` prints them. */
export interface RunAnswer {
  result: string;
  dispatch?: string;
}
