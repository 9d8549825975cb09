// Package core is the domain of tuxlb: it reads scenarios and plays Tuxedo's
// load balancing forward in simulated time over the Model that package ubb
// reads from UBBCONFIG and DMCONFIG files. It is pure and deterministic: no
// clock, no goroutines, no files, no global randomness, so the same scenario
// gives the same bytes natively and in WebAssembly.
package core

import "github.com/tuxlb/tuxlb/core/ubb"

// The configuration model is package ubb's; core's API (Setup, OpenWorkload,
// Error) speaks of it under these names.
type (
	// Model is ubb.Model: the application a UBBCONFIG (and DMCONFIG) describes.
	Model = ubb.Model
	// Machine is ubb.Machine: one *MACHINES entry.
	Machine = ubb.Machine
	// Group is ubb.Group: one *GROUPS entry.
	Group = ubb.Group
	// Server is ubb.Server: one server instance.
	Server = ubb.Server
	// Queue is ubb.Queue: a request queue.
	Queue = ubb.Queue
	// Service is ubb.Service: a known service and its LOAD and PRIO.
	Service = ubb.Service
	// ServiceParams is ubb.ServiceParams: the LOAD and PRIO of a service for one group.
	ServiceParams = ubb.ServiceParams
	// RemoteService is ubb.RemoteService: where an imported service goes.
	RemoteService = ubb.RemoteService
	// Domain is ubb.Domain: a remote domain of the DMCONFIG.
	Domain = ubb.Domain
	// Diagnostic is ubb.Diagnostic: one positioned message about an input file.
	Diagnostic = ubb.Diagnostic
)

// LoadModel reads a UBBCONFIG (and optional DMCONFIG) with ubb.Load and
// returns its Model. A failed load is an EINVALID *Error carrying the
// diagnostics, so that callers map it like any other domain error.
func LoadModel(in ubb.Input) (*Model, error) {
	m, err := ubb.Load(in)
	if list, ok := err.(ubb.ErrorList); ok {
		return nil, ConfigError(list...)
	}
	return m, err
}
