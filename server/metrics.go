package server

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/tuxlb/tuxlb/core/result"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/records"
	"github.com/tuxlb/tuxlb/core/sweep"
)

// metrics are what GET /metrics reports, in the Prometheus text format. Each
// Server has a registry of its own, so that tests can build many servers.
type metrics struct {
	reg          *prometheus.Registry
	runs         *prometheus.CounterVec // by outcome
	runDuration  prometheus.Histogram
	requests     prometheus.Counter
	sweeps       *prometheus.CounterVec // finished, by outcome
	pointsQueued prometheus.Counter
	pointsDone   prometheus.Counter
	claims       prometheus.Counter
	dbErrors     *prometheus.CounterVec // by store operation
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tuxlb_runs_total", Help: "Runs executed by POST /runs, reruns, compares and calibrations, by outcome (ok, error, too_long, canceled).",
		}, []string{"outcome"}),
		runDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "tuxlb_run_duration_seconds", Help: "Wall-clock time of the simulation of one run.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10), // 1 ms to about 4.4 min
		}),
		requests: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tuxlb_simulated_requests_total", Help: "Requests issued by the simulations of finished runs.",
		}),
		sweeps: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tuxlb_sweeps_total", Help: "Sweep jobs this server brought to an end, by outcome (done, failed, canceled).",
		}, []string{"outcome"}),
		pointsQueued: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tuxlb_sweep_points_queued_total", Help: "Points of the sweeps posted to this server.",
		}),
		pointsDone: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tuxlb_sweep_points_done_total", Help: "Sweep points this server ran and stored.",
		}),
		claims: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tuxlb_sweep_claims_total", Help: "Claims of sweep points this server made (each of one point or a few).",
		}),
		dbErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tuxlb_database_errors_total", Help: "Store calls that failed for another reason than not found or conflict, by operation.",
		}, []string{"op"}),
	}
	m.reg.MustRegister(m.runs, m.runDuration, m.requests, m.sweeps, m.pointsQueued, m.pointsDone, m.claims, m.dbErrors,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, o := range []string{"ok", "error", "too_long", "canceled"} {
		m.runs.WithLabelValues(o)
	}
	for _, o := range []string{sweep.Done, sweep.Failed, sweep.Canceled} {
		m.sweeps.WithLabelValues(o)
	}
	return m
}

// ranRun records one run's simulation: how long it took and how it ended.
func (m *metrics) ranRun(d time.Duration, res *result.Result, err error, runCtx context.Context) {
	m.runDuration.Observe(d.Seconds())
	switch {
	case err == nil:
		m.runs.WithLabelValues("ok").Inc()
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		m.runs.WithLabelValues("too_long").Inc()
	case runCtx.Err() != nil:
		m.runs.WithLabelValues("canceled").Inc()
	default:
		m.runs.WithLabelValues("error").Inc()
	}
	if res != nil {
		m.requests.Add(float64(res.Requests.Issued))
	}
}

// metricsHandler serves GET /metrics.
func (s *Server) metricsHandler() echo.HandlerFunc {
	h := promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
	return echo.WrapHandler(h)
}

// countingStore counts the store's failures in tuxlb_database_errors_total.
// Not found and conflict are answers, not failures; nor is a caller that
// went away.
type countingStore struct {
	Store
	m *metrics
}

func (c countingStore) count(op string, err error) {
	if err == nil || errors.Is(err, context.Canceled) {
		return
	}
	switch diag.ErrorCode(err) {
	case diag.ENOTFOUND, diag.ECONFLICT:
		return
	}
	c.m.dbErrors.WithLabelValues(op).Inc()
}

func (c countingStore) CreateRun(ctx context.Context, r *records.StoredRun) error {
	err := c.Store.CreateRun(ctx, r)
	c.count("create_run", err)
	return err
}

func (c countingStore) Run(ctx context.Context, id string) (*records.StoredRun, error) {
	r, err := c.Store.Run(ctx, id)
	c.count("run", err)
	return r, err
}

func (c countingStore) Runs(ctx context.Context, limit int, cursor string) ([]records.RunSummary, string, error) {
	l, next, err := c.Store.Runs(ctx, limit, cursor)
	c.count("runs", err)
	return l, next, err
}

func (c countingStore) Dispatch(ctx context.Context, id string) (io.Reader, int64, error) {
	r, n, err := c.Store.Dispatch(ctx, id)
	c.count("dispatch", err)
	return r, n, err
}

func (c countingStore) PutScenario(ctx context.Context, sc *records.SavedScenario) (bool, error) {
	created, err := c.Store.PutScenario(ctx, sc)
	c.count("put_scenario", err)
	return created, err
}

func (c countingStore) Scenario(ctx context.Context, id string) (*records.SavedScenario, error) {
	sc, err := c.Store.Scenario(ctx, id)
	c.count("scenario", err)
	return sc, err
}

func (c countingStore) Ping(ctx context.Context) error {
	err := c.Store.Ping(ctx)
	c.count("ping", err)
	return err
}

func (c countingStore) CreateSweep(ctx context.Context, j *sweep.Job) error {
	err := c.Store.CreateSweep(ctx, j)
	c.count("create_sweep", err)
	if err == nil {
		c.m.pointsQueued.Add(float64(j.Total))
	}
	return err
}

func (c countingStore) Sweep(ctx context.Context, id string) (*sweep.Job, error) {
	j, err := c.Store.Sweep(ctx, id)
	c.count("sweep", err)
	return j, err
}

func (c countingStore) ClaimSweepPoints(ctx context.Context, owner string, maxRuns int, lease time.Duration) (*sweep.Job, []int, error) {
	j, points, err := c.Store.ClaimSweepPoints(ctx, owner, maxRuns, lease)
	c.count("claim_sweep", err)
	if err == nil {
		c.m.claims.Inc()
	}
	return j, points, err
}

func (c countingStore) SaveSweepUnit(ctx context.Context, id, owner string, point int, body []byte, lease time.Duration,
	final func([][]byte) ([]byte, error)) (bool, error) {
	var status string
	counted := func(points [][]byte) ([]byte, error) {
		res, err := final(points)
		status = sweep.Done
		if err != nil {
			status = sweep.Failed
		}
		return res, err
	}
	done, err := c.Store.SaveSweepUnit(ctx, id, owner, point, body, lease, counted)
	c.count("save_sweep_point", err)
	if err == nil {
		c.m.pointsDone.Inc()
		if done && status != "" {
			c.m.sweeps.WithLabelValues(status).Inc()
		}
	}
	return done, err
}

func (c countingStore) RenewSweepUnits(ctx context.Context, id, owner string, lease time.Duration) error {
	err := c.Store.RenewSweepUnits(ctx, id, owner, lease)
	c.count("renew_sweep", err)
	return err
}

func (c countingStore) ReleaseSweepUnits(ctx context.Context, id, owner string) error {
	err := c.Store.ReleaseSweepUnits(ctx, id, owner)
	c.count("release_sweep", err)
	return err
}

func (c countingStore) FailSweep(ctx context.Context, id, msg string) error {
	err := c.Store.FailSweep(ctx, id, msg)
	c.count("finish_sweep", err)
	if err == nil {
		c.m.sweeps.WithLabelValues(sweep.Failed).Inc()
	}
	return err
}

func (c countingStore) CancelSweep(ctx context.Context, id string) (*sweep.Job, error) {
	j, err := c.Store.CancelSweep(ctx, id)
	c.count("cancel_sweep", err)
	if err == nil && j != nil && j.Status == sweep.Canceled {
		c.m.sweeps.WithLabelValues(sweep.Canceled).Inc()
	}
	return j, err
}

func (c countingStore) Idempotent(ctx context.Context, scope, key string) (string, int, string, []byte, error) {
	hash, status, location, body, err := c.Store.Idempotent(ctx, scope, key)
	c.count("idempotent", err)
	return hash, status, location, body, err
}

func (c countingStore) SaveIdempotent(ctx context.Context, scope, key, hash string, status int, location string, body []byte) error {
	err := c.Store.SaveIdempotent(ctx, scope, key, hash, status, location, body)
	c.count("save_idempotent", err)
	return err
}
