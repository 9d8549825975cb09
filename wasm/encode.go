package main

import (
	"encoding/json"

	"github.com/tuxlb/tuxlb/core"
)

// encodeResult stands in for core.EncodeResult until the engine is merged.
func encodeResult(r *core.Result) []byte {
	b, _ := json.MarshalIndent(r, "", "  ")
	return append(b, '\n')
}
