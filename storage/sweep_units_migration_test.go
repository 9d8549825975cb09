package storage

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/sweep"
)

// execRaw runs statements on a store's database, bypassing the store.
func execRaw(t *testing.T, st Store, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		var err error
		switch db := st.(type) {
		case *DB:
			_, err = db.write.Exec(q)
		case *Postgres:
			_, err = db.pool.Exec(context.Background(), q)
		}
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestSweepUnitsMigration: a database as the previous version left it —
// a job running under a whole-job lease with one point of three stored, a
// queued job, a done one — is upgraded by the migration that adds
// sweep_units: the unfinished jobs get unit rows for the points they have
// not stored, free to claim at once; the done job none. The migration is
// undone by hand on a fresh database, the old rows written, and the
// database opened again.
func TestSweepUnitsMigration(t *testing.T) {
	eachTarget(t, func(t *testing.T, target string) {
		ctx := context.Background()
		st := connect(t, target)
		version, lease, units, blob := 6, "'2099-01-01T00:00:00.000Z'", "sweep_units", `CAST('{"index":1}' AS BLOB)`
		if _, ok := st.(*Postgres); ok {
			version, lease, blob = 5, "now() + interval '1 hour'", `convert_to('{"index":1}', 'UTF8')`
		}
		for _, id := range []string{"old-run", "old-queue", "old-done"} {
			if err := st.CreateSweep(ctx, sweepJob(id, 3)); err != nil {
				t.Fatal(err)
			}
		}
		execRaw(t, st, "DROP TABLE "+units, "ALTER TABLE sweep_points DROP COLUMN worker",
			fmt.Sprintf("DELETE FROM schema_version WHERE version = %d", version),
			"UPDATE sweep_jobs SET status = 'running', owner = 'old-replica', lease_until = "+lease+" WHERE id = 'old-run'",
			"INSERT INTO sweep_points(job_id, point, body) VALUES ('old-run', 1, "+blob+")",
			"UPDATE sweep_jobs SET status = 'done' WHERE id = 'old-done'")
		st.Close()

		st = connect(t, target)
		if v, err := st.SchemaVersion(ctx); err != nil || v != version {
			t.Fatalf("schema version after reopening: %d, %v; want %d", v, err, version)
		}
		got := map[string][]int{}
		for {
			j, pts, err := st.ClaimSweepPoints(ctx, "new", 100, time.Hour)
			if core.ErrorCode(err) == core.ENOTFOUND {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got[j.ID] = append(got[j.ID], pts...)
		}
		if fmt.Sprint(got) != "map[old-queue:[0 1 2] old-run:[0 2]]" {
			t.Errorf("points claimable after the migration: %v; want old-run's 0 and 2 (1 is stored, the old lease is dropped), old-queue's three", got)
		}
		done, err := st.SaveSweepUnit(ctx, "old-run", "new", 0, []byte(`{"index":0}`), time.Hour, joined)
		if err == nil {
			done, err = st.SaveSweepUnit(ctx, "old-run", "new", 2, []byte(`{"index":2}`), time.Hour, joined)
		}
		j, _ := st.Sweep(ctx, "old-run")
		if err != nil || !done || j.Status != sweep.Done || string(j.Result) != `{"index":0}|{"index":1}|{"index":2}` ||
			fmt.Sprint(j.Workers) != "map[new:2]" {
			t.Errorf("old-run finished after the migration: %v %v, status %s, result %s, workers %v", done, err, j.Status, j.Result, j.Workers)
		}
	})
}
