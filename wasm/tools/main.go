//go:build js && wasm

// Command tools is the playground's second WebAssembly module
// (tuxlb-tools.wasm): the calibration (`tuxlb fit` in the page) and the
// optimization (`tuxlb optimize --jobs 1`), kept out of the first module
// (wasm, tuxlb.wasm) so that the page's first download does not carry the
// ULOG reader, the distribution fitter, the scenario made from them and the
// selection procedure. The page's worker loads it beside the first when fit
// or optimize is first asked for. It installs globalThis.tuxlbTools = {fit,
// optimize, version}, calls globalThis.tuxlbToolsReady when it has one, and
// then blocks forever. Each function takes plain strings (and optimize an
// options object whose progress, when a function, is called with (done,
// total)) and returns the answer's JSON, or {"error": {code, message,
// diagnostics}}.
package main

import (
	"syscall/js"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/wasm/internal/answer"
)

func main() {
	api := js.Global().Get("Object").New()
	api.Set("fit", js.FuncOf(func(_ js.Value, args []js.Value) any { return fit(argString(args, 0)) }))
	api.Set("optimize", js.FuncOf(func(_ js.Value, args []js.Value) any {
		var progress func(done, total int64)
		if len(args) > 2 && args[2].Type() == js.TypeObject {
			if p := args[2].Get("progress"); p.Type() == js.TypeFunction {
				progress = func(done, total int64) { p.Invoke(float64(done), float64(total)) }
			}
		}
		return optimize(argString(args, 0), argString(args, 1), progress)
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
