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
		{`42`, `"42"`},
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
		{`{"service":"DEPOSIT","route":7,"buftype":"FML32"}`, `{"service":"DEPOSIT","route":"7","buftype":"FML32"}`},
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
