// The Web Worker of sweep.html: the playground's second module (tuxlb-tools.wasm)
// answering sweepPlan, sweepUnit and sweepReduce requests, as frontend/src/worker.ts does.
importScripts("wasm_exec.js");
const go = new Go();
self.tuxlbToolsReady = () => self.postMessage({ ready: true });
WebAssembly.instantiateStreaming(fetch("tuxlb-tools.wasm"), go.importObject).then(
  ({ instance }) => void go.run(instance),
  (e) => self.postMessage({ error: String(e) }),
);
self.onmessage = (ev) => {
  const m = ev.data;
  const b = self.tuxlbTools;
  let answer;
  if (m.op === "sweepPlan") answer = b.sweepPlan(m.scenario, m.spec);
  else if (m.op === "sweepUnit") answer = b.sweepUnit(m.scenario, m.spec, m.unit, {});
  else answer = b.sweepReduce(m.scenario, m.spec, m.samples);
  self.postMessage({ answer });
};
