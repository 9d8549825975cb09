// The portable half of the tools module (its fit): what it does without syscall/js, so
// it can be tested natively.

package main

import (
	"encoding/json"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/starter"
	"github.com/tuxlb/tuxlb/core/ulog"
	"github.com/tuxlb/tuxlb/wasm/internal/answer"
)

// fitRequest is the argument of fit: the files `tuxlb fit` reads (absent
// fields were not given). ULOG files keep their names: ULOGPFX.mmddyy gives
// the date of their lines.
type fitRequest struct {
	UBBConfig *string    `json:"ubbconfig"`
	DMConfig  *string    `json:"dmconfig"`
	ULOG      []fileText `json:"ulog"`
	// PSC is a tmadmin printservice listing: what the servers that
	// advertise at run time offer (--psc).
	PSC      *string `json:"psc"`
	Trace    *string `json:"trace"`
	TraceMap string  `json:"trace_map"`
	// TraceSkipBad skips the trace's unreadable rows (--trace-skip-bad).
	TraceSkipBad bool   `json:"trace_skip_bad"`
	UBBName      string `json:"ubb_name"`
	TraceName    string `json:"trace_name"`
}

// fileText is one file as the page read it.
type fileText struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// fitAnswer is what fit returns, as POST /api/v1/fit answers it: the report
// and, with a UBBCONFIG, the scenario `tuxlb fit --out` writes and what it
// left out.
type fitAnswer struct {
	Report           *starter.FitReport `json:"report"`
	Scenario         *scenario.Scenario `json:"scenario,omitempty"`
	ScenarioWarnings []string           `json:"scenario_warnings,omitempty"`
}

// fit is `tuxlb fit --ulog F... --ubbconfig U [--dmconfig D] [--psc P] --out S` (or
// --trace instead of --ulog) in the page: starter.Fit, then starter.FromFit
// when a UBBCONFIG is given.
func fit(request string) string {
	var req fitRequest
	if err := json.Unmarshal([]byte(request), &req); err != nil {
		return answer.Error(diag.FieldErrorf("fit", "%v", err))
	}
	files := starter.Files{UBBConfig: req.UBBConfig, DMConfig: req.DMConfig, PSC: req.PSC, Trace: req.Trace, UBBName: req.UBBName,
		TraceName: req.TraceName, SkipBad: req.TraceSkipBad}
	if req.TraceMap != "" {
		m, err := starter.ParseTraceMap(req.TraceMap)
		if err != nil {
			return answer.Error(err)
		}
		files.Columns = m
	}
	if (req.Trace == nil) == (len(req.ULOG) == 0) {
		return answer.Error(diag.FieldErrorf("fit", "give a request log or ULOG files (one of them)"))
	}
	src := starter.FitSources{Trace: files.Trace, TraceName: files.TraceName, Columns: files.Columns, SkipBad: files.SkipBad,
		UBBConfig: files.UBBConfig, DMConfig: files.DMConfig, PSC: files.PSC}
	for _, f := range req.ULOG {
		src.ULOG = append(src.ULOG, ulog.File{Name: f.Name, Text: f.Text})
	}
	rep, err := starter.Fit(src)
	if err != nil {
		return answer.Error(err)
	}
	out := fitAnswer{Report: rep}
	if files.UBBConfig != nil {
		if out.Scenario, out.ScenarioWarnings, err = starter.FromFit(files, rep); err != nil {
			return answer.Error(err)
		}
	}
	return answer.JSON(out)
}
