// Package plan compiles a scenario against its model into what the engine
// plays: every default filled in, every name turned into an index, the
// distributions checked once into samplers, the workload compiled, the
// applications' call steps and client populations, the life-cycle events
// resolved to the instances they target ([Resolve] gives a [Setup]). It is
// the single checking pass: an error here names the scenario's field. It
// knows the engine's vocabularies (policies, readings, failure codes) but
// nothing of how a request is dispatched.
package plan

import (
	"slices"
	"sort"
	"strings"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
	"github.com/tuxlb/tuxlb/core/workload"
)

// Setup is a scenario checked against its model and resolved into what the
// engine needs: every default filled in, every name turned into an index.
type Setup struct {
	Model *ubb.Model
	// Bufs numbers the buffer types of the model and of the workload's
	// requests (compiled with it; runs only read it).
	Bufs     *workload.BufTable
	Policy   PolicyKind
	Seed     uint64
	Tuning   scenario.Tuning // every field set (pointers non-nil)
	Warnings []string

	Speed            []float64 // per machine, default 1
	LatencyUS        int64     // one-way network latency
	GatewayForwardUS int64     // how long a GWTDOMAIN instance is busy per request
	ResetUS          int64     // MP counter reset period
	BlockUS          int64     // SCANUNIT x BLOCKTIME: replies later than this are TPETIME
	WarmupUS         int64
	WarmupAuto       bool // warmup_ms "auto": found by MSER-5 at each run (Plan.run)
	// ValidateAfterUS is validation.after_ms: the validation compares the
	// trace rows issued at or after it (and after the warm-up).
	ValidateAfterUS int64
	// Tolerance is the relative tolerance of the validation's mean, p50,
	// p95 and p99, defaults filled in.
	Tolerance [4]float64
	BootUS    int64   // how long an instance takes to come up (tuning.boot_ms)
	Events    []Event // the scenario's events, targets resolved, in time order

	// ServiceTime[s][g] samples service s on servers of group g (index into
	// Model.Groups); nil when the scenario gives no distribution for it (then
	// every request of s must carry service_ms, which [Setup.checkWorkload]
	// has checked).
	ServiceTime [][]dist.Sampler
	// RemoteTime[s] samples the remote domain's response time for an imported
	// service s; nil for local services.
	RemoteTime []dist.Sampler
	// Remote[s], for an imported service whose remote domains (RDOM=A,B,C)
	// are ever down, lists them in failover order; nil otherwise (and nil
	// for every service when no domain is ever down): the gateway sends
	// the request to the first that is up, else it fails with TPESVCERR.
	Remote [][]RemoteDomain
	// TMSTime samples one request to a TMS server (transactions.tms_time,
	// default const 1 ms); nil when the configuration starts no
	// transaction (no *SERVICES entry has AUTOTRAN=Y).
	TMSTime dist.Sampler

	traceNote string             // how a log was read, the last warning of the setup
	callsNote string             // rows' service times beside services that make calls (serviceMSWithCalls)
	Work      *workload.Compiled // the workload, compiled once (checkWorkload)
	// HandlingTime samples the workstation handlers' time per message
	// (workstation.handling_time); nil for none (const 0).
	HandlingTime dist.Sampler
	App          *App // calls and clients; nil when the scenario has none
	// Q is /Q: the scenario's queues and the TMQFORWARD servers that drain
	// them; nil when the scenario has no qspaces.
	Q *QPlan

	ck *Checked // while resolving: what checking the scenario built
}

// maxNameBytes bounds a scenario's name: runs carry it into every list
// of them.
const maxNameBytes = 1000

// Check checks the parts of the scenario that do not need its configuration
// (distributions, tuning, analysis knobs, events, generated streams), as
// core.ParseScenario does; [Resolve] checks the rest against the model.
// Errors are EINVALID and name the field.
func Check(sc *scenario.Scenario) error {
	_, err := CheckScenario(sc)
	return err
}

// Checked is what checking a scenario without its configuration built: the
// samplers of its distributions, which [ResolveChecked] takes instead of
// building them again. It belongs to the scenario it was made from, which
// must not change until it is resolved.
type Checked struct {
	sc       *scenario.Scenario
	services map[string]dist.Sampler // serviceSamplers
	domains  map[string]checkedDomain
	tms      dist.Sampler // transactions.tms_time
	handling dist.Sampler // workstation.handling_time, nil when not given
}

// checkedDomain is a remote domain's response time and down intervals.
type checkedDomain struct {
	response dist.Sampler
	down     []downSpan
}

// newSampler is dist.New, a variable so that a test counts the samplers a
// scenario's checking and resolving build.
var newSampler = dist.New

// samplers builds (and so checks) the samplers of sc's distributions: the
// services', the remote domains' (with their down intervals), the TMS
// servers' and the workstation handlers'.
func (ck *Checked) samplers(sc *scenario.Scenario) error {
	var err error
	if ck.services, err = serviceSamplers(sc); err != nil {
		return err
	}
	for _, name := range slices.Sorted(mapKeys(sc.Domains)) {
		d := sc.Domains[name]
		var cd checkedDomain
		if cd.response, err = newSampler(&d.ResponseTime, "domains."+name+".response_time"); err != nil {
			return err
		}
		if cd.down, err = downSpans(d.Down, "domains."+name+".down"); err != nil {
			return err
		}
		ck.domains[name] = cd
	}
	if ck.tms, err = tmsTime(sc); err != nil {
		return err
	}
	if w := sc.Workstation; w != nil && w.HandlingTime != nil {
		if ck.handling, err = newSampler(w.HandlingTime, "workstation.handling_time"); err != nil {
			return err
		}
	}
	return nil
}

// CheckScenario is [Check], returning what it built for [ResolveChecked].
func CheckScenario(sc *scenario.Scenario) (*Checked, error) {
	ck := &Checked{sc: sc, domains: map[string]checkedDomain{}}
	if err := ck.check(sc); err != nil {
		return nil, diag.InSource(err, ubb.SourceScenario)
	}
	return ck, nil
}

func (ck *Checked) check(sc *scenario.Scenario) error {
	if strings.TrimSpace(sc.UBBConfig) == "" {
		return diag.FieldErrorf("ubbconfig", "missing (the UBBCONFIG text is required)")
	}
	if err := checkQSpaces(sc); err != nil {
		return err
	}
	if len(sc.Name) > maxNameBytes {
		return diag.FieldErrorf("name", "%d bytes, more than the %d a scenario's name may have", len(sc.Name), maxNameBytes)
	}
	if _, err := ParsePolicy("policy", sc.Policy); err != nil {
		return err
	}
	if _, err := resolveTuning(sc.Tuning, 1); err != nil {
		return err
	}
	if err := checkAnalysis(sc); err != nil {
		return err
	}
	if err := checkEvents(sc.Events); err != nil {
		return err
	}
	if err := ck.samplers(sc); err != nil {
		return err
	}
	if w := &sc.Workload; w.Trace != nil && len(w.Trace) == 0 && w.TraceCSV == "" {
		// as a log of no rows is: a run of it would issue nothing
		return diag.FieldErrorf("workload.trace", "empty (give at least one row, or leave trace out)")
	}
	if sc.Workload.Generate != nil {
		if _, err := workload.CheckGenerate(nil, sc.Workload.Generate); err != nil {
			return err
		}
	}
	return checkApps(sc)
}

// checkAnalysis checks warmup_ms, replications and bin_ms.
func checkAnalysis(sc *scenario.Scenario) error {
	if sc.WarmupMS != nil && !sc.WarmupMS.Auto {
		if _, err := nonNegativeMS("warmup_ms", sc.WarmupMS.MS); err != nil {
			return err
		}
	}
	if sc.Replications < 0 || sc.Replications > MaxReplications {
		return diag.FieldErrorf("replications", "must be between 0 and %d, got %d", MaxReplications, sc.Replications)
	}
	if v := sc.Validation; v != nil {
		if v.AfterMS != nil {
			if _, err := nonNegativeMS("validation.after_ms", *v.AfterMS); err != nil {
				return err
			}
		}
		if t := v.Tolerance; t != nil {
			for _, f := range []struct {
				name string
				v    *float64
			}{{"default", t.Default}, {"mean", t.Mean}, {"p50", t.P50}, {"p95", t.P95}, {"p99", t.P99}} {
				if f.v != nil && !(*f.v > 0 && *f.v <= 10) {
					return diag.FieldErrorf("validation.tolerance."+f.name, "must be a relative tolerance above 0 and at most 10 (0.1 is 10%%), got %v", *f.v)
				}
			}
		}
	}
	if sc.BinMS != nil {
		us, err := nonNegativeMS("bin_ms", *sc.BinMS)
		if err != nil {
			return err
		}
		if us == 0 {
			return diag.FieldErrorf("bin_ms", "must be at least 0.001 ms")
		}
	}
	return nil
}

// nonNegativeMS converts a millisecond field to microseconds, exactly as
// written, and checks that it is >= 0.
func nonNegativeMS(field string, v float64) (int64, error) {
	us, err := usec.FromMSValue(v)
	if msg := usec.Problem(us, err); msg != "" {
		return 0, diag.FieldErrorf(field, "%s", msg)
	}
	return us, nil
}

// resolveTuning fills in the defaults of t and checks every value. The
// default MP reset period is resetUS (SCANUNIT × SANITYSCAN).
func resolveTuning(t *scenario.Tuning, resetUS int64) (scenario.Tuning, error) {
	var out scenario.Tuning
	if t != nil {
		out = *t
	}
	r, err := TuningReadings(&out)
	if err != nil {
		return out, err
	}
	out.Idle, out.NetLoad, out.MPCounter = r.Idle.String(), r.NetLoad.String(), r.Counter.String()
	if out.MPResetMS == nil {
		v := float64(resetUS) / 1000
		out.MPResetMS = &v
	} else if us, err := nonNegativeMS("tuning.mp_reset_ms", *out.MPResetMS); err != nil {
		return out, err
	} else if us == 0 {
		return out, diag.FieldErrorf("tuning.mp_reset_ms", "must be > 0 (at least 0.001 ms once rounded to the microsecond), got %g", *out.MPResetMS)
	}
	if out.BootMS != nil {
		if _, err := nonNegativeMS("tuning.boot_ms", *out.BootMS); err != nil {
			return out, err
		}
	}
	if out.GatewayForwardMS == nil {
		v := 0.1
		out.GatewayForwardMS = &v
	} else if _, err := nonNegativeMS("tuning.gateway_forward_ms", *out.GatewayForwardMS); err != nil {
		return out, err
	}
	if c := out.QueueCapacity; c != nil && (*c < 1 || *c > 1<<30) {
		return out, diag.FieldErrorf("tuning.queue_capacity", "must be between 1 and %d requests, got %d", 1<<30, *c)
	}
	if r := out.EnqueueRetryMS; r != nil {
		if out.QueueCapacity == nil {
			return out, diag.FieldErrorf("tuning.enqueue_retry_ms", "applies to bounded queues only (set tuning.queue_capacity)")
		}
		if us, err := nonNegativeMS("tuning.enqueue_retry_ms", *r); err != nil {
			return out, err
		} else if us == 0 {
			return out, diag.FieldErrorf("tuning.enqueue_retry_ms", "must be > 0 (at least 0.001 ms once rounded to the microsecond), got %g", *r)
		}
	} else if out.QueueCapacity != nil {
		v := 1000.0
		out.EnqueueRetryMS = &v
	}
	return out, nil
}

// Readings are the typed values of a tuning's four readings.
type Readings struct {
	Idle    IdleReading
	NetLoad NetLoadReading
	Counter CounterReading
	MTIdle  MTIdleReading
}

// TuningReadings reads t's four readings; an empty one is its default.
func TuningReadings(t *scenario.Tuning) (Readings, error) {
	var r Readings
	var err [4]error
	r.Idle, err[0] = idleReadings.Parse("tuning.idle", t.Idle)
	r.NetLoad, err[1] = netLoadReadings.Parse("tuning.netload", t.NetLoad)
	r.Counter, err[2] = counterReadings.Parse("tuning.mp_counter", t.MPCounter)
	r.MTIdle, err[3] = mtIdleReadings.Parse("tuning.mt_idle", t.MTIdle)
	for _, e := range err {
		if e != nil {
			return r, e
		}
	}
	return r, nil
}

// serviceSamplers builds the samplers of sc.Services, keyed by service name;
// by_group entries under "name/group", the general one under "name".
func serviceSamplers(sc *scenario.Scenario) (map[string]dist.Sampler, error) {
	out := map[string]dist.Sampler{}
	for _, name := range slices.Sorted(mapKeys(sc.Services)) {
		spec := sc.Services[name]
		if spec.ServiceTime != nil {
			s, err := newSampler(spec.ServiceTime, "services."+name+".service_time")
			if err != nil {
				return nil, err
			}
			out[name] = s
		}
		for _, g := range slices.Sorted(mapKeys(spec.ByGroup)) {
			d := spec.ByGroup[g]
			s, err := newSampler(&d, "services."+name+".by_group."+g)
			if err != nil {
				return nil, err
			}
			out[name+"/"+g] = s
		}
	}
	return out, nil
}

// DefaultTMSTimeMS is what one TMS request costs when the scenario does not
// say (transactions.tms_time).
const DefaultTMSTimeMS = 1

// tmsTime checks transactions.tms_time and returns its sampler (the default
// const 1 ms when absent).
func tmsTime(sc *scenario.Scenario) (dist.Sampler, error) {
	ms := float64(DefaultTMSTimeMS)
	d := &scenario.Dist{Dist: "const", MS: &ms}
	if sc.Transactions != nil && sc.Transactions.TMSTime != nil {
		d = sc.Transactions.TMSTime
	}
	return newSampler(d, "transactions.tms_time")
}

// mapKeys returns an iterator over the keys of m.
func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// RemoteDomain is one remote domain of an import's failover list: its
// response time and when it is down.
type RemoteDomain struct {
	Name     string
	Response dist.Sampler
	down     []downSpan // in time order, not overlapping
}

// downSpan is [from, to) in µs; to is never for "to the end of the run".
type downSpan struct{ from, to int64 }

// UpAt reports whether the domain is up at t.
func (d *RemoteDomain) UpAt(t int64) bool {
	k := sort.Search(len(d.down), func(i int) bool { return d.down[i].to > t })
	return k == len(d.down) || d.down[k].from > t
}
