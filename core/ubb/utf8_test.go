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
