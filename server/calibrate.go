package server

import (
	"bytes"
	"context"
	"errors"
	"math"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/starter"
)

// calibrateForm is what POST /calibrate reads: POST /fit's parts and the
// options of the replay.
var calibrateForm = formSpec{names: []string{"trace", "trace_map", "trace_skip_bad", "ulog", "ubbconfig", "dmconfig", "psc", "options"},
	want: "ubbconfig (and dmconfig, and psc: a tmadmin printservice listing), ulog parts (one per file) and/or a trace with an observed response column (with trace_map and " +
		"trace_skip_bad), and options ({\"replications\": 10, \"tolerance\": {\"default\": 0.1, \"p99\": 0.2}, \"after_ms\": 30000, \"seed\": 1})",
	example: "curl -F ubbconfig=@ubb.cfg -F trace=@export.csv -F 'options={\"replications\": 10}'"}

// calibrateOptions is the options part of POST /calibrate.
type calibrateOptions struct {
	Replications *int                `json:"replications,omitempty"` // default 10
	Tolerance    *scenario.Tolerance `json:"tolerance,omitempty"`
	AfterMS      *float64            `json:"after_ms,omitempty"`
	Seed         *uint64             `json:"seed,omitempty"`
	ULOGTZ       string              `json:"ulog_tz,omitempty"` // the ulog parts' zone, where after_ms places the trace's first row
}

// defaultCalibrateReplications is the replay's replications when the
// options give none (tuxlb calibrate's default too).
const defaultCalibrateReplications = 10

// calibrateAnswer is POST /calibrate's answer: the fit report, the
// scenario made from it, and the replay's validation when a trace was sent.
type calibrateAnswer struct {
	Report           *starter.FitReport `json:"report"`
	Scenario         *scenario.Scenario `json:"scenario"`
	ScenarioWarnings []string           `json:"scenario_warnings,omitempty"`
	Validation       *result.Validation `json:"validation,omitempty"`
	ReplayWarnings   []string           `json:"replay_warnings,omitempty"`
}

// calibrate fits the posted ULOG parts or trace (as POST /fit does), makes
// the scenario, and replays the trace against it with the options'
// replications, answering the validation with its verdicts
// (docs/api.md). The fit and the replay take one run slot, are bounded by
// --max-run-time from the request's arrival, and stop when the client
// leaves.
func (s *Server) calibrate(c echo.Context) error {
	start := time.Now()
	ok, boundary := isMultipart(c)
	if !ok {
		return problemf(http.StatusUnsupportedMediaType, "unsupported-media-type", "Unsupported media type",
			"%sPOST /api/v1/calibrate takes multipart/form-data: send %s, e.g. %s", unreadType(c), calibrateForm.want, calibrateForm.example)
	}
	var optData []byte
	src, files, err := s.readFitForm(c, boundary, calibrateForm, &optData)
	if err != nil {
		return err
	}
	if files.UBBConfig == nil {
		return partProblem("ubbconfig", "send the ubbconfig part: the scenario is made for a configuration")
	}
	var opts calibrateOptions
	if len(bytes.TrimSpace(optData)) > 0 {
		if _, err := Canonical(optData); err != nil {
			return inPart(err, "options")
		}
		if err := decodeStrict(optData, &opts, "options"); err != nil {
			return optionsError(err)
		}
	}
	reps := defaultCalibrateReplications
	if opts.Replications != nil {
		reps = *opts.Replications
	}
	if reps < 1 || reps > core.MaxReplications {
		return partProblem("options", "options: replications must be between 1 and %d, got %d", core.MaxReplications, reps)
	}
	var beforeUS int64
	if a := opts.AfterMS; a != nil && *a > 0 && *a <= 1e12 {
		beforeUS = int64(math.Round(*a * 1000)) // the hold-out window: fit from the part before it
	}
	if opts.ULOGTZ != "" {
		if src.ULOGZone, err = starter.LoadULOGZone("options: ulog_tz", opts.ULOGTZ); err != nil {
			return partProblem("options", "%v", err)
		}
		if len(src.ULOG) == 0 || files.Trace == nil {
			return partProblem("options", "options: ulog_tz places the trace beside the ulog parts: send both")
		}
	}
	// from the ULOG files when given: the trace is then only replayed
	if src, err = starter.ForCalibration(src, beforeUS); err != nil {
		return namePart(err, files)
	}
	ctx := c.Request().Context()
	rep, release, err := s.fitBounded(ctx, start, src)
	if err != nil {
		return namePart(err, files)
	}
	defer release()
	out := calibrateAnswer{Report: rep}
	if out.Scenario, out.ScenarioWarnings, err = starter.FromFit(files, rep); err != nil {
		return err
	}
	if opts.Tolerance != nil || opts.AfterMS != nil {
		out.Scenario.Validation = &scenario.ValidationOptions{Tolerance: opts.Tolerance, AfterMS: opts.AfterMS}
	}
	if opts.Seed != nil {
		out.Scenario.Seed = opts.Seed
	}
	if err := core.Check(out.Scenario); err != nil { // the options' values, named by their fields
		return err
	}
	if err := s.pastLimit(ctx, start, "fit"); err != nil {
		return err
	}
	if files.Trace != nil {
		res, err := s.replay(ctx, start, out.Scenario, files, reps)
		if err != nil {
			return namePart(err, files)
		}
		if res.Validation == nil {
			return partProblem("trace", "the trace has no observed responses (an observed_ms column, or observed=COL in trace_map): nothing to judge the scenario by")
		}
		out.Validation, out.ReplayWarnings = res.Validation, res.Warnings
	}
	return c.JSON(http.StatusOK, out)
}

// optionsError says that an error of reading the options part is the
// part's: its diagnostics' source is options, and its message starts with
// "options: " as the part's other problems do.
func optionsError(err error) error {
	var e *diag.Error
	if errors.As(err, &e) {
		named := *e
		named.Message = "options: " + e.Message
		named.Diagnostics = append([]diag.Diagnostic(nil), e.Diagnostics...)
		for i := range named.Diagnostics {
			named.Diagnostics[i].Source = diag.SourceOptions
		}
		return &named
	}
	return err
}

// replay runs the trace of files against sc with reps replications, in the
// slot the caller holds, within the run time limit from start.
func (s *Server) replay(ctx context.Context, start time.Time, sc *scenario.Scenario, files starter.Files, reps int) (*result.Result, error) {
	rsc, err := starter.ForReplay(sc, files)
	if err != nil {
		return nil, err
	}
	rsc.Replications = reps
	pr, err := core.Prepare(rsc, core.RunOptions{})
	if err != nil {
		return nil, err
	}
	inFlight, err := s.admitRun(rsc, pr.Model(), false, false)
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithDeadline(ctx, start.Add(s.cfg.MaxRunTime))
	defer cancel()
	opt := core.RunOptions{Context: runCtx, MaxRequests: s.cfg.MaxRequests, MaxInFlight: inFlight}
	began := time.Now()
	res, err := s.cfg.Run(pr, opt)
	s.metrics.ranRun(time.Since(began), res, err, runCtx)
	if err == nil {
		err = runCtx.Err() // the deadline passed as the run ended
	}
	if err != nil {
		if runCtx.Err() != nil {
			return nil, s.limitError(ctx, runCtx, "calibration")
		}
		return nil, s.runError(ctx, runCtx, err, inFlight)
	}
	return res, nil
}
