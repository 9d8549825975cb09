package plan

import (
	"slices"

	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/internal/vocab"
	"github.com/tuxlb/tuxlb/core/workload"
)

// PolicyKind is how a request's queue is chosen: Tuxedo's own rules (the
// default) or one of the policies offered for comparison (docs/engine.md).
type PolicyKind uint8

// The policies; PolicyTuxedo is the default.
const (
	PolicyTuxedo PolicyKind = iota
	PolicyRoundRobin
	PolicyRandom
	PolicyJSQ
	PolicyP2C
)

var policies = vocab.Table[PolicyKind]{What: "policy", Names: []string{"tuxedo", "round_robin", "random", "jsq", "p2c"}}

// String returns the policy's name as scenarios and the dispatch log spell it.
func (p PolicyKind) String() string { return policies.Name(p) }

// ParsePolicy reads a policy name for field; "" is the default, tuxedo.
func ParsePolicy(field, name string) (PolicyKind, error) { return policies.Parse(field, name) }

// IdleReading is what "idle" means in the dispatch rules (tuning.idle).
type IdleReading uint8

// The readings of idle; IdleServer is the default.
const (
	IdleServer IdleReading = iota // the instance is not processing a request
	IdleQueue                     // the instance's queue holds no waiting request
)

var idleReadings = vocab.Table[IdleReading]{What: "value", Names: []string{"server", "queue"}}

// String returns the reading's name as tuning.idle spells it.
func (r IdleReading) String() string { return idleReadings.Name(r) }

// MTIdleReading is when an instance with more than one dispatch thread
// looks idle to the dispatch rules under tuning.idle "server"
// (tuning.mt_idle).
type MTIdleReading uint8

// The readings of a multithreaded instance's idleness; MTIdleServer is the
// default.
const (
	MTIdleServer    MTIdleReading = iota // at least one of its threads is free
	MTIdleNoRequest                      // none of its threads holds a request
)

var mtIdleReadings = vocab.Table[MTIdleReading]{What: "value", Names: []string{"server", "no_request"}}

// String returns the reading's name as tuning.mt_idle spells it.
func (r MTIdleReading) String() string { return mtIdleReadings.Name(r) }

// NetLoadReading is whose NETLOAD a remote queue costs (tuning.netload).
type NetLoadReading uint8

// The readings of NETLOAD; NetLoadServer is the default.
const (
	NetLoadServer NetLoadReading = iota // the machine that holds the queue
	NetLoadOrigin                       // the machine the request is issued on
)

var netLoadReadings = vocab.Table[NetLoadReading]{What: "value", Names: []string{"server", "origin"}}

// String returns the reading's name as tuning.netload spells it.
func (r NetLoadReading) String() string { return netLoadReadings.Name(r) }

// CounterReading is what an MP choice adds to the chosen queue's counter
// (tuning.mp_counter).
type CounterReading uint8

// The readings of the MP counter; CounterLoadNetLoad is the default.
const (
	CounterLoadNetLoad CounterReading = iota // LOAD plus the NETLOAD the choice charged
	CounterLoad                              // LOAD only
)

var counterReadings = vocab.Table[CounterReading]{What: "value", Names: []string{"load+netload", "load"}}

// String returns the reading's name as tuning.mp_counter spells it.
func (r CounterReading) String() string { return counterReadings.Name(r) }

// Vocabulary lists the names the scenario accepts for each enumerated field,
// in the order the engine defines them (the default first where there is
// one). core.Vocabulary adds the names the engine writes.
func Vocabulary() map[string][]string {
	return map[string][]string{
		"policy":            policies.List(),
		"tuning.idle":       idleReadings.List(),
		"tuning.mt_idle":    mtIdleReadings.List(),
		"tuning.netload":    netLoadReadings.List(),
		"tuning.mp_counter": counterReadings.List(),
		"arrivals":          workload.ArrivalNames(),
		"dist":              dist.Names(),
		"event":             eventKinds.List(),
		"route.dist":        workload.RouteDistNames(),
		"call.mode":         callModes.List(),
		"retry.on":          slices.Clone(retryCodes),
	}
}

// FailureCodes are the failure codes a request can end with, in the order
// of the dispatch log's failure reasons (TPETIME is the reason of a
// transaction's owner that timed out; a caller's own TPETIME is retry bit
// RetryTPETIME):
// Client.RetryOn has bit k set to retry on FailureCodes[k].
var FailureCodes = [...]string{"TPENOENT", "TPESYSTEM", "TPESVCERR", "TPESVCFAIL", "TPEBLOCK", "TPETRAN", "TPETIME"}
