package storage

import (
	"context"
	"database/sql"
	"slices"
	"time"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/records"
	"github.com/tuxlb/tuxlb/core/sweep"
)

// SweepStore's point-by-point methods on SQLite (the sweep_units table),
// where the one write connection serializes claims;
// postgres_sweep_units.go does the same with row locks.

// FinalFunc makes a job's result from the bodies of all its points, in
// point order. It runs inside the transaction that stores the last point.
type FinalFunc = func(points [][]byte) ([]byte, error)

// runsPerPoint is a job's replications (runs_total / total).
func runsPerPoint(total, runsTotal int) int { return max(1, runsTotal/max(total, 1)) }

// pointsFor is how many points a claim for maxRuns runs takes: enough to
// give every free worker a run, at least one.
func pointsFor(maxRuns, reps int) int { return max(1, maxRuns/reps) }

// insertUnits adds the unit rows of a new job, ranked by order (nil: grid order).
func insertUnits(ctx context.Context, tx *sql.Tx, j *sweep.Job) error {
	stmt, err := tx.PrepareContext(ctx, "INSERT INTO sweep_units(job_id, point, rank) VALUES (?,?,?)")
	if err != nil {
		return err
	}
	defer stmt.Close()
	for rank := range j.Total {
		p := rank
		if len(j.Order) == j.Total {
			p = j.Order[rank]
		}
		if _, err := stmt.ExecContext(ctx, j.ID, p, rank); err != nil {
			return err
		}
	}
	return nil
}

func (db *DB) ClaimSweepPoints(ctx context.Context, owner string, maxRuns int, lease time.Duration) (_ *sweep.Job, _ []int, err error) {
	if err := db.checkFile(); err != nil {
		return nil, nil, err
	}
	defer db.noteWrite(&err)
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, nil, translate(err)
	}
	defer tx.Rollback()
	now := db.Now().UTC().Truncate(time.Millisecond)
	nowText := now.Format(records.TimeFormat)
	var id string
	var total, runsTotal int
	err = tx.QueryRowContext(ctx, `SELECT j.id, j.total, j.runs_total FROM sweep_jobs j
		WHERE j.status IN ('queued', 'running')
		AND EXISTS (SELECT 1 FROM sweep_units u WHERE u.job_id = j.id AND u.lease_until < ?)
		ORDER BY j.seq LIMIT 1`, nowText).Scan(&id, &total, &runsTotal)
	if err != nil {
		return nil, nil, notFound(err, "sweep point to claim")
	}
	rows, err := tx.QueryContext(ctx, `SELECT point FROM sweep_units WHERE job_id = ? AND lease_until < ?
		ORDER BY rank LIMIT ?`, id, nowText, pointsFor(maxRuns, runsPerPoint(total, runsTotal)))
	if err != nil {
		return nil, nil, translate(err)
	}
	var points []int
	for rows.Next() {
		var p int
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return nil, nil, translate(err)
		}
		points = append(points, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, translate(err)
	}
	until := now.Add(lease).Format(records.TimeFormat)
	for _, p := range points {
		if _, err := tx.ExecContext(ctx, `UPDATE sweep_units SET owner = ?, lease_until = ? WHERE job_id = ? AND point = ?`,
			owner, until, id, p); err != nil {
			return nil, nil, translate(err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sweep_jobs SET status = 'running', updated_at = ? WHERE id = ? AND status = 'queued'`,
		nowText, id); err != nil {
		return nil, nil, translate(err)
	}
	j, err := scanSweep(tx.QueryRowContext(ctx, `SELECT `+sweepColumns+`
		FROM sweep_jobs j JOIN scenarios s ON s.id = j.scenario_id WHERE j.id = ?`, id))
	if err != nil {
		return nil, nil, translate(err)
	}
	slices.Sort(points)
	return j, points, translate(tx.Commit())
}

// unitOwned checks, in tx, that job id is running and that owner holds
// point's lease at now; ECONFLICT otherwise (canceled, failed, the point
// stored by another, or the lease ran out: whatever owner sends late is
// refused, even before another replica claims the point).
func unitOwned(ctx context.Context, tx *sql.Tx, id, owner string, point int, now time.Time) error {
	var status string
	if err := tx.QueryRowContext(ctx, "SELECT status FROM sweep_jobs WHERE id = ?", id).Scan(&status); err != nil {
		return notFound(err, "sweep %s", id)
	}
	if status != sweep.Running {
		return diag.Errorf(diag.ECONFLICT, "sweep %s is %s", id, status)
	}
	var who, lease string
	err := tx.QueryRowContext(ctx, "SELECT owner, lease_until FROM sweep_units WHERE job_id = ? AND point = ?", id, point).Scan(&who, &lease)
	if err == sql.ErrNoRows {
		return diag.Errorf(diag.ECONFLICT, "sweep %s point %d is stored already", id, point)
	}
	if err != nil {
		return translate(err)
	}
	if who != owner || lease < now.Format(records.TimeFormat) {
		return diag.Errorf(diag.ECONFLICT, "sweep %s point %d: %s's lease ran out, the point is left to the next claim", id, point, owner)
	}
	return nil
}

func (db *DB) SaveSweepUnit(ctx context.Context, id, owner string, point int, body []byte, lease time.Duration, final FinalFunc) (done bool, err error) {
	if err := db.checkFile(); err != nil {
		return false, err
	}
	defer db.noteWrite(&err)
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return false, translate(err)
	}
	defer tx.Rollback()
	now := db.Now().UTC().Truncate(time.Millisecond)
	nowText := now.Format(records.TimeFormat)
	if err := unitOwned(ctx, tx, id, owner, point, now); err != nil {
		return false, err
	}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO sweep_points(job_id, point, body, worker) VALUES (?,?,?,?) ON CONFLICT(job_id, point) DO NOTHING`,
			[]any{id, point, body, owner}},
		{`DELETE FROM sweep_units WHERE job_id = ? AND point = ?`, []any{id, point}},
		{`UPDATE sweep_jobs SET runs_done = CASE WHEN kind = 'optimize' THEN runs_done
			ELSE runs_done + MAX(1, runs_total / MAX(total, 1)) END, updated_at = ? WHERE id = ?`,
			[]any{nowText, id}},
		{`UPDATE sweep_units SET lease_until = ? WHERE job_id = ? AND owner = ? AND lease_until >= ?`,
			[]any{now.Add(lease).Format(records.TimeFormat), id, owner, nowText}},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			return false, translate(err)
		}
	}
	var left int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sweep_units WHERE job_id = ?", id).Scan(&left); err != nil {
		return false, translate(err)
	}
	if left == 0 {
		bodies, err := pointBodies(ctx, tx, id)
		if err != nil {
			return false, translate(err)
		}
		status, result, msg := finalResult(final, bodies)
		if _, err := tx.ExecContext(ctx, `UPDATE sweep_jobs SET status = ?, result = ?, error = ?, owner = '', lease_until = '',
			updated_at = ? WHERE id = ?`, status, result, msg, nowText, id); err != nil {
			return false, translate(err)
		}
	}
	return left == 0, translate(tx.Commit())
}

// finalResult runs final (nil: an empty result): done with its bytes, or
// failed with its error.
func finalResult(final FinalFunc, bodies [][]byte) (status string, result []byte, msg string) {
	if final == nil {
		return sweep.Done, nil, ""
	}
	res, err := final(bodies)
	if err != nil {
		return sweep.Failed, nil, err.Error()
	}
	return sweep.Done, res, ""
}

// pointBodies reads a job's stored points in point order.
func pointBodies(ctx context.Context, tx *sql.Tx, id string) ([][]byte, error) {
	rows, err := tx.QueryContext(ctx, "SELECT body FROM sweep_points WHERE job_id = ? ORDER BY point", id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

func (db *DB) RenewSweepUnits(ctx context.Context, id, owner string, lease time.Duration) (err error) {
	if err := db.checkFile(); err != nil {
		return err
	}
	defer db.noteWrite(&err)
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return translate(err)
	}
	defer tx.Rollback()
	now := db.Now().UTC().Truncate(time.Millisecond)
	var status string
	if err := tx.QueryRowContext(ctx, "SELECT status FROM sweep_jobs WHERE id = ?", id).Scan(&status); err != nil {
		return notFound(err, "sweep %s", id)
	}
	if status != sweep.Running {
		return diag.Errorf(diag.ECONFLICT, "sweep %s is %s", id, status)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sweep_units SET lease_until = ? WHERE job_id = ? AND owner = ? AND lease_until >= ?`,
		now.Add(lease).Format(records.TimeFormat), id, owner, now.Format(records.TimeFormat)); err != nil {
		return translate(err)
	}
	return translate(tx.Commit())
}

func (db *DB) SweepProgress(ctx context.Context, id, owner string, runsDone int) (err error) {
	if err := db.checkFile(); err != nil {
		return err
	}
	defer db.noteWrite(&err)
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return translate(err)
	}
	defer tx.Rollback()
	now := db.Now().UTC().Truncate(time.Millisecond)
	if err := unitOwned(ctx, tx, id, owner, 0, now); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sweep_jobs SET runs_done = ?, updated_at = ? WHERE id = ?`,
		runsDone, now.Format(records.TimeFormat), id); err != nil {
		return translate(err)
	}
	return translate(tx.Commit())
}

func (db *DB) ReleaseSweepUnits(ctx context.Context, id, owner string) (err error) {
	if err := db.checkFile(); err != nil {
		return err
	}
	defer db.noteWrite(&err)
	_, err = db.write.ExecContext(ctx, `UPDATE sweep_units SET owner = '', lease_until = '' WHERE job_id = ? AND owner = ?`, id, owner)
	return translate(err)
}

func (db *DB) FailSweep(ctx context.Context, id, msg string) (err error) {
	if err := db.checkFile(); err != nil {
		return err
	}
	defer db.noteWrite(&err)
	now := db.Now().UTC().Truncate(time.Millisecond)
	_, err = db.write.ExecContext(ctx, `UPDATE sweep_jobs SET status = 'failed', error = ?, owner = '', lease_until = '',
		updated_at = ? WHERE id = ? AND status IN ('queued', 'running')`, msg, now.Format(records.TimeFormat), id)
	if err == nil {
		_, err = db.write.ExecContext(ctx, `DELETE FROM sweep_units WHERE job_id = ?`, id)
	}
	return translate(err)
}

// sweepWorkers counts a job's stored points by the replica that computed them.
func sweepWorkers(ctx context.Context, conn interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, id string) (map[string]int, error) {
	rows, err := conn.QueryContext(ctx, "SELECT worker, count(*) FROM sweep_points WHERE job_id = ? AND worker <> '' GROUP BY worker", id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var w string
		var n int
		if err := rows.Scan(&w, &n); err != nil {
			return nil, err
		}
		out[w] = n
	}
	return out, rows.Err()
}
