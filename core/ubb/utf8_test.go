package ubb

import (
	"strings"
	"testing"
)

// A value that is not valid UTF-8 (a file saved as Latin-1) is an error at
// its position, not a name with the bad bytes in it; a comment may hold
// anything.
func TestNotUTF8(t *testing.T) {
	text := "*RESOURCES\nIPCKEY 1\nMASTER s1\nMODEL SHM # caf\xe9\n*MACHINES\nh LMID=s1\n*GROUPS\nG\xe9 LMID=s1 GRPNO=1\n"
	_, err := Load(Input{UBBConfig: text})
	if err == nil || !strings.HasPrefix(err.Error(), `UBBCONFIG:8:1: "G\xe9" is not valid UTF-8: save the file as UTF-8`) {
		t.Errorf("got %v, want the group name at 8:1", err)
	}
	if _, err := Load(Input{UBBConfig: strings.Replace(text, "G\xe9", "G", 1) + "*SERVERS\ns SRVGRP=G SRVID=1\n"}); err != nil {
		t.Errorf("a comment that is not UTF-8: %v", err)
	}
}

// A control character in an unquoted word is an error naming its byte at
// its column, not a name printed with the byte raw (a NUL that does not
// show); the rest of the file reads as if the byte were not there.
func TestControlBytes(t *testing.T) {
	const rest = "IPCKEY 1\nMASTER s1\nMODEL SHM\n*MACHINES\nh LMID=s1\n*GROUPS\nG LMID=s1 GRPNO=1\n*SERVERS\ns SRVGRP=G SRVID=1\n"
	tests := []struct{ name, text, want string }{
		{"NUL after the section name", "*RESOURCES\x00\n" + rest,
			`UBBCONFIG:1:11: unexpected byte 0x00 after "*RESOURCES": a control character, not text: remove it`},
		{"a byte before a word", "*RESOURCES\n" + strings.Replace(rest, "MASTER", "\x1bMASTER", 1),
			`UBBCONFIG:3:1: unexpected byte 0x1b before "MASTER": a control character, not text: remove it`},
		{"a byte alone", "*RESOURCES\n" + strings.Replace(rest, "h LMID", "h \x7f LMID", 1),
			`UBBCONFIG:6:3: unexpected byte 0x7f: a control character, not text: remove it`},
		{"in a value, after a multibyte character", "*RESOURCES\n" + strings.Replace(rest, "GRPNO=1", "GRPNO=1é\x01", 1),
			`UBBCONFIG:8:19: unexpected byte 0x01 after "1é": a control character, not text: remove it`},
	}
	for _, tt := range tests {
		_, err := Load(Input{UBBConfig: tt.text})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: got %v, want %q alone", tt.name, err, tt.want)
		}
	}
	// an invisible character other than a control shows, escaped
	_, err := Load(Input{UBBConfig: "*RESOURCES\u200b\n" + rest})
	if want := `UBBCONFIG:1:1: the first section must be *RESOURCES, found "*RESOURCES\u200b"`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
}
