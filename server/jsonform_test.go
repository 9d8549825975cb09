package server

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/result"
)

// compactJSON and indentJSON agree with encoding/json's Compact and
// Indent (the definition of the bytes `tuxlb run` prints) on documents
// with every kind of token: nested empty and non-empty containers, strings
// holding quotes, backslashes, whitespace and brackets, numbers, literals.
func TestJSONFormsMatchEncodingJSON(t *testing.T) {
	docs := []string{
		`{}`, `[]`, `0`, `"a"`, `null`,
		`{"a":[],"b":{},"c":[{}],"d":[[],[1]],"e":{"f":{"g":[]}}}`,
		`{"s":"a \"quoted\" {[,:]} \\ back\\\\slash\\","t":"\n\t tab","u":"\u00e9 é"}`,
		`[1,-2.5e-7,true,false,null,"x",{"k":1e+300}]`,
		" { \"spaced\" :\t[ 1 ,\n 2 ] ,\r\n \"x\" : { } } ",
	}
	for _, d := range docs {
		var compact, indent bytes.Buffer
		if err := json.Compact(&compact, []byte(d)); err != nil {
			t.Fatalf("%q: %v", d, err)
		}
		if err := json.Indent(&indent, compact.Bytes(), "", "  "); err != nil {
			t.Fatal(err)
		}
		indent.WriteByte('\n')
		if got := compactJSON([]byte(d)); !bytes.Equal(got, compact.Bytes()) {
			t.Errorf("compactJSON(%q) = %q, want %q", d, got, compact.Bytes())
		}
		if got := indentJSON([]byte(d)); !bytes.Equal(got, indent.Bytes()) {
			t.Errorf("indentJSON(%q) =\n%s\nwant\n%s", d, got, indent.Bytes())
		}
	}
}

// The results of the examples, stored compact and shown indented, come back
// as the very bytes result.Encode wrote (what `tuxlb run` prints); and a
// result stored indented (by a server of an earlier version) is shown the
// same.
func TestResultStoredCompactShownAsEncoded(t *testing.T) {
	paths, err := filepath.Glob("../examples/*.json")
	if err != nil || len(paths) < 5 {
		t.Fatalf("examples: %v %v", paths, err)
	}
	for _, path := range paths[:8] {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := core.ParseScenario(data)
		if err != nil {
			continue // not a scenario of its own (a fragment)
		}
		res, err := core.Run(sc, core.RunOptions{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		enc := result.Encode(res)
		var want bytes.Buffer
		json.Compact(&want, enc)
		if c := result.EncodeCompact(res); !bytes.Equal(c, want.Bytes()) {
			t.Errorf("%s: result.EncodeCompact (%d bytes) is not result.Encode compacted (%d bytes)", path, len(c), want.Len())
		}
		stored := compactJSON(enc)
		if !bytes.Equal(stored, want.Bytes()) || len(stored)*2 > len(enc) {
			t.Errorf("%s: stored form (%d bytes of %d) is not json.Compact's", path, len(stored), len(enc))
		}
		if got := indentJSON(stored); !bytes.Equal(got, enc) {
			t.Errorf("%s: the stored result shown indented differs from result.Encode", path)
		}
		if got := indentJSON(enc); !bytes.Equal(got, enc) {
			t.Errorf("%s: a result stored indented is not shown as it was", path)
		}
	}
}
