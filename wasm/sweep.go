package main

import (
	"encoding/json"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/sweep"
)

// The page runs a sweep the way the CLI's worker pool does: it asks for the
// plan, hands units to several Web Workers (each has its own copy of this
// bridge and compiles the sweep once), and reduces their samples, in unit
// order, with sweepReduce, so the JSON is the bytes `tuxlb sweep --format
// json` prints.

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
		return nil, core.Errorf(core.EINVALID, "sweep spec: %v", err)
	}
	sc, err := core.ParseScenario([]byte(scenario))
	if err != nil {
		return nil, err
	}
	if spec.Precision != 0 {
		return nil, core.FieldErrorf("precision", "the playground runs a fixed number of replications per point; run a sweep to a precision with tuxlb sweep --precision or the API")
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
	// Order is the order to hand the units out in: the largest runs first
	// (sweep.Sweep.LargestFirst), so that the workers finish together.
	Order []int `json:"order"`
}

func sweepPlan(scenario, specJSON string) string {
	sw, err := compiledSweep(scenario, specJSON)
	if err != nil {
		return errorJSON(err)
	}
	return answerJSON(sweepPlanAnswer{Points: sw.Points(), Units: sw.Units(), Replications: sw.Reps, Order: sw.LargestFirst()})
}

// sweepUnit runs work unit u and returns its sample as {"sample": "..."}
// (a string the page hands back to sweepReduce untouched).
func sweepUnit(scenario, specJSON string, u int, o options) string {
	sw, err := compiledSweep(scenario, specJSON)
	if err != nil {
		return errorJSON(err)
	}
	smp, err := sw.RunUnit(u, core.RunOptions{Progress: o.Progress})
	if err != nil {
		return errorJSON(err)
	}
	b, err := json.Marshal(smp)
	if err != nil {
		return errorJSON(err)
	}
	return answerJSON(map[string]string{"sample": string(b)})
}

// sweepReduce reduces the samples (samplesJSON: an array indexed by unit, a
// sample string or null for a unit not run) and returns {"result": "..."}:
// the [sweep.Encode] bytes, with the points whose units are all there, and the
// CSV of the same.
func sweepReduce(scenario, specJSON, samplesJSON string) string {
	sw, err := compiledSweep(scenario, specJSON)
	if err != nil {
		return errorJSON(err)
	}
	var samples []*string
	if err := json.Unmarshal([]byte(samplesJSON), &samples); err != nil {
		return errorJSON(core.Errorf(core.EINVALID, "sweep samples: %v", err))
	}
	r := sw.NewReducer()
	for u, s := range samples {
		if s == nil {
			continue
		}
		var smp sweep.Sample
		if err := json.Unmarshal([]byte(*s), &smp); err != nil {
			return errorJSON(core.Errorf(core.EINVALID, "sweep sample %d: %v", u, err))
		}
		if _, err := r.Add(u, &smp); err != nil {
			return errorJSON(err)
		}
	}
	res := r.Result()
	return answerJSON(map[string]string{"result": string(sweep.Encode(res)), "csv": string(sweep.EncodeCSV(res))})
}
