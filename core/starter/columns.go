package starter

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// TraceRead is the fit report's trace block, a run's (result.TraceRead):
// the rows read and skipped, and how each column of the log's header was
// read (its name as written → the field it gave, workload.columns' names,
// or "ignored"), so that a response column read as the observed response
// ("Elapsed(ms)": "observed") is seen not to be the service time.
type TraceRead = result.TraceRead

// responseColumns are the warnings about a log's columns read as the
// observed response: a response time (elapsed, duration, latency...) holds
// the waiting and the network besides the service, so it is not used as
// the service time unless mapped as one. timed says whether another column
// gave service times. A column the mapping names as the observed response
// is the user's own reading: no warning.
func responseColumns(cols map[string]string, timed bool, mapping *scenario.TraceMap) []string {
	var names []string
	for name, field := range cols {
		if field == "observed" && (mapping == nil || !strings.EqualFold(strings.TrimSpace(mapping.Observed), name)) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var out []string
	for _, n := range names {
		what := "service times are not taken from it"
		if !timed {
			what = "so the log gives no service time"
		}
		out = append(out, fmt.Sprintf("trace: column %q read as the observed response, not the service time (a response includes the time queued): %s; "+
			"if it holds service times, map it: --trace-map 'service_ms=%s'", n, what, n))
	}
	return out
}
