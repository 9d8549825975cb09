package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/sweep"
	"github.com/tuxlb/tuxlb/core/ubb"
	"github.com/tuxlb/tuxlb/wasm/internal/answer"
)

// The page runs an optimization in one Web Worker, as `tuxlb optimize
// --jobs 1` does: the selection's rounds one unit after another
// (sweep.Sequential). Its rounds depend on the figures of the rounds
// before, so they cannot be handed out ahead as a sweep's units are; the
// report is the same bytes whatever runs the rounds.

// optimizeAnswer is what optimize returns: the report exactly as `tuxlb
// optimize --format json` prints it (a string, so its bytes survive).
type optimizeAnswer struct {
	Result string `json:"result"`
}

// optimize runs the optimization specJSON (a sweep.OptimizeSpec: vary,
// objectives, costs, pcs, epsilon, first_stage, max_replications) of
// scenario and returns its report. progress, when not nil, is called after
// every run with the runs done and the most the search could need.
func optimize(scenario, specJSON string, progress func(done, total int64)) string {
	var spec sweep.OptimizeSpec
	dec := json.NewDecoder(strings.NewReader(specJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return answer.Error(diag.FieldErrorf("optimize", "%s", strings.TrimPrefix(err.Error(), "json: ")))
	}
	sc, err := core.ParseScenario([]byte(scenario))
	if err != nil {
		return answer.Error(err)
	}
	if len(spec.Vary) == 0 {
		return answer.Error(diag.FieldErrorf("vary", "want at least one KEY=VALUES, e.g. SERVERS.PAYSRV.MIN=1..6/1"))
	}
	m, err := core.LoadModel(ubb.Input{UBBConfig: sc.UBBConfig, UBBName: "ubbconfig", DMConfig: sc.DMConfig,
		DMName: "dmconfig", Advertise: sc.Advertise})
	if err != nil {
		return answer.Error(err)
	}
	if _, err := sweep.ParseObjectives(m, spec.Objectives, func(i int) string { return fmt.Sprintf("objectives[%d]", i) }); err != nil {
		return answer.Error(err)
	}
	opt, err := sweep.CompileOptimize(sc, spec)
	if err != nil {
		return answer.Error(err)
	}
	done, most := 0, opt.Sweep.Units()
	res, err := opt.Run(sweep.Sequential(func(point, rep int) ([]float64, error) {
		y, err := opt.Evaluate(point, rep, core.RunOptions{})
		if err == nil && progress != nil {
			done++
			progress(int64(done), int64(most))
		}
		return y, err
	}))
	if err != nil {
		return answer.Error(err)
	}
	return answer.JSON(optimizeAnswer{Result: string(sweep.EncodeOptimization(res))})
}
