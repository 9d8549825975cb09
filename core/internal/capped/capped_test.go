package capped

import (
	"strings"
	"testing"
)

// No message echoes an unbounded input, and a cut never splits a character.
func TestSprintfCapsStrings(t *testing.T) {
	long := strings.Repeat("é", 1000) // 2000 bytes
	msg := Sprintf("services.%s: unknown service", long)
	if len(msg) > 300 || !strings.HasSuffix(msg, "…(2000 bytes): unknown service") || !strings.HasPrefix(msg, "services.éé") {
		t.Errorf("got %q (%d bytes), want the name cut to 200 bytes with its length", msg, len(msg))
	}
	if got := Sprintf("%s %d", "short", 3); got != "short 3" {
		t.Errorf("got %q, want short strings untouched", got)
	}
	if got := Text(strings.Repeat("a", 199) + "é"); got != strings.Repeat("a", 199)+"…(201 bytes)" {
		t.Errorf("got %q, want the cut before the split character", got)
	}
}
