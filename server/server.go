// Package server is tuxlb's REST API (docs/api.md) and the web server of the
// playground, on github.com/labstack/echo/v4. It runs scenarios with core,
// keeps them through a Store (package storage in production), answers every
// caller mistake with an RFC 9457 problem document, and bounds what one
// caller can ask for: body size, requests per run, run time and runs at once.
package server

import (
	"io/fs"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/tuxlb/tuxlb/core/result"

	"github.com/labstack/echo/v4"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/sweep"
	"github.com/tuxlb/tuxlb/storage"
)

// Store is what the API needs from the database: the concepts of the
// storage contract (package storage documents each method), all but the
// schema and closing, which the program that opened the database keeps.
// Both implementations in package storage (SQLite and PostgreSQL) satisfy
// it; a store that also tells replicas of free sweep points
// (storage.SweepNotifier) wakes the sweep loop at once.
type Store interface {
	storage.RunStore
	storage.ScenarioStore
	storage.SweepStore
	storage.IdempotencyStore
	storage.HealthStore
}

// Defaults of the limits; the serve command exposes each as a flag.
const (
	DefaultMaxBodyBytes = 10 << 20
	DefaultMaxRequests  = 5_000_000
	DefaultMaxRunTime   = 60 * time.Second
	// DefaultMaxModelEntries bounds the (instance, service) pairs POST
	// /validate lists.
	DefaultMaxModelEntries = 1_000_000
	// DefaultMaxStoredBytes bounds what one run stores: scenario, result and
	// compressed dispatch log.
	DefaultMaxStoredBytes = 64 << 20
	// DefaultMemoryBudget is the memory budget of what the server's runs,
	// validations and sweep job hold at once (see admission.go).
	DefaultMemoryBudget = 2 << 30
	// DefaultBodyStallTimeout and DefaultBodyTimeout bound reading a body:
	// no byte for 10 s, or 60 s in all.
	DefaultBodyStallTimeout = 10 * time.Second
	DefaultBodyTimeout      = 60 * time.Second
)

// DefaultMaxRuns is how many runs may execute at once: two per core.
func DefaultMaxRuns() int { return 2 * runtime.NumCPU() }

// Config is everything the server is built from. Zero limits take the defaults.
type Config struct {
	Store  Store
	Logger *slog.Logger // nil: slog.Default()
	// Assets is the built playground (frontend.FS()); nil when it has not been
	// built, and then "/" says how to build it.
	Assets       fs.FS
	MaxBodyBytes int64         // largest request body accepted
	MaxRequests  int64         // largest workload one run may issue
	MaxRunTime   time.Duration // a run still going after this is stopped
	MaxRuns      int           // runs executing at once; more get 503
	// MaxModelEntries bounds the (instance, service) pairs POST /validate lists.
	MaxModelEntries int64
	// MaxStoredBytes bounds what one run stores (scenario, result, dispatch log).
	MaxStoredBytes int64
	// MemoryBudget is the memory that runs, validations and the sweep job
	// may hold at once, in equal shares (admission.go).
	MemoryBudget int64
	CORSOrigins  []string // origins allowed cross-origin calls; none: CORS off
	// AllowedHosts are host names, besides IP addresses and localhost, that
	// the Host header may carry; others get 421 (DNS rebinding).
	AllowedHosts []string
	// Sweeps: points of one sweep (default sweep.MaxPoints), expected
	// requests of one sweep over all its runs, runs of a sweep at once (default
	// the number of CPUs), and the lease a server holds on the job it works.
	MaxSweepPoints   int
	MaxSweepRequests int64
	SweepWorkers     int
	SweepLease       time.Duration
	// ReplicaID names this server among the replicas sharing the database:
	// the owner of the sweep points it claims, and its key in a sweep's
	// "workers". Empty: a random one.
	ReplicaID string
	// BodyStallTimeout cuts a request whose body stops arriving: no byte
	// for this long (default DefaultBodyStallTimeout). BodyTimeout is what
	// the HTTP server allows for reading a whole request (its ReadTimeout,
	// default DefaultBodyTimeout), which the stall deadline never passes.
	BodyStallTimeout, BodyTimeout time.Duration
	// Run compiles a prepared scenario and runs it; nil compiles it and
	// runs the plan with its replications. Tests replace it to hold a run
	// open or to make it panic.
	Run func(pr *core.Prepared, opt core.RunOptions) (*result.Result, error)
}

// Server is the HTTP handler of the API and the playground.
type Server struct {
	cfg          Config
	log          *slog.Logger
	echo         *echo.Echo
	runs         chan struct{} // one token per run executing
	allowedHosts []string      // Config.AllowedHosts, lower case, no trailing dot

	owner     string                // this server's name (replica id) as the owner of sweep points
	sweepWake chan struct{}         // a new sweep job was posted
	notifier  storage.SweepNotifier // the store's notifications of free points (nil: none)
	batchDone chan struct{}         // a batch of sweep points ended here
	mu        sync.Mutex
	active    map[string]*jobWork // sweep jobs this server is working points of
	compileMu sync.Mutex          // one compilation at a time; guards compiled
	compiled  []compiledSweep     // the last jobs worked, compiled, most recent first
	methods   map[string][]string // API route pattern -> the methods it takes
	metrics   *metrics            // GET /metrics
	assetTags sync.Map            // playground file name -> *asset (assets.go)
	keys      keyLocks            // Idempotency-Keys being answered here
}

// New builds the server from cfg.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxRequests <= 0 {
		cfg.MaxRequests = DefaultMaxRequests
	}
	if cfg.MaxRunTime <= 0 {
		cfg.MaxRunTime = DefaultMaxRunTime
	}
	if cfg.MaxRuns <= 0 {
		cfg.MaxRuns = DefaultMaxRuns()
	}
	if cfg.MaxModelEntries <= 0 {
		cfg.MaxModelEntries = DefaultMaxModelEntries
	}
	if cfg.MaxStoredBytes <= 0 {
		cfg.MaxStoredBytes = DefaultMaxStoredBytes
	}
	if cfg.MemoryBudget <= 0 {
		cfg.MemoryBudget = DefaultMemoryBudget
	}
	if cfg.Run == nil {
		cfg.Run = runPrepared
	}
	if cfg.MaxSweepPoints <= 0 {
		cfg.MaxSweepPoints = sweep.MaxPoints
	}
	if cfg.MaxSweepRequests <= 0 {
		cfg.MaxSweepRequests = DefaultMaxSweepRequests
	}
	if cfg.BodyStallTimeout <= 0 {
		cfg.BodyStallTimeout = DefaultBodyStallTimeout
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	if cfg.SweepLease <= 0 {
		cfg.SweepLease = DefaultSweepLease
	}
	m := newMetrics()
	notifier, _ := cfg.Store.(storage.SweepNotifier)
	if cfg.Store != nil {
		cfg.Store = countingStore{Store: cfg.Store, m: m}
	}
	s := &Server{cfg: cfg, metrics: m, log: cfg.Logger, runs: make(chan struct{}, cfg.MaxRuns),
		owner: cfg.ReplicaID, notifier: notifier, sweepWake: make(chan struct{}, 1), batchDone: make(chan struct{}, 1), active: map[string]*jobWork{}}
	if s.owner == "" {
		s.owner = newRunID()
	}
	for _, h := range cfg.AllowedHosts {
		s.allowedHosts = append(s.allowedHosts, strings.ToLower(strings.TrimSuffix(h, ".")))
	}
	s.echo = s.routes()
	s.methods = apiMethods(s.echo)
	return s
}

// ServeHTTP serves one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.echo.ServeHTTP(w, r)
}

// routes builds the echo router: middleware first, then every route. The
// OpenAPI document lists the same routes, and a test keeps the two equal.
func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	e.Use(s.requestID, s.logRequests, s.recoverPanics, s.securityHeaders, s.checkHost)
	if len(s.cfg.CORSOrigins) > 0 {
		e.Use(s.cors())
	}
	e.Use(s.checkOrigin)
	e.Use(s.methodNotAllowed, s.limitBody, s.checkQuery, s.checkBody)

	// Every GET resource answers HEAD too (headers only).
	get := func(path string, h echo.HandlerFunc) {
		e.GET(path, h)
		e.HEAD(path, h)
	}
	get("/healthz", s.healthz)
	get("/livez", s.livez)
	get("/readyz", s.healthz)
	get("/metrics", s.metricsHandler())
	get("/api/openapi.json", s.openAPI)
	e.POST("/api/v1/runs", s.idempotent(s.createRun))
	get("/api/v1/runs", s.listRuns)
	get("/api/v1/runs/:id", s.getRun)
	get("/api/v1/runs/:id/result.json", s.getResult)
	get("/api/v1/runs/:id/dispatch.csv", s.getDispatch)
	get("/api/v1/runs/:id/explain", s.explainRun)
	e.POST("/api/v1/runs/:id/rerun", s.rerun)
	e.POST("/api/v1/scenarios", s.idempotent(s.createScenario))
	get("/api/v1/scenarios/:id", s.getScenario)
	get("/api/v1/compare", s.compare)
	e.POST("/api/v1/sweeps", s.idempotent(s.createSweep))
	get("/api/v1/sweeps/:id", s.getSweep)
	e.DELETE("/api/v1/sweeps/:id", s.deleteSweep)
	e.POST("/api/v1/optimize", s.idempotent(s.createOptimize))
	get("/api/v1/optimize/:id", s.getOptimize)
	e.DELETE("/api/v1/optimize/:id", s.deleteOptimize)
	e.POST("/api/v1/validate", s.validate)
	e.POST("/api/v1/fit", s.fit)
	e.POST("/api/v1/calibrate", s.calibrate)
	get("/s/:id", s.sharedScenario)
	get("/*", s.static)
	return e
}

// Routes lists the routes as "METHOD PATH" with OpenAPI-style parameters
// ({id}), for the test that keeps the OpenAPI document true. HEAD, which
// every GET route answers, is left out.
func (s *Server) Routes() []string {
	var list []string
	for _, r := range s.echo.Routes() {
		if r.Method != http.MethodHead {
			list = append(list, r.Method+" "+openAPIPath(r.Path))
		}
	}
	return list
}

// livez answers 200 while the process serves requests, whatever the database
// does: a liveness probe that restarts nothing during a database outage.
func (s *Server) livez(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok", "engine_version": core.EngineVersion})
}

// healthz (and /readyz, the readiness probe) answers 200 when the database
// answers, 503 otherwise: unavailable, or storage-full while its disk has
// no room for a write.
func (s *Server) healthz(c echo.Context) error {
	if err := s.cfg.Store.Ping(c.Request().Context()); err != nil {
		s.log.Error("healthz: database", "err", err, "request_id", requestIDOf(c))
		code := diag.EUNAVAILABLE
		if diag.ErrorCode(err) == diag.EFULL {
			code = diag.EFULL // not ready until a write fits again
		}
		p := fromCoreError(&diag.Error{Code: code})
		if pd := publicDetail(err); pd != "" {
			p.Detail = pd
		}
		return p
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ok", "engine_version": core.EngineVersion})
}
