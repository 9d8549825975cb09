package core_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
)

// TestExplainLifecycle: explanations in runs with a life cycle give each
// candidate's state when the choice was made and say why a request failed.
func TestExplainLifecycle(t *testing.T) {
	for _, tc := range []struct {
		dir     string
		seq     int64
		states  map[string]string // candidate -> state
		failure []string          // pieces of the failure text; none: it completed
	}{
		{"70-dead-idle-attracts", 1, map[string]string{"G1/1": "down", "G1/2": "up"},
			[]string{"TPESVCERR at 2000 ms", "waiting in queue G1/1", "G1/1: not restarted, RESTART=N, after its crash at 100 ms"}},
		{"70-dead-idle-attracts", 3, map[string]string{"G1/2": "up"}, nil},
		{"71-crash-at-scan-instant", 1, map[string]string{"G1/1": "up", "G1/2": "up"},
			[]string{"TPESVCERR at 2000 ms", "G1/1 was processing it when it crashed (kill at 2000 ms)", "sanity scan at 2000 ms"}},
		{"71-crash-at-scan-instant", 3, map[string]string{"G1/1": "restarting", "G1/2": "up"}, nil},
		{"74-in-flight-to-gone-queue", 1, map[string]string{"G2/1": "up", "G1/1": "up"},
			[]string{"arrived over the network at queue G2/1", "all gone"}},
		{"77-svctimeout", 4, map[string]string{"G1/1": "up", "G1/2": "up"},
			[]string{"TPESVCERR at 5000 ms", "past the service's SVCTIMEOUT", "scan at 5000 ms"}},
	} {
		data, err := os.ReadFile(filepath.Join(specDir, tc.dir, "scenario.json"))
		if err != nil {
			t.Fatal(err)
		}
		sc, err := core.ParseScenario(data)
		if err != nil {
			t.Fatal(err)
		}
		exs, err := core.Explain(sc, core.RunOptions{}, tc.seq, 1)
		if err != nil || len(exs) != 1 {
			t.Fatalf("%s #%d: got %d explanations, %v", tc.dir, tc.seq, len(exs), err)
		}
		ex := exs[0]
		got := map[string]string{}
		for _, c := range ex.Candidates {
			got[c.Server] = c.State
		}
		for srv, want := range tc.states {
			if got[srv] != want {
				t.Errorf("%s #%d: candidate %s state: got %q, want %q", tc.dir, tc.seq, srv, got[srv], want)
			}
		}
		if len(got) != len(tc.states) {
			t.Errorf("%s #%d: got candidates %v, want %v", tc.dir, tc.seq, got, tc.states)
		}
		if tc.failure == nil && ex.Failure != "" {
			t.Errorf("%s #%d: got failure %q, want none", tc.dir, tc.seq, ex.Failure)
		}
		for _, piece := range tc.failure {
			if !strings.Contains(ex.Failure, piece) {
				t.Errorf("%s #%d: failure %q does not say %q", tc.dir, tc.seq, ex.Failure, piece)
			}
		}
	}
}

// TestExplainLostOrigin: a request issued from a lost machine fails at its
// issue with TPESYSTEM, and its explanation says so (it once indexed a
// queue it never had); the lost machine's instance, still listed, is noted.
func TestExplainLostOrigin(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(specDir, "141-lost-machine", "scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := core.ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	exs, err := core.Explain(sc, core.RunOptions{}, 5, 1)
	if err != nil || len(exs) != 1 {
		t.Fatalf("got %d explanations, %v", len(exs), err)
	}
	ex := exs[0]
	if want := "site2, its origin machine, is lost: a request issued there fails at its issue with TPESYSTEM."; ex.Rule != "TPESYSTEM" || ex.Winner != "" || !strings.Contains(ex.Text, want) || strings.Contains(ex.Text, "costs") {
		t.Errorf("rule %q, winner %q, text %q; want TPESYSTEM, none, and %q", ex.Rule, ex.Winner, ex.Text, want)
	}
	for _, c := range ex.Candidates {
		if c.Server == "G2/1" && (c.State != "gone" || !strings.Contains(c.Note, "its machine is lost")) {
			t.Errorf("G2/1: state %q, note %q; want gone, its machine is lost", c.State, c.Note)
		}
	}
}
