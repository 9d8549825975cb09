package ubb

import (
	"errors"
	"testing"
)

func TestLoadReturnsErrorList(t *testing.T) {
	_, err := Load(Input{UBBConfig: "*RESOURCES\nLDBAL X\n"})
	var l ErrorList
	if !errors.As(err, &l) {
		t.Fatalf("got %T, want ErrorList", err)
	}
	// Empty names default to UBBCONFIG.
	want := "UBBCONFIG:2:7: LDBAL must be Y or N, got \"X\"\nUBBCONFIG:1:1: missing MODEL in *RESOURCES: expected MODEL SHM or MODEL MP"
	if err.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", err, want)
	}
}
