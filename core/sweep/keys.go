package sweep

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
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
	// rule is how a line along the key picks its best point (ruleOf):
	// RuleSmallest, RuleLargest, or "" for RuleFirst.
	rule string
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

// scenarioKeys are the scenario's own keys with a fixed name, by their
// lower-case name; machines.<lmid>.speed, whose name holds an LMID, is
// matched apart.
var scenarioKeys = map[string]func(name string) *sweepKey{
	"rate_scale": func(n string) *sweepKey {
		return &sweepKey{name: n, kind: keyNumber, check: positive, apply: scaleRates, rule: RuleLargest}
	},
	"policy": func(n string) *sweepKey {
		return &sweepKey{name: n, kind: keyWord, words: core.Vocabulary()["policy"], apply: func(sc *scenario.Scenario, v string) error {
			sc.Policy = strings.ToLower(v)
			return nil
		}}
	},
	"network.latency_ms": func(n string) *sweepKey {
		k := numberKey(nonNegative)(n)
		k.rule = RuleLargest
		return k
	},
	"tuning.idle":               wordKey,
	"tuning.netload":            wordKey,
	"tuning.mp_counter":         wordKey,
	"tuning.mt_idle":            wordKey,
	"tuning.mp_reset_ms":        numberKey(positive),
	"tuning.gateway_forward_ms": numberKey(nonNegative),
}

// numberKey is a scenario number set by its JSON path.
func numberKey(check func(float64) string) func(string) *sweepKey {
	return func(n string) *sweepKey {
		return &sweepKey{name: n, kind: keyNumber, check: check, apply: pathSetter(n)}
	}
}

// wordKey is a scenario word (a tuning reading) set by its JSON path, its
// values those of core.Vocabulary.
func wordKey(n string) *sweepKey {
	return &sweepKey{name: n, kind: keyWord, words: core.Vocabulary()[n], apply: pathSetter(n)}
}

// ubbEntryNames are the entry placeholders of the UBBCONFIG sections whose
// entries sweep keys name, in the order the help lists them.
var ubbEntryNames = []struct{ section, entry string }{
	{"SERVERS", "<name>[@<group>]"}, {"SERVICES", "<name>"}, {"MACHINES", "<lmid>"}, {"GROUPS", "<group>"},
}

// keysHelp lists the keys for error messages: the scenario's, then the
// UBBCONFIG's sweep keys of ubb.SweepParams.
var keysHelp = func() string {
	var res []string
	bySection := map[string][]string{}
	for _, p := range ubb.SweepParams() {
		if p.Section == "RESOURCES" {
			res = append(res, strings.ToLower(p.Keyword))
		} else {
			bySection[p.Section] = append(bySection[p.Section], p.Keyword)
		}
	}
	parts := append([]string{"rate_scale", "policy"}, res...)
	parts = append(parts, "tuning.*", "network.latency_ms", "machines.<lmid>.speed", "clients.<name>.count|think_ms", "streams.<service>.rate")
	for _, e := range ubbEntryNames {
		if ks := bySection[e.section]; len(ks) > 0 {
			parts = append(parts, e.section+"."+e.entry+"."+strings.Join(ks, "|"))
		}
	}
	return strings.Join(parts, ", ")
}()

// lookupKey finds the key named name, or returns nil. Scenario keys are
// matched case-insensitively; a UBBCONFIG key (a sweep parameter of
// ubb.Params) is a *RESOURCES keyword in any case (ldbal), or starts with its
// section in upper case (SERVERS, SERVICES, MACHINES: machines.SITE2.speed
// is the scenario's, MACHINES.SITE2.NETLOAD the UBBCONFIG's), its keyword in
// any case, the entry's name as written.
func lookupKey(name string) *sweepKey {
	lower := strings.ToLower(name)
	if mk, ok := scenarioKeys[lower]; ok {
		return mk(lower)
	}
	parts := strings.Split(name, ".")
	if len(parts) == 1 {
		if p := ubb.LookupParam("RESOURCES", strings.ToUpper(name)); p != nil && p.Sweep {
			return &sweepKey{name: lower, kind: keyWord, words: p.Words}
		}
		return nil
	}
	if len(parts) != 3 || parts[1] == "" {
		return nil
	}
	if k := workloadKey(parts); k != nil {
		return k
	}
	if strings.EqualFold(parts[0], "machines") && strings.EqualFold(parts[2], "speed") {
		path := "machines." + parts[1] + ".speed"
		return &sweepKey{name: path, kind: keyNumber, check: positive, apply: pathSetter(path), rule: RuleSmallest}
	}
	section, attr := parts[0], strings.ToUpper(parts[2])
	if section == "RESOURCES" {
		return nil // a *RESOURCES keyword has no entry
	}
	if p := ubb.LookupParam(section, attr); p == nil || !p.Sweep || p.Kind != ubb.KindInteger {
		return nil
	}
	k := &sweepKey{name: section + "." + parts[1] + "." + attr, kind: keyInteger, check: nonNegative}
	switch section + "." + attr {
	case "SERVERS.MIN", "SERVERS.MAX", "SERVERS.MAXDISPATCHTHREADS", "GROUPS.TMSCOUNT":
		k.rule = RuleSmallest // fewest processes that meet
	case "MACHINES.MAXWSCLIENTS":
		k.rule = RuleLargest // the most workstation clients that still meet
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
		return diag.FieldErrorf(k.name, "value %q is not one of %s", v, strings.Join(k.words, ", "))
	case keyInteger:
		n, err := strconv.Atoi(v)
		if err != nil {
			return diag.FieldErrorf(k.name, "value %q is not a whole number", v)
		}
		if msg := k.check(float64(n)); msg != "" {
			return diag.FieldErrorf(k.name, "value %s %s", v, msg)
		}
	default:
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || x != x {
			return diag.FieldErrorf(k.name, "value %q is not a number", v)
		}
		if msg := k.check(x); msg != "" {
			return diag.FieldErrorf(k.name, "value %s %s", v, msg)
		}
	}
	return nil
}

// pathSetter sets a scenario field by its JSON path (strictly re-read).
func pathSetter(path string) func(*scenario.Scenario, string) error {
	return func(sc *scenario.Scenario, v string) error { return setScenarioPath(sc, path, v) }
}

// scaleRates multiplies every arrival rate of the workload by the factor
// (given as decimal text): a trace's workload.trace_rate_scale (its issue
// times are divided by the factor), and the generated streams' rate_per_s,
// both rates of an MMPP and every point of a rate profile. The products are
// computed on exact decimals, so 200 x 1.1 is 220. Client populations keep
// their pace: their rate follows from their think times and answers.
func scaleRates(sc *scenario.Scenario, factor string) error {
	f, ok := parseExact(factor)
	if !ok || f.sign() <= 0 {
		return fmt.Errorf("rate_scale: want a number > 0, got %q", factor)
	}
	w := &sc.Workload
	traced := w.TraceCSV != "" || len(w.Trace) > 0
	if !traced && (w.Generate == nil || len(w.Generate.Streams) == 0) {
		return fmt.Errorf("rate_scale: the workload has no trace or generated streams to scale")
	}
	mul := func(x float64) float64 {
		r, ok := parseExact(strconv.FormatFloat(x, 'g', -1, 64))
		if !ok {
			return x
		}
		return mulExact(r, f).float64()
	}
	if traced {
		x := 1.0
		if w.TraceRateScale != nil {
			x = *w.TraceRateScale
		}
		x = mul(x)
		w.TraceRateScale = &x
	}
	if w.Generate == nil {
		return nil
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
