package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tuxlb/tuxlb/core/admission"
	"github.com/tuxlb/tuxlb/core/sweep"
	"github.com/tuxlb/tuxlb/frontend"
	"github.com/tuxlb/tuxlb/server"
	"github.com/tuxlb/tuxlb/storage"
)

func init() {
	commands["serve"] = command{summary: "serve the REST API and the playground", run: serve}
}

// serveOptions are the settings of `tuxlb serve`: each has a flag and an
// environment variable; the flag wins.
type serveOptions struct {
	addr, db, logFormat, cors string
	allowedHosts              string
	maxBody, maxRequests      int64
	maxModelEntries           int64
	maxStored, maxMemory      int64
	maxRunTime                time.Duration
	maxRuns, maxConns         int
	timeouts                  connTimeouts
	maxSweepPoints            int
	maxSweepRequests          int64
	sweepWorkers              int
	sweepLease                time.Duration
	replicaID                 string
	pprof                     string // --pprof: where net/http/pprof listens; empty: nowhere
}

// serveFlags declares the flags, their defaults taken from the environment.
func serveFlags(stderr io.Writer) (*flag.FlagSet, *serveOptions, error) {
	o := &serveOptions{}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	maxBody, err := envSize("TUXLB_MAX_BODY", server.DefaultMaxBodyBytes)
	if err != nil {
		return nil, nil, err
	}
	maxRequests, err := envInt("TUXLB_MAX_REQUESTS", server.DefaultMaxRequests)
	if err != nil {
		return nil, nil, err
	}
	maxRuns, err := envInt("TUXLB_MAX_RUNS", int64(server.DefaultMaxRuns()))
	if err != nil {
		return nil, nil, err
	}
	maxRunTime, err := envDuration("TUXLB_MAX_RUN_TIME", server.DefaultMaxRunTime)
	if err != nil {
		return nil, nil, err
	}
	maxSweepPoints, err := envInt("TUXLB_MAX_SWEEP_POINTS", sweep.MaxPoints)
	if err != nil {
		return nil, nil, err
	}
	maxSweepRequests, err := envInt("TUXLB_MAX_SWEEP_REQUESTS", server.DefaultMaxSweepRequests)
	if err != nil {
		return nil, nil, err
	}
	sweepWorkers, err := envInt("TUXLB_SWEEP_WORKERS", int64(runtime.NumCPU()))
	if err != nil {
		return nil, nil, err
	}
	sweepLease, err := envDuration("TUXLB_SWEEP_LEASE", server.DefaultSweepLease)
	if err != nil {
		return nil, nil, err
	}
	maxConns, err := envInt("TUXLB_MAX_CONNS", defaultMaxConns)
	if err != nil {
		return nil, nil, err
	}
	maxModelEntries, err := envInt("TUXLB_MAX_MODEL_ENTRIES", server.DefaultMaxModelEntries)
	if err != nil {
		return nil, nil, err
	}
	maxStored, err := envSize("TUXLB_MAX_STORED", server.DefaultMaxStoredBytes)
	if err != nil {
		return nil, nil, err
	}
	o.maxStored = maxStored
	maxMemory, err := envSize("TUXLB_MAX_MEMORY", server.DefaultMemoryBudget) // the budget's older name
	if err != nil {
		return nil, nil, err
	}
	if maxMemory, err = envSize("TUXLB_MEMORY_BUDGET", maxMemory); err != nil {
		return nil, nil, err
	}
	o.maxMemory = maxMemory
	o.timeouts = defaultTimeouts
	o.maxBody = maxBody
	fs.StringVar(&o.addr, "addr", envString("TUXLB_ADDR", "127.0.0.1:8080"), "`HOST:PORT` to listen on (port 0: any free port) [TUXLB_ADDR]")
	fs.StringVar(&o.db, "db", envString("TUXLB_DB", "tuxlb.db"), "where runs are kept, `FILE|URL`: a SQLite file (created if missing), or a postgres:// or postgresql:// URL that several replicas share [TUXLB_DB]")
	fs.Func("max-body", fmt.Sprintf("largest request body, bytes or with K/M/G suffix (default %d) [TUXLB_MAX_BODY]", maxBody),
		func(v string) (err error) { o.maxBody, err = parseSize(v); return err })
	fs.Int64Var(&o.maxRequests, "max-requests", maxRequests, "most requests one run may issue [TUXLB_MAX_REQUESTS]")
	fs.DurationVar(&o.maxRunTime, "max-run-time", maxRunTime, "longest a run may take before it is stopped [TUXLB_MAX_RUN_TIME]")
	fs.IntVar(&o.maxRuns, "max-runs", int(maxRuns), "runs executing at once; more get 503 [TUXLB_MAX_RUNS]")
	fs.Int64Var(&o.maxModelEntries, "max-model-entries", maxModelEntries, "most (instance, service) pairs POST /validate lists [TUXLB_MAX_MODEL_ENTRIES]")
	fs.Func("max-stored", fmt.Sprintf("most bytes one run stores (scenario, result, compressed dispatch log), with K/M/G suffix (default %d) [TUXLB_MAX_STORED]", maxStored),
		func(v string) (err error) { o.maxStored, err = parseSize(v); return err })
	setBudget := func(v string) (err error) { o.maxMemory, err = parseSize(v); return err }
	fs.Func("memory-budget", fmt.Sprintf("memory the runs, validations and sweep job may hold at once, in equal shares of --max-runs runs, --sweep-workers sweep runs and a sweep's points; K/M/G suffix (default %s) [TUXLB_MEMORY_BUDGET]", admission.SizeText(maxMemory)),
		setBudget)
	fs.Func("max-memory", "the older name of --memory-budget [TUXLB_MAX_MEMORY]", setBudget)
	fs.IntVar(&o.maxConns, "max-conns", int(maxConns), "connections open at once; more wait to be accepted [TUXLB_MAX_CONNS]")
	fs.StringVar(&o.allowedHosts, "allowed-hosts", envString("TUXLB_ALLOWED_HOSTS", ""), "comma-separated host names the Host header may carry besides IP addresses and localhost [TUXLB_ALLOWED_HOSTS]")
	fs.IntVar(&o.maxSweepPoints, "max-sweep-points", int(maxSweepPoints), "most points (grid size) of one sweep [TUXLB_MAX_SWEEP_POINTS]")
	fs.Int64Var(&o.maxSweepRequests, "max-sweep-requests", maxSweepRequests, "most requests of one sweep, over all its points and replications [TUXLB_MAX_SWEEP_REQUESTS]")
	fs.IntVar(&o.sweepWorkers, "sweep-workers", int(sweepWorkers), "runs of a sweep job at once [TUXLB_SWEEP_WORKERS]")
	fs.DurationVar(&o.sweepLease, "sweep-lease", sweepLease, "how long the sweep points a replica claimed stay its own without a sign of life; the points of a replica that died go to another once it runs out [TUXLB_SWEEP_LEASE]")
	fs.StringVar(&o.replicaID, "replica-id", envString("TUXLB_REPLICA_ID", defaultReplicaID()), "this replica's name among those sharing the database: the owner of the sweep points it claims, and its key in a sweep's \"workers\" [TUXLB_REPLICA_ID]")
	fs.StringVar(&o.cors, "cors-origins", envString("TUXLB_CORS_ORIGINS", ""), "comma-separated origins allowed cross-origin calls; empty: CORS off [TUXLB_CORS_ORIGINS]")
	fs.StringVar(&o.pprof, "pprof", envString("TUXLB_PPROF", ""), "serve Go's profiles (net/http/pprof, /debug/pprof/) on this loopback `HOST:PORT`, a listener of their own; empty: off [TUXLB_PPROF]")
	fs.StringVar(&o.logFormat, "log-format", envString("TUXLB_LOG_FORMAT", "text"), "log format: text or json [TUXLB_LOG_FORMAT]")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: tuxlb serve [flags]   (each flag's environment variable in brackets)")
		fs.PrintDefaults()
	}
	return fs, o, nil
}

// serve runs `tuxlb serve` until SIGINT or SIGTERM, then finishes the
// requests in flight and exits.
func serve(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs, o, err := serveFlags(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb serve: %v\n", err)
		return 2
	}
	if err := parseFlags(fs, args); err != nil {
		return 2
	}
	if err := o.check(fs.Args()); err != nil {
		fmt.Fprintf(stderr, "tuxlb serve: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := listenAndServe(ctx, o, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "tuxlb serve: %v\n", err)
		return 1
	}
	return 0
}

// listenAndServe opens the database (SQLite, or PostgreSQL for a postgres://
// URL), listens, prints the URL and serves until ctx ends.
func listenAndServe(ctx context.Context, o *serveOptions, stdout, stderr io.Writer) error {
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	if o.logFormat == "json" {
		logger = slog.New(slog.NewJSONHandler(stderr, nil))
	}
	// The collector works harder as the heap nears the budget, so that the
	// process's memory follows what the admitted requests hold (their
	// estimates fit the budget) rather than twice that.
	debug.SetMemoryLimit(o.maxMemory)
	db, err := storage.Connect(ctx, o.db)
	if err != nil {
		return err
	}
	defer db.Close()
	cfg := server.Config{Store: db, Logger: logger, MaxBodyBytes: o.maxBody, MaxRequests: o.maxRequests,
		MaxRunTime: o.maxRunTime, MaxRuns: o.maxRuns, CORSOrigins: splitList(o.cors),
		MaxModelEntries: o.maxModelEntries, MaxStoredBytes: o.maxStored, MemoryBudget: o.maxMemory,
		AllowedHosts:   append(splitList(o.allowedHosts), addrHostName(o.addr)...),
		MaxSweepPoints: o.maxSweepPoints, MaxSweepRequests: o.maxSweepRequests, SweepWorkers: o.sweepWorkers,
		SweepLease: o.sweepLease, BodyTimeout: o.timeouts.body, ReplicaID: o.replicaID}
	if frontend.Built() {
		cfg.Assets = frontend.FS()
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	if o.pprof != "" {
		prof, where, err := startPprof(o.pprof, logger)
		if err != nil {
			ln.Close()
			return err
		}
		defer prof.Close()
		logger.Info("pprof", "url", "http://"+where.String()+"/debug/pprof/")
	}
	lim := limitListener(server.ProblemListener(ln), o.maxConns)
	api := server.New(cfg)
	sweepCtx, stopSweeps := context.WithCancel(context.Background())
	sweepsDone := make(chan struct{})
	go func() { api.RunSweeps(sweepCtx); close(sweepsDone) }()
	defer func() { stopSweeps(); <-sweepsDone }()
	srv := newHTTPServer(o, api, logger)
	srv.ConnState = lim.ConnState
	fmt.Fprintf(stdout, "tuxlb: listening on http://%s\n", ln.Addr())
	logger.Info("serving", "addr", ln.Addr().String(), "db", storage.RedactURL(o.db), "playground", cfg.Assets != nil)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(lim) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down: finishing requests in flight")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), o.maxRunTime+10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("stopped")
	return nil
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// envString returns the environment variable name, or def when unset.
func envString(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

// envInt reads an integer environment variable.
func envInt(name string, def int64) (int64, error) {
	v, ok := os.LookupEnv(name)
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: not an integer", name, v)
	}
	return n, nil
}

// envDuration reads a duration environment variable such as "90s".
func envDuration(name string, def time.Duration) (time.Duration, error) {
	v, ok := os.LookupEnv(name)
	if !ok {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: not a duration like 90s", name, v)
	}
	return d, nil
}

// envSize reads a size environment variable such as "10M".
func envSize(name string, def int64) (int64, error) {
	v, ok := os.LookupEnv(name)
	if !ok {
		return def, nil
	}
	n, err := parseSize(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}

// parseSize reads a byte count with an optional K, M or G suffix (powers of 1024).
func parseSize(v string) (int64, error) {
	s := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(v)), "IB"), "B")
	mult := int64(1)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'K':
			mult, s = 1<<10, s[:n-1]
		case 'M':
			mult, s = 1<<20, s[:n-1]
		case 'G':
			mult, s = 1<<30, s[:n-1]
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("size %q: want a positive number of bytes, optionally with K, M or G", v)
	}
	return n * mult, nil
}

// defaultReplicaID is the host name and the process id, e.g. "web1-4242":
// unique among replicas on different hosts, and on one host at a time.
func defaultReplicaID() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "tuxlb"
	}
	return fmt.Sprintf("%s-%d", host, os.Getpid())
}
