package core_test

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// The /Q cases of testdata/spec-pending-q wait for the engine (their
// README): the fidelity suite does not read them. Until then each must
// pass every check of its scenario, its configuration and its /Q (so that
// it is ready to play), and be refused by the one refusal, naming qspaces;
// its dispatch.csv and expect.json must read.
func TestPendingQCasesCheckThenAreRefused(t *testing.T) {
	dirs, err := filepath.Glob("../testdata/spec-pending-q/q*")
	if err != nil || len(dirs) < 4 {
		t.Fatalf("want at least 4 pending /Q cases, got %v (err %v)", dirs, err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			sc := readScenario(t, dir) // parsed and checked
			m, err := core.LoadModel(ubb.Input{UBBConfig: sc.UBBConfig, UBBName: "ubbconfig"})
			if err != nil {
				t.Fatalf("LoadModel: %v", err)
			}
			if err := plan.CheckQSpaces(m, sc); err != nil {
				t.Fatalf("CheckQSpaces: %v", err)
			}
			if len(m.Forwarders) != 1 || len(m.QSpaces) != 1 {
				t.Fatalf("want one forwarder and one queue space, got %+v, %+v", m.Forwarders, m.QSpaces)
			}
			_, err = core.Compile(sc, core.RunOptions{})
			if err == nil || !strings.Contains(err.Error(), "qspaces: "+plan.NotSimulatedQ) {
				t.Fatalf("Compile: got %v, want the refusal naming qspaces", err)
			}
			f, err := os.Open(filepath.Join(dir, "dispatch.csv"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rows, err := csv.NewReader(f).ReadAll()
			if err != nil || len(rows) < 2 || rows[0][len(rows[0])-1] != "parent" {
				t.Fatalf("dispatch.csv: %d rows, err %v; want a header ending in parent (a TMQFORWARD runs) and rows", len(rows), err)
			}
			data, err := os.ReadFile(filepath.Join(dir, "expect.json"))
			if err != nil {
				t.Fatal(err)
			}
			var expect map[string]any
			if err := json.Unmarshal(data, &expect); err != nil || expect["qspaces"] == nil {
				t.Fatalf("expect.json: err %v, want a qspaces block", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "NOTES.md")); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A scenario's enqueues read strictly from JSON in every place they may
// stand (a stream, a client script entry, a call step), pass the checks,
// and are refused naming the first of them: never silently ignored.
func TestEnqueuesReadThenRefused(t *testing.T) {
	ubbText := `*RESOURCES\nMODEL SHM\n*MACHINES\nn1 LMID=s1\n*GROUPS\nG1 LMID=s1 GRPNO=1\nQG LMID=s1 GRPNO=2\n*SERVERS\n` +
		`app SRVGRP=G1 SRVID=1 CLOPT=\"-s A\"\nTMQUEUE SRVGRP=QG SRVID=1 CLOPT=\"-s QS:TMQUEUE\"\n` +
		`TMQFORWARD SRVGRP=QG SRVID=2 CLOPT=\"-- -q A\"\n*SERVICES\nA\n`
	doc := `{"ubbconfig": "` + ubbText + `",
	  "qspaces": {"QS": {"queues": {"A": {"retries": 1, "retry_delay_ms": 5}}, "enqueue_time": {"dist": "const", "ms": 1}}},
	  "services": {"A": {"service_time": {"dist": "const", "ms": 1}, "calls": [{"enqueue": "QS:A"}]}},
	  "workload": {"generate": {"duration_ms": 100,
	    "streams": [{"enqueue": "QS:A", "arrivals": "constant", "rate_per_s": 10}],
	    "clients": [{"name": "c", "count": 1, "script": ["A", {"enqueue": "QS:A"}]}]}}}`
	sc, err := core.ParseScenario([]byte(doc))
	if err != nil {
		t.Fatalf("ParseScenario: %v", err)
	}
	if got := sc.Workload.Generate.Clients[0].Script[1].Enqueue; got != "QS:A" {
		t.Fatalf("script[1].enqueue: got %q", got)
	}
	_, err = core.Compile(sc, core.RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "workload.generate.streams[0].enqueue: "+plan.NotSimulatedQ) {
		t.Fatalf("Compile: got %v, want the refusal naming the stream's enqueue", err)
	}
	// a misspelt queue is named before the refusal
	_, err = core.ParseScenario([]byte(strings.Replace(doc, `"script": ["A", {"enqueue": "QS:A"}]`, `"script": ["A", {"enqueue": "QS:B"}]`, 1)))
	if err == nil || !strings.Contains(err.Error(), `workload.generate.clients[0].script[1].enqueue: "QS:B": queue space QS has no queue B`) {
		t.Fatalf("got %v", err)
	}
}
