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
	"strings"
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

// minSweepLease is the shortest --sweep-lease.
const minSweepLease = time.Second

// connTimeouts bound how long a connection may take over each part of an
// exchange, so that slow or idle clients cannot hold connections forever.
type connTimeouts struct {
	header time.Duration // reading the request line and headers
	body   time.Duration // reading the whole request, body included
	idle   time.Duration // waiting for the next request on a kept-alive connection
	write  time.Duration // beyond --max-run-time: storing and writing the answer
}

var defaultTimeouts = connTimeouts{header: 5 * time.Second, body: 60 * time.Second, idle: 120 * time.Second,
	write: 60 * time.Second}

// newHTTPServer is the http.Server of `tuxlb serve`: h behind the
// connection timeouts. A run happens between reading and writing, so the
// write timeout is the run time limit plus o.timeouts.write.
func newHTTPServer(o *serveOptions, h http.Handler, logger *slog.Logger) *http.Server {
	t := o.timeouts
	return &http.Server{Handler: h, ReadHeaderTimeout: t.header, ReadTimeout: t.body, IdleTimeout: t.idle,
		WriteTimeout: t.body + o.maxRunTime + t.write, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
}

// limitListener accepts at most n connections at once, so that a flood of
// connections cannot exhaust the process's file descriptors. When n are
// open and another arrives, the connection that has waited longest without
// sending a whole request (still sending its headers, or idle between
// requests) is closed to make room: clients that send their headers slowly
// never keep a new client out. Only when all n are busy with requests does
// Accept wait. Its ConnState is the http.Server's hook that tells it which
// connections are busy.
func limitListener(l net.Listener, n int) *connLimiter {
	lim := &connLimiter{Listener: l, n: n, conns: map[*limitedConn]bool{}}
	lim.cond = sync.NewCond(&lim.mu)
	return lim
}

type connLimiter struct {
	net.Listener
	n     int
	mu    sync.Mutex
	cond  *sync.Cond            // signalled when a connection closes or stops being busy
	conns map[*limitedConn]bool // open connections: true when busy with a request
	tick  int64                 // orders the connections by when they began to wait
}

func (l *connLimiter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	lc := &limitedConn{Conn: c, l: l}
	l.mu.Lock()
	var victim *limitedConn
	for len(l.conns) >= l.n {
		if victim = l.longestWaiting(); victim != nil {
			delete(l.conns, victim)
			break
		}
		l.cond.Wait()
	}
	l.tick++
	lc.since = l.tick
	l.conns[lc] = false
	l.mu.Unlock()
	if victim != nil {
		victim.Conn.Close()
	}
	return lc, nil
}

// longestWaiting is the open connection that has waited longest without a
// request in progress, or nil when all are busy.
func (l *connLimiter) longestWaiting() *limitedConn {
	var oldest *limitedConn
	for c, busy := range l.conns {
		if !busy && (oldest == nil || c.since < oldest.since) {
			oldest = c
		}
	}
	return oldest
}

// ConnState records whether a connection is busy with a request (its
// headers read) or waiting for one.
func (l *connLimiter) ConnState(c net.Conn, state http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, open := l.conns[lc]; !open {
		return
	}
	switch state {
	case http.StateActive:
		l.conns[lc] = true
	case http.StateIdle:
		l.tick++
		lc.since, l.conns[lc] = l.tick, false
		l.cond.Broadcast()
	case http.StateHijacked, http.StateClosed:
		delete(l.conns, lc)
		l.cond.Broadcast()
	}
}

type limitedConn struct {
	net.Conn
	l     *connLimiter
	since int64 // guarded by l.mu
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.l.mu.Lock()
	delete(c.l.conns, c)
	c.l.cond.Broadcast()
	c.l.mu.Unlock()
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
	case o.sweepLease < minSweepLease:
		// renewed every third of it through the database, a shorter lease
		// runs out before its renewal: the points are taken back from the
		// replica at work and run again (a 2-point sweep of 1 ms runs took
		// 10 s with --sweep-lease 1ns)
		return fmt.Errorf("--sweep-lease: must be at least %s (a replica renews its points every third of it; shorter, they run out under the work and are run again), got %s", minSweepLease, o.sweepLease)
	case strings.TrimSpace(o.replicaID) == "" || len(o.replicaID) > 200:
		return fmt.Errorf("--replica-id: want a name of 1 to 200 characters, got %q", o.replicaID)
	case o.logFormat != "text" && o.logFormat != "json":
		return fmt.Errorf("--log-format: want text or json, got %q", o.logFormat)
	case o.pprof != "":
		return checkPprofAddr(o.pprof)
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
