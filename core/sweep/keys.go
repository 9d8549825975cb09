package sweep

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// sweepKey is a parameter a sweep can vary (and a compare variant can set):
// its canonical name, what its values must look like, and how a value is
// applied to a copy of the scenario.
type sweepKey struct {
	name  string
	kind  int      // keyNumber, keyInteger or keyWord
	words []string // keyWord: the values allowed (compared case-insensitively)
	// check says what is wrong with a parsed number ("" when nothing).
	check func(x float64) string
	// apply sets a scenario key; nil for UBBCONFIG keys, which
	// applyAssignments hands to the ubb editor together.
	apply func(sc *scenario.Scenario, value string) error
}

// kinds of sweep key values.
const (
	keyNumber = iota
	keyInteger
	keyWord
)

func positive(x float64) string {
	if x <= 0 {
		return "must be > 0"
	}
	return ""
}

func nonNegative(x float64) string {
	if x < 0 {
		return "must be >= 0"
	}
	return ""
}

// keysHelp lists the keys for error messages.
const keysHelp = "rate_scale, policy, ldbal, model, tuning.*, network.latency_ms, machines.<lmid>.speed, " +
	"SERVERS.<name>[@<group>].MIN|MAX, SERVICES.<name>.LOAD|PRIO, MACHINES.<lmid>.NETLOAD"

// lookupKey finds the key named name, or returns nil. Scenario keys are
// matched case-insensitively; a UBBCONFIG key starts with its section in
// upper case (SERVERS, SERVICES, MACHINES: machines.SITE2.speed is the
// scenario's, MACHINES.SITE2.NETLOAD the UBBCONFIG's), its keyword in any
// case, the entry's name as written.
func lookupKey(name string) *sweepKey {
	lower := strings.ToLower(name)
	switch lower {
	case "rate_scale":
		return &sweepKey{name: "rate_scale", kind: keyNumber, check: positive, apply: scaleRates}
	case "policy":
		return &sweepKey{name: "policy", kind: keyWord, words: core.Vocabulary()["policy"], apply: func(sc *scenario.Scenario, v string) error {
			sc.Policy = strings.ToLower(v)
			return nil
		}}
	case "ldbal", "model":
		words := []string{"Y", "N"}
		if lower == "model" {
			words = []string{"SHM", "MP"}
		}
		return &sweepKey{name: lower, kind: keyWord, words: words}
	case "network.latency_ms":
		return &sweepKey{name: lower, kind: keyNumber, check: nonNegative, apply: pathSetter(lower)}
	}
	parts := strings.Split(name, ".")
	switch {
	case strings.HasPrefix(lower, "tuning.") && len(parts) == 2 && parts[1] != "":
		return tuningKey(lower)
	case len(parts) == 3 && strings.EqualFold(parts[0], "machines") && parts[2] == "speed" && parts[1] != "":
		return &sweepKey{name: "machines." + parts[1] + ".speed", kind: keyNumber, check: positive, apply: pathSetter("machines." + parts[1] + ".speed")}
	case len(parts) == 3 && parts[1] != "":
		section, attr := parts[0], strings.ToUpper(parts[2])
		ok := section == "SERVERS" && (attr == "MIN" || attr == "MAX") ||
			section == "SERVICES" && (attr == "LOAD" || attr == "PRIO") ||
			section == "MACHINES" && attr == "NETLOAD"
		if !ok {
			return nil
		}
		return &sweepKey{name: section + "." + parts[1] + "." + attr, kind: keyInteger, check: nonNegative}
	}
	return nil
}

// tuningKey is a tuning.* key: words for the readings, numbers for the times.
func tuningKey(name string) *sweepKey {
	k := &sweepKey{name: name, apply: pathSetter(name)}
	switch name {
	case "tuning.idle":
		k.kind, k.words = keyWord, core.Vocabulary()[name]
	case "tuning.netload":
		k.kind, k.words = keyWord, core.Vocabulary()[name]
	case "tuning.mp_counter":
		k.kind, k.words = keyWord, core.Vocabulary()[name]
	case "tuning.mp_reset_ms":
		k.kind, k.check = keyNumber, positive
	case "tuning.gateway_forward_ms":
		k.kind, k.check = keyNumber, nonNegative
	default:
		return nil
	}
	return k
}

// checkValue checks one value of the key, naming the key when it is wrong.
func (k *sweepKey) checkValue(v string) error {
	switch k.kind {
	case keyWord:
		for _, w := range k.words {
			if strings.EqualFold(w, v) {
				return nil
			}
		}
		return core.FieldErrorf(k.name, "value %q is not one of %s", v, strings.Join(k.words, ", "))
	case keyInteger:
		n, err := strconv.Atoi(v)
		if err != nil {
			return core.FieldErrorf(k.name, "value %q is not a whole number", v)
		}
		if msg := k.check(float64(n)); msg != "" {
			return core.FieldErrorf(k.name, "value %s %s", v, msg)
		}
	default:
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || x != x {
			return core.FieldErrorf(k.name, "value %q is not a number", v)
		}
		if msg := k.check(x); msg != "" {
			return core.FieldErrorf(k.name, "value %s %s", v, msg)
		}
	}
	return nil
}

// pathSetter sets a scenario field by its JSON path (strictly re-read).
func pathSetter(path string) func(*scenario.Scenario, string) error {
	return func(sc *scenario.Scenario, v string) error { return setScenarioPath(sc, path, v) }
}

// scaleRates multiplies every arrival rate of the generated streams by the
// factor (given as decimal text): rate_per_s, both rates of an MMPP and every
// point of a rate profile. The products are computed on exact decimals, so
// 200 x 1.1 is 220. A trace has fixed issue times and cannot be scaled.
func scaleRates(sc *scenario.Scenario, factor string) error {
	f, ok := new(big.Rat).SetString(factor)
	if !ok || f.Sign() <= 0 {
		return fmt.Errorf("rate_scale: want a number > 0, got %q", factor)
	}
	w := &sc.Workload
	if w.TraceCSV != "" || len(w.Trace) > 0 {
		return fmt.Errorf("rate_scale: the workload has a trace, whose issue times are fixed; rate_scale scales generated streams (workload.generate) only")
	}
	if w.Generate == nil {
		return fmt.Errorf("rate_scale: the workload has no generated streams to scale")
	}
	mul := func(x float64) float64 {
		r, ok := new(big.Rat).SetString(strconv.FormatFloat(x, 'g', -1, 64))
		if !ok {
			return x
		}
		y, _ := r.Mul(r, f).Float64()
		return y
	}
	g := *w.Generate
	g.Streams = slices.Clone(g.Streams)
	for i := range g.Streams {
		s := &g.Streams[i]
		s.RatePerS = mul(s.RatePerS)
		s.Rates = slices.Clone(s.Rates)
		for j := range s.Rates {
			s.Rates[j] = mul(s.Rates[j])
		}
		s.Profile = slices.Clone(s.Profile)
		for j := range s.Profile {
			s.Profile[j].RatePerS = mul(s.Profile[j].RatePerS)
		}
	}
	w.Generate = &g
	return nil
}
