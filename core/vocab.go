package core

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/internal/vocab"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/workload"
)

// policyKind is how a request's queue is chosen: Tuxedo's own rules (the
// default) or one of the policies offered for comparison (docs/engine.md).
type policyKind uint8

// The policies; policyTuxedo is the default.
const (
	policyTuxedo policyKind = iota
	policyRoundRobin
	policyRandom
	policyJSQ
	policyP2C
)

var policies = vocab.Table[policyKind]{What: "policy", Names: []string{"tuxedo", "round_robin", "random", "jsq", "p2c"}}

// String returns the policy's name as scenarios and the dispatch log spell it.
func (p policyKind) String() string { return policies.Name(p) }

// comparisonPolicy is how the engine runs a policy other than tuxedo (whose
// algorithm MODEL and LDBAL pick): its algorithm, whose case in choose
// (core/dispatch.go) is the rule, and how an explanation shows it. Adding a
// policy is its name in policies, its constant, a row here with its
// algorithm and dispatch reason below, its case in choose, and its tests
// (docs/architecture.md, "Adding a policy").
type comparisonPolicy struct {
	alg algorithm
	// queueCost: an explanation's candidates carry their queue's length per
	// server, (waiting + in service)/n, as their cost; rankedByCost: the
	// losers are noted against the winner's cost ("costs more", "same cost,
	// but ties go to the first").
	queueCost, rankedByCost bool
	win                     string // the winner's note; "" is "picked by <reason>"
	// text is the explanation's sentence, given the explanation so far and
	// the instance the rule picked.
	text func(ex *result.Explanation, chosen string) string
}

// The algorithms of the comparison policies.
const (
	algRoundRobin algorithm = algMP + 1 + iota
	algRandom
	algJSQ
	algP2C
)

// comparisonPolicies has a row for every policy but tuxedo (a test checks).
var comparisonPolicies = map[policyKind]comparisonPolicy{
	policyRoundRobin: {alg: algRoundRobin, text: func(ex *result.Explanation, chosen string) string {
		return sprintf("round_robin rotates over the %d servers advertising %s; this turn falls to %s.",
			len(ex.Candidates), ex.Service, chosen)
	}},
	policyRandom: {alg: algRandom, text: func(ex *result.Explanation, chosen string) string {
		return sprintf("random picks one of the %d servers advertising %s uniformly: %s.",
			len(ex.Candidates), ex.Service, chosen)
	}},
	policyJSQ: {alg: algJSQ, queueCost: true, rankedByCost: true, win: "shortest queue per server",
		text: func(ex *result.Explanation, _ string) string {
			return sprintf("jsq sends the request to the queue with the fewest requests waiting or in service per server (ties to the first): %s.", ex.Winner)
		}},
	policyP2C: {alg: algP2C, queueCost: true, text: func(ex *result.Explanation, chosen string) string {
		return sprintf("p2c drew two servers advertising %s at random and kept the one whose queue is shorter per server: %s.",
			ex.Service, chosen)
	}},
}

// parsePolicy reads a policy name for field; "" is the default, tuxedo.
func parsePolicy(field, name string) (policyKind, error) { return policies.Parse(field, name) }

// reason is why a request went where it went, or the failure code that
// stopped it: the dispatch log's last column. Failure codes come last.
type reason uint8

// The dispatch reasons, then the failure codes.
const (
	reasonFirst     reason = iota // LDBAL=N: the first candidate
	reasonIdle                    // an idle candidate
	reasonLeastLoad               // the least cost
	reasonRoundRobin
	reasonRandom
	reasonJSQ
	reasonP2C
	reasonNoEnt  // TPENOENT: no candidate advertises the service (after routing)
	reasonSystem // TPESYSTEM: a routed request without a value, or one no range holds
	reasonSvcErr // TPESVCERR: the request reached a queue and its server crashed, timed out or went away
	// TPESVCFAIL: a nested request of it failed or timed out, so its
	// service failed (returned TPFAIL)
	reasonSvcFail
	// TPEBLOCK: its queue stayed full (tuning.queue_capacity) until its deadline
	reasonBlock
)

var reasons = vocab.Table[reason]{What: "reason", Names: []string{"first", "idle", "least-load", "round_robin", "random", "jsq", "p2c",
	"TPENOENT", "TPESYSTEM", "TPESVCERR", "TPESVCFAIL", "TPEBLOCK"}}

// numFailures is how many failure codes there are: the statistics keep a
// count of each.
const numFailures = int(reasonBlock-reasonNoEnt) + 1

// String returns the reason as the dispatch log spells it.
func (r reason) String() string { return reasons.Name(r) }

// failed reports whether r is a failure code rather than a dispatch reason.
func (r reason) failed() bool { return r >= reasonNoEnt }

// idleReading is what "idle" means in the dispatch rules (tuning.idle).
type idleReading uint8

// The readings of idle; idleServer is the default.
const (
	idleServer idleReading = iota // the instance is not processing a request
	idleQueue                     // the instance's queue holds no waiting request
)

var idleReadings = vocab.Table[idleReading]{What: "value", Names: []string{"server", "queue"}}

// String returns the reading's name as tuning.idle spells it.
func (r idleReading) String() string { return idleReadings.Name(r) }

// netLoadReading is whose NETLOAD a remote queue costs (tuning.netload).
type netLoadReading uint8

// The readings of NETLOAD; netLoadServer is the default.
const (
	netLoadServer netLoadReading = iota // the machine that holds the queue
	netLoadOrigin                       // the machine the request is issued on
)

var netLoadReadings = vocab.Table[netLoadReading]{What: "value", Names: []string{"server", "origin"}}

// String returns the reading's name as tuning.netload spells it.
func (r netLoadReading) String() string { return netLoadReadings.Name(r) }

// counterReading is what an MP choice adds to the chosen queue's counter
// (tuning.mp_counter).
type counterReading uint8

// The readings of the MP counter; counterLoadNetLoad is the default.
const (
	counterLoadNetLoad counterReading = iota // LOAD plus the NETLOAD the choice charged
	counterLoad                              // LOAD only
)

var counterReadings = vocab.Table[counterReading]{What: "value", Names: []string{"load+netload", "load"}}

// String returns the reading's name as tuning.mp_counter spells it.
func (r counterReading) String() string { return counterReadings.Name(r) }

// Vocabulary lists the names the scenario accepts for each enumerated field,
// in the order the engine defines them (the default first where there is
// one): what the playground's menus and the API document offer.
func Vocabulary() map[string][]string {
	return map[string][]string{
		"policy":            policies.List(),
		"tuning.idle":       idleReadings.List(),
		"tuning.netload":    netLoadReadings.List(),
		"tuning.mp_counter": counterReadings.List(),
		"arrivals":          workload.ArrivalNames(),
		"dist":              dist.Names(),
		"dispatch_reason":   reasons.List(),
		"event":             eventKinds.List(),
		"instance_state":    instStates.List(),
		"lifecycle_cause":   lifeCauses.List(),
		"route.dist":        workload.RouteDistNames(),
		"call.mode":         callModes.List(),
		"retry.on":          slices.Clone(retryCodes),
	}
}

// SeedWant says what a seed is, for the messages of every interface.
const SeedWant = "a whole number from 0 to 18446744073709551615"

// ParseSeed reads a seed given as text (a CLI flag, a query parameter, the
// page's form): a whole number from 0 to 2^64-1.
func ParseSeed(field, text string) (uint64, error) {
	n, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return 0, diag.FieldErrorf(field, "want %s, got %q", SeedWant, quote(text, 40))
	}
	return n, nil
}

// quote cuts s to at most n bytes for an error message, marking the cut.
func quote(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

var algorithmNames = vocab.Table[algorithm]{What: "algorithm", Names: []string{algFirst: "LDBAL=N", algSHM: "SHM real-time",
	algMP: "MP round-robin", algRoundRobin: "round_robin", algRandom: "random", algJSQ: "jsq", algP2C: "p2c"}}

// String returns the algorithm's name as explanations show it.
func (a algorithm) String() string { return algorithmNames.Name(a) }

// sprintf is fmt.Sprintf, short for the engine's many messages.
func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
