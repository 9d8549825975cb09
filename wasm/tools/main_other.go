//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

// main explains how to build the module when built for anything but WASM.
func main() {
	fmt.Fprintln(os.Stderr, "tuxlb tools module: build with GOOS=js GOARCH=wasm (see `go tool task wasm`)")
	os.Exit(2)
}
