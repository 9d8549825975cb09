//go:build js && wasm

// Command tools is the playground's second WebAssembly module
// (tuxlb-tools.wasm): the calibration (`tuxlb fit` in the page), the sweeps
// (`tuxlb sweep`, its units run by several Web Workers) and the
// optimization (`tuxlb optimize --jobs 1`), kept out of the first module
// (wasm, tuxlb.wasm) so that the page's first download does not carry the
// ULOG reader, the distribution fitter, the scenario made from them, the
// sweeps' reducer and tables and the selection procedure. The page's
// worker loads it beside the first when one of them is first asked for.
// It installs globalThis.tuxlbTools = {fit, sweepPlan, sweepUnit,
// sweepPending, sweepReduce, optimize, version}, calls
// globalThis.tuxlbToolsReady when it has one, and then blocks forever. Each
// function takes plain strings and numbers (sweepUnit and optimize an
// options object last, whose progress, when a function, is called with
// (done, total)) and returns the answer's JSON, or {"error": {code,
// message, diagnostics}}.
package main

import (
	"runtime/debug"
	"syscall/js"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/wasm/internal/answer"
)

// gcPercent is the collector's target here, as in the first module and the
// native batch commands (pool.GCPercent): a run keeps little alive but
// makes a few MB of short-lived buffers, and at Go's default the
// collector, which stops the whole worker in WebAssembly, ran every few
// milliseconds of a sweep.
const gcPercent = 400

func main() {
	debug.SetGCPercent(gcPercent)
	api := js.Global().Get("Object").New()
	api.Set("fit", js.FuncOf(func(_ js.Value, args []js.Value) any { return fit(argString(args, 0)) }))
	api.Set("sweepPlan", js.FuncOf(func(_ js.Value, args []js.Value) any { return sweepPlan(argString(args, 0), argString(args, 1)) }))
	api.Set("sweepUnit", js.FuncOf(func(_ js.Value, args []js.Value) any {
		u := -1
		if len(args) > 2 && args[2].Type() == js.TypeNumber {
			u = args[2].Int()
		}
		return sweepUnit(argString(args, 0), argString(args, 1), u, argProgress(args, 3))
	}))
	api.Set("sweepPending", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return sweepPending(argString(args, 0), argString(args, 1), argString(args, 2))
	}))
	api.Set("sweepReduce", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return sweepReduce(argString(args, 0), argString(args, 1), argString(args, 2))
	}))
	api.Set("optimize", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return optimize(argString(args, 0), argString(args, 1), argProgress(args, 2))
	}))
	api.Set("version", answer.JSON(map[string]string{"engine_version": core.EngineVersion}))
	js.Global().Set("tuxlbTools", api)
	if ready := js.Global().Get("tuxlbToolsReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

func argString(args []js.Value, i int) string {
	if i >= len(args) || args[i].Type() != js.TypeString {
		return ""
	}
	return args[i].String()
}

// argProgress is the progress function of the options object args[i]: its
// progress, when a function, called with (done, total); nil otherwise.
func argProgress(args []js.Value, i int) func(done, total int64) {
	if i >= len(args) || args[i].Type() != js.TypeObject {
		return nil
	}
	p := args[i].Get("progress")
	if p.Type() != js.TypeFunction {
		return nil
	}
	return func(done, total int64) { p.Invoke(float64(done), float64(total)) }
}
