//go:build !wasm

package rng

import "math/bits"

// addIncLo returns x+incLo and its carry: an add and an add-with-carry once
// inlined (see rand_wasm.go for WebAssembly).
func addIncLo(x uint64) (sum, carry uint64) {
	return bits.Add64(x, incLo, 0)
}
