// The scenario forms: workload (streams and trace), service timings, network,
// policy, seed and tuning. Each edits the scenario object in place and calls
// onChange; they are rebuilt only when a new scenario is loaded.
import { fileText } from "./filetext";
import { h } from "./dom";
import { traceTable } from "./tracetable";
import { formatTraceMap, parseTraceMap, rateScaleProblem, traceMapKeys } from "./tracemap";
import { routeDistParams, formatRouteList, parseRouteList, routeKind, type RouteKind } from "./route";
import type { Dist, RouteSpec, Scenario, Stream } from "./types";
import vocabulary from "./vocabulary.json";

/** What the policy menu says of a policy beyond its name. */
const policyLabels: Record<string, string> = {
  tuxedo: "tuxedo (LDBAL and MODEL decide)",
  jsq: "jsq (join the shortest queue)",
  p2c: "p2c (power of two choices)",
};

/** What the forms need to know about the parsed configuration. */
export interface Known {
  services: string[];
  machines: string[];
  /** routed maps each routed service to its *ROUTING criterion. */
  routed?: Record<string, string>;
}

type OnChange = () => void;

/** traceEditLimit is the longest trace (in characters) offered for editing as text. */
const traceEditLimit = 200_000;

/** num reads a number input: undefined when empty or not a number. */
export function num(el: HTMLInputElement): number | undefined {
  if (el.value.trim() === "") return undefined;
  const n = Number(el.value);
  return Number.isFinite(n) ? n : undefined;
}

export function numInput(label: string, value: number | undefined, onInput: (v: number | undefined) => void, attrs: Record<string, string> = {}): HTMLElement {
  const input = h("input", { type: "number", step: "any", value: value ?? "", "aria-label": label, ...attrs });
  input.addEventListener("input", () => onInput(num(input)));
  return h("label", { class: "field" }, h("span", {}, label), input);
}

function select(label: string, options: [string, string][], value: string, onChange: (v: string) => void, attrs: Record<string, string> = {}): HTMLElement {
  const sel = h("select", { "aria-label": label, ...attrs }, ...options.map(([v, text]) => h("option", { value: v }, text)));
  sel.value = value;
  sel.addEventListener("change", () => onChange(sel.value));
  return h("label", { class: "field" }, h("span", {}, label), sel);
}

/**
 * routeCell edits the routing values of a stream or of a client set's
 * service (label names it: "stream 1 routing value"): none, numbers drawn
 * from a distribution (uniform min..max, normal mean/sd, exp mean; whole
 * numbers unless "decimals" is ticked), or a weighted list ("10001:5,
 * 55555:3, ACME").
 */
export function routeCell(st: { service: string; route?: RouteSpec }, label: string, known: Known, onChange: OnChange): HTMLElement {
  const kind = h(
    "select",
    { "aria-label": label },
    h("option", { value: "none" }, "none"),
    h("option", { value: "numbers" }, "numbers"),
    h("option", { value: "list" }, "list"),
  );
  kind.value = routeKind(st.route);
  const detail = h("span", { class: "route-detail" });
  const crit = known.routed?.[st.service];
  const hint = h("span", { class: "muted" }, crit ? `routed by ${crit}` : "");
  const draw = (): void => {
    const spec = st.route;
    if (!spec) {
      detail.replaceChildren();
      return;
    }
    if (routeKind(spec) === "list") {
      const text = h("input", { value: formatRouteList(spec), placeholder: "10001:5, 55555:3, ACME", "aria-label": `${label} list` });
      const err = h("span", { class: "error", role: "alert" });
      text.addEventListener("input", () => {
        const got = parseRouteList(text.value);
        if ("error" in got) {
          err.textContent = got.error;
          return;
        }
        err.textContent = "";
        st.route = got;
        onChange();
      });
      detail.replaceChildren(text, err);
      return;
    }
    const dist = h("select", { "aria-label": `${label} distribution` }, ...(vocabulary["route.dist"] ?? Object.keys(routeDistParams)).map((d) => h("option", { value: d }, d)));
    dist.value = spec.dist ?? "uniform";
    const params = h("span");
    const drawParams = (): void => {
      const [a, b] = routeDistParams[dist.value] ?? ["min", "max"];
      const input = (key: keyof RouteSpec) => {
        const el = h("input", { type: "number", step: "any", value: String(spec[key] ?? ""), "aria-label": `${label} ${key}`, placeholder: key });
        el.addEventListener("input", () => {
          const v = num(el);
          if (v === undefined) delete spec[key];
          else (spec as Record<string, unknown>)[key] = v;
          onChange();
        });
        return el;
      };
      params.replaceChildren(input(a), ...(b ? [input(b)] : []));
    };
    dist.addEventListener("change", () => {
      st.route = { dist: dist.value, ...(spec.integer === false ? { integer: false } : {}) };
      draw();
      onChange();
    });
    const dec = h("input", { type: "checkbox", "aria-label": `${label} decimals` });
    dec.checked = spec.integer === false;
    dec.addEventListener("change", () => {
      if (dec.checked) spec.integer = false;
      else delete spec.integer;
      onChange();
    });
    drawParams();
    detail.replaceChildren(dist, params, h("label", { class: "inline" }, dec, " decimals"));
  };
  kind.addEventListener("change", () => {
    const k = kind.value as RouteKind;
    if (k === "none") delete st.route;
    else if (k === "list") st.route = { values: [1] };
    else st.route = { dist: "uniform", min: 1, max: 100 };
    draw();
    onChange();
  });
  draw();
  return h("span", { class: "route" }, kind, detail, hint);
}

/**
 * workloadForm edits scenario.workload: generated streams and a trace;
 * clients (clientsForm) are shown after the streams.
 */
export function workloadForm(sc: Scenario, known: Known, onChange: OnChange, clients: HTMLElement | null = null, lateTrace: (text: string) => void = () => {}): HTMLElement {
  // The generate block is created on the first edit only, so a trace-only
  // scenario stays exactly as it was loaded; its streams list too, so a
  // scenario of clients only gets no empty one.
  const gen = () => {
    const g = (sc.workload.generate ??= { duration_ms: 10000, streams: [] });
    return g;
  };
  const rows = h("tbody");
  const redraw = () => {
    rows.replaceChildren(...(sc.workload.generate?.streams ?? []).map((st, i) => streamRow(st, i)));
  };
  const streamRow = (st: Stream, i: number): HTMLElement => {
    const svc = h("input", { value: st.service, list: "known-services", "aria-label": `stream ${i + 1} service` });
    svc.addEventListener("input", () => {
      st.service = svc.value.trim();
      onChange();
    });
    const origin = h(
      "select",
      { "aria-label": `stream ${i + 1} origin` },
      h("option", { value: "" }, "(master)"),
      ...known.machines.map((m) => h("option", { value: m }, m)),
    );
    if (st.origin && !known.machines.includes(st.origin)) origin.append(h("option", { value: st.origin }, st.origin));
    origin.value = st.origin ?? "";
    origin.addEventListener("change", () => {
      if (origin.value) st.origin = origin.value;
      else delete st.origin;
      onChange();
    });
    const arrivals = h(
      "select",
      { "aria-label": `stream ${i + 1} arrivals` },
      ...["poisson", "constant", "bursty", "mmpp"].map((a) => h("option", { value: a }, a)),
    );
    arrivals.value = st.arrivals;
    arrivals.addEventListener("change", () => {
      st.arrivals = arrivals.value;
      onChange();
    });
    const rateInput = h("input", { type: "number", step: "any", min: "0", value: st.rate_per_s ?? "", "aria-label": `stream ${i + 1} rate per second` });
    rateInput.addEventListener("input", () => {
      st.rate_per_s = num(rateInput);
      onChange();
    });
    // A ramp (profile) or an mmpp stream has no single rate: say which one applies instead of an empty box.
    const rate: HTMLElement = st.profile?.length
      ? h("span", { class: "muted", "data-testid": `stream-${i + 1}-rate` }, `ramp: ${st.profile.length} points (JSON tab)`)
      : st.arrivals === "mmpp"
        ? h("span", { class: "muted", "data-testid": `stream-${i + 1}-rate` }, "rates_per_s (JSON tab)")
        : rateInput;
    const route = routeCell(st, `stream ${i + 1} routing value`, known, onChange);
    const del = h("button", { type: "button", class: "small", "aria-label": `remove stream ${i + 1}` }, "Remove");
    del.addEventListener("click", () => {
      gen().streams?.splice(i, 1);
      redraw();
      onChange();
    });
    return h("tr", {}, h("td", {}, svc), h("td", {}, origin), h("td", {}, arrivals), h("td", {}, rate), h("td", {}, route), h("td", {}, del));
  };
  redraw();
  const add = h("button", { type: "button" }, "Add stream");
  add.addEventListener("click", () => {
    (gen().streams ??= []).push({ service: known.services[0] ?? "", arrivals: "poisson", rate_per_s: 100 });
    redraw();
    onChange();
  });

  const traceBox = h("div", { class: "trace", "data-testid": "trace-box" });
  const setTrace = (text: string) => {
    if (text.trim()) sc.workload.trace_csv = text;
    else delete sc.workload.trace_csv;
    onChange();
  };
  // A text area for a trace to paste or type; the table for one there is,
  // however long (a text area of megabytes takes seconds to open).
  const editor = (text: string) => {
    const area = h("textarea", {
      rows: 6,
      spellcheck: "false",
      "aria-label": "trace CSV",
      "data-testid": "trace",
      placeholder: "time_ms,service,origin,service_ms,prio,route\n0,TOUPPER,site1,3.5,,",
    });
    area.value = text;
    area.addEventListener("input", () => setTrace(area.value));
    return area;
  };
  const drawTrace = () => {
    const text = sc.workload.trace_csv ?? "";
    if (!text.trim()) {
      traceBox.replaceChildren(editor(""));
      return;
    }
    const edit = h("button", { type: "button", class: "small", "data-testid": "trace-edit", disabled: text.length > traceEditLimit }, "Edit as text");
    edit.addEventListener("click", () => {
      const done = h("button", { type: "button", class: "small" }, "Show as a table");
      done.addEventListener("click", drawTrace);
      traceBox.replaceChildren(editor(sc.workload.trace_csv ?? ""), h("div", { class: "controls" }, done));
    });
    const remove = h("button", { type: "button", class: "small", "data-testid": "trace-remove" }, "Remove the trace");
    remove.addEventListener("click", () => {
      setTrace("");
      drawTrace();
    });
    const big = text.length > traceEditLimit ? h("span", { class: "muted" }, "Too long to edit here: edit the file and upload it again.") : null;
    traceBox.replaceChildren(traceTable(text, "Merged with the generated requests by time."), h("div", { class: "controls" }, edit, remove, big));
  };
  drawTrace();
  const upload = h("input", { type: "file", accept: ".csv,.tsv,.log,.gz,text/csv,text/plain,application/gzip", "aria-label": "upload a trace CSV", "data-testid": "trace-upload" });
  upload.addEventListener("change", async () => {
    const f = upload.files?.[0];
    if (!f) return;
    let text: string;
    try {
      text = await fileText(f);
    } catch (e) {
      upload.value = "";
      traceBox.replaceChildren(h("span", { class: "error", role: "alert" }, (e as Error).message));
      return;
    }
    upload.value = "";
    // the forms may have been drawn again while the file was read (a
    // scenario just loaded, then validated): the trace goes to the
    // scenario and the forms of now
    if (!upload.isConnected) {
      lateTrace(text);
      return;
    }
    setTrace(text);
    drawTrace();
  });
  const other = sc.workload.trace ? h("p", { class: "muted" }, `Plus ${sc.workload.trace.length} JSON trace rows (edit them in the JSON tab).`) : null;

  // Replaying a production log: how to read its columns, its unreadable rows, its speed.
  const mapInput = h("input", {
    value: formatTraceMap(sc.workload.columns),
    placeholder: "e.g. time=Timestamp,service=Service,observed=Elapsed(ms)",
    "aria-label": "column mapping",
    "aria-describedby": "trace-map-help",
    "data-testid": "trace-map",
    spellcheck: "false",
    class: "trace-map",
  });
  const mapError = h("span", { class: "error", role: "alert", "data-testid": "trace-map-error" });
  mapInput.addEventListener("input", () => {
    const got = parseTraceMap(mapInput.value);
    if (got && "error" in got) {
      mapError.textContent = got.error;
      return;
    }
    mapError.textContent = "";
    if (got && Object.keys(got).length) sc.workload.columns = got;
    else delete sc.workload.columns;
    onChange();
  });
  const skipBad = h("input", { type: "checkbox", "data-testid": "trace-skip-bad", "aria-label": "skip unreadable rows" });
  skipBad.checked = sc.workload.trace_skip_bad === true;
  skipBad.addEventListener("change", () => {
    if (skipBad.checked) sc.workload.trace_skip_bad = true;
    else delete sc.workload.trace_skip_bad;
    onChange();
  });
  const rate = h("input", {
    type: "number",
    step: "any",
    min: "0",
    placeholder: "1",
    value: sc.workload.trace_rate_scale ?? "",
    "aria-label": "replay speed (times)",
    "data-testid": "trace-rate-scale",
  });
  const rateError = h("span", { class: "error", role: "alert", "data-testid": "trace-rate-scale-error" });
  rate.addEventListener("input", () => {
    const problem = rateScaleProblem(rate.value);
    rateError.textContent = problem;
    if (problem) return;
    const v = num(rate);
    // 1 is the log's own pace, the default: left out of the scenario
    if (v === undefined || v === 1) delete sc.workload.trace_rate_scale;
    else sc.workload.trace_rate_scale = v;
    onChange();
  });
  const replay = h(
    "div",
    { class: "replay" },
    h("label", { class: "field wide-input" }, h("span", {}, "Column mapping"), mapInput, mapError),
    h(
      "p",
      { class: "help", id: "trace-map-help" },
      "How to read the log's columns, as tuxlb run --trace-map takes it: key=COLUMN,key=COLUMN with the keys ",
      traceMapKeys.join(", "),
      " (delimiter=tab for a tab). observed= names the column of the response the log saw: the results then compare the run's responses with it. Empty: the columns are found by their names.",
    ),
    h("label", { class: "check" }, skipBad, " Skip unreadable rows (a total line, n/a, an unknown service: counted in the results instead of stopping the run)"),
    h("div", {}, h("label", { class: "field" }, h("span", {}, "Replay speed (×)"), rate), rateError),
    h(
      "p",
      { class: "help" },
      "Plays the trace that many times faster (its times divided by it): 2 is the same requests at twice the rate. Empty or 1: the log's own pace. At any other speed the results compare nothing with the observed responses: those were the log's own pace's.",
    ),
  );

  return h(
    "div",
    { class: "form" },
    h("h3", {}, "Generated requests"),
    numInput("Duration (ms)", sc.workload.generate?.duration_ms, (v) => {
      gen().duration_ms = v ?? 0;
      onChange();
    }),
    h(
      "table",
      { class: "streams" },
      h("thead", {}, h("tr", {}, h("th", {}, "Service"), h("th", {}, "Origin"), h("th", {}, "Arrivals"), h("th", {}, "Rate /s"), h("th", {}, "Routing value"), h("th", {}))),
      rows,
    ),
    add,
    clients,
    h("h3", {}, "Trace"),
    h(
      "p",
      { class: "muted" },
      "CSV with time_ms and service (origin, service_ms, prio, id, route optional: route is the routing field's value for a service with ROUTING=), or a log as it comes: the time and service columns are found by their names (timestamp, ts, svc, ...), date-times and epoch times count from the earliest of the first 4096 rows (docs/scenario.md). Merged with the generated requests by time.",
    ),
    traceBox,
    h("label", { class: "field" }, h("span", {}, "Upload"), upload),
    other,
    replay,
  );
}

/** The parameters each distribution takes, in the order the form shows them. */
export const distParams: Record<string, (keyof Dist)[]> = {
  const: ["ms"],
  exp: ["mean_ms"],
  uniform: ["min_ms", "max_ms"],
  lognormal: ["mean_ms", "sd_ms"],
  gamma: ["mean_ms", "sd_ms"],
  erlang: ["mean_ms", "k"],
  hyperexp: ["mean_ms", "sd_ms"],
  weibull: ["mean_ms", "shape"],
  empirical: ["samples_ms"],
};

/** distEditor edits one distribution in place. */
export function distEditor(label: string, d: Dist, onChange: OnChange): HTMLElement {
  const params = h("span", { class: "params" });
  const drawParams = () => {
    params.replaceChildren(
      ...distParams[d.dist].map((p) => {
        if (p === "samples_ms") {
          const input = h("input", { value: (d.samples_ms ?? []).join(", "), "aria-label": `${label} samples (ms)` });
          input.addEventListener("input", () => {
            d.samples_ms = input.value.split(/[\s,]+/).filter(Boolean).map(Number);
            onChange();
          });
          return h("label", { class: "field" }, h("span", {}, "samples ms"), input);
        }
        return numInput(p.replace("_", " "), d[p] as number | undefined, (v) => {
          (d as unknown as Record<string, number | undefined>)[p] = v;
          onChange();
        });
      }),
    );
  };
  const kinds = Object.keys(distParams).map((k) => [k, k] as [string, string]);
  const kind = select(`${label} distribution`, kinds, d.dist, (v) => {
    for (const p of Object.values(distParams).flat()) if (!distParams[v].includes(p)) delete d[p];
    d.dist = v;
    drawParams();
    onChange();
  });
  drawParams();
  return h("div", { class: "dist" }, kind, params);
}

/** servicesForm edits each known service's service time. */
export function servicesForm(sc: Scenario, known: Known, onChange: OnChange): HTMLElement {
  const names = Array.from(new Set([...known.services, ...Object.keys(sc.services ?? {})])).sort();
  const rows = names.map((name) => {
    const spec = sc.services?.[name];
    if (!spec?.service_time) {
      const btn = h("button", { type: "button", class: "small" }, "Give a service time");
      btn.addEventListener("click", () => {
        sc.services ??= {};
        sc.services[name] = { ...(sc.services[name] ?? {}), service_time: { dist: "exp", mean_ms: 5 } };
        btn.replaceWith(distEditor(name, sc.services[name].service_time!, onChange));
        onChange();
      });
      return h("div", { class: "service" }, h("strong", {}, name), btn);
    }
    return h("div", { class: "service" }, h("strong", {}, name), distEditor(name, spec.service_time, onChange));
  });
  return h("div", { class: "form" }, h("h3", {}, "Service times"), ...(rows.length ? rows : [h("p", { class: "muted" }, "No services known yet.")]));
}

/** The tuning options with their meaning (docs/engine.md). */
const tuningHelp = {
  idle: "When is a server idle? server: it is not processing a request (Tuxedo's own description). queue: its queue holds no waiting request.",
  netload: "Which NETLOAD is added for a remote queue in MP? server: the NETLOAD of the machine holding the queue (Tuxedo's own description). origin: the origin machine's (Oracle's UBBCONFIG reference).",
  mp_counter: "What an MP choice adds to the chosen queue's counter. load+netload: LOAD plus NETLOAD (Tuxedo's own description). load: LOAD only.",
  mp_reset_ms: "How often every MP counter is reset to 0, in simulated ms. Default SCANUNIT × SANITYSCAN (120 000 ms).",
  gateway_forward_ms: "How long a GWTDOMAIN gateway is busy forwarding one request (ms). Default 0.1.",
};

/** tuningForm edits policy, seed, network latency and the tuning readings. */
export function tuningForm(sc: Scenario, onChange: OnChange): HTMLElement {
  const t = (): NonNullable<Scenario["tuning"]> => (sc.tuning ??= {});
  const str = (key: "idle" | "netload" | "mp_counter", options: string[]) =>
    h(
      "div",
      { class: "tuning" },
      select(key, [["", "default"], ...options.map((o) => [o, o] as [string, string])], sc.tuning?.[key] ?? "", (v) => {
        if (v) t()[key] = v;
        else delete t()[key];
        onChange();
      }),
      h("p", { class: "help" }, tuningHelp[key]),
    );
  const n = (key: "mp_reset_ms" | "gateway_forward_ms") =>
    h(
      "div",
      { class: "tuning" },
      numInput(key, sc.tuning?.[key], (v) => {
        if (v === undefined) delete t()[key];
        else t()[key] = v;
        onChange();
      }),
      h("p", { class: "help" }, tuningHelp[key]),
    );
  return h(
    "div",
    { class: "form" },
    h("h3", {}, "Run"),
    select(
      "Policy",
      vocabulary.policy.map((p): [string, string] => [p, policyLabels[p] ?? p]),
      sc.policy || "tuxedo",
      (v) => {
        sc.policy = v;
        onChange();
      },
      { "data-testid": "policy" },
    ),
    numInput("Seed", sc.seed, (v) => {
      if (v === undefined) delete sc.seed;
      else sc.seed = Math.max(0, Math.trunc(v));
      onChange();
    }, { min: "0", step: "1", "data-testid": "seed" }),
    numInput("Network latency, one way (ms)", sc.network?.latency_ms, (v) => {
      if (v === undefined) delete sc.network;
      else sc.network = { latency_ms: v };
      onChange();
    }),
    h("h3", {}, "Tuning (readings of undocumented behaviour)"),
    str("idle", vocabulary["tuning.idle"]),
    str("netload", vocabulary["tuning.netload"]),
    str("mp_counter", vocabulary["tuning.mp_counter"]),
    n("mp_reset_ms"),
    n("gateway_forward_ms"),
  );
}
