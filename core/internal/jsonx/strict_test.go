package jsonx

import (
	"encoding/json"
	"errors"
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

// A document nested past encoding/json's 10 000 levels is refused as too
// deep where the level is passed, not as an "invalid character": the
// bracket is a valid one.
func TestDecodeStrictTooDeep(t *testing.T) {
	var v struct{ Seed uint64 }
	doc := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	err := DecodeStrict([]byte(doc), &v, "scenario")
	want := "scenario: line 1 col 10001: nested more than 10000 arrays and objects deep"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
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

// A message about a field under a very long key cuts the key, not what is
// wrong: the 200 bytes a message quotes of one input are the key's.
func TestLongKeyKeepsTheReason(t *testing.T) {
	var v struct {
		Services map[string]struct {
			Mean float64 `json:"mean_ms"`
		} `json:"services"`
	}
	long := strings.Repeat("x", 100_000)
	for _, c := range []struct{ doc, want string }{
		{`{"services": {"` + long + `": {"mean_ms": 1, "colour": 2}}}`, "services." + long[:200] + "…(100000 bytes).colour: unknown field"},
		{`{"services": {"` + long + `": {"Mean_ms": 1}}}`, "services." + long[:200] + "…(100000 bytes).Mean_ms: unknown field (keys are case-sensitive: the field is mean_ms) (body line 1 col"},
		{`{"services": {"` + long + `": {"mean_ms": "1"}}}`, "services." + long[:200] + "…(100000 bytes).mean_ms: want a number, got a string"},
	} {
		err := DecodeStrict([]byte(c.doc), &v, "body")
		var je *Error
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || len(err.Error()) > 1000 {
			t.Errorf("error %.300q..., want it to start %.300q...%q", err, c.want, c.want[len(c.want)-40:])
		} else if errors.As(err, &je) && je.Field != "services."+long+je.Field[len("services.")+len(long):] {
			t.Errorf("field %.50q, want the whole path", je.Field)
		}
	}
}
