package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/sweep"
	"github.com/tuxlb/tuxlb/pool"
)

// Defaults of the sweep limits and lease.
const (
	DefaultMaxSweepRequests = 200_000_000
	DefaultSweepLease       = 30 * time.Second
	sweepPoll               = time.Second // how often an idle worker looks for a job
)

// sweepRequest is the body of POST /sweeps.
type sweepRequest struct {
	Scenario     json.RawMessage `json:"scenario"`
	Vary         []string        `json:"vary"`
	Replications int             `json:"replications"`
	Objective    string          `json:"objective"`
	// Precision, MaxReplications and Figures are sweep.Spec's.
	Precision       float64  `json:"precision"`
	MaxReplications int      `json:"max_replications"`
	Figures         []string `json:"figures"`
}

// createSweep checks a sweep, stores it as a queued job and answers 202
// {"id", "url"}; the job runs in the background (RunSweeps).
func (s *Server) createSweep(c echo.Context) error {
	body, err := s.readBody(c)
	if err != nil {
		return err
	}
	if _, err := Canonical(body); err != nil {
		return err
	}
	var req sweepRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return core.FieldErrorf("sweep", "%s (want {\"scenario\", \"vary\", \"replications\", \"objective\", \"precision\", \"max_replications\", \"figures\"})", strings.TrimPrefix(err.Error(), "json: "))
	}
	if err := core.CheckJSONText(body, &req, "body"); err != nil {
		return err
	}
	if len(bytes.TrimSpace(req.Scenario)) == 0 || string(bytes.TrimSpace(req.Scenario)) == "null" {
		return core.FieldErrorf("scenario", "missing (the scenario document to sweep)")
	}
	canonical, err := Canonical(req.Scenario)
	if err != nil {
		return err
	}
	sc, err := core.ParseScenario(req.Scenario)
	if err != nil {
		return err
	}
	if err := sweepTextLimits(&req); err != nil {
		return err
	}
	spec := sweep.Spec{Vary: req.Vary, Replications: req.Replications, Objective: req.Objective,
		Precision: req.Precision, MaxReplications: req.MaxReplications, Figures: req.Figures}
	// Compiling every point is as heavy as a run: it takes a run slot, and
	// the sweep's estimate (its points compiled, its runs at once) must fit
	// the shares of the memory budget its job will use.
	release, err := s.acquireSlot()
	if err != nil {
		return err
	}
	defer release()
	if err := s.admitSweep(sc, spec); err != nil {
		return err
	}
	sw, err := sweep.Compile(sc, spec)
	if err != nil {
		return err
	}
	if err := s.sweepLimits(sw); err != nil {
		return err
	}
	job := &sweep.Job{ID: newRunID(), ScenarioID: ScenarioID(canonical), Scenario: canonical, Spec: spec,
		Total: sw.Points(), RunsTotal: sw.Units()}
	if err := s.cfg.Store.CreateSweep(c.Request().Context(), job); err != nil {
		return err
	}
	select {
	case s.sweepWake <- struct{}{}:
	default:
	}
	url := "/api/v1/sweeps/" + job.ID
	c.Response().Header().Set(echo.HeaderLocation, url)
	return c.JSON(http.StatusAccepted, map[string]string{"id": job.ID, "url": url})
}

// Bounds of the texts of a sweep, which GET /sweeps/{id} echoes back: a
// varied key with its values (1000 points of short values fit), and an
// objective.
const (
	maxVaryBytes      = 64 << 10
	maxObjectiveBytes = 1 << 10
)

// sweepTextLimits refuses a sweep's texts past their bounds, naming them.
func sweepTextLimits(req *sweepRequest) error {
	for i, v := range req.Vary {
		if len(v) > maxVaryBytes {
			return core.FieldErrorf(fmt.Sprintf("vary[%d]", i), "%d bytes, more than the %d a varied key with its values may have", len(v), maxVaryBytes)
		}
	}
	if len(req.Figures) > maxSweepFigures {
		return core.FieldErrorf("figures", "%d figures, more than the %d a sweep may add", len(req.Figures), maxSweepFigures)
	}
	for i, f := range req.Figures {
		if len(f) > maxObjectiveBytes {
			return core.FieldErrorf(fmt.Sprintf("figures[%d]", i), "%d bytes, more than the %d a figure's name may have", len(f), maxObjectiveBytes)
		}
	}
	if len(req.Objective) > maxObjectiveBytes {
		return core.FieldErrorf("objective", "%d bytes, more than the %d an objective may have", len(req.Objective), maxObjectiveBytes)
	}
	return nil
}

// maxSweepFigures bounds the figures a sweep adds to the fixed ones.
const maxSweepFigures = 20

// sweepLimits checks a compiled sweep against the server's limits: points
// (422), requests of one run and of the whole sweep (413).
func (s *Server) sweepLimits(sw *sweep.Sweep) error {
	if n := sw.Points(); n > s.cfg.MaxSweepPoints {
		p := problemf(http.StatusUnprocessableEntity, "too-many-points", "Too many sweep points",
			"the sweep has %d points, more than the %d this server allows (flag --max-sweep-points, env TUXLB_MAX_SWEEP_POINTS)",
			n, s.cfg.MaxSweepPoints)
		p.Errors = []ProblemItem{{Field: "vary", Message: fmt.Sprintf("%d points over the limit of %d", n, s.cfg.MaxSweepPoints)}}
		p.Limit = s.cfg.MaxSweepPoints
		return p
	}
	if n := sw.MaxRunRequests(); n > float64(s.cfg.MaxRequests) {
		p := problemf(http.StatusRequestEntityTooLarge, "too-large", "Workload too large",
			"a point's workload has about %.0f requests, more than the %d per run this server allows (flag --max-requests, env TUXLB_MAX_REQUESTS)",
			n, s.cfg.MaxRequests)
		p.Limit = s.cfg.MaxRequests
		return p
	}
	if n := sw.Requests(); n > float64(s.cfg.MaxSweepRequests) {
		p := problemf(http.StatusRequestEntityTooLarge, "too-large", "Sweep too large",
			"points x replications x requests is about %.0f requests (%d points, %d replications), more than the %d this server allows per sweep (flag --max-sweep-requests, env TUXLB_MAX_SWEEP_REQUESTS)",
			n, sw.Points(), sw.Reps, s.cfg.MaxSweepRequests)
		p.Limit = s.cfg.MaxSweepRequests
		return p
	}
	return nil
}

// getSweep answers a job's status, its progress and its result: the final
// bytes once done, else the points finished so far.
func (s *Server) getSweep(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	job, err := s.cfg.Store.Sweep(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return s.writeSweep(c, http.StatusOK, job)
}

// writeSweep writes a job as GET shows it.
func (s *Server) writeSweep(c echo.Context, status int, job *sweep.Job) error {
	result := job.Result
	if job.Status != sweep.Done || len(result) == 0 {
		result = partialSweep(job)
	}
	pairs := []any{"id", job.ID, "status", job.Status, "done", len(job.Points), "total", job.Total,
		"runs_done", job.RunsDone, "runs_total", job.RunsTotal, "scenario_id", job.ScenarioID, "spec", job.Spec,
		"created_at", job.CreatedAt.Format(core.TimeFormat), "updated_at", job.UpdatedAt.Format(core.TimeFormat)}
	if job.Error != "" {
		pairs = append(pairs, "error", job.Error)
	}
	if len(result) > 0 {
		pairs = append(pairs, "result", json.RawMessage(result))
	} else {
		pairs = append(pairs, "result", nil)
	}
	body, err := encodeObject(pairs...)
	if err != nil {
		return err
	}
	if status == http.StatusOK && finished(job.Status) {
		return blobTagged(c, status, echo.MIMEApplicationJSON, body) // a finished sweep never changes
	}
	return c.Blob(status, echo.MIMEApplicationJSON, body)
}

// finished says whether a sweep job's status is final.
func finished(status string) bool {
	return status == sweep.Done || status == sweep.Failed || status == sweep.Canceled
}

// partialSweep is the result of a job's points so far (nil if the job cannot
// be compiled any more, which an engine upgrade could cause).
func partialSweep(job *sweep.Job) []byte {
	sw, points, err := compileJob(job)
	if err != nil {
		return nil
	}
	r := sw.NewReducer()
	for _, p := range points {
		if err := r.Restore(p); err != nil {
			return nil
		}
	}
	return sweep.Encode(r.Result())
}

// compileJob compiles a stored job and decodes its stored points.
func compileJob(job *sweep.Job) (*sweep.Sweep, []*sweep.Point, error) {
	sc, err := core.ParseScenario(job.Scenario)
	if err != nil {
		return nil, nil, err
	}
	sw, err := sweep.Compile(sc, job.Spec)
	if err != nil {
		return nil, nil, err
	}
	var points []*sweep.Point
	for _, b := range job.Points {
		var p sweep.Point
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, nil, fmt.Errorf("sweep %s: stored point: %w", job.ID, err)
		}
		points = append(points, &p)
	}
	return sw, points, nil
}

// deleteSweep cancels a queued or running job: 200 with the job. A job that
// has already ended (done or failed) is a 409; canceling twice is fine.
func (s *Server) deleteSweep(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	job, err := s.cfg.Store.CancelSweep(c.Request().Context(), id)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if cancel := s.active[id]; cancel != nil {
		cancel()
	}
	s.mu.Unlock()
	if job.Status == sweep.Done || job.Status == sweep.Failed {
		return problemf(http.StatusConflict, "conflict", "Sweep already ended",
			"sweep %s is %s; only a queued or running sweep can be canceled", id, job.Status)
	}
	return s.writeSweep(c, http.StatusOK, job)
}

// RunSweeps works sweep jobs until ctx ends: it claims the oldest job that is
// queued (or whose server stopped: its lease ran out), runs its remaining
// points on the worker pool, stores each point as it completes and the
// result at the end. One job at a time per server; several servers on one
// database share the jobs. When ctx ends mid-job the job's lease is given up,
// so that the next server to look (this one restarted, or another) resumes it.
func (s *Server) RunSweeps(ctx context.Context) {
	for ctx.Err() == nil {
		job, err := s.cfg.Store.ClaimSweep(ctx, s.owner, s.cfg.SweepLease)
		if err != nil {
			if core.ErrorCode(err) != core.ENOTFOUND && ctx.Err() == nil {
				s.log.Error("sweeps: claim", "err", err)
			}
			select {
			case <-ctx.Done():
			case <-s.sweepWake:
			case <-time.After(sweepPoll):
			}
			continue
		}
		s.workSweep(ctx, job)
	}
}

// workSweep runs one claimed job to its end (or until it is canceled, or ctx ends).
func (s *Server) workSweep(ctx context.Context, job *sweep.Job) {
	id := job.ID
	// The store calls below use a context of their own, so that a job's end
	// is still written while the server shuts down.
	store := context.WithoutCancel(ctx)
	sw, points, err := compileJob(job)
	if err != nil {
		s.finishSweep(store, id, sweep.Failed, nil, job.RunsDone, err.Error())
		return
	}
	jobCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	s.active[id] = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.active, id)
		s.mu.Unlock()
	}()
	go s.heartbeat(jobCtx, cancel, id)
	res, err := pool.Sweep(jobCtx, sw, pool.SweepOptions{Workers: s.cfg.SweepWorkers, MaxRequests: s.cfg.MaxRequests,
		MaxRunTime: s.cfg.MaxRunTime, Restored: points,
		OnPoint: func(p *sweep.Point, done int) error {
			body, err := json.Marshal(p)
			if err != nil {
				return err
			}
			return s.cfg.Store.SaveSweepPoint(store, id, s.owner, p.Index, body, done, s.cfg.SweepLease)
		}})
	switch {
	case err == nil:
		s.finishSweep(store, id, sweep.Done, sweep.Encode(res), sw.Units(), "")
	case ctx.Err() != nil:
		if err := s.cfg.Store.ReleaseSweep(store, id, s.owner); err != nil {
			s.log.Error("sweeps: release", "sweep", id, "err", err)
		}
	case errors.Is(err, context.Canceled) || core.ErrorCode(err) == core.ECONFLICT:
		// Canceled (DELETE here or on another server), or the lease ran out
		// (this server stalled; another may have taken over): nothing to
		// write, the store refuses this server's writes to the job now.
	default:
		s.finishSweep(store, id, sweep.Failed, nil, 0, err.Error())
	}
}

// heartbeat renews the job's lease a few times per lease period, and cancels
// the job when the store says it is no longer this server's (canceled).
func (s *Server) heartbeat(ctx context.Context, cancel context.CancelFunc, id string) {
	t := time.NewTicker(max(s.cfg.SweepLease/3, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			err := s.cfg.Store.RenewSweep(ctx, id, s.owner, s.cfg.SweepLease)
			if core.ErrorCode(err) == core.ECONFLICT || core.ErrorCode(err) == core.ENOTFOUND {
				cancel()
				return
			}
		}
	}
}

func (s *Server) finishSweep(ctx context.Context, id, status string, result []byte, runs int, msg string) {
	err := s.cfg.Store.FinishSweep(ctx, id, s.owner, status, result, runs, msg)
	if err != nil && core.ErrorCode(err) != core.ECONFLICT {
		s.log.Error("sweeps: finish", "sweep", id, "status", status, "err", err)
	}
}
