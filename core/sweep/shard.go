package sweep

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/jsonx"
	"github.com/tuxlb/tuxlb/core/result"
)

// PartialFormat names the format of a shard's partial result.
const PartialFormat = "tuxlb-sweep-partial/1"

// MaxShards bounds N in a shard i/N.
const MaxShards = 10000

// Partial is the partial result of one shard of a sweep (`tuxlb sweep
// --shard i/N`): the raw samples of the shard's units, and what it takes to
// rebuild the sweep and check that the partials of a merge belong together
// (the scenario, the spec and the fingerprint).
type Partial struct {
	Format        string          `json:"format"`
	EngineVersion string          `json:"engine_version"`
	Fingerprint   string          `json:"fingerprint"`
	Shard         int             `json:"shard"`  // 1..Shards
	Shards        int             `json:"shards"` // N
	Units         int             `json:"units"`  // of the whole sweep
	Scenario      json.RawMessage `json:"scenario"`
	Spec          Spec            `json:"spec"`
	Samples       []UnitSample    `json:"samples"` // in unit order
}

// UnitSample is the sample of one unit (a point's replication).
type UnitSample struct {
	Unit     int                `json:"unit"`
	Figures  map[string]float64 `json:"figures"`
	Machines []string           `json:"machines"`
}

// ParseShard reads "i/N" (1 <= i <= N <= MaxShards).
func ParseShard(text string) (i, n int, err error) {
	a, b, ok := strings.Cut(text, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, diag.Errorf(diag.EINVALID, "shard %q: want i/N, e.g. 1/3", text)
	}
	if n < 1 || n > MaxShards || i < 1 || i > n {
		return 0, 0, diag.Errorf(diag.EINVALID, "shard %q: want 1 <= i <= N <= %d", text, MaxShards)
	}
	return i, n, nil
}

// ShardUnits returns the units of shard i of n (1-based), in unit order:
// the units dealt round-robin in the order of [Sweep.LargestFirst], so every
// shard gets a like share of the long runs. The slices are disjoint, cover
// every unit, and depend only on the sweep.
func (s *Sweep) ShardUnits(i, n int) []int {
	var out []int
	for k, u := range s.LargestFirst() {
		if k%n == i-1 {
			out = append(out, u)
		}
	}
	slices.Sort(out)
	return out
}

// Fingerprint identifies a sweep: the engine version, the scenario's bytes
// (compacted), the grid (keys and values), the replications, the objective
// and the seeds. Partials of one sweep have the same fingerprint.
func (s *Sweep) Fingerprint(scenario []byte) (string, error) {
	var c bytes.Buffer
	if err := json.Compact(&c, scenario); err != nil {
		return "", diag.Errorf(diag.EINVALID, "scenario: %v", err)
	}
	// FNV-1a, 128 bits: a fingerprint tells partials of one sweep from
	// another's, no adversary forges one, and the page's WebAssembly
	// need not carry a cryptographic hash (38 KB of it, compressed)
	h := fnv.New128a()
	fmt.Fprintf(h, "engine %s\n", core.EngineVersion)
	fmt.Fprintf(h, "scenario %d\n", c.Len())
	h.Write(c.Bytes())
	spec, _ := json.Marshal(s.Spec)
	fmt.Fprintf(h, "\nspec %s\n", spec)
	for i, k := range s.Keys {
		fmt.Fprintf(h, "key %s %q\n", k.name, s.Values[i])
	}
	fmt.Fprintf(h, "replications %d\nseeds %v\n", s.Reps, s.Seeds)
	return "fnv128a:" + hex.EncodeToString(h.Sum(nil)), nil
}

// NewPartial makes shard i of n's partial from the samples of its units
// (samples[k] is the sample of units[k], units as [Sweep.ShardUnits] gives them).
func (s *Sweep) NewPartial(scenario []byte, i, n int, units []int, samples []*Sample) (*Partial, error) {
	fp, err := s.Fingerprint(scenario)
	if err != nil {
		return nil, err
	}
	var c bytes.Buffer
	_ = json.Compact(&c, scenario) // checked by Fingerprint
	p := &Partial{Format: PartialFormat, EngineVersion: core.EngineVersion, Fingerprint: fp,
		Shard: i, Shards: n, Units: s.Units(), Scenario: c.Bytes(), Spec: s.Spec, Samples: []UnitSample{}}
	for k, u := range units {
		p.Samples = append(p.Samples, UnitSample{Unit: u, Figures: samples[k].Figures, Machines: samples[k].Machines})
	}
	return p, nil
}

// EncodePartial is the JSON encoding of a partial (one line per sample).
func EncodePartial(p *Partial) ([]byte, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, diag.Errorf(diag.EINTERNAL, "encode partial: %v", err)
	}
	return append(b, '\n'), nil
}

// ReadPartial parses a partial and checks its form (not yet its sweep).
func ReadPartial(data []byte) (*Partial, error) {
	var p Partial
	// as strictly as a scenario: one document, no unknown or repeated key
	if err := jsonx.DecodeStrict(data, &p, "partial"); err != nil {
		return nil, diag.Errorf(diag.EINVALID, "not a sweep partial: %v", err)
	}
	switch {
	case p.Format != PartialFormat:
		return nil, diag.Errorf(diag.EINVALID, "not a sweep partial: format %q, want %q", p.Format, PartialFormat)
	case p.EngineVersion != core.EngineVersion:
		return nil, diag.Errorf(diag.EINVALID, "made by engine %s, this is engine %s: rerun the shard", p.EngineVersion, core.EngineVersion)
	case p.Shards < 1 || p.Shards > MaxShards || p.Shard < 1 || p.Shard > p.Shards:
		return nil, diag.Errorf(diag.EINVALID, "shard %d/%d: want 1 <= i <= N <= %d", p.Shard, p.Shards, MaxShards)
	case len(p.Scenario) == 0:
		return nil, diag.Errorf(diag.EINVALID, "no scenario")
	}
	return &p, nil
}

// Merge combines the partials of every shard of the sweep into its result:
// the same as the unsharded sweep's. names[k] names parts[k] in errors. It
// refuses partials of another sweep (fingerprint), another count of shards,
// a shard given twice or missing, and samples that are not the shard's units.
func (s *Sweep) Merge(scenario []byte, parts []*Partial, names []string) (*Result, error) {
	fp, err := s.Fingerprint(scenario)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, diag.Errorf(diag.EINVALID, "no partials to merge")
	}
	n := parts[0].Shards
	seen := make([]int, n+1) // shard -> 1 + index in parts
	r := s.NewReducer()
	for k, p := range parts {
		switch {
		case p.Fingerprint != fp:
			return nil, diag.Errorf(diag.EINVALID, "%s: a partial of another sweep (fingerprint %s, %s has %s)",
				names[k], p.Fingerprint, names[0], fp)
		case p.Shards != n:
			return nil, diag.Errorf(diag.EINVALID, "%s: shard %d/%d, but %s is one of %d shards", names[k], p.Shard, p.Shards, names[0], n)
		case seen[p.Shard] != 0:
			return nil, diag.Errorf(diag.EINVALID, "%s: shard %d/%d given twice (also %s)", names[k], p.Shard, n, names[seen[p.Shard]-1])
		}
		seen[p.Shard] = k + 1
		want := s.ShardUnits(p.Shard, n)
		if len(p.Samples) != len(want) {
			return nil, diag.Errorf(diag.EINVALID, "%s: shard %d/%d has %d samples, want %d (an interrupted shard?)",
				names[k], p.Shard, n, len(p.Samples), len(want))
		}
		for j, smp := range p.Samples {
			if smp.Unit != want[j] {
				return nil, diag.Errorf(diag.EINVALID, "%s: sample %d is unit %d, want unit %d of shard %d/%d",
					names[k], j+1, smp.Unit, want[j], p.Shard, n)
			}
			if smp.Figures == nil {
				return nil, diag.Errorf(diag.EINVALID, "%s: sample %d (unit %d) has no figures", names[k], j+1, smp.Unit)
			}
			if err := s.checkSample(&smp); err != nil {
				return nil, diag.Errorf(diag.EINVALID, "%s: sample %d (unit %d): %v", names[k], j+1, smp.Unit, err)
			}
			if _, err := r.Add(smp.Unit, &Sample{Figures: smp.Figures, Machines: smp.Machines}); err != nil {
				return nil, diag.Errorf(diag.EINVALID, "%s: %v", names[k], err)
			}
		}
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if seen[i] == 0 {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return nil, diag.Errorf(diag.EINVALID, "missing shard %s of %d", strings.Join(missing, ", "), n)
	}
	return r.Result(), nil
}

// PointOrder returns the points in the order a job hands them out: by their
// expected requests, largest first, ties in grid order (as LargestFirst
// orders the units).
func (s *Sweep) PointOrder() []int {
	var out []int
	for _, u := range s.LargestFirst() {
		if p, rep := s.Unit(u); rep == 0 {
			out = append(out, p)
		}
	}
	return out
}

// checkSample refuses a partial's sample that a run could not have made:
// a figure of the sweep missing (merging would read it as 0), or a
// negative one (every figure is a count, a time, a share or a rate).
func (s *Sweep) checkSample(smp *UnitSample) error {
	p, _ := s.Unit(smp.Unit)
	if want := machinesOf(s.points[p].plan.Model()); !slices.Equal(smp.Machines, want) {
		return fmt.Errorf("machines %q, want %q, the machines of the point's servers (a partial edited? rerun the shard)", smp.Machines, want)
	}
	need := slices.Clone(fixedFigures)
	for _, ref := range s.Extra {
		need = append(need, ref.String())
	}
	for _, m := range smp.Machines {
		need = append(need, result.FigureRef{Def: machineMean, Machine: m}.String())
	}
	for _, name := range need {
		if _, ok := smp.Figures[name]; !ok {
			return fmt.Errorf("figure %s is missing (a partial edited or cut short? rerun the shard)", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(smp.Figures)) {
		if v := smp.Figures[name]; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("figure %s is %v: figures are never negative (rerun the shard)", name, v)
		}
	}
	return nil
}

// machinesOf is the LMIDs of the machines of m that hold a server instance,
// in *MACHINES order: those a sample has figures of (sampleOf).
func machinesOf(m *core.Model) []string {
	var out []string
	for _, mc := range m.Machines {
		for i := range m.Servers {
			if m.Servers[i].LMID == mc.LMID {
				out = append(out, mc.LMID)
				break
			}
		}
	}
	return out
}
