package rng

// addIncLo returns x+incLo and its carry. Written with plain operators, as
// bits.Add64 would push PCG.Uint64 past the inlining budget in WebAssembly
// (where it is Go code, not an instruction); incLo's top bit being 0, the
// sum carries exactly when x's top bit is set and the sum's is not.
func addIncLo(x uint64) (sum, carry uint64) {
	sum = x + incLo
	return sum, (x &^ sum) >> 63
}
