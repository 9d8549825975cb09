package storage

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/sweep"
)

// The PostgreSQL side of point-by-point sweep claims (storage/sweep_units.go
// says what each method means). Claims take free unit rows with FOR UPDATE
// SKIP LOCKED, so replicas claiming at once never take the same point and
// never wait on each other; a save locks the job's row (serializing the
// saves of one job, so exactly one of them sees the last point) and the
// point's row. Leases run by the database server's clock (leaseNow).

// pgInsertUnits adds the unit rows of a new job, ranked by j.Order.
func pgInsertUnits(ctx context.Context, tx pgx.Tx, j *sweep.Job) error {
	points, ranks := make([]int32, j.Total), make([]int32, j.Total)
	for rank := range j.Total {
		p := rank
		if len(j.Order) == j.Total {
			p = j.Order[rank]
		}
		points[rank], ranks[rank] = int32(p), int32(rank)
	}
	_, err := tx.Exec(ctx, `INSERT INTO sweep_units(job_id, point, rank)
		SELECT $1, p, r FROM unnest($2::integer[], $3::integer[]) AS u(p, r)`, j.ID, points, ranks)
	return err
}

func (db *Postgres) ClaimSweepPoints(ctx context.Context, owner string, maxRuns int, lease time.Duration) (*sweep.Job, []int, error) {
	var job *sweep.Job
	var points []int
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		now, err := db.leaseNow(ctx, tx)
		if err != nil {
			return err
		}
		var id string
		var total, runsTotal int
		err = tx.QueryRow(ctx, `SELECT j.id, j.total, j.runs_total FROM sweep_units u JOIN sweep_jobs j ON j.id = u.job_id
			WHERE j.status IN ('queued', 'running') AND (u.lease_until IS NULL OR u.lease_until < $1)
			ORDER BY j.seq, u.rank LIMIT 1 FOR UPDATE OF u SKIP LOCKED`, now).Scan(&id, &total, &runsTotal)
		if err != nil {
			return pgNotFound(err, "sweep point to claim")
		}
		// The points are picked in an ARRAY(...) sub-select, which runs once.
		// As "point IN (SELECT ... LIMIT n FOR UPDATE SKIP LOCKED)" the
		// planner may run the sub-select again for every row (a nested loop,
		// its choice once sweep_units has been analyzed while small), and each
		// run skips the rows this statement has just updated and locks the
		// next ones: the claim took every free point of the job.
		rows, err := tx.Query(ctx, `UPDATE sweep_units SET owner = $1, lease_until = $2
			WHERE job_id = $3 AND point = ANY(ARRAY(SELECT point FROM sweep_units WHERE job_id = $3
				AND (lease_until IS NULL OR lease_until < $4) ORDER BY rank LIMIT $5 FOR UPDATE SKIP LOCKED))
			RETURNING point`, owner, now.Add(lease), id, now, pointsFor(maxRuns, runsPerPoint(total, runsTotal)))
		if err != nil {
			return err
		}
		points, err = pgx.CollectRows(rows, pgx.RowTo[int])
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE sweep_jobs SET status = 'running', updated_at = $1 WHERE id = $2 AND status = 'queued'`,
			now, id); err != nil {
			return err
		}
		job, err = pgSweepRow(ctx, tx, id)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(points)
	return job, points, nil
}

// pgUnitOwned locks job id and point's row and checks, by the lease clock
// read after the locks, that the job runs and owner holds the point's
// lease; it returns the time read. ECONFLICT otherwise.
func (db *Postgres) pgUnitOwned(ctx context.Context, tx pgx.Tx, id, owner string, point int) (time.Time, error) {
	var status string
	if err := tx.QueryRow(ctx, "SELECT status FROM sweep_jobs WHERE id = $1 FOR UPDATE", id).Scan(&status); err != nil {
		return time.Time{}, pgNotFound(err, "sweep %s", id)
	}
	if status != sweep.Running {
		return time.Time{}, diag.Errorf(diag.ECONFLICT, "sweep %s is %s", id, status)
	}
	var who string
	var lease *time.Time
	err := tx.QueryRow(ctx, "SELECT owner, lease_until FROM sweep_units WHERE job_id = $1 AND point = $2 FOR UPDATE",
		id, point).Scan(&who, &lease)
	if err == pgx.ErrNoRows {
		return time.Time{}, diag.Errorf(diag.ECONFLICT, "sweep %s point %d is stored already", id, point)
	}
	if err != nil {
		return time.Time{}, err
	}
	now, err := db.leaseNow(ctx, tx)
	if err != nil {
		return now, err
	}
	if who != owner || lease == nil || lease.Before(now) {
		return now, diag.Errorf(diag.ECONFLICT, "sweep %s point %d: %s's lease ran out, the point is left to the next claim", id, point, owner)
	}
	return now, nil
}

func (db *Postgres) SaveSweepUnit(ctx context.Context, id, owner string, point int, body []byte, lease time.Duration, final FinalFunc) (bool, error) {
	var done bool
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		now, err := db.pgUnitOwned(ctx, tx, id, owner, point)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO sweep_points(job_id, point, body, worker) VALUES ($1,$2,$3,$4)
			ON CONFLICT (job_id, point) DO NOTHING`, id, point, body, owner); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM sweep_units WHERE job_id = $1 AND point = $2`, id, point); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE sweep_jobs SET runs_done = CASE WHEN kind = 'optimize' THEN runs_done
			ELSE runs_done + GREATEST(1, runs_total / GREATEST(total, 1)) END, updated_at = $1 WHERE id = $2`, now, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE sweep_units SET lease_until = $1 WHERE job_id = $2 AND owner = $3 AND lease_until >= $4`,
			now.Add(lease), id, owner, now); err != nil {
			return err
		}
		var left int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM sweep_units WHERE job_id = $1", id).Scan(&left); err != nil {
			return err
		}
		if done = left == 0; !done {
			return nil
		}
		rows, err := tx.Query(ctx, "SELECT body FROM sweep_points WHERE job_id = $1 ORDER BY point", id)
		if err != nil {
			return err
		}
		bodies, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
		if err != nil {
			return err
		}
		status, result, msg := finalResult(final, bodies)
		_, err = tx.Exec(ctx, `UPDATE sweep_jobs SET status = $1, result = $2, error = $3, owner = '', lease_until = NULL,
			updated_at = $4 WHERE id = $5`, status, result, msg, now, id)
		return err
	})
	return done, err
}

func (db *Postgres) RenewSweepUnits(ctx context.Context, id, owner string, lease time.Duration) error {
	return db.inTx(ctx, func(tx pgx.Tx) error {
		var status string
		if err := tx.QueryRow(ctx, "SELECT status FROM sweep_jobs WHERE id = $1", id).Scan(&status); err != nil {
			return pgNotFound(err, "sweep %s", id)
		}
		if status != sweep.Running {
			return diag.Errorf(diag.ECONFLICT, "sweep %s is %s", id, status)
		}
		now, err := db.leaseNow(ctx, tx)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE sweep_units SET lease_until = $1 WHERE job_id = $2 AND owner = $3 AND lease_until >= $4`,
			now.Add(lease), id, owner, now)
		return err
	})
}

func (db *Postgres) SweepProgress(ctx context.Context, id, owner string, runsDone int) error {
	return db.inTx(ctx, func(tx pgx.Tx) error {
		now, err := db.pgUnitOwned(ctx, tx, id, owner, 0)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE sweep_jobs SET runs_done = $1, updated_at = $2 WHERE id = $3`, runsDone, now, id)
		return err
	})
}

func (db *Postgres) ReleaseSweepUnits(ctx context.Context, id, owner string) error {
	return db.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE sweep_units SET owner = '', lease_until = NULL WHERE job_id = $1 AND owner = $2`, id, owner)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		return notifySweepWork(ctx, tx)
	})
}

func (db *Postgres) FailSweep(ctx context.Context, id, msg string) error {
	now := db.Now().UTC().Truncate(time.Millisecond)
	return db.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE sweep_jobs SET status = 'failed', error = $1, owner = '', lease_until = NULL,
			updated_at = $2 WHERE id = $3 AND status IN ('queued', 'running')`, msg, now, id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM sweep_units WHERE job_id = $1`, id)
		return err
	})
}

// pgSweepWorkers counts a job's stored points by the replica that computed them.
func pgSweepWorkers(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, id string) (map[string]int, error) {
	rows, err := q.Query(ctx, "SELECT worker, count(*)::integer FROM sweep_points WHERE job_id = $1 AND worker <> '' GROUP BY worker", id)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	var w string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&w, &n}, func() error {
		out[w] = n
		return nil
	})
	return out, err
}
