package main

import (
	"encoding/json"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/sweep"
	"github.com/tuxlb/tuxlb/wasm/internal/answer"
)

// The page runs a sweep the way the CLI's worker pool does: it asks for the
// plan, hands units to several Web Workers (each has its own copy of this
// module and compiles the sweep once), and reduces their samples, in unit
// order, with sweepReduce, so the JSON is the bytes `tuxlb sweep --format
// json` prints. A sweep to a precision runs in rounds, as the pool's do:
// sweepPending says which units the samples so far call for (the next
// batches of the points not yet precise), the page runs them and asks
// again, until none are left.

// sweepCache is the sweep this instance compiled last (one per Web Worker).
var sweepCache struct {
	key string
	sw  *sweep.Sweep
}

// compiledSweep compiles the sweep of scenario and specJSON (a
// sweep.Spec), reusing the last one when they are the same.
func compiledSweep(scenario, specJSON string) (*sweep.Sweep, error) {
	key := specJSON + "\x00" + scenario
	if sweepCache.sw != nil && sweepCache.key == key {
		return sweepCache.sw, nil
	}
	var spec sweep.Spec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		return nil, diag.Errorf(diag.EINVALID, "sweep spec: %v", err)
	}
	sc, err := core.ParseScenario([]byte(scenario))
	if err != nil {
		return nil, err
	}
	sw, err := sweep.Compile(sc, spec)
	if err != nil {
		return nil, err
	}
	sweepCache.key, sweepCache.sw = key, sw
	return sw, nil
}

// sweepPlan is the answer of tuxlb.sweepPlan: the grid's size, or the error
// naming the bad key or value.
type sweepPlanAnswer struct {
	Points       int `json:"points"`
	Units        int `json:"units"`
	Replications int `json:"replications"`
	// MaxReplications is, with a precision, the most replications a point
	// can run (Replications is then the batch); units are numbered point ×
	// MaxReplications.
	MaxReplications int `json:"max_replications,omitempty"`
	// Order is the order to hand the units out in: the largest runs first
	// (sweep.Sweep.LargestFirst), so that the workers finish together.
	Order []int `json:"order"`
}

func sweepPlan(scenario, specJSON string) string {
	sw, err := compiledSweep(scenario, specJSON)
	if err != nil {
		return answer.Error(err)
	}
	a := sweepPlanAnswer{Points: sw.Points(), Units: sw.Units(), Replications: sw.Reps, Order: sw.LargestFirst()}
	if sw.Precision > 0 {
		a.MaxReplications = sw.MaxReps
	}
	return answer.JSON(a)
}

// sweepUnit runs work unit u and returns its sample as {"sample": "..."}
// (a string the page hands back to sweepReduce untouched); progress, when
// not nil, hears the run's (done, total).
func sweepUnit(scenario, specJSON string, u int, progress func(done, total int64)) string {
	sw, err := compiledSweep(scenario, specJSON)
	if err != nil {
		return answer.Error(err)
	}
	smp, err := sw.RunUnit(u, core.RunOptions{Progress: progress})
	if err != nil {
		return answer.Error(err)
	}
	b, err := json.Marshal(smp)
	if err != nil {
		return answer.Error(err)
	}
	return answer.JSON(map[string]string{"sample": string(b)})
}

// decodeSamples reads samplesJSON: an array indexed by unit, a sample
// string or null for a unit not run.
func decodeSamples(samplesJSON string) ([]*sweep.Sample, error) {
	var texts []*string
	if err := json.Unmarshal([]byte(samplesJSON), &texts); err != nil {
		return nil, diag.Errorf(diag.EINVALID, "sweep samples: %v", err)
	}
	out := make([]*sweep.Sample, len(texts))
	for u, s := range texts {
		if s == nil {
			continue
		}
		var smp sweep.Sample
		if err := json.Unmarshal([]byte(*s), &smp); err != nil {
			return nil, diag.Errorf(diag.EINVALID, "sweep sample %d: %v", u, err)
		}
		out[u] = &smp
	}
	return out, nil
}

// sweepSamples is the compiled sweep and its samples so far (decodeSamples).
func sweepSamples(scenario, specJSON, samplesJSON string) (*sweep.Sweep, []*sweep.Sample, error) {
	sw, err := compiledSweep(scenario, specJSON)
	if err != nil {
		return nil, nil, err
	}
	samples, err := decodeSamples(samplesJSON)
	return sw, samples, err
}

// sweepReduce reduces the samples (samplesJSON: an array indexed by unit, a
// sample string or null for a unit not run) and returns {"result": "..."}:
// the [sweep.Encode] bytes, with the points whose units are all there, and the
// CSV of the same. Samples are added in unit order, so a point's batches
// (with a precision) come in the order the reducer opens them.
func sweepReduce(scenario, specJSON, samplesJSON string) string {
	sw, samples, err := sweepSamples(scenario, specJSON, samplesJSON)
	if err != nil {
		return answer.Error(err)
	}
	r := sw.NewReducer()
	for u, smp := range samples {
		if smp == nil {
			continue
		}
		if _, err := r.Add(u, smp); err != nil {
			return answer.Error(err)
		}
	}
	res := r.Result()
	return answer.JSON(map[string]string{"result": string(sweep.Encode(res)), "csv": string(sweep.EncodeCSV(res))})
}

// sweepPendingAnswer is the answer of tuxlb.sweepPending: the units to run
// next, largest first (none: the sweep is complete).
type sweepPendingAnswer struct {
	Units []int `json:"units"`
}

// sweepPending replays the samples (as sweepReduce takes them) into a fresh
// reducer, round by round as the pool runs them (pool.Sweep), and returns
// the units the reducer asks for that have no sample yet: the next round to
// run. With a precision that is the next batch of each point whose interval
// is still too wide; without one, the units not run. An empty list means
// every point is reduced.
func sweepPending(scenario, specJSON, samplesJSON string) string {
	sw, samples, err := sweepSamples(scenario, specJSON, samplesJSON)
	if err != nil {
		return answer.Error(err)
	}
	if len(samples) > sw.Units() {
		return answer.Error(diag.Errorf(diag.EINVALID, "sweep samples: %d, more than the sweep's %d units", len(samples), sw.Units()))
	}
	r := sw.NewReducer()
	for {
		order := r.Pending()
		missing := []int{}
		for _, u := range order {
			if u >= len(samples) || samples[u] == nil {
				missing = append(missing, u)
				continue
			}
			if _, err := r.Add(u, samples[u]); err != nil {
				return answer.Error(err)
			}
		}
		if len(missing) > 0 || len(order) == 0 {
			return answer.JSON(sweepPendingAnswer{Units: missing})
		}
	}
}
