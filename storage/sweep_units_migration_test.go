package storage

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/result"
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
		execRaw(t, st, undoHeadlineJSON(st)...) // the later migration, undone first
		execRaw(t, st, "DROP TABLE "+units, "ALTER TABLE sweep_points DROP COLUMN worker",
			fmt.Sprintf("DELETE FROM schema_version WHERE version >= %d", version),
			"UPDATE sweep_jobs SET status = 'running', owner = 'old-replica', lease_until = "+lease+" WHERE id = 'old-run'",
			"INSERT INTO sweep_points(job_id, point, body) VALUES ('old-run', 1, "+blob+")",
			"UPDATE sweep_jobs SET status = 'done' WHERE id = 'old-done'")
		st.Close()

		st = connect(t, target)
		if v, err := st.SchemaVersion(ctx); err != nil || v < version {
			t.Fatalf("schema version after reopening: %d, %v; want at least %d", v, err, version)
		}
		got := map[string][]int{}
		for {
			j, pts, err := st.ClaimSweepPoints(ctx, "new", 100, time.Hour)
			if diag.ErrorCode(err) == diag.ENOTFOUND {
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

// TestHeadlineMigration: runs stored when the headline had a column per
// figure (one from before saturated_machines had its column: NULL) are read
// after the migration that keeps the headline as one JSON value with the
// same figures, the NULL as 0; a run stored after it reads back as written.
func TestHeadlineMigration(t *testing.T) {
	eachTarget(t, func(t *testing.T, target string) {
		ctx := context.Background()
		st := connect(t, target)
		version := migrationOf(st, 7, 6)
		cols := []struct{ name, value string }{
			{"issued", "5"}, {"completed", "4"}, {"failed", "1"}, {"timed_out", "0"},
			{"wait_mean", "0.5"}, {"wait_p95", "1.25"}, {"wait_p99", "2"},
			{"response_mean", "3.5"}, {"response_p95", "7"}, {"response_p99", "9.125"},
			{"max_utilization", "0.75"}, {"jain", "0.9"}, {"network_sent", "2"},
		}
		for _, id := range []int{1, 2} {
			if err := st.CreateRun(ctx, sampleRun(id, false)); err != nil {
				t.Fatal(err)
			}
		}
		// From the headline's migration on, so that those after it run again too.
		stmts := append(undoHeadlineJSON(st), fmt.Sprintf("DELETE FROM schema_version WHERE version >= %d", version))
		set := []string{}
		for _, c := range cols {
			set = append(set, c.name+" = "+c.value)
		}
		stmts = append(stmts, "UPDATE runs SET "+strings.Join(set, ", "),
			"UPDATE runs SET saturated_machines = 2 WHERE id = '"+sampleRun(2, false).ID+"'")
		execRaw(t, st, stmts...)
		st.Close()

		st = connect(t, target)
		defer st.Close()
		want := result.Headline{Issued: 5, Completed: 4, Failed: 1, WaitMeanMS: 0.5, WaitP95MS: 1.25, WaitP99MS: 2,
			ResponseMeanMS: 3.5, ResponseP95MS: 7, ResponseP99MS: 9.125, UtilizationMax: 0.75, Jain: 0.9, NetworkSent: 2}
		for id, sat := range map[int]int{1: 0, 2: 2} {
			r, err := st.Run(ctx, sampleRun(id, false).ID)
			if err != nil {
				t.Fatal(err)
			}
			w := want
			w.SaturatedMachines = sat
			if r.Headline != w {
				t.Errorf("run %d after the migration: headline %+v, want %+v", id, r.Headline, w)
			}
		}
		list, _, err := st.Runs(ctx, 10, "")
		if err != nil || len(list) != 2 || list[0].Headline.ResponseP99MS != 9.125 {
			t.Errorf("listed after the migration: %+v, %v", list, err)
		}
		fresh := sampleRun(3, false)
		fresh.Headline.NetworkShare = 0.6
		if err := st.CreateRun(ctx, fresh); err != nil {
			t.Fatal(err)
		}
		if r, err := st.Run(ctx, fresh.ID); err != nil || r.Headline != fresh.Headline {
			t.Errorf("a run stored after the migration: %+v, %v; want %+v", r.Headline, err, fresh.Headline)
		}
	})
}

// TestHeadlineUtilizationMaxMigration: a run stored while the headline named
// the busiest server's utilization max_utilization reads back, after the
// migration that renames it, with that value as utilization_max and every
// other figure as it was.
func TestHeadlineUtilizationMaxMigration(t *testing.T) {
	eachTarget(t, func(t *testing.T, target string) {
		ctx := context.Background()
		st := connect(t, target)
		version := migrationOf(st, 8, 7)
		run := sampleRun(1, false)
		if err := st.CreateRun(ctx, run); err != nil {
			t.Fatal(err)
		}
		old := `{"issued":5,"completed":4,"failed":1,"timed_out":0,"wait_mean_ms":0.5,"wait_p95_ms":1.25,"wait_p99_ms":2,` +
			`"response_mean_ms":3.5,"response_p95_ms":7,"response_p99_ms":9.125,"max_utilization":0.75,"jain_utilization":0.9,` +
			`"network_sent":2,"network_share":0.4,"saturated_machines":1}`
		execRaw(t, st, "UPDATE runs SET headline = '"+old+"'", undoOptimizeJobs,
			fmt.Sprintf("DELETE FROM schema_version WHERE version >= %d", version))
		st.Close()

		st = connect(t, target)
		defer st.Close()
		want := result.Headline{Issued: 5, Completed: 4, Failed: 1, WaitMeanMS: 0.5, WaitP95MS: 1.25, WaitP99MS: 2,
			ResponseMeanMS: 3.5, ResponseP95MS: 7, ResponseP99MS: 9.125, UtilizationMax: 0.75, Jain: 0.9, NetworkSent: 2,
			NetworkShare: 0.4, SaturatedMachines: 1}
		r, err := st.Run(ctx, run.ID)
		if err != nil || r.Headline != want {
			t.Errorf("after the migration: headline %+v (%v), want %+v", r.Headline, err, want)
		}
		list, _, err := st.Runs(ctx, 10, "")
		if err != nil || len(list) != 1 || list[0].Headline.UtilizationMax != 0.75 {
			t.Errorf("listed after the migration: %+v, %v; want utilization_max 0.75", list, err)
		}
	})
}

// migrationOf is the number of one migration in st's database: sqlite's
// or postgres's (their numbers differ where one database had a step the
// other did not).
func migrationOf(st Store, sqlite, postgres int) int {
	if _, ok := st.(*Postgres); ok {
		return postgres
	}
	return sqlite
}

// undoHeadlineJSON is the statements that take a store's runs table back to
// a column per headline figure (zeros, saturated_machines NULL), so that the
// migration keeping the headline as JSON runs again, and undo the later
// migrations (sweep_jobs.kind) so that they run again too.
func undoHeadlineJSON(st Store) []string {
	real, bigint := "REAL", "INTEGER"
	if _, ok := st.(*Postgres); ok {
		real, bigint = "double precision", "bigint"
	}
	stmts := []string{"ALTER TABLE runs DROP COLUMN headline"}
	for _, c := range []string{"issued", "completed", "failed", "timed_out", "wait_mean", "wait_p95", "wait_p99",
		"response_mean", "response_p95", "response_p99", "max_utilization", "jain", "network_sent"} {
		kind := real
		if c == "issued" || c == "completed" || c == "failed" || c == "timed_out" || c == "network_sent" {
			kind = bigint
		}
		stmts = append(stmts, fmt.Sprintf("ALTER TABLE runs ADD COLUMN %s %s NOT NULL DEFAULT 0", c, kind))
	}
	return append(stmts, "ALTER TABLE runs ADD COLUMN saturated_machines INTEGER", undoOptimizeJobs)
}

// undoOptimizeJobs undoes the migration that adds sweep_jobs.kind, so that
// a test which runs the migrations before it again runs it again too.
const undoOptimizeJobs = "ALTER TABLE sweep_jobs DROP COLUMN kind"
