//go:build js && wasm

// Command wasm is the syscall/js bridge between the playground and core
// (tuxlb.wasm, the module the page loads first). It installs
// globalThis.tuxlb = {validate, run, takeDispatch, explain, adapt, files,
// version} and then blocks forever. The calibration (fit), the sweeps
// (sweepPlan, sweepUnit, sweepPending, sweepReduce) and the optimization
// (optimize) are a module of their own, wasm/tools, loaded only when one is
// asked for. Every function takes plain strings and numbers and returns
// a JSON string: the answer, or {"code","message","diagnostics"} on failure;
// takeDispatch returns the last run's dispatch log as a plain string.
// It does nothing but bridge; all the behaviour lives in core.
package main

import (
	"runtime/debug"
	"syscall/js"
)

// gcPercent is the collector's target here, as the native batch commands
// have it (pool.GCPercent): a run keeps little alive but makes a few MB of
// short-lived buffers, and at Go's default the collector, which stops the
// whole worker in WebAssembly, ran every few milliseconds of a sweep.
const gcPercent = 400

func main() {
	debug.SetGCPercent(gcPercent)
	api := js.Global().Get("Object").New()
	api.Set("validate", js.FuncOf(jsValidate))
	api.Set("run", js.FuncOf(jsRun))
	api.Set("takeDispatch", js.FuncOf(func(js.Value, []js.Value) any { return takeDispatch() }))
	api.Set("explain", js.FuncOf(jsExplain))
	api.Set("adapt", js.FuncOf(func(_ js.Value, args []js.Value) any { return adapt(argString(args, 0)) }))
	api.Set("files", js.FuncOf(func(_ js.Value, args []js.Value) any { return files(argString(args, 0)) }))
	api.Set("version", versionJSON())
	js.Global().Set("tuxlb", api)
	if ready := js.Global().Get("tuxlbReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

// jsValidate is tuxlb.validate(ubbconfig, dmconfig, advertiseJSON?).
func jsValidate(_ js.Value, args []js.Value) any {
	return validate(argString(args, 0), argString(args, 1), argString(args, 2))
}

// jsRun is tuxlb.run(scenarioJSON, {policy, seed, dispatch, variant, progress}).
// progress, when a function, is called with (done, total).
func jsRun(_ js.Value, args []js.Value) any {
	opts := argOptions(args, 1)
	return run(argString(args, 0), opts)
}

// jsExplain is tuxlb.explain(scenarioJSON, first, count, {policy, seed}).
func jsExplain(_ js.Value, args []js.Value) any {
	if len(args) > 1 && args[1].Type() == js.TypeString { // a request id: explain(scenario, "2008.1", _, options)
		return explainID(argString(args, 0), args[1].String(), argOptions(args, 3))
	}
	first := int64(argNumber(args, 1, 1))
	count := int64(argNumber(args, 2, 1))
	return explain(argString(args, 0), first, count, argOptions(args, 3))
}

func argString(args []js.Value, i int) string {
	if i >= len(args) || args[i].Type() != js.TypeString {
		return ""
	}
	return args[i].String()
}

func argNumber(args []js.Value, i int, def float64) float64 {
	if i >= len(args) || args[i].Type() != js.TypeNumber {
		return def
	}
	return args[i].Float()
}

// argOptions reads the options object at args[i]; absent fields stay unset.
func argOptions(args []js.Value, i int) options {
	var o options
	if i >= len(args) || args[i].Type() != js.TypeObject {
		return o
	}
	v := args[i]
	if p := v.Get("policy"); p.Type() == js.TypeString {
		o.Policy = p.String()
	}
	if s := v.Get("seed"); s.Type() == js.TypeNumber || s.Type() == js.TypeString {
		o.Seed = s.String()
		if s.Type() == js.TypeNumber {
			o.Seed = js.Global().Get("String").Invoke(s).String()
		}
	}
	if s := v.Get("variant"); s.Type() == js.TypeString {
		o.Variant = s.String()
	}
	if d := v.Get("dispatch"); d.Type() == js.TypeBoolean {
		o.Dispatch = d.Bool()
	}
	if s := v.Get("series"); s.Type() == js.TypeString {
		o.AllSeries = s.String() == "all"
	}
	if p := v.Get("progress"); p.Type() == js.TypeFunction {
		o.Progress = func(done, total int64) { p.Invoke(float64(done), float64(total)) }
	}
	return o
}

func versionJSON() string {
	return versionString()
}
