package server

import (
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/result"
)

// BenchmarkResultForms times the result's forms for the mp-standard-1k run
// (131 KB indented, 41 KB compact): result.Encode, and the server's
// compactJSON and indentJSON passes.
func BenchmarkResultForms(b *testing.B) {
	sc, err := core.ParseScenario(smallRunScenario(b, smallRuns[1].path, smallRuns[1].durationMS))
	if err != nil {
		b.Fatal(err)
	}
	res, err := core.Run(sc, core.RunOptions{})
	if err != nil {
		b.Fatal(err)
	}
	enc := result.Encode(res)
	compact := compactJSON(enc)
	b.Run("Encode", func(b *testing.B) {
		for range b.N {
			result.Encode(res)
		}
	})
	b.Run("EncodeCompact", func(b *testing.B) {
		for range b.N {
			result.EncodeCompact(res)
		}
	})
	b.Run("compactJSON", func(b *testing.B) {
		for range b.N {
			compactJSON(enc)
		}
	})
	b.Run("indentJSON", func(b *testing.B) {
		for range b.N {
			indentJSON(compact)
		}
	})
}
