package csvx

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// csvFieldReference is AppendField as first written, the rule in its
// plainest form: apostrophe before a formula's first character, then
// RFC 4180 quoting when the cell holds a comma, a quote or a line break.
func csvFieldReference(s string) string {
	if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		s = "'" + s
	}
	if !strings.ContainsAny(s, ",\"\r\n") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func TestAppendFieldMatchesReference(t *testing.T) {
	cells := []string{"", "plain", "GRP1/1", "a=b", "=1+2", "+", "-2", "@SUM(A1)", "\tx", "\r", "\rx", "x\r",
		"a,b", `say "hi"`, `"`, "x\ny", ",", "'", "é,", "=a,\"b\"", "\n=", "日本"}
	r := rand.New(rand.NewPCG(5, 6))
	const alphabet = "ab=+-@\t\r\n,\"' é"
	for range 100_000 {
		var c []byte
		for range r.IntN(6) {
			c = append(c, alphabet[r.IntN(len(alphabet))])
		}
		cells = append(cells, string(c))
	}
	for _, c := range cells {
		want := "x," + csvFieldReference(c)
		if got := string(AppendField([]byte("x,"), c)); got != want {
			t.Fatalf("AppendField(%q): got %q, want %q", c, got, want)
		}
	}
}
