package core

import (
	"fmt"
	"maps"
	"slices"

	"github.com/tuxlb/tuxlb/core/internal/life"
	"github.com/tuxlb/tuxlb/core/internal/vocab"
	"github.com/tuxlb/tuxlb/core/plan"
)

// comparisonPolicy is how the engine runs a policy other than tuxedo (whose
// algorithm MODEL and LDBAL pick): its algorithm, whose case in choose
// (core/dispatch.go) is the rule. Adding a policy is its constant and name
// in core/plan ([plan.PolicyKind]), a row here with its algorithm and
// dispatch reason below, its case in choose, its explanation (package
// explain) and its tests (docs/architecture.md, "Adding a policy").
type comparisonPolicy struct {
	alg algorithm
}

// The algorithms of the comparison policies.
const (
	algRoundRobin algorithm = algMP + 1 + iota
	algRandom
	algJSQ
	algP2C
)

// comparisonPolicies has a row for every policy but tuxedo (a test checks).
var comparisonPolicies = map[plan.PolicyKind]comparisonPolicy{
	plan.PolicyRoundRobin: {alg: algRoundRobin},
	plan.PolicyRandom:     {alg: algRandom},
	plan.PolicyJSQ:        {alg: algJSQ},
	plan.PolicyP2C:        {alg: algP2C},
}

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
	reasonTMS    // a transaction's request to a TMS queue: no choice
	reasonNoEnt  // TPENOENT: no candidate advertises the service (after routing)
	reasonSystem // TPESYSTEM: a routed request without a value, or one no range holds
	reasonSvcErr // TPESVCERR: the request reached a queue and its server crashed, timed out or went away
	// TPESVCFAIL: a nested request of it failed or timed out, so its
	// service failed (returned TPFAIL)
	reasonSvcFail
	// TPEBLOCK: its queue stayed full (tuning.queue_capacity) until its deadline
	reasonBlock
	// TPETRAN: a child in a transaction chosen into a group without TMSNAME
	reasonTran
	// TPETIME: the owner of a transaction that timed out
	reasonTime
)

// reasons names the dispatch reasons, then plan.FailureCodes (a test checks
// that the constants above follow them).
var reasons = vocab.Table[reason]{What: "reason", Names: slices.Concat(
	[]string{"first", "idle", "least-load", "round_robin", "random", "jsq", "p2c", "tms"}, plan.FailureCodes[:])}

// numFailures is how many failure codes there are: the statistics keep a
// count of each.
const numFailures = int(reasonTime-reasonNoEnt) + 1

// String returns the reason as the dispatch log spells it.
func (r reason) String() string { return reasons.Name(r) }

// failed reports whether r is a failure code rather than a dispatch reason.
func (r reason) failed() bool { return r >= reasonNoEnt }

// Vocabulary lists the names the scenario accepts for each enumerated field
// (plan.Vocabulary) and those the engine writes (dispatch reasons, instance
// states, life-cycle causes), in the order the engine defines them (the
// default first where there is one): what the playground's menus and the API
// document offer.
func Vocabulary() map[string][]string {
	v := plan.Vocabulary()
	maps.Copy(v, map[string][]string{
		"dispatch_reason": reasons.List(),
		"instance_state":  instStates.List(),
		"lifecycle_cause": life.Causes.List(),
	})
	return v
}

var algorithmNames = vocab.Table[algorithm]{What: "algorithm", Names: []string{algFirst: "LDBAL=N", algSHM: "SHM real-time",
	algMP: "MP round-robin", algRoundRobin: "round_robin", algRandom: "random", algJSQ: "jsq", algP2C: "p2c"}}

// String returns the algorithm's name as explanations show it.
func (a algorithm) String() string { return algorithmNames.Name(a) }

// sprintf is fmt.Sprintf, short for the engine's many messages.
func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
