package sweep

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
)

const shardDoc = `{
  "name": "shards",
  "ubbconfig": "*RESOURCES\nIPCKEY 1\nMASTER SITE1\nMODEL SHM\nLDBAL Y\n*MACHINES\nh LMID=SITE1\n*GROUPS\nG LMID=SITE1 GRPNO=1\n*SERVERS\nsrv SRVGRP=G SRVID=1 MIN=2 CLOPT=\"-s SVC\"\n*SERVICES\nSVC LOAD=50\n",
  "services": {"SVC": {"service_time": {"dist": "exp", "mean_ms": 4}}},
  "seed": 7,
  "workload": {"generate": {"duration_ms": 500, "streams": [{"service": "SVC", "arrivals": "poisson", "rate_per_s": 300}]}}
}`

func shardSweep(t *testing.T, doc string, spec Spec) *Sweep {
	t.Helper()
	sc, err := core.ParseScenario([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Compile(sc, spec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// partials runs every shard of n and returns their partials, each through
// its JSON encoding (as the CLI writes and reads them).
func partials(t *testing.T, s *Sweep, doc string, n int) []*Partial {
	t.Helper()
	var out []*Partial
	for i := 1; i <= n; i++ {
		units := s.ShardUnits(i, n)
		var samples []*Sample
		for _, u := range units {
			smp, err := s.RunUnit(u, core.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			samples = append(samples, smp)
		}
		p, err := s.NewPartial([]byte(doc), i, n, units, samples)
		if err != nil {
			t.Fatal(err)
		}
		b, err := EncodePartial(p)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ReadPartial(b)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, back)
	}
	return out
}

// TestShardUnitsPartition: for several N (more shards than units too), the
// shards are disjoint, cover every unit, and are dealt by expected cost.
func TestShardUnitsPartition(t *testing.T) {
	s := shardSweep(t, shardDoc, Spec{Vary: []string{"rate_scale=0.5,1,1.5"}, Replications: 2})
	for _, n := range []int{1, 2, 3, 4, 6, 7} {
		seen := make([]int, s.Units())
		for i := 1; i <= n; i++ {
			for _, u := range s.ShardUnits(i, n) {
				seen[u]++
			}
		}
		for u, c := range seen {
			if c != 1 {
				t.Errorf("N=%d: unit %d in %d shards, want 1", n, u, c)
			}
		}
	}
	// Largest first, the units are 4 5 (rate_scale=1.5), 2 3 (1), 0 1
	// (0.5); dealt round-robin over 3 shards: 4 3 to the first, 5 0 to the
	// second, 2 1 to the third.
	for i, want := range [][]int{{3, 4}, {0, 5}, {1, 2}} {
		if got := s.ShardUnits(i+1, 3); !slices.Equal(got, want) {
			t.Errorf("shard %d/3: units %v, want %v", i+1, got, want)
		}
	}
}

// TestMergeEqualsRun: the merge of the shards, in any order, is the bytes
// of the whole sweep's result.
func TestMergeEqualsRun(t *testing.T) {
	s := shardSweep(t, shardDoc, Spec{Vary: []string{"rate_scale=0.5,1,1.5", "policy=tuxedo,jsq"}, Replications: 3,
		Objective: "response_p99_ms<=20"})
	whole, err := s.Run(core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	parts := partials(t, s, shardDoc, 4)
	parts[0], parts[3] = parts[3], parts[0]
	res, err := s.Merge([]byte(shardDoc), parts, []string{"a", "b", "c", "d"})
	if err != nil {
		t.Fatal(err)
	}
	for _, enc := range []func(*Result) []byte{Encode, EncodeCSV, EncodeTable} {
		if got, want := enc(res), enc(whole); !bytes.Equal(got, want) {
			t.Errorf("merged differs from the whole sweep:\n%s\n---\n%s", got, want)
		}
	}
}

// TestMergeRefuses: partials of another sweep, of another number of
// shards, given twice, missing, or with the wrong units are refused.
func TestMergeRefuses(t *testing.T) {
	spec := Spec{Vary: []string{"rate_scale=0.5,1"}, Replications: 2}
	s := shardSweep(t, shardDoc, spec)
	parts := partials(t, s, shardDoc, 2)
	names := []string{"p1", "p2", "p3"}
	other := strings.Replace(shardDoc, `"seed": 7`, `"seed": 8`, 1)
	so := shardSweep(t, other, spec)
	otherParts := partials(t, so, other, 2)
	three := partials(t, s, shardDoc, 3)
	wrong := *parts[1]
	wrong.Samples = slices.Clone(wrong.Samples)
	wrong.Samples[0].Unit = parts[0].Samples[0].Unit
	// a sample's figure taken out (read as 0 it would pass), or made negative
	edited := func(edit func(map[string]float64)) *Partial {
		p := *parts[1]
		p.Samples = slices.Clone(p.Samples)
		f := maps.Clone(p.Samples[1].Figures)
		edit(f)
		p.Samples[1].Figures = f
		return &p
	}
	noIssued := edited(func(f map[string]float64) { delete(f, "issued") })
	negative := edited(func(f map[string]float64) { f["completed"] = -3 })
	noMachine := edited(func(f map[string]float64) { delete(f, "utilization_mean[machine:SITE1]") })
	noMachines := *parts[1] // "machines": [] asks for no machine's figure: they would merge as 0
	noMachines.Samples = slices.Clone(noMachines.Samples)
	noMachines.Samples[0].Machines = nil
	for _, tt := range []struct {
		name  string
		parts []*Partial
		want  string
	}{
		{"another seed", []*Partial{parts[0], otherParts[1]}, "p2: a partial of another sweep"},
		{"another N", []*Partial{parts[0], three[1]}, "p2: shard 2/3, but p1 is one of 2 shards"},
		{"twice", []*Partial{parts[0], parts[0]}, "p2: shard 1/2 given twice (also p1)"},
		{"missing", []*Partial{parts[1]}, "missing shard 1 of 2"},
		{"wrong unit", []*Partial{parts[0], &wrong}, "p2: sample 1 is unit 0, want unit"},
		{"a figure missing", []*Partial{parts[0], noIssued}, "p2: sample 2 (unit "},
		{"a figure missing, named", []*Partial{parts[0], noIssued}, "figure issued is missing"},
		{"a machine's figure missing", []*Partial{parts[0], noMachine}, "figure utilization_mean[machine:SITE1] is missing"},
		{"a negative count", []*Partial{parts[0], negative}, "figure completed is -3: figures are never negative"},
		{"its machines emptied", []*Partial{parts[0], &noMachines}, "machines [], want [\"SITE1\"]"},
	} {
		_, err := s.Merge([]byte(shardDoc), tt.parts, names)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	for _, tt := range []struct{ doc, want string }{
		{`{"format":"other"}`, "format"},
		{`[1]`, "not a sweep partial"},
		{`{"format":"x","format":"y"}`, "not a sweep partial: format: given twice in one object"},
		{`{"format":"x"} {"format":"y"}`, "not a sweep partial: partial: line 1 col 16: trailing data after the document"},
		{`{"name":"a sweep's result"}`, "not a sweep partial: name: unknown field"},
		{`{"format":"` + PartialFormat + `","engine_version":"0.0.1"}`, "made by engine 0.0.1"},
		{`{"format":"` + PartialFormat + `","engine_version":"` + core.EngineVersion + `","shard":3,"shards":2}`, "shard 3/2"},
	} {
		if _, err := ReadPartial([]byte(tt.doc)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadPartial(%s): got %v, want %q", tt.doc, err, tt.want)
		}
	}
	for _, text := range []string{"0/3", "4/3", "1", "a/b", "1/0", "1/10001"} {
		if _, _, err := ParseShard(text); err == nil {
			t.Errorf("ParseShard(%q): no error", text)
		}
	}
}

// TestSampleMachinesOfTheModel: a run's sample has the figures of the
// machines machinesOf names, for every example scenario (gateways,
// transactions, /Q, workstations, spares), so a merge can check them.
func TestSampleMachinesOfTheModel(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("examples: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := shardSweep(t, string(data), Spec{Vary: []string{"policy=tuxedo"}, Replications: 1})
		smp, err := s.RunUnit(0, core.RunOptions{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if want := machinesOf(s.points[0].plan.Model()); !slices.Equal(smp.Machines, want) {
			t.Errorf("%s: the sample's machines %q, the model's %q", f, smp.Machines, want)
		}
	}
}
