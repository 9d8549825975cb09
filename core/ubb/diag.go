package ubb

import "github.com/tuxlb/tuxlb/core/diag"

// The positioned diagnostic lives in core/diag, the lowest package, and the
// readers fill it; these names keep the model's callers as they were.

// Severities of a Diagnostic.
const (
	SeverityError   = diag.SeverityError
	SeverityWarning = diag.SeverityWarning
)

// Sources of a Diagnostic: which input it is about.
const (
	SourceUBBConfig = diag.SourceUBBConfig
	SourceDMConfig  = diag.SourceDMConfig
	SourceScenario  = diag.SourceScenario
	SourceTrace     = diag.SourceTrace
	SourceOptions   = diag.SourceOptions
)

// Diagnostic is one positioned message about an input ([diag.Diagnostic]).
type Diagnostic = diag.Diagnostic

// ErrorList is a list of diagnostics ([diag.ErrorList]): Load returns one
// as its error.
type ErrorList = diag.ErrorList
