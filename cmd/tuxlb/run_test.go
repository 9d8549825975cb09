package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestRunBadFlagsExit2(t *testing.T) {
	cases := [][]string{
		{"run"},
		{"run", "--nope", "x.json"},
		{"run", "--seed", "-3", "x.json"},
		{"run", "--format", "xml", "x.json"},
		{"run", "--explain", "0", "-"},
		{"run", "a.json", "b.json"},
	}
	for _, args := range cases {
		var out, errb bytes.Buffer
		if code := Main(args, strings.NewReader("{}"), &out, &errb); code != 2 {
			t.Errorf("%v: got exit %d, want 2 (stderr %q)", args, code, errb.String())
		}
		if out.Len() != 0 {
			t.Errorf("%v: wrote %q on stdout, want nothing", args, out.String())
		}
	}
}

func TestRunMissingFileExit1(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"run", "/nonexistent/scenario.json"}, nil, &out, &errb); code != 1 {
		t.Errorf("got exit %d, want 1", code)
	}
	if !strings.Contains(errb.String(), "scenario.json") {
		t.Errorf("stderr %q: want it to name the file", errb.String())
	}
}

func TestParseSeqs(t *testing.T) {
	got, err := parseSeqs("3,7,10-12")
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]bool{3: true, 7: true, 10: true, 11: true, 12: true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if r := groupRanges(got); !reflect.DeepEqual(r, [][2]int64{{3, 12}}) {
		t.Errorf("ranges: got %v, want [[3 12]]", r)
	}
	for _, bad := range []string{"", "x", "5-3", "0", "1-5000"} {
		if _, err := parseSeqs(bad); err == nil {
			t.Errorf("parseSeqs(%q): got no error", bad)
		}
	}
}
