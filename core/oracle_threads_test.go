package core

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOracleThreadCases plays the hand-worked cases of multithreaded
// servers through the reference simulator: two derivations from the written
// rules, one by hand and one by the oracle, must give the same dispatch
// log. The cases are those of the fidelity suite's folders whose
// configuration sets MAXDISPATCHTHREADS above 1 and whose trace the oracle
// reads (service_ms on every row, or a const service time).
func TestOracleThreadCases(t *testing.T) {
	var dirs []string
	for _, pat := range []string{"../testdata/spec/[0-9]*"} {
		d, _ := filepath.Glob(pat)
		dirs = append(dirs, d...)
	}
	played := 0
	for _, dir := range dirs {
		want, err := os.ReadFile(filepath.Join(dir, "dispatch.csv"))
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, "scenario.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "MAXDISPATCHTHREADS") {
			continue
		}
		doc, ok := oracleTraceDoc(t, data)
		if !ok {
			continue
		}
		o, err := newAppOracle(doc)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if !o.threaded {
			continue
		}
		played++
		o.app = strings.Contains(string(data), `"calls"`)
		got := o.run()
		g, w := strings.Split(strings.TrimSpace(got), "\n"), strings.Split(strings.TrimSpace(string(want)), "\n")
		for i := 0; i < len(g) || i < len(w); i++ {
			a, b := "<missing>", "<missing>"
			if i < len(g) {
				a = g[i]
			}
			if i < len(w) {
				b = w[i]
			}
			if a != b {
				t.Errorf("%s: line %d: oracle %s, by hand %s", filepath.Base(dir), i+1, a, b)
				break
			}
		}
	}
	if played < 8 {
		t.Errorf("played %d multithreaded cases, want at least 8", played)
	}
}

// oracleTraceDoc rewrites a case's trace (time_ms, service[, service_ms])
// in the oracle's columns, the service time of a row without one from its
// service's const distribution; ok is false when the case has another
// trace or none.
func oracleTraceDoc(t *testing.T, data []byte) ([]byte, bool) {
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	wl, _ := raw["workload"].(map[string]any)
	tr, _ := wl["trace_csv"].(string)
	lines := strings.Split(strings.TrimSpace(tr), "\n")
	if len(lines) < 2 || (lines[0] != "time_ms,service" && lines[0] != "time_ms,service,service_ms") {
		return nil, false
	}
	svcs, _ := raw["services"].(map[string]any)
	out := []string{"time_ms,service,origin,service_ms,prio,route"}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		ms := ""
		if len(f) > 2 {
			ms = f[2]
		} else if spec, ok := svcs[f[1]].(map[string]any); ok {
			if st, ok := spec["service_time"].(map[string]any); ok && st["dist"] == "const" {
				b, _ := json.Marshal(st["ms"])
				ms = string(b)
			}
		}
		if ms == "" {
			return nil, false
		}
		out = append(out, f[0]+","+f[1]+",site1,"+ms+",,")
	}
	wl["trace_csv"] = strings.Join(out, "\n") + "\n"
	doc, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	return doc, true
}
