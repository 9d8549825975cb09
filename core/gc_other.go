//go:build !wasm

package core

// letGCRun does nothing natively, where the collector runs on other threads
// (see gc_wasm.go).
func letGCRun() {}
