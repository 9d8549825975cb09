package core

import (
	"os"
	"strings"
	"testing"
)

// Keys are case-sensitive: a case variant of a field is an error naming it
// (encoding/json would take "SEED" for "seed", and with both given the one
// that comes last in the text would win, which the canonical form that the
// server stores reorders). Map keys (service names, LMIDs) are not fields.
func TestScenarioKeysAreCaseSensitive(t *testing.T) {
	base, err := os.ReadFile("../examples/admin-guide.json")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(base)
	for _, tc := range []struct{ edit, want string }{
		{`"SEED": 2,`, "SEED: unknown field (keys are case-sensitive: the field is seed)"},
		{`"Replications": 2,`, "Replications: unknown field (keys are case-sensitive: the field is replications)"},
		{`"domains": {"D": {"Response_Time": {"dist": "const", "ms": 1}}},`, "domains.D.Response_Time: unknown field (keys are case-sensitive: the field is response_time)"},
		{`"\u017feed": 3,`, "ſeed: unknown field (keys are case-sensitive: the field is seed)"},
	} {
		_, err := ParseScenario([]byte(strings.Replace(doc, "{", "{"+tc.edit, 1)))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || !strings.Contains(err.Error(), "(scenario line 1 col") {
			t.Errorf("%s: got %v, want %q with its position", tc.edit, err, tc.want)
		}
	}
	if _, err := ParseScenario(base); err != nil {
		t.Errorf("the example itself: %v", err)
	}
}

// A string that is not valid UTF-8 is refused, naming the field, rather
// than read with the bad bytes replaced.
func TestScenarioInvalidUTF8(t *testing.T) {
	base, err := os.ReadFile("../examples/admin-guide.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ edit, want string }{
		{"\"policy\": \"caf\xe9\",", "policy: not valid UTF-8"},
		{"\"advertise\": {\"srv\xff\": [\"A\"]},", "advertise.srv\ufffd: not valid UTF-8"},
		{"\"advertise\": {\"srv\": [\"A\", \"\xc3\"]},", "advertise.srv[1]: not valid UTF-8"},
	} {
		_, err := ParseScenario([]byte(strings.Replace(string(base), "{", "{"+tc.edit, 1)))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.edit, err, tc.want)
		}
	}
}
