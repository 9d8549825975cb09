package core

import (
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/jsonx"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// ParseScenario reads a scenario document strictly ([DecodeScenario]) and
// checks everything that does not need the model ([Check]: distributions,
// tuning, generated streams); [Compile] checks the rest.
func ParseScenario(data []byte) (*scenario.Scenario, error) {
	sc, err := DecodeScenario(data)
	if err != nil {
		return nil, err
	}
	if err := Check(sc); err != nil {
		return nil, err
	}
	return sc, nil
}

// DecodeScenario only reads a scenario document: unknown fields, wrong
// types, a key given twice and trailing data are EINVALID errors that name
// the field (or the line and column); nothing is checked beyond each
// value's shape. A caller that puts parts of its own into the document (the
// files of starter.ParseScenario) decodes, splices, then checks once.
func DecodeScenario(data []byte) (*scenario.Scenario, error) {
	var sc scenario.Scenario
	if err := jsonx.DecodeStrict(data, &sc, "scenario"); err != nil { // EINVALID, naming the field path or the line and column
		return nil, diag.InSource(diag.Invalid(err), ubb.SourceScenario)
	}
	return &sc, nil
}

// Check checks the parts of the scenario that do not need its configuration
// (distributions, tuning, analysis knobs, events, generated streams), as
// ParseScenario does; [Compile] checks the rest. Errors are EINVALID and
// name the field.
func Check(sc *scenario.Scenario) error { return plan.Check(sc) }
