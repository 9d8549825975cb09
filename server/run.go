package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/admission"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/records"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/pool"
)

// retryAfterSeconds is what a 503 for too many runs at once asks callers to wait.
const retryAfterSeconds = 2

// encodeResult gives the bytes of a result exactly as `tuxlb run` prints them.
var encodeResult = result.Encode

// newRunID returns a fresh random run id (128 bits, base64url).
func newRunID() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// execution is one run about to happen: its scenario and options.
type execution struct {
	scenario *scenario.Scenario
	stored   *records.SavedScenario
	opt      core.RunOptions
	keep     bool      // keep the dispatch log
	compact  bool      // the response shows the result compact (?indent=false), or not at all
	start    time.Time // when the request arrived: the run time limit counts from here
}

// execute runs x within the limits and returns the run ready to store (its
// result compact) and the result as `tuxlb run` prints it, which the
// response shows. Over the limit of runs at once it is a 503 problem with
// Retry-After.
func (s *Server) execute(ctx context.Context, x execution) (*records.StoredRun, []byte, error) {
	// The scenario is checked and its configuration read once, here, before
	// the run waits for a slot: a bad scenario is a 422 on a busy server too, not a 503.
	pr, err := core.Prepare(x.scenario, x.opt)
	if err != nil {
		return nil, nil, err
	}
	release, err := s.acquireSlot()
	if err != nil {
		return nil, nil, err
	}
	defer release()
	if x.start.IsZero() {
		x.start = time.Now()
	}
	inFlight, err := s.admitRun(x.scenario, pr.Model(), x.keep, x.opt.AllSeries)
	if err != nil {
		return nil, nil, err
	}
	// The limit covers reading and parsing the body (before), setup, the
	// run and encoding (here) and storing (storeRun).
	runCtx, cancel := context.WithDeadline(ctx, x.start.Add(s.cfg.MaxRunTime))
	defer cancel()
	runCtx, stop := context.WithCancel(runCtx)
	defer stop()
	opt := x.opt
	opt.Context, opt.MaxRequests, opt.MaxInFlight = runCtx, s.cfg.MaxRequests, inFlight
	// The compressed dispatch log stops the run as soon as it passes the
	// stored-size limit, rather than growing in memory to the end.
	log := &cappedBuffer{limit: s.dispatchReserve(), stop: stop}
	var gz *gzip.Writer
	if x.keep {
		gz, _ = gzip.NewWriterLevel(log, gzip.BestSpeed)
		opt.Dispatch = gz
	}
	began := time.Now()
	res, err := s.cfg.Run(pr, opt)
	s.metrics.ranRun(time.Since(began), res, err, runCtx)
	if log.over {
		return nil, nil, s.dispatchTooLarge()
	}
	if err != nil {
		return nil, nil, s.runError(ctx, runCtx, err, inFlight)
	}
	var stored, shown []byte
	if x.compact {
		stored = result.EncodeCompact(res)
		shown = stored
	} else {
		shown = encodeResult(res)
		stored = compactJSON(shown)
	}
	run := &records.StoredRun{
		ID: newRunID(), ScenarioID: x.stored.ID, Scenario: x.stored.Body, Name: x.scenario.Name,
		EngineVersion: core.EngineVersion, Policy: opt.Policy, Result: stored,
		Headline: result.HeadlineOf(res), HasDispatch: x.keep,
	}
	if opt.Seed != nil {
		run.Seed = strconv.FormatUint(*opt.Seed, 10)
	}
	if runCtx.Err() != nil { // the deadline passed while encoding
		return nil, nil, s.runError(ctx, runCtx, runCtx.Err(), inFlight)
	}
	if x.keep {
		if err := gz.Close(); err != nil {
			if log.over {
				return nil, nil, s.dispatchTooLarge()
			}
			return nil, nil, err
		}
		run.DispatchGzip = log.Bytes()
	}
	if n := int64(len(run.Scenario) + len(run.Result) + len(run.DispatchGzip)); n > s.cfg.MaxStoredBytes {
		return nil, nil, s.storedTooLarge(strconv.FormatInt(n, 10) + " bytes (scenario, result and dispatch log)")
	}
	return run, shown, nil
}

// runPrepared compiles a prepared scenario and runs the plan (with its
// replications): what a run of the API does once its scenario has been
// checked and admitted.
func runPrepared(pr *core.Prepared, opt core.RunOptions) (*result.Result, error) {
	p, err := pr.Compile(opt)
	if err != nil {
		return nil, err
	}
	return p.Run(opt)
}

// cappedBuffer is a bytes.Buffer that refuses to grow past limit: the write
// that would pass it fails, and stop is called.
type cappedBuffer struct {
	bytes.Buffer
	limit int64
	over  bool
	stop  func()
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if int64(b.Len()+len(p)) > b.limit {
		if !b.over {
			b.over = true
			b.stop()
		}
		return 0, errors.New("over the stored-size limit")
	}
	return b.Buffer.Write(p)
}

// storedTooLarge is the 413 problem for a run whose stored form (what says
// which part) passes --max-stored.
func (s *Server) storedTooLarge(what string) *Problem {
	p := problemf(http.StatusRequestEntityTooLarge, "stored-too-large", "Run too large to store",
		"this server stores at most %d bytes per run (flag --max-stored, env TUXLB_MAX_STORED) and the run would store %s; "+
			"run it without ?dispatch=true, shorten it, or run it with the CLI", s.cfg.MaxStoredBytes, what)
	p.Limit = s.cfg.MaxStoredBytes
	return p
}

// dispatchTooLarge is the 413 problem of a run whose compressed dispatch
// log passed what the run may hold of it (dispatchReserve).
func (s *Server) dispatchTooLarge() *Problem {
	r := s.dispatchReserve()
	if r >= s.cfg.MaxStoredBytes {
		return s.storedTooLarge("a compressed dispatch log larger than that")
	}
	p := problemf(http.StatusRequestEntityTooLarge, "stored-too-large", "Run too large to store",
		"a run's compressed dispatch log may hold at most %d bytes on this server (half a run's share of the memory budget: "+
			"--memory-budget %d shared by --max-runs %d runs, --sweep-workers %d and a sweep's points; --max-stored %d), and this run's passed it; "+
			"run it without ?dispatch=true, shorten it, raise the budget or lower --max-runs, or run it with the CLI",
		r, s.cfg.MemoryBudget, s.cfg.MaxRuns, pool.Workers(s.cfg.SweepWorkers), s.cfg.MaxStoredBytes)
	p.Limit = r
	return p
}

// tooLong is the 422 problem for work that passed --max-run-time.
func (s *Server) tooLong(what string) *Problem {
	p := problemf(http.StatusUnprocessableEntity, "run-too-long", "Run too long",
		"the %s did not finish within %s, the most this server allows (flag --max-run-time, env TUXLB_MAX_RUN_TIME); "+
			"shorten the workload or run it with the CLI", what, s.cfg.MaxRunTime)
	p.Limit = s.cfg.MaxRunTime.String()
	return p
}

// storeRun stores run if the run time limit, counted from start, has not
// passed; storing itself is bounded by what is left of it.
func (s *Server) storeRun(ctx context.Context, start time.Time, run *records.StoredRun) error {
	storeCtx, cancel := context.WithDeadline(ctx, start.Add(s.cfg.MaxRunTime))
	defer cancel()
	if err := storeCtx.Err(); err != nil {
		return s.runError(ctx, storeCtx, err, 0)
	}
	if err := s.cfg.Store.CreateRun(storeCtx, run); err != nil {
		if storeCtx.Err() != nil {
			return s.runError(ctx, storeCtx, err, 0)
		}
		return err
	}
	return nil
}

// acquireSlot takes one of the --max-runs slots that runs and compares
// share, or returns the 503 problem with Retry-After when all are taken.
func (s *Server) acquireSlot() (release func(), err error) {
	select {
	case s.runs <- struct{}{}:
		return func() { <-s.runs }, nil
	default:
		p := problemf(http.StatusServiceUnavailable, "busy", "Too many runs at once",
			"%d runs or compares are executing, the most this server allows (flag --max-runs, env TUXLB_MAX_RUNS); retry later", s.cfg.MaxRuns)
		p.retryAfter = retryAfterSeconds
		return nil, p
	}
}

// runError explains why a run failed: over the run time limit (422: the same
// scenario would fail again), over the request limit or its share of the
// memory budget (413: inFlight is the requests it might hold), or as core
// says.
func (s *Server) runError(ctx, runCtx context.Context, err error, inFlight int64) error {
	if ctx.Err() == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) {
		return s.tooLong("run")
	}
	var ce *diag.Error
	if errors.As(err, &ce) && ce.Code == diag.ETOOLARGE && ce.Limit == diag.LimitInFlight {
		p := fromCoreError(ce)
		p.Type, p.Title = ProblemTypeBase+"backlog-too-large", "Backlog too large"
		p.Detail += fmt.Sprintf(" (this run could hold %d requests at once, at about %d bytes each: what its share of the memory budget "+
			"leaves (flag --memory-budget, env TUXLB_MEMORY_BUDGET, %s, shared by --max-runs %d runs, --sweep-workers %d runs of a sweep "+
			"and a sweep's compiled points))",
			inFlight, core.BytesPerInFlight, admission.SizeText(s.cfg.MemoryBudget), s.cfg.MaxRuns, pool.Workers(s.cfg.SweepWorkers))
		p.Limit = inFlight
		return p
	}
	if errors.As(err, &ce) && ce.Code == diag.ETOOLARGE {
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
		seed, err := plan.ParseSeed("seed", v)
		if err != nil {
			return opt, false, badQuery("seed", v, plan.SeedWant)
		}
		opt.Seed = &seed
	}
	all, err := seriesParam(c)
	if err != nil {
		return opt, false, err
	}
	opt.AllSeries = all
	keep, err := dispatchParam(c)
	return opt, keep, err
}

// seriesParam reads ?series=all|summary: every line of the result's time
// series, or (the default) the busiest past 64 of a kind.
func seriesParam(c echo.Context) (bool, error) {
	switch v := c.QueryParam("series"); v {
	case "", "summary":
		return false, nil
	case "all":
		return true, nil
	default:
		return false, badQuery("series", v, "all or summary")
	}
}

// indentParam reads ?indent=true|false: the result in the response
// indented as `tuxlb run` prints it (true, the default), or compact
// (json.Marshal's bytes, about a third of them, as the server stores it).
func indentParam(c echo.Context) (bool, error) {
	v := c.QueryParam("indent")
	if v == "" {
		return true, nil
	}
	indent, err := strconv.ParseBool(v)
	if err != nil {
		return false, badQuery("indent", v, "true or false")
	}
	return indent, nil
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
	start := time.Now()
	opt, keep, err := runOptions(c)
	if err != nil {
		return err
	}
	var sc *scenario.Scenario
	var stored *records.SavedScenario
	name := func(err error) error { return err }
	if form, boundary := isMultipart(c); form {
		sc, stored, name, err = s.readRunForm(c, boundary)
	} else {
		sc, stored, err = s.readScenario(c)
	}
	if err != nil {
		return err
	}
	indent, err := indentParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	run, shown, err := s.execute(ctx, execution{scenario: sc, stored: stored, opt: opt, keep: keep, start: start, compact: !indent})
	if err != nil {
		return name(err)
	}
	if err := s.storeRun(ctx, start, run); err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/runs/"+run.ID)
	return writeObject(c, http.StatusCreated, "id", run.ID, "result", json.RawMessage(shown))
}

// getRun returns a stored run with its scenario and result.
func (s *Server) getRun(c echo.Context) error {
	all, err := seriesParam(c)
	if err != nil {
		return err
	}
	run, err := s.storedRun(c)
	if err != nil {
		return err
	}
	run.Headline.Derive() // network_share, for a run stored before the headline was kept whole
	if all {
		var cut struct {
			Series struct {
				Summarised *result.SeriesSummary `json:"summarised"`
			} `json:"series"`
		}
		if json.Unmarshal(run.Result, &cut) == nil && cut.Series.Summarised != nil {
			return problemf(http.StatusConflict, "series-summarised", "Series summarised",
				"run %s was stored with its time series summarised (more than %d lines of a kind); POST /api/v1/runs/%s/rerun?series=all to keep every line",
				run.ID, cut.Series.Summarised.Limit, run.ID)
		}
	}
	body, err := encodeObject(
		"id", run.ID, "name", run.Name, "created_at", run.CreatedAt.Format(records.TimeFormat),
		"engine_version", run.EngineVersion, "scenario_id", run.ScenarioID,
		"options", runOverrides(run), "rerun_of", run.RerunOf, "dispatch", run.HasDispatch,
		"headline", run.Headline, "scenario", json.RawMessage(run.Scenario), "result", json.RawMessage(indentJSON(run.Result)))
	if err != nil {
		return err
	}
	return blobTagged(c, http.StatusOK, echo.MIMEApplicationJSON, body) // a run never changes
}

// getResult returns a stored run's result alone, the exact bytes `tuxlb run`
// prints for the same scenario and options, as a download.
func (s *Server) getResult(c echo.Context) error {
	run, err := s.storedRun(c)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="`+run.ID+`-result.json"`)
	return blobTagged(c, http.StatusOK, echo.MIMEApplicationJSON, indentJSON(run.Result))
}

// runOverrides gives the query options a run was made with.
func runOverrides(run *records.StoredRun) map[string]any {
	o := map[string]any{}
	if run.Policy != "" {
		o["policy"] = run.Policy
	}
	if seed, err := plan.ParseSeed("seed", run.Seed); err == nil {
		o["seed"] = seed
	}
	return o
}

// writeObject writes a JSON object from key, value pairs in order. A
// json.RawMessage value goes out byte for byte, so that results keep the
// exact bytes the engine encoded.
func writeObject(c echo.Context, status int, pairs ...any) error {
	body, err := encodeObject(pairs...)
	if err != nil {
		return err
	}
	return c.Blob(status, echo.MIMEApplicationJSON, body)
}

// encodeObject is writeObject's body.
func encodeObject(pairs ...any) ([]byte, error) {
	var b bytes.Buffer
	size := 64 * len(pairs)
	for _, v := range pairs {
		if raw, ok := v.(json.RawMessage); ok {
			size += len(raw) // a result: grown once rather than doubled up to it
		}
	}
	b.Grow(size)
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
			return nil, err
		}
		b.Write(val)
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

// storedRun returns the run named by the path's id: 400 for an id that cannot
// be one of ours, 404 for an unknown one.
func (s *Server) storedRun(c echo.Context) (*records.StoredRun, error) {
	id, err := idParam(c)
	if err != nil {
		return nil, err
	}
	return s.cfg.Store.Run(c.Request().Context(), id)
}
