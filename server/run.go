package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/tuxlb/tuxlb/core"
)

// retryAfterSeconds is what a 503 for too many runs at once asks callers to wait.
const retryAfterSeconds = 2

// encodeResult gives the bytes of a result exactly as `tuxlb run` prints them.
var encodeResult = core.EncodeResult

// newRunID returns a fresh random run id (128 bits, base64url).
func newRunID() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// execution is one run about to happen: its scenario and options.
type execution struct {
	scenario *core.Scenario
	stored   *core.SavedScenario
	opt      core.RunOptions
	keep     bool // keep the dispatch log
}

// execute runs x within the limits and returns the run ready to store. Over
// the limit of runs at once it is a 503 problem with Retry-After.
func (s *Server) execute(ctx context.Context, x execution) (*core.StoredRun, error) {
	select {
	case s.runs <- struct{}{}:
		defer func() { <-s.runs }()
	default:
		p := problemf(http.StatusServiceUnavailable, "busy", "Too many runs at once",
			"%d runs are executing, the most this server allows (flag --max-runs, env TUXLB_MAX_RUNS); retry later", s.cfg.MaxRuns)
		p.retryAfter = retryAfterSeconds
		return nil, p
	}
	runCtx, cancel := context.WithTimeout(ctx, s.cfg.MaxRunTime)
	defer cancel()
	opt := x.opt
	opt.Context, opt.MaxRequests = runCtx, s.cfg.MaxRequests
	var log bytes.Buffer
	var gz *gzip.Writer
	if x.keep {
		gz, _ = gzip.NewWriterLevel(&log, gzip.BestSpeed)
		opt.Dispatch = gz
	}
	res, err := s.cfg.Run(x.scenario, opt)
	if err != nil {
		return nil, s.runError(ctx, runCtx, err)
	}
	run := &core.StoredRun{
		ID: newRunID(), ScenarioID: x.stored.ID, Scenario: x.stored.Body, Name: x.scenario.Name,
		EngineVersion: core.EngineVersion, Policy: opt.Policy, Result: encodeResult(res),
		Headline: core.HeadlineOf(res), HasDispatch: x.keep,
	}
	if opt.Seed != nil {
		run.Seed = strconv.FormatUint(*opt.Seed, 10)
	}
	if x.keep {
		if err := gz.Close(); err != nil {
			return nil, err
		}
		run.DispatchGzip = log.Bytes()
	}
	return run, nil
}

// runError explains why a run failed: over the run time limit (422: the same
// scenario would fail again), over the request limit (413), or as core says.
func (s *Server) runError(ctx, runCtx context.Context, err error) error {
	if ctx.Err() == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) {
		p := problemf(http.StatusUnprocessableEntity, "run-too-long", "Run too long",
			"the run did not finish within %s, the most this server allows (flag --max-run-time, env TUXLB_MAX_RUN_TIME); "+
				"shorten the workload or run it with the CLI", s.cfg.MaxRunTime)
		p.Limit = s.cfg.MaxRunTime.String()
		return p
	}
	var ce *core.Error
	if errors.As(err, &ce) && ce.Code == core.ETOOLARGE {
		p := fromCoreError(ce)
		p.Title = "Workload too large"
		p.Detail += " (this server allows " + strconv.FormatInt(s.cfg.MaxRequests, 10) +
			" requests per run: flag --max-requests, env TUXLB_MAX_REQUESTS)"
		p.Limit = s.cfg.MaxRequests
		return p
	}
	return err
}

// runOptions reads the query of POST /runs: policy, seed and dispatch.
func runOptions(c echo.Context) (core.RunOptions, bool, error) {
	var opt core.RunOptions
	opt.Policy = c.QueryParam("policy")
	if v := c.QueryParam("seed"); v != "" {
		seed, err := core.ParseSeed("seed", v)
		if err != nil {
			return opt, false, badQuery("seed", v, core.SeedWant)
		}
		opt.Seed = &seed
	}
	keep, err := dispatchParam(c)
	return opt, keep, err
}

// dispatchParam reads ?dispatch=true|false.
func dispatchParam(c echo.Context) (bool, error) {
	v := c.QueryParam("dispatch")
	if v == "" {
		return false, nil
	}
	keep, err := strconv.ParseBool(v)
	if err != nil {
		return false, badQuery("dispatch", v, "true or false")
	}
	return keep, nil
}

// badQuery is the 400 problem for a malformed query parameter.
func badQuery(field, value, want string) *Problem {
	p := problemf(http.StatusBadRequest, "malformed-query", "Malformed query parameter",
		"%s=%q: want %s", field, value, want)
	p.Errors = []ProblemItem{{Field: field, Message: "want " + want}}
	return p
}

// createRun runs a posted scenario and stores it: 201 {"id", "result"}.
func (s *Server) createRun(c echo.Context) error {
	opt, keep, err := runOptions(c)
	if err != nil {
		return err
	}
	var sc *core.Scenario
	var stored *core.SavedScenario
	name := func(err error) error { return err }
	if form, boundary := isMultipart(c); form {
		sc, stored, name, err = s.readRunForm(c, boundary)
	} else {
		sc, stored, err = s.readScenario(c)
	}
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	run, err := s.execute(ctx, execution{scenario: sc, stored: stored, opt: opt, keep: keep})
	if err != nil {
		return name(err)
	}
	if err := s.cfg.Store.CreateRun(ctx, run); err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/runs/"+run.ID)
	return writeObject(c, http.StatusCreated, "id", run.ID, "result", json.RawMessage(run.Result))
}

// getRun returns a stored run with its scenario and result.
func (s *Server) getRun(c echo.Context) error {
	run, err := s.storedRun(c)
	if err != nil {
		return err
	}
	var res core.Result
	if json.Unmarshal(run.Result, &res) == nil {
		run.Headline = core.HeadlineOf(&res) // with the figures storage does not keep
	}
	return writeObject(c, http.StatusOK,
		"id", run.ID, "name", run.Name, "created_at", run.CreatedAt.Format(core.TimeFormat),
		"engine_version", run.EngineVersion, "scenario_id", run.ScenarioID,
		"options", runOverrides(run), "rerun_of", run.RerunOf, "dispatch", run.HasDispatch,
		"headline", run.Headline, "scenario", json.RawMessage(run.Scenario), "result", json.RawMessage(run.Result))
}

// getResult returns a stored run's result alone, the exact bytes `tuxlb run`
// prints for the same scenario and options, as a download.
func (s *Server) getResult(c echo.Context) error {
	run, err := s.storedRun(c)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="`+run.ID+`-result.json"`)
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, run.Result)
}

// runOverrides gives the query options a run was made with.
func runOverrides(run *core.StoredRun) map[string]any {
	o := map[string]any{}
	if run.Policy != "" {
		o["policy"] = run.Policy
	}
	if seed, err := core.ParseSeed("seed", run.Seed); err == nil {
		o["seed"] = seed
	}
	return o
}

// writeObject writes a JSON object from key, value pairs in order. A
// json.RawMessage value goes out byte for byte, so that results keep the
// exact bytes the engine encoded.
func writeObject(c echo.Context, status int, pairs ...any) error {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(pairs[i])
		b.Write(key)
		b.WriteByte(':')
		if raw, ok := pairs[i+1].(json.RawMessage); ok {
			b.Write(bytes.TrimRight(raw, " \t\r\n"))
			continue
		}
		val, err := json.Marshal(pairs[i+1])
		if err != nil {
			return err
		}
		b.Write(val)
	}
	b.WriteString("}\n")
	return c.Blob(status, echo.MIMEApplicationJSON, b.Bytes())
}

// storedRun returns the run named by the path's id: 400 for an id that cannot
// be one of ours, 404 for an unknown one.
func (s *Server) storedRun(c echo.Context) (*core.StoredRun, error) {
	id, err := idParam(c)
	if err != nil {
		return nil, err
	}
	return s.cfg.Store.Run(c.Request().Context(), id)
}
