package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/jsonx"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// Comparison is several results side by side, with each one's differences
// against the first (the baseline).
type Comparison struct {
	Variants []ComparedVariant `json:"variants"`
	// Servers holds, per server instance, the requests each variant sent it.
	Servers []ComparedServer `json:"servers"`
}

// ComparedVariant is one column of a comparison.
type ComparedVariant struct {
	Name     string          `json:"name"`
	Headline result.Headline `json:"headline"`
	Diff     map[string]Diff `json:"diff,omitempty"` // against the baseline; absent for the baseline
}

// Diff is a figure's difference against the baseline. Relative is nil when the
// baseline is 0.
type Diff struct {
	Abs      float64  `json:"abs"`
	Relative *float64 `json:"rel,omitempty"`
}

// ComparedServer is one server's request count in every variant (0 where the
// variant has no such server).
type ComparedServer struct {
	ID       string  `json:"id"`
	Requests []int64 `json:"requests"`
}

// CompareResults puts results side by side; names label them.
func CompareResults(names []string, results []*result.Result) *Comparison {
	c := &Comparison{}
	var base result.Headline
	serverIdx := map[string]int{}
	for i, r := range results {
		v := ComparedVariant{Name: names[i], Headline: result.HeadlineOf(r)}
		if i == 0 {
			base = v.Headline
		} else {
			v.Diff = diffHeadlines(&base, &v.Headline)
		}
		c.Variants = append(c.Variants, v)
		for _, s := range r.Servers {
			j, ok := serverIdx[s.ID]
			if !ok {
				j = len(c.Servers)
				serverIdx[s.ID] = j
				c.Servers = append(c.Servers, ComparedServer{ID: s.ID, Requests: make([]int64, len(results))})
			}
			c.Servers[j].Requests[i] = s.Requests
		}
	}
	return c
}

func diffHeadlines(base, h *result.Headline) map[string]Diff {
	bf, hf := base.Figures(), h.Figures()
	d := make(map[string]Diff, len(bf))
	for i, f := range hf {
		b, v := bf[i].Value, f.Value
		diff := Diff{Abs: round6(v - b)}
		if b != 0 {
			rel := round6((v - b) / b)
			diff.Relative = &rel
		}
		d[f.Name] = diff
	}
	return d
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// Variant is a named change to a scenario: `ldbal=N`, `model=MP`,
// `policy=p2c`, `rate_scale=1.5`, `seed=3`, `tuning.idle=queue`, any scenario field by its JSON
// path (`network.latency_ms=2`, `machines.SITE2.speed=0.5`), or a UBBCONFIG
// parameter by its ubb.ParseKey key (`SERVERS.simpserv.MIN=3`,
// `SERVICES.DEPOSIT@BANKB1.LOAD=80`, `MACHINES.SITE2.NETLOAD=10`).
type Variant struct {
	Name string
	Set  []Assignment
}

// Assignment sets one field: Path is dotted, Value is JSON or a bare word.
type Assignment struct {
	Path  string
	Value string
}

// ParseVariant reads `key=value[,key=value...]`; the variant's name is the text itself.
func ParseVariant(text string) (Variant, error) {
	v := Variant{Name: text}
	for _, part := range strings.Split(text, ",") {
		key, val, ok := strings.Cut(part, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return v, diag.Errorf(diag.EINVALID, "variant %q: want key=value, e.g. ldbal=N or policy=p2c", text)
		}
		v.Set = append(v.Set, Assignment{Path: key, Value: strings.TrimSpace(val)})
	}
	// a key set twice: the run would take the last value while the
	// variant's name, its text, shows both
	seen := map[string]bool{}
	for _, a := range v.Set {
		if k := variantKey(a.Path); seen[k] {
			return v, diag.Errorf(diag.EINVALID, "variant %q: %s is set twice; give each key once", text, a.Path)
		} else {
			seen[k] = true
		}
	}
	return v, nil
}

// variantKey is a variant's key as the keys are told apart: in any case
// (policy, Policy; SERVERS.simpserv.MIN, SERVERS.simpserv.min), but for
// the name of an entry (SERVERS.NAME.MIN, machines.LMID.speed), which is
// the configuration's as written.
func variantKey(path string) string {
	if k := lookupKey(path); k != nil {
		return k.name // a sweep key's one name: streams.S.rate and streams.S.rate_per_s are one key
	}
	parts := strings.Split(path, ".")
	for i := range parts {
		if i != 1 || len(parts) != 3 {
			parts[i] = strings.ToLower(parts[i])
		}
	}
	return strings.Join(parts, ".")
}

// ApplyVariant returns a copy of sc with v's assignments made. Scenario fields
// are set first; then the UBBCONFIG parameters (LDBAL and MODEL, and keys
// whose first part is an upper-case section: RESOURCES, MACHINES, GROUPS,
// SERVERS, SERVICES) are set in the UBBCONFIG text by the ubb editor, which
// keeps the rest of the text as written, so the variant is itself a complete
// scenario that can be saved and shared. The scenario keys a sweep varies
// (rate_scale, policy, tuning.*, ...) have their values checked as a sweep
// checks them.
func ApplyVariant(sc *scenario.Scenario, v Variant) (*scenario.Scenario, error) {
	out := *sc
	if err := applyAssignments(&out, v.Set); err != nil {
		return nil, diag.Errorf(diag.EINVALID, "variant %q: %v", v.Name, err)
	}
	return &out, nil
}

// applyAssignments makes the assignments to sc: scenario fields in order,
// then every UBBCONFIG change at once through the ubb editor.
func applyAssignments(sc *scenario.Scenario, set []Assignment) error {
	var changes []ubb.Change
	for _, a := range set {
		c, isUBB, err := ubbChange(a)
		k := lookupKey(a.Path)
		switch {
		case err != nil:
		case isUBB:
			changes = append(changes, c) // the editor's loader checks the value, at its line and column
		case k != nil:
			if err = k.checkValue(a.Value); err == nil {
				err = k.apply(sc, a.Value)
			}
		default:
			err = setScenarioPath(sc, a.Path, a.Value)
		}
		if err != nil {
			return err
		}
	}
	if len(changes) > 0 {
		in := ubb.Input{UBBConfig: sc.UBBConfig, UBBName: "ubbconfig", DMConfig: sc.DMConfig,
			DMName: "dmconfig", Advertise: sc.Advertise}
		text, err := in.Edit(changes...)
		if err != nil {
			return err
		}
		sc.UBBConfig = text
	}
	return nil
}

// ubbChange reads an assignment that sets a UBBCONFIG parameter: ldbal and
// model (any case; the value is upper-cased, ldbal=y is LDBAL Y), or a key
// whose first part is a UBBCONFIG section in upper case. isUBB is false for
// a scenario path (machines.SITE2.speed is the scenario's; MACHINES.SITE2.NETLOAD
// the UBBCONFIG's).
func ubbChange(a Assignment) (c ubb.Change, isUBB bool, err error) {
	switch strings.ToLower(a.Path) {
	case "ldbal", "model":
		return ubb.Change{Section: "RESOURCES", Key: strings.ToUpper(a.Path), Value: strings.ToUpper(a.Value)}, true, nil
	}
	section, _, _ := strings.Cut(a.Path, ".")
	switch section {
	case "RESOURCES", "MACHINES", "GROUPS", "SERVERS", "SERVICES":
		c, err := ubb.ParseKey(a.Path)
		c.Value = a.Value
		return c, true, err
	}
	return ubb.Change{}, false, nil
}

// setScenarioPath sets a field of the scenario by its dotted JSON path, going
// through the JSON form so that the strict reader checks the result.
func setScenarioPath(sc *scenario.Scenario, path, value string) error {
	raw, err := json.Marshal(sc)
	if err != nil {
		return err
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // integers keep their digits: a float64 holds them exactly only to 2^53 (a seed)
	if err := dec.Decode(&doc); err != nil {
		return err
	}
	var val any
	if err := json.Unmarshal([]byte(value), &val); err != nil {
		val = value // a bare word is a string
	}
	if n, err := strconv.ParseFloat(value, 64); err == nil {
		val = n
		if wholeNumber(value) {
			val = json.Number(value) // as written: seed=18446744073709551615 stays exact, a seed past 2^64-1 is named as given
		}
	}
	keys := strings.Split(path, ".")
	node := doc
	for _, k := range keys[:len(keys)-1] {
		next, ok := node[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			node[k] = next
		}
		node = next
	}
	node[keys[len(keys)-1]] = val
	raw, err = json.Marshal(doc)
	if err != nil {
		return err
	}
	var fresh scenario.Scenario
	if err := jsonx.DecodeStrict(raw, &fresh, "variant "+path); err != nil {
		// names the field: "foo: unknown field", "seed: want a whole number from 0 to 18446744073709551615, got a string"
		return diag.Invalid(err)
	}
	*sc = fresh
	return nil
}

// wholeNumber says whether s is a JSON integer: an optional minus and
// digits, without leading zeros.
func wholeNumber(s string) bool {
	d := strings.TrimPrefix(s, "-")
	return d != "" && strings.Trim(d, "0123456789") == "" && (d == "0" || d[0] != '0')
}

// Compare runs the scenario once per variant (the first is usually the
// scenario as it is, named "baseline") on the identical request stream and
// puts the results side by side.
func Compare(sc *scenario.Scenario, variants []Variant, opt core.RunOptions) (*Comparison, []*result.Result, error) {
	names := make([]string, len(variants))
	results := make([]*result.Result, len(variants))
	for i, v := range variants {
		vsc, err := ApplyVariant(sc, v)
		if err != nil {
			return nil, nil, err
		}
		r, err := core.Run(vsc, opt)
		if err != nil {
			return nil, nil, fmt.Errorf("variant %q: %w", v.Name, err)
		}
		names[i], results[i] = v.Name, r
	}
	return CompareResults(names, results), results, nil
}
