package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/records"
	"github.com/tuxlb/tuxlb/core/scenario"
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
	// Objective is one objective (the field of old), Objectives more:
	// all are held at once (sweep.Spec's).
	Objective  string   `json:"objective"`
	Objectives []string `json:"objectives"`
	// Precision, MaxReplications and Figures are sweep.Spec's.
	Precision       *float64 `json:"precision"` // absent: none; 0 is invalid, as a negative one is
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
	if err := decodeStrict(body, &req, "body"); err != nil {
		return err
	}
	canonical, sc, err := jobScenario(req.Scenario, "sweep")
	if err != nil {
		return err
	}
	if err := sweepTextLimits(&req); err != nil {
		return err
	}
	spec := sweep.Spec{Vary: req.Vary, Replications: req.Replications, Objective: req.Objective, Objectives: req.Objectives,
		MaxReplications: req.MaxReplications, Figures: req.Figures}
	if p := req.Precision; p != nil {
		if *p == 0 {
			return diag.FieldErrorf("precision", "want a number > 0 (e.g. 0.05 for a half-width of 5%% of the mean), got 0; leave it out for a fixed number of replications")
		}
		spec.Precision = *p
	}
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
		return varyField(err)
	}
	if err := s.sweepLimits(sw); err != nil {
		return err
	}
	job := &sweep.Job{ID: newRunID(), ScenarioID: ScenarioID(canonical), Scenario: canonical, Spec: spec,
		Total: sw.Points(), RunsTotal: sw.Units(), Order: sw.PointOrder()}
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
			return diag.FieldErrorf(fmt.Sprintf("vary[%d]", i), "%d bytes, more than the %d a varied key with its values may have", len(v), maxVaryBytes)
		}
	}
	if len(req.Figures) > maxSweepFigures {
		return diag.FieldErrorf("figures", "%d figures, more than the %d a sweep may add", len(req.Figures), maxSweepFigures)
	}
	for i, f := range req.Figures {
		if len(f) > maxObjectiveBytes {
			return diag.FieldErrorf(fmt.Sprintf("figures[%d]", i), "%d bytes, more than the %d a figure's name may have", len(f), maxObjectiveBytes)
		}
	}
	if len(req.Objective) > maxObjectiveBytes {
		return diag.FieldErrorf("objective", "%d bytes, more than the %d an objective may have", len(req.Objective), maxObjectiveBytes)
	}
	if len(req.Objectives) > maxSweepFigures {
		return diag.FieldErrorf("objectives", "%d objectives, more than the %d a sweep may hold", len(req.Objectives), maxSweepFigures)
	}
	for i, o := range req.Objectives {
		if len(o) > maxObjectiveBytes {
			return diag.FieldErrorf(fmt.Sprintf("objectives[%d]", i), "%d bytes, more than the %d an objective may have", len(o), maxObjectiveBytes)
		}
	}
	return nil
}

// maxSweepFigures bounds the figures a sweep adds to the fixed ones, and
// its objectives.
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
	if n := sw.RequestsAtMost(float64(s.cfg.MaxRequests)); n > float64(s.cfg.MaxSweepRequests) {
		clients := ""
		if n != sw.Requests() { // a client's pace is its answers': counted roughly, as many as a run may issue at most
			clients = fmt.Sprintf("; client sets counted as each client's one request per mean think time plus 10 ms, at most the %d a run may issue", s.cfg.MaxRequests)
		}
		p := problemf(http.StatusRequestEntityTooLarge, "too-large", "Sweep too large",
			"points x replications x requests is about %.0f requests (%d points, %d replications%s), more than the %d this server allows per sweep (flag --max-sweep-requests, env TUXLB_MAX_SWEEP_REQUESTS)",
			n, sw.Points(), sw.Reps, clients, s.cfg.MaxSweepRequests)
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
	job, err := s.jobOfKind(c.Request().Context(), id, sweep.KindSweep)
	if err != nil {
		return err
	}
	return s.writeSweep(c, http.StatusOK, job)
}

// writeSweep writes a job as GET shows it.
func (s *Server) writeSweep(c echo.Context, status int, job *sweep.Job) error {
	result := job.Result
	if job.Status != sweep.Done || len(result) == 0 {
		result = s.partialSweep(job)
	}
	pairs := []any{"id", job.ID, "status", job.Status, "done", len(job.Points), "total", job.Total,
		"runs_done", job.RunsDone, "runs_total", job.RunsTotal, "scenario_id", job.ScenarioID, "spec", job.Spec,
		"created_at", job.CreatedAt.Format(records.TimeFormat), "updated_at", job.UpdatedAt.Format(records.TimeFormat)}
	workers := job.Workers
	if workers == nil {
		workers = map[string]int{}
	}
	pairs = append(pairs, "workers", workers)
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
// be compiled any more, which an engine upgrade could cause). A job this
// replica works is compiled already (compiledJob's cache): a GET polled
// while it runs then restores the points without compiling every point of
// the grid again.
func (s *Server) partialSweep(job *sweep.Job) []byte {
	points, err := decodePoints(job)
	if err != nil {
		return nil
	}
	sw := s.cachedSweep(job.ID)
	if sw == nil {
		if sw, err = compileSweep(job); err != nil {
			return nil
		}
	}
	r := sw.NewReducer()
	for _, p := range points {
		if err := r.Restore(p); err != nil {
			return nil
		}
	}
	return sweep.Encode(r.Result())
}

// cachedSweep is job id's compiled sweep when this server keeps it, else nil.
func (s *Server) cachedSweep(id string) *sweep.Sweep {
	s.compileMu.Lock()
	defer s.compileMu.Unlock()
	for _, c := range s.compiled {
		if c.id == id {
			return c.sweep
		}
	}
	return nil
}

// compileSweep compiles a stored job's sweep.
func compileSweep(job *sweep.Job) (*sweep.Sweep, error) {
	sc, err := core.ParseScenario(job.Scenario)
	if err != nil {
		return nil, err
	}
	return sweep.Compile(sc, job.Spec)
}

// compileJob compiles a stored job and decodes its stored points.
func compileJob(job *sweep.Job) (*sweep.Sweep, []*sweep.Point, error) {
	sw, err := compileSweep(job)
	if err != nil {
		return nil, nil, err
	}
	points, err := decodePoints(job)
	if err != nil {
		return nil, nil, err
	}
	return sw, points, nil
}

// decodePoints decodes a job's stored points.
func decodePoints(job *sweep.Job) ([]*sweep.Point, error) {
	var points []*sweep.Point
	for _, b := range job.Points {
		var p sweep.Point
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, fmt.Errorf("sweep %s: stored point: %w", job.ID, err)
		}
		points = append(points, &p)
	}
	return points, nil
}

// deleteSweep cancels a queued or running job: 200 with the job. A job that
// has already ended (done or failed) is a 409; canceling twice is fine.
func (s *Server) deleteSweep(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	if _, err := s.jobOfKind(c.Request().Context(), id, sweep.KindSweep); err != nil {
		return err
	}
	job, err := s.cfg.Store.CancelSweep(c.Request().Context(), id)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if w := s.active[id]; w != nil {
		w.cancel()
	}
	s.mu.Unlock()
	if job.Status == sweep.Done || job.Status == sweep.Failed {
		return problemf(http.StatusConflict, "conflict", "Sweep already ended",
			"sweep %s is %s; only a queued or running sweep can be canceled", id, job.Status)
	}
	return s.writeSweep(c, http.StatusOK, job)
}

// RunSweeps works sweep points until ctx ends. Whenever some of its
// --sweep-workers are free it claims points of the oldest unfinished job
// for them (queued or running, posted to any replica: a job is shared by
// every replica with free workers), runs their replications, stores each
// point as it completes, and goes on; the replica storing a job's last point
// writes its result. When ctx ends, the points it holds are released, so
// that the next replica to look (this one restarted, or another) takes them.
func (s *Server) RunSweeps(ctx context.Context) {
	if s.notifier != nil {
		go s.forwardSweepWork(ctx, s.notifier.SweepWork(ctx))
	}
	workers := pool.Workers(s.cfg.SweepWorkers)
	free := make(chan struct{}, workers) // one token per free worker
	for range workers {
		free <- struct{}{}
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	var failing claimErrors
	for ctx.Err() == nil {
		select { // at least one free worker
		case <-ctx.Done():
			return
		case <-free:
		}
		n := 1
		for n < workers && len(free) > 0 {
			<-free
			n++
		}
		job, points, err := s.cfg.Store.ClaimSweepPoints(ctx, s.owner, n, s.cfg.SweepLease)
		if err != nil {
			for range n {
				free <- struct{}{}
			}
			if diag.ErrorCode(err) == diag.ENOTFOUND {
				failing.worked(s.log)
			} else if ctx.Err() == nil {
				failing.failed(s.log, err, time.Now())
			}
			select {
			case <-ctx.Done():
			case <-s.sweepWake:
			case <-time.After(sweepPoll):
			}
			continue
		}
		failing.worked(s.log)
		if s.workingOther(job.ID) {
			// One job at a time per replica: its compiled points are the one
			// share of the memory budget a sweep job has. Give the points
			// back and wait for this replica's batches of the other job.
			if err := s.cfg.Store.ReleaseSweepUnits(ctx, job.ID, s.owner); err != nil && ctx.Err() == nil {
				s.log.Error("sweeps: release", "sweep", job.ID, "err", err)
			}
			for range n {
				free <- struct{}{}
			}
			select {
			case <-ctx.Done():
			case <-s.batchDone:
			case <-time.After(sweepPoll):
			}
			continue
		}
		w, err := s.startWork(ctx, job) // registered before the next claim looks
		if err != nil {
			s.failSweep(context.WithoutCancel(ctx), job.ID, err.Error())
			for range n {
				free <- struct{}{}
			}
			continue
		}
		if job.Kind == sweep.KindOptimize {
			// An optimization's one point is its whole search, on every
			// worker that was free.
			wg.Add(1)
			go func(w *jobWork, n int) {
				defer wg.Done()
				s.workOptimize(ctx, job.ID, w, n)
				for range n {
					free <- struct{}{}
				}
				select {
				case s.batchDone <- struct{}{}:
				default:
				}
			}(w, n)
			continue
		}
		// Each claimed point runs as a batch of its own, on its share of
		// the free workers, and gives them back when it is stored: a worker
		// whose point ended claims again at once instead of idling until
		// the other points of the claim end.
		batches := pointBatches(points, n, max(1, job.RunsTotal/max(job.Total, 1)))
		used := 0
		for i, b := range batches {
			if i > 0 {
				if w, err = s.startWork(ctx, job); err != nil { // cached: the job was compiled above
					break
				}
			}
			used += b.workers
			wg.Add(1)
			go func(w *jobWork, b pointBatch) {
				defer wg.Done()
				s.workPoints(ctx, job.ID, w, b.points, b.workers)
				for range b.workers {
					free <- struct{}{}
				}
				select {
				case s.batchDone <- struct{}{}:
				default:
				}
			}(w, b)
		}
		for range n - used { // the claim holds fewer runs than workers were free
			free <- struct{}{}
		}
	}
}

// claimErrors keeps a database that does not answer from filling the log
// with a failed claim a second: the first is logged, then one a minute
// with the count so far, and the first claim that works again.
type claimErrors struct {
	failing  int       // claims failed since the last that worked
	loggedAt time.Time // when the last failure was logged
}

func (c *claimErrors) failed(log *slog.Logger, err error, now time.Time) {
	c.failing++
	if c.failing == 1 || now.Sub(c.loggedAt) >= time.Minute {
		log.Error("sweeps: claim", "err", err, "failed_in_a_row", c.failing)
		c.loggedAt = now
	}
}

func (c *claimErrors) worked(log *slog.Logger) {
	if c.failing > 0 {
		log.Info("sweeps: claims work again", "failed_in_a_row", c.failing)
	}
	c.failing = 0
}

// pointBatch is claimed points run together on workers goroutines.
type pointBatch struct {
	points  []int
	workers int
}

// pointBatches shares n free workers among the claimed points, reps runs
// each: a batch per point with min(reps, the workers left) workers (a claim
// takes n / reps points, so each gets its reps, or all n for one point of
// more runs than n); points past the workers, which a claim does not take,
// join the last batch.
func pointBatches(points []int, n, reps int) []pointBatch {
	var out []pointBatch
	left := n
	for _, p := range points {
		if left == 0 && len(out) > 0 {
			out[len(out)-1].points = append(out[len(out)-1].points, p)
			continue
		}
		use := max(1, min(reps, left))
		left -= use
		out = append(out, pointBatch{[]int{p}, use})
	}
	return out
}

// forwardSweepWork wakes RunSweeps's idle loop at each of the store's
// notifications until ctx ends. A store that is a storage.SweepNotifier
// (storage.Postgres) tells every replica when points become free to claim:
// a sweep posted to any replica, points released by one shutting down.
// Without it (SQLite, one replica) the POST wakes this server's loop, and
// the loop polls every sweepPoll.
func (s *Server) forwardSweepWork(ctx context.Context, work <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-work:
			select {
			case s.sweepWake <- struct{}{}:
			default:
			}
		}
	}
}

// jobWork is a job this server works points of: the context its batches
// run under (canceled by DELETE) and how many batches run.
type jobWork struct {
	ctx       context.Context
	cancel    context.CancelFunc
	batches   int
	sweep     *sweep.Sweep     // compiled once per job while this server works it
	optimizer *sweep.Optimizer // an optimization's, compiled with it
}

// startWork registers a batch of job id and returns the job's work record.
func (s *Server) startWork(ctx context.Context, job *sweep.Job) (*jobWork, error) {
	cj, err := s.compiledJob(job)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.active[job.ID]
	if w == nil {
		w = &jobWork{sweep: cj.sweep, optimizer: cj.optimizer}
		w.ctx, w.cancel = context.WithCancel(ctx)
		s.active[job.ID] = w
	}
	w.batches++
	return w, nil
}

// compiledJobs is how many compiled sweeps a server keeps: a job's points
// are claimed a few at a time, and compiling every point of the grid again
// for each claim would cost more than running them. One: a replica works
// one job at a time, and its compiled points are what the memory budget's
// sweep share counts.
const compiledJobs = 1

// compiledJob returns the job's sweep (an optimization's with its
// optimizer) compiled, from the server's small cache of the last jobs it
// worked.
func (s *Server) compiledJob(job *sweep.Job) (compiledSweep, error) {
	s.compileMu.Lock()
	defer s.compileMu.Unlock()
	for i, c := range s.compiled {
		if c.id == job.ID {
			s.compiled = append(append([]compiledSweep{c}, s.compiled[:i]...), s.compiled[i+1:]...)
			return c, nil
		}
	}
	c := compiledSweep{id: job.ID}
	if job.Kind == sweep.KindOptimize {
		opt, err := compileOptimizer(job)
		if err != nil {
			return c, err
		}
		c.sweep, c.optimizer = opt.Sweep, opt
	} else {
		sw, _, err := compileJob(job)
		if err != nil {
			return c, err
		}
		c.sweep = sw
	}
	s.compiled = append([]compiledSweep{c}, s.compiled[:min(len(s.compiled), compiledJobs-1)]...)
	return c, nil
}

// compileOptimizer compiles a stored optimization.
func compileOptimizer(job *sweep.Job) (*sweep.Optimizer, error) {
	if job.Optimize == nil {
		return nil, fmt.Errorf("optimization %s: no spec stored", job.ID)
	}
	sc, err := core.ParseScenario(job.Scenario)
	if err != nil {
		return nil, err
	}
	return sweep.CompileOptimize(sc, *job.Optimize)
}

// forgetCompiled drops job id's compiled sweep (the job is done).
func (s *Server) forgetCompiled(id string) {
	s.compileMu.Lock()
	defer s.compileMu.Unlock()
	s.compiled = slices.DeleteFunc(s.compiled, func(c compiledSweep) bool { return c.id == id })
}

// compiledSweep is one entry of the server's compiled sweeps.
type compiledSweep struct {
	id        string
	sweep     *sweep.Sweep
	optimizer *sweep.Optimizer // an optimization's (then sweep is its grid)
}

// workingOther says whether this replica runs points of a job other than id.
func (s *Server) workingOther(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for other := range s.active {
		if other != id {
			return true
		}
	}
	return false
}

// endWork unregisters a batch of job id.
func (s *Server) endWork(id string, w *jobWork) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.batches--; w.batches == 0 {
		w.cancel()
		delete(s.active, id)
	}
}

// workPoints runs the claimed points of job id (registered as w by
// startWork) on workers goroutines and stores each (the last one with the
// job's result).
func (s *Server) workPoints(ctx context.Context, id string, w *jobWork, points []int, workers int) {
	// The store calls below use a context of their own, so that a point's
	// end is still written while the server shuts down.
	store := context.WithoutCancel(ctx)
	defer s.endWork(id, w)
	sw := w.sweep
	batchCtx, cancel := context.WithCancel(w.ctx)
	defer cancel()
	go s.heartbeat(batchCtx, cancel, id)
	final := func(bodies [][]byte) ([]byte, error) { return finalSweep(sw, bodies) }
	err := pool.SweepPoints(batchCtx, sw, points, pool.SweepOptions{Workers: workers, MaxRequests: s.cfg.MaxRequests,
		MaxRunTime: s.cfg.MaxRunTime,
		OnPoint: func(p *sweep.Point, _ int) error {
			body, err := json.Marshal(p)
			if err != nil {
				return err
			}
			done, err := s.cfg.Store.SaveSweepUnit(store, id, s.owner, p.Index, body, s.cfg.SweepLease, final)
			if done {
				s.forgetCompiled(id)
			}
			return err
		}})
	switch {
	case err == nil:
	case ctx.Err() != nil:
		if err := s.cfg.Store.ReleaseSweepUnits(store, id, s.owner); err != nil {
			s.log.Error("sweeps: release", "sweep", id, "err", err)
		}
	case diag.ErrorCode(err) == diag.EUNAVAILABLE:
		// A point's store failed because the database went away (a
		// restart, a failover, a dropped connection): the job is not at
		// fault. Its points go back to the next claim (at once if the
		// database answers again by now, else when their lease runs out),
		// which computes them again. Runs never fail with this code: only
		// the store does.
		s.log.Warn("sweeps: database unavailable; the points go back to the next claim", "sweep", id, "err", err)
		if err := s.cfg.Store.ReleaseSweepUnits(store, id, s.owner); err != nil {
			s.log.Error("sweeps: release", "sweep", id, "err", err)
		}
	case errors.Is(err, context.Canceled) || diag.ErrorCode(err) == diag.ECONFLICT:
		// Canceled (DELETE here or on another replica), or a lease ran out
		// (this server stalled; another may have taken the point over):
		// nothing to write, the store refuses this server's late points.
		if err := s.cfg.Store.ReleaseSweepUnits(store, id, s.owner); err != nil {
			s.log.Error("sweeps: release", "sweep", id, "err", err)
		}
	default:
		s.failSweep(store, id, err.Error())
	}
}

// finalSweep is a job's result from all its stored points: the bytes the
// CLI prints for the same sweep.
func finalSweep(sw *sweep.Sweep, bodies [][]byte) ([]byte, error) {
	r := sw.NewReducer()
	for _, b := range bodies {
		var p sweep.Point
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, fmt.Errorf("stored point: %w", err)
		}
		if err := r.Restore(&p); err != nil {
			return nil, err
		}
	}
	return sweep.Encode(r.Result()), nil
}

// heartbeat renews this server's leases on the job's points a few times per
// lease period, and cancels the batch when the store says the job is no
// longer running (canceled, failed, done).
func (s *Server) heartbeat(ctx context.Context, cancel context.CancelFunc, id string) {
	t := time.NewTicker(max(s.cfg.SweepLease/3, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			err := s.cfg.Store.RenewSweepUnits(ctx, id, s.owner, s.cfg.SweepLease)
			if diag.ErrorCode(err) == diag.ECONFLICT || diag.ErrorCode(err) == diag.ENOTFOUND {
				cancel()
				return
			}
		}
	}
}

func (s *Server) failSweep(ctx context.Context, id, msg string) {
	if err := s.cfg.Store.FailSweep(ctx, id, msg); err != nil {
		s.log.Error("sweeps: fail", "sweep", id, "err", err)
	}
}

// jobScenario reads the scenario of a sweep or optimization job's body
// (what: the verb): its canonical text, kept with the job, and the
// scenario parsed and checked.
func jobScenario(raw json.RawMessage, what string) ([]byte, *scenario.Scenario, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil, diag.FieldErrorf("scenario", "missing (the scenario document to %s)", what)
	}
	if t := bytes.TrimSpace(raw); t[0] != '{' { // the document itself of the wrong type: name the field that holds it
		return nil, nil, diag.FieldErrorf("scenario", "want an object (the scenario document to %s), got %s", what, jsonKind(t[0]))
	}
	canonical, err := Canonical(raw)
	if err != nil {
		return nil, nil, err
	}
	sc, err := core.ParseScenario(raw)
	if err != nil {
		return nil, nil, err
	}
	return canonical, sc, nil
}

// jsonKind words the kind of the JSON value that starts with byte c.
func jsonKind(c byte) string {
	switch {
	case c == '"':
		return "a string"
	case c == '[':
		return "an array"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	}
	return "a number"
}
