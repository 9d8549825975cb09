package usec

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Parse's quick path for plain digits gives what the general one gives:
// the same value, or no value where the general one has an error.
func TestParsePlainMatchesDecimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	texts := []string{"0", "1", "0.5", "0.0005", "1.0005", "999999999.999", "1000000000", "999999999.9995", ".5", "5.", ".",
		"000000000000000000001", "123456789012345678", "1234567890123456789", "0.9999999999999999999", "1e3", "-1", " 1"}
	for n := 0; n < 200000; n++ {
		var b strings.Builder
		for k := 1 + rng.IntN(20); k > 0; k-- {
			b.WriteByte("0123456789.5"[rng.IntN(12)])
		}
		texts = append(texts, b.String())
	}
	for _, text := range texts {
		for _, shift := range []int{0, 3, 6, 9} {
			want, werr := parseDecimal(text, shift)
			got, ok := ParsePlain(text, shift)
			if ok && (werr != nil || got != want) {
				t.Fatalf("%q shift %d: quick path %d, want %d (error %v)", text, shift, got, want, werr)
			}
			if all, aerr := Parse(text, shift); all != want || (aerr == nil) != (werr == nil) {
				t.Fatalf("%q shift %d: Parse %d (%v), want %d (%v)", text, shift, all, aerr, want, werr)
			}
		}
	}
	if _, ok := ParsePlain("1234.5", 3); !ok {
		t.Errorf("1234.5: not taken by the quick path")
	}
}
