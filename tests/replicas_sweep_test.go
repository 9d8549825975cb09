package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tuxlb/tuxlb/internal/pgtest"
)

// sweepStatus is the part of GET /api/v1/sweeps/{id} these tests read.
type sweepStatus struct {
	Status  string          `json:"status"`
	Done    int             `json:"done"`
	Total   int             `json:"total"`
	Error   string          `json:"error"`
	Workers map[string]int  `json:"workers"`
	Result  json.RawMessage `json:"result"`
}

// getSweepJob GETs a sweep job from p, insisting on 200.
func getSweepJob(t testing.TB, p *serverProc, id string) sweepStatus {
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

// unitRows reads the claimed points of job id: point -> owner, for
// the points whose lease has not run out by the database's clock.
func unitRows(t *testing.T, db *pgx.Conn, id string) map[int]string {
	t.Helper()
	return readUnits(t, db, id, "lease_until >= clock_timestamp()")
}

// ownedBy reads the points of job id claimed by owner, whatever their
// lease: a stored point's claim is deleted with the save, so once owner is
// dead these are exactly the points it held when it died (until another
// replica takes them over).
func ownedBy(t *testing.T, db *pgx.Conn, id, owner string) []int {
	t.Helper()
	var out []int
	for p, who := range readUnits(t, db, id, "true") {
		if who == owner {
			out = append(out, p)
		}
	}
	sort.Ints(out)
	return out
}

// readUnits reads the sweep_units rows of job id that match where.
func readUnits(t *testing.T, db *pgx.Conn, id, where string) map[int]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := db.Query(ctx, `SELECT point, owner FROM sweep_units WHERE job_id = $1 AND `+where, id)
	if err != nil {
		t.Fatalf("read sweep_units of %s: %v", id, err)
	}
	out := map[int]string{}
	var p int
	var owner string
	if _, err := pgx.ForEachRow(rows, []any{&p, &owner}, func() error { out[p] = owner; return nil }); err != nil {
		t.Fatalf("read sweep_units of %s: %v", id, err)
	}
	return out
}

// TestReplicasSweepSurvivesKill: two replicas A and B on one PostgreSQL
// database share one sweep point by point: both compute points of it and
// GET /api/v1/sweeps/{id} reports both in "workers". A is killed (kill -9)
// while it holds a point; that point stays A's until its lease runs out,
// then B takes it and finishes the sweep. Every point is stored exactly
// once, and the result is the bytes `tuxlb sweep --format json` prints for
// the same sweep.
func TestReplicasSweepSurvivesKill(t *testing.T) {
	const (
		lease = 2 * time.Second
		total = 20 // points of the grid below
		reps  = 100
	)
	// About half a second of one core a point: long enough for both
	// replicas (which look for work every second) to take points.
	vary := []string{"rate_scale=0.5..1.45/0.05"}
	url := pgtest.Database(t)
	scenarioPath := filepath.Join(repoRoot(t), "examples", "mp-netload.json")
	scenario, err := os.ReadFile(scenarioPath)
	if err != nil {
		t.Fatal(err)
	}

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

	// One worker each, so that each replica holds one point at a time and
	// the points finish one after another; a short lease, so that B takes
	// A's point over within seconds.
	flags := []string{"--sweep-workers", "1", "--sweep-lease", lease.String()}
	a := startServer(t, url, append(flags, "--replica-id", "A")...)
	b := startServer(t, url, append(flags, "--replica-id", "B")...)
	body, err := json.Marshal(map[string]any{"scenario": json.RawMessage(scenario), "vary": vary, "replications": reps})
	if err != nil {
		t.Fatal(err)
	}
	id := postSweep(t, a, body)

	// Both replicas work the one sweep: each stores points, and both show
	// the progress and the workers.
	pollUntil(t, 120*time.Second, "A and B each store a point", func() bool {
		j := getSweepJob(t, b, id)
		if j.Status != "running" && j.Status != "queued" {
			t.Fatalf("the job ended (%s, workers %v) before A was killed: make its points longer", j.Status, j.Workers)
		}
		return j.Workers["A"] > 0 && j.Workers["B"] > 0
	})
	for name, p := range map[string]*serverProc{"A": a, "B": b} {
		j := getSweepJob(t, p, id)
		if j.Status != "running" || j.Total != total || j.Done < 2 || j.Done >= total || j.Workers["A"] == 0 || j.Workers["B"] == 0 {
			t.Errorf("replica %s while both work: status %q, done %d of %d, workers %v; want running, both in workers",
				name, j.Status, j.Done, j.Total, j.Workers)
		}
	}
	// Kill A right after it claims a point it did not hold at the previous
	// look (20 ms before): that point has most of its half second of work
	// ahead, so A dies holding it rather than just after storing it.
	before := map[int]bool{}
	for _, p := range ownedBy(t, db, id, "A") {
		before[p] = true
	}
	pollUntil(t, 120*time.Second, "A claims a new point", func() bool {
		var status string
		if err := db.QueryRow(context.Background(), "SELECT status FROM sweep_jobs WHERE id = $1", id).Scan(&status); err != nil || (status != "running" && status != "queued") {
			t.Fatalf("the job is %q (%v) before A claimed another point: make its points longer", status, err)
		}
		fresh := false
		now := map[int]bool{}
		for _, p := range ownedBy(t, db, id, "A") {
			now[p] = true
			fresh = fresh || !before[p]
		}
		before = now
		return fresh
	})
	a.Kill(t)
	killed := time.Now()
	held := ownedBy(t, db, id, "A")
	storedByA := getSweepJob(t, b, id).Workers["A"]
	t.Logf("A killed holding points %v, with %d points stored by A", held, storedByA)
	if len(held) == 0 {
		t.Fatalf("A holds no point after its kill: it stored the point it had just claimed within milliseconds")
	}
	// Until its lease runs out, A's point is nobody else's.
	if units := unitRows(t, db, id); time.Since(killed) < lease/2 {
		for _, p := range held {
			if units[p] != "A" {
				t.Errorf("point %d right after A's kill: owner %q, want still A's (lease running)", p, units[p])
			}
		}
	}

	var final sweepStatus
	pollUntil(t, 120*time.Second, "B finishes the job", func() bool {
		final = getSweepJob(t, b, id)
		return final.Status != "running"
	})
	if final.Status != "done" || final.Done != total || final.Total != total {
		t.Fatalf("job after B: status %q (%s), done %d of %d; want done, %d of %d", final.Status, final.Error, final.Done, final.Total, total, total)
	}
	if final.Workers["A"] != storedByA || final.Workers["A"]+final.Workers["B"] != total || len(final.Workers) != 2 {
		t.Errorf("workers at the end: %v; want A's %d points and B the rest of %d", final.Workers, storedByA, total)
	}

	// The database: every point exactly once, all the runs, the CLI's bytes.
	row := readJob(t, db, id)
	if len(row.points) != total {
		t.Errorf("sweep_points rows: got %d, want %d (%v)", len(row.points), total, row.points)
	}
	for i, p := range row.points {
		if p != i {
			t.Errorf("sweep_points row %d is point %d, want %d (every point once)", i, p, i)
			break
		}
	}
	var byB int
	if err := db.QueryRow(context.Background(), "SELECT count(*) FROM sweep_points WHERE job_id = $1 AND worker = 'B' AND point = ANY($2)",
		id, held).Scan(&byB); err != nil || byB != len(held) {
		t.Errorf("the points A held when killed (%v): %d stored by B (%v), want all", held, byB, err)
	}
	if row.status != "done" || row.runsDone != row.runsTotal || row.runsTotal != total*reps {
		t.Errorf("sweep_jobs row: status %q runs %d of %d; want done, %d of %d",
			row.status, row.runsDone, row.runsTotal, total*reps, total*reps)
	}
	if !bytes.Equal(row.result, want) {
		t.Errorf("stored result (%d bytes) differs from tuxlb sweep --format json (%d bytes):\n%s\nwant:\n%s",
			len(row.result), len(want), row.result, want)
	}
	if !bytes.Equal(final.Result, bytes.TrimRight(want, "\n")) {
		t.Errorf("GET result from B differs from tuxlb sweep --format json:\n%s\nwant:\n%s", final.Result, want)
	}
	a2 := startServer(t, url, append(flags, "--replica-id", "A2")...)
	sameOnBoth(t, a2, b, "/api/v1/sweeps/"+id)
}

// TestReplicasSweepClaimsFewPoints: a replica claims a few points of a sweep
// at a time (one per free worker here), not the whole job, once PostgreSQL
// has statistics of sweep_units. That table is nearly always small (a
// point's row goes when the point is stored), and autovacuum analyzes it
// after a few sweeps; with those statistics the planner ran the claim's
// sub-select once per row, and the first replica to claim took every point
// while the other stayed idle (and, killed, held them all until its lease
// ran out).
func TestReplicasSweepClaimsFewPoints(t *testing.T) {
	const total = 10
	url := pgtest.Database(t)
	scenario, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "mp-netload.json"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	flags := []string{"--sweep-workers", "1"}
	a := startServer(t, url, append(flags, "--replica-id", "A")...)
	b := startServer(t, url, append(flags, "--replica-id", "B")...)
	if _, err := db.Exec(context.Background(), "ANALYZE sweep_units"); err != nil { // as autovacuum does
		t.Fatal(err)
	}
	body, err := json.Marshal(map[string]any{"scenario": json.RawMessage(scenario),
		"vary": []string{"rate_scale=0.5..0.95/0.05"}, "replications": 50})
	if err != nil {
		t.Fatal(err)
	}
	id := postSweep(t, a, body)
	most := map[string]int{} // the most points each replica held at once
	var final sweepStatus
	pollUntil(t, 120*time.Second, "the sweep ends", func() bool {
		held := map[string]int{}
		for _, owner := range unitRows(t, db, id) {
			held[owner]++
		}
		for owner, n := range held {
			most[owner] = max(most[owner], n)
		}
		final = getSweepJob(t, b, id)
		return final.Status != "running" && final.Status != "queued"
	})
	for owner, n := range most {
		if n > 1 {
			t.Errorf("replica %s held %d points at once, want at most 1 (one worker, 50 runs a point)", owner, n)
		}
	}
	if final.Status != "done" || final.Done != total || final.Workers["A"] == 0 || final.Workers["B"] == 0 {
		t.Errorf("sweep: status %q, done %d of %d, workers %v; want done, both replicas in workers",
			final.Status, final.Done, total, final.Workers)
	}
}

// TestReplicasSweepSurvivesDatabaseRestart: PostgreSQL restarted, then the
// replicas' connections ended again and again for a second (as a failover
// or pg_terminate_backend does), while two replicas work a sweep: the
// sweep does not fail. A point whose store failed because the database
// went away is computed again once it is back, and the sweep ends with the
// bytes `tuxlb sweep --format json` prints. Before, the first store that
// failed on a connection the database had closed marked the whole job
// failed ("database unavailable: ... terminating connection due to
// administrator command"), that mark going through a fresh connection.
func TestReplicasSweepSurvivesDatabaseRestart(t *testing.T) {
	const reps = 100
	vary := "rate_scale=0.5..1.45/0.05" // 20 points of about 0.2 s of one core
	cluster := pgtest.Own(t)
	url, err := cluster.CreateDatabase(context.Background(), "restart")
	if err != nil {
		t.Fatal(err)
	}
	scenarioPath := filepath.Join(repoRoot(t), "examples", "mp-netload.json")
	scenario, err := os.ReadFile(scenarioPath)
	if err != nil {
		t.Fatal(err)
	}
	cli := exec.Command(binaryPath(t), "sweep", scenarioPath, "--vary", vary,
		"--replications", strconv.Itoa(reps), "--format", "json")
	want, err := cli.Output()
	if err != nil {
		t.Fatalf("tuxlb sweep: %v", err)
	}
	flags := []string{"--sweep-lease", "2s"}
	a := startServer(t, url, append(flags, "--replica-id", "A")...)
	b := startServer(t, url, append(flags, "--replica-id", "B")...)
	body, err := json.Marshal(map[string]any{"scenario": json.RawMessage(scenario), "vary": []string{vary}, "replications": reps})
	if err != nil {
		t.Fatal(err)
	}
	id := postSweep(t, a, body)
	pollUntil(t, 60*time.Second, "a few points stored", func() bool {
		j := getSweepJob(t, b, id)
		if j.Status != "running" && j.Status != "queued" {
			t.Fatalf("the sweep ended (%s) before the restart: make its points longer", j.Status)
		}
		return j.Done >= 2
	})
	if err := cluster.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := cluster.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	db, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if _, err := db.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid()`); err != nil {
			t.Fatal(err)
		}
	}
	var final sweepStatus
	pollUntil(t, 60*time.Second, "the sweep ends after the restart", func() bool {
		status, _, body := b.call(t, "GET", "/api/v1/sweeps/"+id, "", nil)
		if status != http.StatusOK { // the pool reconnecting
			return false
		}
		if err := json.Unmarshal(body, &final); err != nil {
			t.Fatal(err)
		}
		return final.Status != "running" && final.Status != "queued"
	})
	if final.Status != "done" || final.Done != final.Total {
		t.Fatalf("sweep after the restart: status %q (%s), done %d of %d; want done", final.Status, final.Error, final.Done, final.Total)
	}
	if !bytes.Equal(final.Result, bytes.TrimRight(want, "\n")) {
		t.Errorf("result after the restart differs from tuxlb sweep --format json:\n%s\nwant:\n%s", final.Result, want)
	}
}
