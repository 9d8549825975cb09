package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tuxlb/tuxlb/internal/pgtest"
)

// sweepStatus is the part of GET /api/v1/sweeps/{id} these tests read.
type sweepStatus struct {
	Status string          `json:"status"`
	Done   int             `json:"done"`
	Total  int             `json:"total"`
	Error  string          `json:"error"`
	Result json.RawMessage `json:"result"`
}

// getSweepJob GETs a sweep job from p, insisting on 200.
func getSweepJob(t *testing.T, p *serverProc, id string) sweepStatus {
	t.Helper()
	status, _, body := p.call(t, "GET", "/api/v1/sweeps/"+id, "", nil)
	var j sweepStatus
	if status != http.StatusOK {
		t.Fatalf("GET /api/v1/sweeps/%s: %d, want 200: %.300s", id, status, body)
	}
	if err := json.Unmarshal(body, &j); err != nil {
		t.Fatalf("GET /api/v1/sweeps/%s: %v: %.300s", id, err, body)
	}
	return j
}

// jobRow is a sweep job as the database holds it.
type jobRow struct {
	status, owner string
	leaseUntil    *time.Time
	runsDone      int
	runsTotal     int
	result        []byte
	points        []int // the point column of every sweep_points row, in order
}

// readJob reads job id and its point rows straight from the database.
func readJob(t *testing.T, db *pgx.Conn, id string) jobRow {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var r jobRow
	err := db.QueryRow(ctx, `SELECT status, owner, lease_until, runs_done, runs_total, result
		FROM sweep_jobs WHERE id = $1`, id).Scan(&r.status, &r.owner, &r.leaseUntil, &r.runsDone, &r.runsTotal, &r.result)
	if err != nil {
		t.Fatalf("read sweep_jobs row %s: %v", id, err)
	}
	rows, err := db.Query(ctx, "SELECT point FROM sweep_points WHERE job_id = $1 ORDER BY point", id)
	if err != nil {
		t.Fatalf("read sweep_points of %s: %v", id, err)
	}
	r.points, err = pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		t.Fatalf("read sweep_points of %s: %v", id, err)
	}
	return r
}

// pollUntil calls cond every 20 ms until it returns true, failing the test
// with what after the timeout.
func pollUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestReplicasSweepSurvivesKill: a sweep job posted to replica A is worked
// by A; A is killed (kill -9) after it stored some points; replica B, on the
// same PostgreSQL database, takes the job over once A's lease has run out
// and finishes it. Every point is stored exactly once, both replicas show
// the progress while the job runs, and the result is the bytes `tuxlb sweep
// --format json` prints for the same sweep.
func TestReplicasSweepSurvivesKill(t *testing.T) {
	const (
		lease = 2 * time.Second
		total = 10 // points of the grid below
		reps  = 30
	)
	vary := []string{"rate_scale=0.3..1.2/0.1"}
	url := pgtest.Database(t)
	scenarioPath := filepath.Join(repoRoot(t), "tests", "testdata", "api-scenario.json")

	// What the CLI prints for the same sweep (with its own number of workers).
	cli := exec.Command(binaryPath(t), "sweep", scenarioPath, "--vary", vary[0],
		"--replications", strconv.Itoa(reps), "--format", "json")
	var cliErr bytes.Buffer
	cli.Stderr = &cliErr
	want, err := cli.Output()
	if err != nil {
		t.Fatalf("tuxlb sweep: %v\n%s", err, cliErr.String())
	}

	db, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())

	// One worker each, so that points finish one after another and A is
	// killed mid-job; a short lease, so that B takes over within seconds.
	flags := []string{"--sweep-workers", "1", "--sweep-lease", lease.String()}
	a := startServer(t, url, flags...)
	body, err := json.Marshal(map[string]any{"scenario": json.RawMessage(apiScenario(t)), "vary": vary, "replications": reps})
	if err != nil {
		t.Fatal(err)
	}
	status, _, out := a.call(t, "POST", "/api/v1/sweeps", "application/json", body)
	var created struct{ ID string }
	if status != http.StatusAccepted || json.Unmarshal(out, &created) != nil || created.ID == "" {
		t.Fatalf("POST /api/v1/sweeps to A: %d %s, want 202 with an id", status, out)
	}
	id := created.ID
	// A is the only replica yet: the job it claims is A's.
	pollUntil(t, 30*time.Second, "A claims the job", func() bool { return readJob(t, db, id).status == "running" })
	ownerA := readJob(t, db, id).owner
	b := startServer(t, url, flags...)

	// Progress from both replicas while A works: running, with at least the
	// points already in the database.
	var stored int
	pollUntil(t, 60*time.Second, "A stores its first point", func() bool {
		stored = len(readJob(t, db, id).points)
		return stored > 0
	})
	for name, p := range map[string]*serverProc{"A": a, "B": b} {
		j := getSweepJob(t, p, id)
		if j.Status != "running" || j.Total != total || j.Done < stored || j.Done > total {
			t.Errorf("replica %s while A works: status %q, done %d of %d; want running, at least %d of %d",
				name, j.Status, j.Done, j.Total, stored, total)
		}
	}

	a.Kill(t)
	killed := time.Now()
	row := readJob(t, db, id)
	if row.status != "running" || row.owner != ownerA || len(row.points) == 0 || len(row.points) >= total || row.leaseUntil == nil {
		t.Fatalf("after kill -9 of A the job is %s (owner %q, A is %q) with %d of %d points, lease %v; want running, A's, some points",
			row.status, row.owner, ownerA, len(row.points), total, row.leaseUntil)
	}
	leaseEnd := *row.leaseUntil
	t.Logf("A killed with %d of %d points stored; its lease ends %s after the kill", len(row.points), total, leaseEnd.Sub(killed))
	// Until the lease runs out nobody works the job; B shows the progress A left.
	if j := getSweepJob(t, b, id); j.Status != "running" || j.Done != len(row.points) || j.Total != total {
		t.Errorf("replica B after A died: status %q, done %d of %d; want running, %d of %d",
			j.Status, j.Done, j.Total, len(row.points), total)
	}

	// B takes the job over after the lease ran out, and finishes it.
	var takenAt time.Time
	pollUntil(t, 60*time.Second, "B takes the job over", func() bool {
		r := readJob(t, db, id)
		if r.owner != ownerA {
			takenAt = time.Now()
			return true
		}
		return false
	})
	if takenAt.Before(leaseEnd) {
		t.Errorf("B took the job over at %s, before A's lease ran out at %s", takenAt.Format(time.RFC3339Nano), leaseEnd.Format(time.RFC3339Nano))
	}
	var final sweepStatus
	pollUntil(t, 60*time.Second, "B finishes the job", func() bool {
		final = getSweepJob(t, b, id)
		return final.Status != "running"
	})
	if final.Status != "done" || final.Done != total || final.Total != total {
		t.Fatalf("job after B: status %q (%s), done %d of %d; want done, %d of %d", final.Status, final.Error, final.Done, final.Total, total, total)
	}

	// The database: every point exactly once, all the runs, the CLI's bytes.
	row = readJob(t, db, id)
	if len(row.points) != total {
		t.Errorf("sweep_points rows: got %d, want %d (%v)", len(row.points), total, row.points)
	}
	for i, p := range row.points {
		if p != i {
			t.Errorf("sweep_points row %d is point %d, want %d (every point once)", i, p, i)
			break
		}
	}
	if row.status != "done" || row.owner != "" || row.runsDone != row.runsTotal || row.runsTotal != total*reps {
		t.Errorf("sweep_jobs row: status %q owner %q runs %d of %d; want done, no owner, %d of %d",
			row.status, row.owner, row.runsDone, row.runsTotal, total*reps, total*reps)
	}
	if !bytes.Equal(row.result, want) {
		t.Errorf("stored result (%d bytes) differs from tuxlb sweep --format json (%d bytes):\n%s\nwant:\n%s",
			len(row.result), len(want), row.result, want)
	}
	// Both replicas' API (B, and A's replacement reading the same rows) answer those bytes.
	if !bytes.Equal(final.Result, bytes.TrimRight(want, "\n")) {
		t.Errorf("GET result from B differs from tuxlb sweep --format json:\n%s\nwant:\n%s", final.Result, want)
	}
	a2 := startServer(t, url, flags...)
	sameOnBoth(t, a2, b, "/api/v1/sweeps/"+id)
}
