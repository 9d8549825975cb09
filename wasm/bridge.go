// Package main's portable half: everything the bridge does that needs no
// syscall/js, so it can be tested natively.
package main

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/starter"
	"github.com/tuxlb/tuxlb/core/sweep"
	"github.com/tuxlb/tuxlb/core/ubb"
	"github.com/tuxlb/tuxlb/wasm/internal/answer"
)

// options are the run options JavaScript may pass.
type options struct {
	Policy   string
	Seed     string // decimal; "" keeps the scenario's seed
	Dispatch bool   // also return the dispatch log
	Variant  string // a `tuxlb compare --variant` text applied to the scenario first, e.g. "ldbal=N"
	Progress func(done, total int64)
	// AllSeries keeps every line of the time series (RunOptions.AllSeries)
	AllSeries bool
}

// runAnswer is what run returns: the result exactly as `tuxlb run` prints it
// (a string, so its bytes survive untouched). The dispatch log, when asked
// for, is not in it: takeDispatch hands it over as a string of its own, so
// that a log of many megabytes is not copied, escaped into the answer's JSON
// and parsed back out of it.
type runAnswer struct {
	Result string `json:"result"`
}

// lastDispatch is the dispatch log of the last run that asked for one, until
// takeDispatch hands it over.
var lastDispatch []byte

// takeDispatch returns the dispatch log of the last run that asked for one
// ("" when none) and lets it go.
func takeDispatch() string {
	s := string(lastDispatch)
	lastDispatch = nil
	return s
}

// validateAnswer is what validate returns for a configuration that parses.
type validateAnswer struct {
	Model *ubb.Model `json:"model"`
}

func (o options) runOptions() (core.RunOptions, error) {
	ro := core.RunOptions{Policy: o.Policy, Progress: o.Progress, AllSeries: o.AllSeries}
	if o.Seed != "" {
		seed, err := plan.ParseSeed("seed", o.Seed)
		if err != nil {
			return ro, err
		}
		ro.Seed = &seed
	}
	return ro, nil
}

// validate parses a UBBCONFIG (and DMCONFIG) and returns the model or the errors.
func validate(ubbText, dm, advertiseJSON string) string {
	var adv map[string][]string
	if advertiseJSON != "" {
		if err := json.Unmarshal([]byte(advertiseJSON), &adv); err != nil {
			return errorJSON(diag.FieldErrorf("advertise", "%v", err))
		}
	}
	// the files are named as the server and the CLI name a text given
	// without a file name
	m, err := core.LoadModel(ubb.Input{UBBConfig: ubbText, UBBName: ubb.SourceUBBConfig,
		DMConfig: dm, DMName: ubb.SourceDMConfig, Advertise: adv})
	if err != nil {
		return errorJSON(err)
	}
	return answerJSON(validateAnswer{Model: m})
}

// lastPlan is the plan of the last scenario run or explained, by the text
// it was compiled from (with the variant, policy and seed): the page
// explains the requests of the run it has just shown, one stepper click
// after another, and the same text always compiles to the same read-only
// plan, so the bridge compiles it once. One plan is kept: a new text
// replaces it.
var lastPlan struct {
	key  string
	plan *core.Plan
}

// planFor is the compiled plan of scenario text with o's variant and ro's
// policy and seed, the last one's when they are the same.
func planFor(text string, o options, ro core.RunOptions) (*core.Plan, error) {
	key := strings.Join([]string{o.Variant, ro.Policy, o.Seed, text}, "\x00")
	if lastPlan.plan != nil && lastPlan.key == key {
		return lastPlan.plan, nil
	}
	sc, err := scenarioWith(text, o.Variant)
	if err != nil {
		return nil, err
	}
	p, err := core.Compile(sc, ro)
	if err != nil {
		return nil, err
	}
	lastPlan.key, lastPlan.plan = key, p
	return p, nil
}

// run plays a scenario and returns the result bytes of `tuxlb run`.
func run(scenario string, o options) string {
	ro, err := o.runOptions()
	if err != nil {
		return errorJSON(err)
	}
	p, err := planFor(scenario, o, ro)
	if err != nil {
		return errorJSON(err)
	}
	lastDispatch = nil
	var log bytes.Buffer
	if o.Dispatch {
		ro.Dispatch = &log
	}
	res, err := p.Run(ro)
	if err != nil {
		return errorJSON(err)
	}
	if o.Dispatch {
		lastDispatch = log.Bytes()
	}
	return answerJSON(runAnswer{Result: string(result.Encode(res))})
}

// scenarioWith reads a scenario and applies a compare variant to it, the same
// way `tuxlb compare --variant` does. Without a variant it only decodes:
// Compile checks the scenario. With one, the scenario is checked before the
// variant changes it, so that its own mistakes are reported as its own, and
// Compile checks what the variant made of it.
func scenarioWith(scenario, variant string) (*scenario.Scenario, error) {
	if variant == "" {
		return core.DecodeScenario([]byte(scenario))
	}
	sc, err := core.ParseScenario([]byte(scenario))
	if err != nil {
		return nil, err
	}
	v, err := sweep.ParseVariant(variant)
	if err != nil {
		return nil, err
	}
	return sweep.ApplyVariant(sc, v)
}

// explainID returns the explanation of the request whose id is id, as the
// dispatch log shows it (2008.1, TELLER:3:12).
func explainID(scenario, id string, o options) string {
	return explanations(scenario, o, func(p *core.Plan, ro core.RunOptions) ([]result.Explanation, error) {
		return p.ExplainID(ro, id)
	})
}

// explain returns the explanations of requests first..first+count-1.
func explain(scenario string, first, count int64, o options) string {
	return explanations(scenario, o, func(p *core.Plan, ro core.RunOptions) ([]result.Explanation, error) {
		return p.Explain(ro, first, count)
	})
}

// explanations compiles the scenario (or takes the last plan) and answers
// what explain gives of it.
func explanations(scenario string, o options, explain func(*core.Plan, core.RunOptions) ([]result.Explanation, error)) string {
	ro, err := o.runOptions()
	if err != nil {
		return errorJSON(err)
	}
	p, err := planFor(scenario, o, ro)
	if err != nil {
		return errorJSON(err)
	}
	ex, err := explain(p, ro)
	if err != nil {
		return errorJSON(err)
	}
	if ex == nil {
		ex = []result.Explanation{}
	}
	return answerJSON(map[string]any{"explanations": ex})
}

// versionString is the JSON of tuxlb.version.
func versionString() string {
	return answerJSON(map[string]string{"engine_version": core.EngineVersion})
}

// errorJSON turns any error into {"error": {code, message, diagnostics}}.
func errorJSON(err error) string { return answer.Error(err) }

// answerJSON is v's JSON.
func answerJSON(v any) string { return answer.JSON(v) }

// adaptAnswer is what adapt and files return: the scenario to edit and what
// was changed to fit it to its configuration.
type adaptAnswer struct {
	Scenario *scenario.Scenario `json:"scenario"`
	Notes    []string           `json:"notes"`
}

// adapt fits a scenario to its (new) configuration (starter.Adapt).
func adapt(scenario string) string {
	sc, err := core.ParseScenario([]byte(scenario))
	if err != nil {
		return errorJSON(err)
	}
	out, notes, err := starter.Adapt(sc)
	if err != nil {
		return errorJSON(err)
	}
	return answerJSON(adaptAnswer{Scenario: out, Notes: notes})
}

// filesRequest is the argument of files: an administrator's files (absent
// fields were not given) and the scenario they go into ("" for none).
type filesRequest struct {
	Scenario  string  `json:"scenario"`
	UBBConfig *string `json:"ubbconfig"`
	DMConfig  *string `json:"dmconfig"`
	// PSC is a tmadmin printservice listing (init's --psc).
	PSC      *string `json:"psc"`
	Trace    *string `json:"trace"`
	TraceMap string  `json:"trace_map"`
	// TraceSkipBad skips the trace's unreadable rows (--trace-skip-bad).
	TraceSkipBad bool   `json:"trace_skip_bad"`
	UBBName      string `json:"ubb_name"`
	TraceName    string `json:"trace_name"`
}

// files combines files with a scenario the way `tuxlb run --ubbconfig
// --trace` and the API's form do (starter.ParseScenario, starter.WithFiles),
// then fits the scenario to a new configuration (starter.Adapt).
func files(request string) string {
	var req filesRequest
	if err := json.Unmarshal([]byte(request), &req); err != nil {
		return errorJSON(diag.FieldErrorf("files", "%v", err))
	}
	f := starter.Files{UBBConfig: req.UBBConfig, DMConfig: req.DMConfig, PSC: req.PSC, Trace: req.Trace, UBBName: req.UBBName, TraceName: req.TraceName,
		SkipBad: req.TraceSkipBad}
	if req.TraceMap != "" {
		m, err := starter.ParseTraceMap(req.TraceMap)
		if err != nil {
			return errorJSON(err)
		}
		f.Columns = m
	}
	var sc *scenario.Scenario
	var err error
	notes := []string{}
	if req.Scenario != "" {
		sc, err = starter.ParseScenario([]byte(req.Scenario), f)
	} else {
		var warns []string
		sc, warns, err = starter.WithFilesWarn(nil, f)
		notes = append(notes, warns...)
	}
	if err != nil {
		return errorJSON(err)
	}
	if req.Scenario != "" && (f.UBBConfig != nil || f.DMConfig != nil) {
		if sc, notes, err = starter.Adapt(sc); err != nil {
			return errorJSON(err)
		}
	}
	return answerJSON(adaptAnswer{Scenario: sc, Notes: notes})
}
