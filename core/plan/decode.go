package plan

import (
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/jsonx"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// CheckJSONText checks what encoding/json lets pass silently in a document
// that decodes into v (a pointer to a struct): a string that is not valid
// UTF-8, and a key that differs only in case from a field of the struct it
// falls in (jsonx.CheckText). Either is an EINVALID error naming the field
// and its line and column; what names the document. core.ParseScenario
// checks it; a program decoding another document of the API checks it
// itself.
func CheckJSONText(data []byte, v any, what string) error {
	if err := jsonx.CheckText(data, v, what); err != nil {
		return diag.Invalid(err)
	}
	return nil
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

// ParseScenario reads a scenario document strictly ([DecodeScenario]) and
// checks everything that does not need the model ([Check]: distributions,
// tuning, generated streams); core.Compile checks the rest.
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
