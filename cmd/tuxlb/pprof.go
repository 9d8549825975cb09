package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// checkPprofAddr accepts only a loopback address for --pprof: the profiles
// show the process's code, its memory and its arguments, and a CPU profile
// costs the server while it is taken, so they are for whoever is on the
// machine (or comes through an SSH tunnel), never the network.
func checkPprofAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--pprof: want HOST:PORT on a loopback address such as 127.0.0.1:6060, got %q: %v", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	if host == "" {
		host = "every interface"
	}
	return fmt.Errorf("--pprof: %q listens on %s, not a loopback address: the profiles are served on 127.0.0.1, ::1 or localhost only (reach them from elsewhere through an SSH tunnel)", addr, host)
}

// pprofHandler serves net/http/pprof's pages under /debug/pprof/.
func pprofHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// startPprof listens on addr (checked by checkPprofAddr) and serves the
// profiles there, on a listener of their own, until the returned server is
// closed. A CPU profile or a trace runs for as long as its ?seconds= asks,
// so the write timeout leaves room for a few minutes.
func startPprof(addr string, logger *slog.Logger) (*http.Server, net.Addr, error) {
	if err := checkPprofAddr(addr); err != nil {
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("--pprof: %w", err)
	}
	srv := &http.Server{Handler: pprofHandler(), ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 5 * time.Minute}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("pprof", "err", err)
		}
	}()
	return srv, ln.Addr(), nil
}
