package storage

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// sweepWorkChannel is the PostgreSQL notification channel on which a
// replica says that points became free to claim: a sweep job was posted, or
// a replica shutting down released the points it held. Every replica
// listens on it (SweepWork), so one with free workers claims within
// milliseconds of the POST, whichever replica received it, rather than at
// its next poll.
const sweepWorkChannel = "tuxlb_sweep_work"

// notifySweepWork queues the notification in tx: PostgreSQL delivers it to
// every listener when tx commits, and never when it rolls back.
func notifySweepWork(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, "SELECT pg_notify($1, '')", sweepWorkChannel)
	return err
}

// sweepListenRetry is how long SweepWork waits before listening again after
// its connection failed (the database restarting, say).
const sweepListenRetry = time.Second

// SweepWork listens on a connection of its own, outside the pool.
func (db *Postgres) SweepWork(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	wake := func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	go func() {
		for ctx.Err() == nil {
			db.listen(ctx, wake)
			select {
			case <-ctx.Done():
			case <-time.After(sweepListenRetry):
			}
		}
	}()
	return ch
}

// listen holds one LISTEN connection until it fails or ctx ends, calling
// wake for every notification (and once when it starts listening).
func (db *Postgres) listen(ctx context.Context, wake func()) {
	conn, err := pgx.ConnectConfig(ctx, db.pool.Config().ConnConfig.Copy())
	if err != nil {
		return
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+sweepWorkChannel); err != nil {
		return
	}
	wake()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return
		}
		wake()
	}
}
