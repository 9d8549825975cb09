package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tuxlb/tuxlb/internal/pgtest"
)

// shareSweep is a 12-point sweep of examples/mp-netload.json stretched to
// durationMS of simulated time (its rate profile stretched with it), one
// replication per point, with the scenario file it sweeps.
func shareSweep(t testing.TB, durationMS int) (body []byte, scenarioPath string, vary string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "mp-netload.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sc map[string]any
	if err := json.Unmarshal(src, &sc); err != nil {
		t.Fatal(err)
	}
	gen := sc["workload"].(map[string]any)["generate"].(map[string]any)
	gen["duration_ms"] = durationMS
	profile := gen["streams"].([]any)[0].(map[string]any)["profile"].([]any)
	profile[len(profile)-1].(map[string]any)["at_ms"] = durationMS
	scenario, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	scenarioPath = filepath.Join(t.TempDir(), "long.json")
	if err := os.WriteFile(scenarioPath, scenario, 0o644); err != nil {
		t.Fatal(err)
	}
	vary = "rate_scale=0.5..1.05/0.05" // 12 points
	body, err = json.Marshal(map[string]any{"scenario": json.RawMessage(scenario), "vary": []string{vary}, "replications": 1})
	if err != nil {
		t.Fatal(err)
	}
	return body, scenarioPath, vary
}

// postSweep posts body to p and returns the job's id.
func postSweep(t testing.TB, p *serverProc, body []byte) string {
	t.Helper()
	status, _, out := p.call(t, "POST", "/api/v1/sweeps", "application/json", body)
	var created struct{ ID string }
	if status != http.StatusAccepted || json.Unmarshal(out, &created) != nil || created.ID == "" {
		t.Fatalf("POST /api/v1/sweeps: %d %s, want 202 with an id", status, out)
	}
	return created.ID
}

// waitSweep polls job id on p until it is no longer queued or running.
func waitSweep(t testing.TB, p *serverProc, id string, timeout time.Duration) sweepStatus {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		status, _, body := p.call(t, "GET", "/api/v1/sweeps/"+id, "", nil)
		var j sweepStatus
		if status != http.StatusOK || json.Unmarshal(body, &j) != nil {
			t.Fatalf("GET /api/v1/sweeps/%s: %d %.300s", id, status, body)
		}
		if j.Status != "running" && j.Status != "queued" {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("sweep %s still %s after %s", id, j.Status, timeout)
		}
		time.Sleep(50 * time.Millisecond) // a GET of a running job compiles it: not too often
	}
}

// TestReplicasSweepShared: a 12-point sweep posted to replica A of two on
// one PostgreSQL database, each with one sweep worker, is worked by both
// from its first points on. The points are handed out largest first: the
// grid's rate scales are 0.5, 0.55 .. 1.05 (points 0..11) over the same
// profile, so point 11 (rate scale 1.05) expects the most requests and goes
// first, point 10 second. Each replica holds one point at a time and a
// point runs for a few hundred milliseconds, so when the replica that did
// not receive the POST is told of the job (not left to its next poll, up to
// a second later), the two first claims go to different replicas: points 11
// and 10 are stored by different workers, as the database records them.
// Both store points, every point once, and the result is the bytes of
// `tuxlb sweep --format json`.
func TestReplicasSweepShared(t *testing.T) {
	url := pgtest.Database(t)
	body, scenarioPath, vary := shareSweep(t, 8_000_000)
	cli := exec.Command(binaryPath(t), "sweep", scenarioPath, "--vary", vary, "--replications", "1", "--format", "json")
	var cliErr bytes.Buffer
	cli.Stderr = &cliErr
	want, err := cli.Output()
	if err != nil {
		t.Fatalf("tuxlb sweep: %v\n%s", err, cliErr.String())
	}
	flags := []string{"--sweep-workers", "1"}
	a := startServer(t, url, append(flags, "--replica-id", "A")...)
	b := startServer(t, url, append(flags, "--replica-id", "B")...)
	id := postSweep(t, a, body)
	final := waitSweep(t, b, id, 5*time.Minute)
	if final.Status != "done" || final.Done != 12 {
		t.Fatalf("job: status %q (%s), done %d of %d; want done, 12", final.Status, final.Error, final.Done, final.Total)
	}

	db, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	rows, err := db.Query(context.Background(), "SELECT point, worker FROM sweep_points WHERE job_id = $1 ORDER BY point", id)
	if err != nil {
		t.Fatal(err)
	}
	worker := map[int]string{}
	var p int
	var w string
	if _, err := pgx.ForEachRow(rows, []any{&p, &w}, func() error { worker[p] = w; return nil }); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, w := range worker {
		count[w]++
	}
	t.Logf("points by worker: %v (%v)", count, worker)
	if len(worker) != 12 || count["A"] < 1 || count["B"] < 1 || count["A"]+count["B"] != 12 {
		t.Errorf("sweep_points: %d points, by worker %v; want 12, each of A and B at least one", len(worker), count)
	}
	if worker[11] == worker[10] {
		t.Errorf("points 11 and 10 (the first two handed out) both stored by %q; want one each: the other replica joined late", worker[11])
	}
	if !bytes.Equal(bytes.TrimRight(final.Result, "\n"), bytes.TrimRight(want, "\n")) {
		t.Errorf("result differs from tuxlb sweep --format json:\n%s\nwant:\n%s", final.Result, want)
	}
}

// BenchmarkReplicasSweepSpeedup times one 12-point sweep (a few hundred
// milliseconds a point) on one replica, then on two, each replica with one
// sweep worker, both on PostgreSQL, and reports the ratio as "speedup"
// (the goal: 1.8 or more). Each replica's one worker keeps the work within
// the machine's cores when it has two; on a machine busy with other work
// the ratio says less.
//
//	go test ./tests/ -run '^$' -bench ReplicasSweepSpeedup -benchtime 3x
func BenchmarkReplicasSweepSpeedup(b *testing.B) {
	body, _, _ := shareSweep(b, 8_000_000)
	flags := []string{"--sweep-workers", "1"}
	url1, url2 := pgtest.Database(b), pgtest.Database(b)
	one := startServer(b, url1, append(flags, "--replica-id", "solo")...)
	a := startServer(b, url2, append(flags, "--replica-id", "A")...)
	startServer(b, url2, append(flags, "--replica-id", "B")...)
	// The end is watched in the database, not by GETs of the job: a GET of
	// a running sweep restores its points so far, work the replicas would
	// share the cores with.
	timeOn := func(p *serverProc, url string) (time.Duration, map[string]int) {
		db, err := pgx.Connect(context.Background(), url)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close(context.Background())
		start := time.Now()
		id := postSweep(b, p, body)
		for status := ""; status != "done"; time.Sleep(20 * time.Millisecond) {
			if err := db.QueryRow(context.Background(), "SELECT status FROM sweep_jobs WHERE id = $1", id).Scan(&status); err != nil {
				b.Fatal(err)
			}
			if status == "failed" || status == "canceled" || time.Since(start) > 5*time.Minute {
				b.Fatalf("sweep %s: %s", id, status)
			}
		}
		d := time.Since(start)
		return d, getSweepJob(b, p, id).Workers
	}
	var t1, t2 time.Duration
	b.ResetTimer()
	for i := range b.N {
		d1, _ := timeOn(one, url1)
		d2, workers := timeOn(a, url2)
		t1, t2 = t1+d1, t2+d2
		b.Logf("run %d: one replica %s, two %s (points %v): %.2fx", i+1, d1.Round(time.Millisecond), d2.Round(time.Millisecond),
			workers, d1.Seconds()/d2.Seconds())
	}
	b.ReportMetric(t1.Seconds()/float64(b.N), "s-1replica")
	b.ReportMetric(t2.Seconds()/float64(b.N), "s-2replicas")
	b.ReportMetric(t1.Seconds()/t2.Seconds(), "speedup")
}
