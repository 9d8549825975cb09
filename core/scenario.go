package core

import (
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// ParseScenario reads a scenario document strictly and checks what does not
// need the model ([plan.ParseScenario]); [Compile] checks the rest.
func ParseScenario(data []byte) (*scenario.Scenario, error) { return plan.ParseScenario(data) }

// DecodeScenario only reads a scenario document, strictly ([plan.DecodeScenario]).
func DecodeScenario(data []byte) (*scenario.Scenario, error) { return plan.DecodeScenario(data) }

// Check checks the parts of the scenario that do not need its configuration
// (distributions, tuning, analysis knobs, events, generated streams), as
// ParseScenario does; [Compile] checks the rest. Errors are EINVALID and
// name the field.
func Check(sc *scenario.Scenario) error { return plan.Check(sc) }
