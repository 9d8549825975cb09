package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
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
