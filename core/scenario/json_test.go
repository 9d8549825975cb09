package scenario

import (
	"encoding/json"
	"testing"
)

// The values with more than one JSON form read each form and write back
// what they read.
func TestJSONForms(t *testing.T) {
	t.Parallel()
	var v RouteValue
	if err := json.Unmarshal([]byte(`10000.50`), &v); err != nil || v != "10000.50" {
		t.Errorf("number: got %q, %v; want the text as written", v, err)
	}
	if err := json.Unmarshal([]byte(`"ACCT-7"`), &v); err != nil || v != "ACCT-7" {
		t.Errorf("string: got %q, %v", v, err)
	}
	for _, bad := range []string{`true`, `null`, `[1]`} {
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("%s: accepted as a routing value", bad)
		}
	}

	for _, tc := range []struct{ in, out string }{
		{`"inherit"`, `"inherit"`},
		{`42`, `42`},
		{`"42"`, `42`}, // the same value: a string criterion takes a number's text
		{`"NY"`, `"NY"`},
		{`{"dist":"uniform","min":1,"max":9}`, `{"dist":"uniform","min":1,"max":9}`},
	} {
		var r CallRoute
		if err := json.Unmarshal([]byte(tc.in), &r); err != nil {
			t.Fatalf("call route %s: %v", tc.in, err)
		}
		out, err := json.Marshal(r)
		if err != nil || string(out) != tc.out {
			t.Errorf("call route %s: wrote %s, %v; want %s", tc.in, out, err, tc.out)
		}
	}

	for _, tc := range []struct{ in, out string }{
		{`"DEPOSIT"`, `"DEPOSIT"`},
		{`{"service":"DEPOSIT"}`, `"DEPOSIT"`},
		{`{"service":"DEPOSIT","route":7,"buftype":"FML32"}`, `{"service":"DEPOSIT","route":7,"buftype":"FML32"}`},
		{`{"enqueue":"QS:REQ"}`, `{"enqueue":"QS:REQ"}`},
	} {
		var e ScriptEntry
		if err := json.Unmarshal([]byte(tc.in), &e); err != nil {
			t.Fatalf("script entry %s: %v", tc.in, err)
		}
		out, err := json.Marshal(e)
		if err != nil || string(out) != tc.out {
			t.Errorf("script entry %s: wrote %s, %v; want %s", tc.in, out, err, tc.out)
		}
	}
}

// A routing value is written as it would be typed: a number in its
// shortest form as a JSON number, anything else (a text that only looks
// like a number included, and numbers a browser would print otherwise) as
// a string; and it reads back the same.
func TestRouteValueWrittenAsTyped(t *testing.T) {
	for _, c := range []struct{ v, want string }{
		{"10001", `10001`},
		{"-2.5", `-2.5`},
		{"0", `0`},
		{"0.5", `0.5`},
		{"123456789012345", `123456789012345`},
		{"10000.50", `"10000.50"`}, // a browser reads 10000.5: a string criterion would see another value
		{"1e5", `"1e5"`},
		{"6.02E+23", `"6.02E+23"`},
		{"0.0000001", `"0.0000001"`}, // a browser prints 1e-7
		{"1000000000000000000000", `"1000000000000000000000"`},
		{"12345678901234567890", `"12345678901234567890"`}, // past a float64's digits
		{"-0", `"-0"`},
		{"NaN", `"NaN"`},
		{"Inf", `"Inf"`},
		{"0x10", `"0x10"`},
		{"ACME", `"ACME"`},
		{"007", `"007"`},
		{"+1", `"+1"`},
		{"1.", `"1."`},
		{".5", `".5"`},
		{"-", `"-"`},
		{" 1", `" 1"`},
		{"", `""`},
		{`a"b`, `"a\"b"`},
	} {
		got, err := json.Marshal(RouteValue(c.v))
		if err != nil || string(got) != c.want {
			t.Errorf("Marshal(%q) = %s, %v; want %s", c.v, got, err, c.want)
			continue
		}
		var back RouteValue
		if err := json.Unmarshal(got, &back); err != nil || back != RouteValue(c.v) {
			t.Errorf("%s read back as %q, %v; want %q", got, back, err, c.v)
		}
	}
}
