package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// runContext is the context of one CLI run: done on Ctrl-C (or SIGTERM),
// and after limit when limit > 0. The engine checks it every few thousand
// requests and events, so the run then stops with a "canceled" error.
func runContext(limit time.Duration) (context.Context, context.CancelFunc) {
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if limit <= 0 {
		return ctx, stopSignals
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	return ctx, func() { cancel(); stopSignals() }
}

// runStopped words the error of a run its context stopped: past
// --max-run-time, or interrupted. Other errors are returned as they are.
func runStopped(ctx context.Context, limit time.Duration, err error) error {
	switch {
	case err == nil || ctx == nil || ctx.Err() == nil:
		return err
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("the run did not finish within --max-run-time %s: %w", limit, err)
	}
	return fmt.Errorf("interrupted: %w", err)
}

// defaultMaxConns is how many connections `tuxlb serve` keeps open at once.
const defaultMaxConns = 512

// connTimeouts bound how long a connection may take over each part of an
// exchange, so that slow or idle clients cannot hold connections forever.
type connTimeouts struct {
	header time.Duration // reading the request line and headers
	body   time.Duration // reading the whole request, body included
	idle   time.Duration // waiting for the next request on a kept-alive connection
	write  time.Duration // beyond --max-run-time: storing and writing the answer
}

var defaultTimeouts = connTimeouts{header: 10 * time.Second, body: 60 * time.Second, idle: 120 * time.Second,
	write: 60 * time.Second}

// newHTTPServer is the http.Server of `tuxlb serve`: h behind the
// connection timeouts. A run happens between reading and writing, so the
// write timeout is the run time limit plus o.timeouts.write.
func newHTTPServer(o *serveOptions, h http.Handler, logger *slog.Logger) *http.Server {
	t := o.timeouts
	return &http.Server{Handler: h, ReadHeaderTimeout: t.header, ReadTimeout: t.body, IdleTimeout: t.idle,
		WriteTimeout: t.body + o.maxRunTime + t.write, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
}

// limitListener accepts at most n connections at once: Accept waits while n
// are open, so that a flood of connections cannot exhaust the process's
// file descriptors (and /healthz keeps answering once the flood's header
// timeouts expire).
func limitListener(l net.Listener, n int) net.Listener {
	return &limitedListener{Listener: l, slots: make(chan struct{}, n)}
}

type limitedListener struct {
	net.Listener
	slots chan struct{}
}

func (l *limitedListener) Accept() (net.Conn, error) {
	l.slots <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitedConn{Conn: c, release: func() { <-l.slots }}, nil
}

type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// check says which setting is wrong, one message per setting.
func (o *serveOptions) check(args []string) error {
	switch {
	case len(args) > 0:
		return fmt.Errorf("unexpected argument %q: serve takes flags only", args[0])
	case o.maxBody <= 0:
		return fmt.Errorf("--max-body: must be a positive size, got %d", o.maxBody)
	case o.maxRequests <= 0:
		return fmt.Errorf("--max-requests: must be a positive number, got %d", o.maxRequests)
	case o.maxRuns <= 0:
		return fmt.Errorf("--max-runs: must be a positive number, got %d", o.maxRuns)
	case o.maxModelEntries <= 0:
		return fmt.Errorf("--max-model-entries: must be a positive number, got %d", o.maxModelEntries)
	case o.maxConns <= 0:
		return fmt.Errorf("--max-conns: must be a positive number, got %d", o.maxConns)
	case o.maxRunTime <= 0:
		return fmt.Errorf("--max-run-time: must be a positive duration such as 60s, got %s", o.maxRunTime)
	case o.maxSweepPoints <= 0:
		return fmt.Errorf("--max-sweep-points: must be a positive number, got %d", o.maxSweepPoints)
	case o.maxSweepRequests <= 0:
		return fmt.Errorf("--max-sweep-requests: must be a positive number, got %d", o.maxSweepRequests)
	case o.sweepWorkers <= 0:
		return fmt.Errorf("--sweep-workers: must be a positive number, got %d", o.sweepWorkers)
	case o.sweepLease <= 0:
		return fmt.Errorf("--sweep-lease: must be a positive duration such as 30s, got %s", o.sweepLease)
	case o.logFormat != "text" && o.logFormat != "json":
		return fmt.Errorf("--log-format: want text or json, got %q", o.logFormat)
	}
	return nil
}

// addrHostName returns the host name of a listening address given by name
// (not an IP address), which the Host header may then carry.
func addrHostName(addr string) []string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" || net.ParseIP(host) != nil {
		return nil
	}
	return []string{host}
}
