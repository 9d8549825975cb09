// Package core is the domain of tuxlb: it reads scenarios and plays Tuxedo's
// load balancing forward in simulated time over the Model that package ubb
// reads from UBBCONFIG and DMCONFIG files. It is pure and deterministic: no
// clock, no goroutines, no files, no global randomness, so the same scenario
// gives the same bytes natively and in WebAssembly.
package core

import (
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// The configuration model is package ubb's; core's API (LoadModel, Plan,
// ConfigError) speaks of it under these names. The Model's parts are ubb's
// own types (ubb.Server, ubb.Service, ...).
type (
	// Model is ubb.Model: the application a UBBCONFIG (and DMCONFIG) describes.
	Model = ubb.Model
	// Diagnostic is ubb.Diagnostic: one positioned message about an input file.
	Diagnostic = ubb.Diagnostic
	criterion  = ubb.Criterion // (for the engine's files that need no more of ubb)
)

// LoadModel reads a UBBCONFIG (and optional DMCONFIG) with ubb.Load and
// returns its Model. A failed load is an EINVALID *Error carrying the
// diagnostics, so that callers map it like any other domain error.
func LoadModel(in ubb.Input) (*Model, error) {
	m, err := ubb.Load(in)
	if list, ok := err.(ubb.ErrorList); ok {
		return nil, diag.ConfigError(list...)
	}
	return m, err
}
