// The page's state and its change events. The fields are plain and mutable, as
// they always were; whoever changes one says so with emit, and the views that
// need to react subscribe with on instead of being called one by one.
import type { LifeEvent, Model, Result, Scenario, Stream } from "./types";
import type { Own } from "./ownfiles";

/** What changed: the scenario being edited, its model (validate's), or the result shown. */
export type StoreEvent = "scenario" | "model" | "result";

export type Listener = () => void;

/** Parts dropped because the configuration no longer had their names; they come back if it does. */
export interface Parked {
  services: NonNullable<Scenario["services"]>;
  streams: Stream[];
  events: LifeEvent[];
}

export class Store {
  /** The scenario being edited. */
  scenario: Scenario = { ubbconfig: "", workload: {} };
  /** The model of its configuration, null until validate has one. */
  model: Model | null = null;
  /** The result shown. */
  result: Result | null = null;
  /** The result exactly as the core encoded it. */
  resultText = "";
  /** The scenario JSON that produced it. */
  resultScenario = "";
  /** The model of that scenario's configuration (null if it has errors): the scenario being edited may have another. */
  resultModel: Model | null = null;
  parked: Parked = { services: {}, streams: [], events: [] };
  /** What of the scenario is the user's own files (see filesRequest). */
  own: Own = {};

  private listeners: Record<StoreEvent, Listener[]> = { scenario: [], model: [], result: [] };

  /** on calls listener after every emit of kind, after the listeners subscribed before it; it returns the unsubscribe. */
  on(kind: StoreEvent, listener: Listener): () => void {
    const entry = () => listener(); // its own identity, so the same function may subscribe twice
    this.listeners[kind].push(entry);
    return () => {
      const list = this.listeners[kind];
      const i = list.indexOf(entry);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /** emit tells kind's listeners, in the order they subscribed, that it changed. */
  emit(kind: StoreEvent): void {
    for (const l of [...this.listeners[kind]]) l();
  }
}
