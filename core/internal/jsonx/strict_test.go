package jsonx

import (
	"encoding/json"
	"strings"
	"testing"
)

// DecodeStrict takes a document after a UTF-8 byte-order mark, as the
// UBBCONFIG and CSV readers do; a byte that is not UTF-8 text is named as
// a byte, a character past ASCII as itself (encoding/json names the byte
// as a Latin-1 character: 0xff as 'ÿ', é's first byte as 'Ã').
func TestDecodeStrictBytes(t *testing.T) {
	var v struct{ Seed uint64 }
	if err := DecodeStrict([]byte("\uFEFF{\"Seed\": 3}"), &v, "scenario"); err != nil || v.Seed != 3 {
		t.Errorf("after a byte-order mark: seed %d, error %v; want 3 and none", v.Seed, err)
	}
	for _, c := range []struct{ doc, want string }{
		{"{\"Seed\": \xff}", "invalid byte 0xff (not UTF-8 text)"},
		{"{\"Seed\": é}", "invalid character 'é'"},
	} {
		err := DecodeStrict([]byte(c.doc), &v, "scenario")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "line 1 col") {
			t.Errorf("%q: error %v, want one placed and saying %s", c.doc, err, c.want)
		}
	}
}

// A json.RawMessage field takes any value: a type error elsewhere in the
// document is named where it is, not at the raw field before it.
func TestRawMessageTakesAnyValue(t *testing.T) {
	var v struct {
		Scenario json.RawMessage `json:"scenario"`
		Vary     []string        `json:"vary"`
	}
	err := DecodeStrict([]byte(`{"scenario": {"a": 1}, "vary": "x"}`), &v, "body")
	if err == nil || err.Error() != "vary: want an array, got a string" {
		t.Errorf("error %v, want vary named", err)
	}
}
