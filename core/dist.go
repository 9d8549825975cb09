package core

// Sampler draws durations in milliseconds from a distribution. Implementations
// use only deterministic arithmetic (no math.Log/Exp, whose native and WASM
// results may differ in the last bit; see fmath.go).
type Sampler interface {
	SampleMS(r *Rand) float64
	MeanMS() float64
}

// NewSampler checks d and returns its sampler. field names d in errors, e.g.
// `services.TOUPPER.service_time`.
func NewSampler(d *Dist, field string) (Sampler, error) {
	return nil, Errorf(EINTERNAL, "%s: distributions not implemented yet", field)
}
