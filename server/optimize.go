package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/records"
	"github.com/tuxlb/tuxlb/core/sweep"
	"github.com/tuxlb/tuxlb/pool"
)

// Optimizations (POST /api/v1/optimize) are sweep jobs of one point
// (sweep.KindOptimize): the store hands the one point to one replica, which
// runs the whole search on its free sweep workers under the sweep lease,
// renewing it (and writing the replications spent so far) while it runs,
// and stores the report as the point, whose save ends the job with the
// report as its result. A replica that stops gives the point back (or its
// lease runs out) and the next replica to claim it runs the search again
// from the start: the search is a pure function of its inputs, so the
// report is the same bytes, only the replications are spent again.

// optimizeRequest is the body of POST /optimize: what `tuxlb optimize`
// takes (sweep.OptimizeSpec's fields), with the scenario.
type optimizeRequest struct {
	Scenario   json.RawMessage `json:"scenario"`
	Vary       []string        `json:"vary"`
	Objectives []string        `json:"objectives"`
	Costs      []string        `json:"costs"`
	// PCS absent is 0.95; given, it must be in (0.5, 1): a 0 given is
	// refused, not read as absent as OptimizeSpec's 0 is.
	PCS *float64 `json:"pcs"`
	// Epsilon is a fraction of each limit: a number (0.05) or a string as
	// the CLI's --epsilon takes it ("5%" or "0.05"); absent: 5%.
	Epsilon         json.RawMessage `json:"epsilon"`
	FirstStage      int             `json:"first_stage"`
	MaxReplications int             `json:"max_replications"`
}

// createOptimize checks an optimization, stores it as a queued job and
// answers 202 {"id", "url"}; the job runs in the background (RunSweeps).
func (s *Server) createOptimize(c echo.Context) error {
	body, err := s.readBody(c)
	if err != nil {
		return err
	}
	if _, err := Canonical(body); err != nil {
		return err
	}
	var req optimizeRequest
	if err := decodeStrict(body, &req, "body"); err != nil {
		return err
	}
	canonical, sc, err := jobScenario(req.Scenario, "optimize")
	if err != nil {
		return err
	}
	if err := optimizeTextLimits(&req); err != nil {
		return err
	}
	switch {
	case len(req.Vary) == 0:
		return diag.FieldErrorf("vary", "want at least one KEY=VALUES, e.g. SERVERS.PAYSRV.MIN=1..6/1")
	case len(req.Objectives) == 0:
		return diag.FieldErrorf("objectives", "want at least one objective FIGURE<=X or FIGURE>=X, e.g. response_p99_ms<=200")
	}
	eps, err := parseEpsilon(req.Epsilon)
	if err != nil {
		return err
	}
	var pcs float64
	if req.PCS != nil {
		if pcs = *req.PCS; !(pcs > 0.5 && pcs < 1) {
			return diag.FieldErrorf("pcs", "want a probability between 0.5 and 1 (e.g. 0.95), got %v; leave it out for 0.95", pcs)
		}
	}
	spec := sweep.OptimizeSpec{Vary: req.Vary, Objectives: req.Objectives, Costs: req.Costs, PCS: pcs,
		Epsilon: eps, FirstStage: req.FirstStage, MaxReplications: req.MaxReplications}
	// Compiling every configuration is as heavy as a run: it takes a run
	// slot, and the grid's estimate must fit the sweep job's shares.
	release, err := s.acquireSlot()
	if err != nil {
		return err
	}
	defer release()
	m, err := loadModel(sc)
	if err != nil {
		return err
	}
	if _, err := sweep.ParseObjectives(m, req.Objectives, func(i int) string { return fmt.Sprintf("objectives[%d]", i) }); err != nil {
		return err
	}
	if err := s.admitSweep(sc, sweep.Spec{Vary: req.Vary}); err != nil {
		return err
	}
	opt, err := sweep.CompileOptimize(sc, spec)
	if err != nil {
		return varyField(err)
	}
	if err := s.sweepLimits(opt.Sweep); err != nil {
		return err
	}
	job := &sweep.Job{ID: newRunID(), Kind: sweep.KindOptimize, ScenarioID: ScenarioID(canonical), Scenario: canonical,
		Optimize: &spec, Total: 1, RunsTotal: opt.Sweep.Units()}
	if err := s.cfg.Store.CreateSweep(c.Request().Context(), job); err != nil {
		return err
	}
	select {
	case s.sweepWake <- struct{}{}:
	default:
	}
	url := "/api/v1/optimize/" + job.ID
	c.Response().Header().Set(echo.HeaderLocation, url)
	return c.JSON(http.StatusAccepted, map[string]string{"id": job.ID, "url": url})
}

// varyField names the field vary in an error of the grid's keys and values,
// which core words "vary KEY: ..." without naming a field.
func varyField(err error) error {
	var e *diag.Error
	if errors.As(err, &e) && e.Code == diag.EINVALID && len(e.Diagnostics) == 0 && strings.HasPrefix(e.Message, "vary ") {
		named := *e
		named.Diagnostics = []diag.Diagnostic{{Field: "vary", Severity: diag.SeverityError, Message: e.Message}}
		return &named
	}
	return err
}

// parseEpsilon reads the epsilon field: absent (0: the default), a number,
// or a string "5%" or "0.05"; a fraction of each limit in (0, 1).
func parseEpsilon(raw json.RawMessage) (float64, error) {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return 0, nil
	}
	bad := diag.FieldErrorf("epsilon", "want a fraction of each limit between 0 and 1, as 0.05 or \"5%%\", got %s", t)
	var text string
	if json.Unmarshal(raw, &text) == nil {
		t = strings.TrimSpace(text)
	}
	scale := 1.0
	if s, ok := strings.CutSuffix(t, "%"); ok {
		t, scale = strings.TrimSpace(s), 0.01
	}
	x, err := strconv.ParseFloat(t, 64)
	if err != nil || !(x*scale > 0 && x*scale < 1) {
		return 0, bad
	}
	return x * scale, nil
}

// optimizeTextLimits refuses an optimization's texts past the bounds a
// sweep's have (GET /optimize/{id} echoes them back), naming them.
func optimizeTextLimits(req *optimizeRequest) error {
	for i, v := range req.Vary {
		if len(v) > maxVaryBytes {
			return diag.FieldErrorf(fmt.Sprintf("vary[%d]", i), "%d bytes, more than the %d a varied key with its values may have", len(v), maxVaryBytes)
		}
	}
	for name, list := range map[string][]string{"objectives": req.Objectives, "costs": req.Costs} {
		if len(list) > maxSweepFigures {
			return diag.FieldErrorf(name, "%d given, more than the %d an optimization may hold", len(list), maxSweepFigures)
		}
		for i, o := range list {
			if len(o) > maxObjectiveBytes {
				return diag.FieldErrorf(fmt.Sprintf("%s[%d]", name, i), "%d bytes, more than the %d one may have", len(o), maxObjectiveBytes)
			}
		}
	}
	return nil
}

// jobOfKind reads job id, ENOTFOUND unless it is of kind (an optimization
// is no sweep, and a sweep no optimization). Not found, it is named by the
// kind asked for (the store's error calls every job a sweep).
func (s *Server) jobOfKind(ctx context.Context, id, kind string) (*sweep.Job, error) {
	job, err := s.cfg.Store.Sweep(ctx, id)
	if diag.ErrorCode(err) == diag.ENOTFOUND || err == nil && jobKind(job) != kind {
		return nil, diag.Errorf(diag.ENOTFOUND, "%s %s: not found", kindWord(kind), id)
	}
	if err != nil {
		return nil, err
	}
	return job, nil
}

// jobKind is a job's kind, a sweep when not set.
func jobKind(job *sweep.Job) string {
	if job.Kind == sweep.KindOptimize {
		return sweep.KindOptimize
	}
	return sweep.KindSweep
}

func kindWord(kind string) string {
	if kind == sweep.KindOptimize {
		return "optimization"
	}
	return "sweep"
}

// getOptimize answers an optimization's status, its progress (the
// replications spent so far, and the most it could spend) and, once done,
// its report: the bytes `tuxlb optimize --format json` prints.
func (s *Server) getOptimize(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	job, err := s.jobOfKind(c.Request().Context(), id, sweep.KindOptimize)
	if err != nil {
		return err
	}
	return writeOptimize(c, http.StatusOK, job)
}

// writeOptimize writes an optimization job as GET shows it.
func writeOptimize(c echo.Context, status int, job *sweep.Job) error {
	spec := sweep.OptimizeSpec{}
	if job.Optimize != nil {
		spec = *job.Optimize
	}
	pairs := []any{"id", job.ID, "status", job.Status, "runs_done", job.RunsDone, "runs_total", job.RunsTotal,
		"scenario_id", job.ScenarioID, "spec", spec,
		"created_at", job.CreatedAt.Format(records.TimeFormat), "updated_at", job.UpdatedAt.Format(records.TimeFormat)}
	if job.Error != "" {
		pairs = append(pairs, "error", job.Error)
	}
	if job.Status == sweep.Done && len(job.Result) > 0 {
		pairs = append(pairs, "result", json.RawMessage(job.Result))
	} else {
		pairs = append(pairs, "result", nil)
	}
	body, err := encodeObject(pairs...)
	if err != nil {
		return err
	}
	if status == http.StatusOK && finished(job.Status) {
		return blobTagged(c, status, echo.MIMEApplicationJSON, body)
	}
	return c.Blob(status, echo.MIMEApplicationJSON, body)
}

// deleteOptimize cancels a queued or running optimization, as DELETE
// /sweeps/{id} does a sweep: 200 with the job; 409 once it has ended.
func (s *Server) deleteOptimize(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if _, err := s.jobOfKind(ctx, id, sweep.KindOptimize); err != nil {
		return err
	}
	job, err := s.cfg.Store.CancelSweep(ctx, id)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if w := s.active[id]; w != nil {
		w.cancel()
	}
	s.mu.Unlock()
	if job.Status == sweep.Done || job.Status == sweep.Failed {
		return problemf(http.StatusConflict, "conflict", "Optimization already ended",
			"optimization %s is %s; only a queued or running optimization can be canceled", id, job.Status)
	}
	return writeOptimize(c, http.StatusOK, job)
}

// progressEvery is how often a replica running an optimization writes the
// replications spent so far (and renews its lease), at most.
const progressEvery = time.Second

// workOptimize runs the optimization job id (registered as w by startWork)
// whole, on workers goroutines, and stores its report.
func (s *Server) workOptimize(ctx context.Context, id string, w *jobWork, workers int) {
	store := context.WithoutCancel(ctx)
	defer s.endWork(id, w)
	runCtx, cancel := context.WithCancel(w.ctx)
	defer cancel()
	var spent atomic.Int64
	beat := make(chan struct{})
	go func() { s.optimizeHeartbeat(runCtx, cancel, id, &spent); close(beat) }()
	res, err := pool.Optimize(runCtx, w.optimizer, pool.SweepOptions{Workers: workers, MaxRequests: s.cfg.MaxRequests,
		MaxRunTime: s.cfg.MaxRunTime, Progress: func(done, _ int) { spent.Store(int64(done)) }})
	cancel()
	<-beat // no progress written after the report
	release := func() {
		if err := s.cfg.Store.ReleaseSweepUnits(store, id, s.owner); err != nil {
			s.log.Error("optimize: release", "optimization", id, "err", err)
		}
	}
	switch {
	case err == nil:
		if err := s.cfg.Store.SweepProgress(store, id, s.owner, res.Replications.Spent); err != nil {
			if diag.ErrorCode(err) != diag.ECONFLICT {
				s.log.Error("optimize: progress", "optimization", id, "err", err)
			}
			release()
			return
		}
		_, err := s.cfg.Store.SaveSweepUnit(store, id, s.owner, 0, sweep.EncodeOptimization(res), s.cfg.SweepLease,
			func(bodies [][]byte) ([]byte, error) { return bodies[0], nil })
		s.forgetCompiled(id)
		if err != nil && diag.ErrorCode(err) != diag.ECONFLICT {
			s.log.Error("optimize: save", "optimization", id, "err", err)
		}
	case ctx.Err() != nil, errors.Is(err, context.Canceled), diag.ErrorCode(err) == diag.ECONFLICT:
		// Shutting down, canceled (DELETE here or on another replica), or
		// the lease lost: the point goes back to the next claim.
		release()
	default:
		s.failSweep(store, id, err.Error())
	}
}

// optimizeHeartbeat renews this server's lease on optimization id and
// writes the replications spent so far, every progressEvery (or a third
// of the lease, when shorter); it cancels the run when the store says the
// job is no longer this server's to run (canceled, failed, its lease lost).
func (s *Server) optimizeHeartbeat(ctx context.Context, cancel context.CancelFunc, id string, spent *atomic.Int64) {
	t := time.NewTicker(max(min(s.cfg.SweepLease/3, progressEvery), time.Millisecond))
	defer t.Stop()
	written := int64(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			err := s.cfg.Store.RenewSweepUnits(ctx, id, s.owner, s.cfg.SweepLease)
			if n := spent.Load(); err == nil && n != written {
				if err = s.cfg.Store.SweepProgress(ctx, id, s.owner, int(n)); err == nil {
					written = n
				}
			}
			if diag.ErrorCode(err) == diag.ECONFLICT || diag.ErrorCode(err) == diag.ENOTFOUND {
				cancel()
				return
			}
		}
	}
}
