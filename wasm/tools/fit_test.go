package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/starter"
	"github.com/tuxlb/tuxlb/core/ulog"
)

// TestFitIsTheCLIsFit: the bridge's fit of the bank ULOGs is starter.Fit
// and starter.FromFit, what `tuxlb fit --out` writes; a request with both a
// log and ULOGs, or neither, is refused by name.
func TestFitIsTheCLIsFit(t *testing.T) {
	dir := filepath.Join("..", "..", "core", "ulog", "testdata", "bank")
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ubbText := read("ubbconfig")
	req := fitRequest{UBBConfig: &ubbText, ULOG: []fileText{{"ULOG.120126", read("node1/ULOG.120126")}, {"ULOG.120126", read("node2/ULOG.120126")}}}
	body, _ := json.Marshal(req)
	var got fitAnswer
	if err := json.Unmarshal([]byte(fit(string(body))), &got); err != nil || got.Scenario == nil || got.Report == nil {
		t.Fatalf("fit: %v %.300s", err, fit(string(body)))
	}
	rep, err := starter.Fit(starter.FitSources{UBBConfig: &ubbText, ULOG: []ulog.File{{Name: "ULOG.120126", Text: read("node1/ULOG.120126")}, {Name: "ULOG.120126", Text: read("node2/ULOG.120126")}}})
	if err != nil {
		t.Fatal(err)
	}
	sc, _, err := starter.FromFit(starter.Files{UBBConfig: &ubbText}, rep)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(got.Scenario)
	b, _ := json.Marshal(sc)
	if string(a) != string(b) {
		t.Errorf("the bridge's scenario differs from starter.FromFit's:\n%.400s\n%.400s", a, b)
	}
	if len(got.Report.Services) != 4 {
		t.Errorf("report: %d services, want TRANSFER, WITHDRAWAL, DEPOSIT and AUDIT", len(got.Report.Services))
	}
	trace := "time,service\n0,TRANSFER\n"
	for _, bad := range []fitRequest{{UBBConfig: &ubbText}, {UBBConfig: &ubbText, Trace: &trace, ULOG: req.ULOG}} {
		body, _ := json.Marshal(bad)
		if ans := fit(string(body)); !strings.Contains(ans, "give a request log or ULOG files (one of them)") {
			t.Errorf("fit(%s): got %s", body, ans)
		}
	}
}
