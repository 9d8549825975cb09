package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tuxlb/tuxlb/internal/pgtest"
)

// optimizeStatus is the part of GET /api/v1/optimize/{id} these tests read.
type optimizeStatus struct {
	Status   string          `json:"status"`
	RunsDone int             `json:"runs_done"`
	Error    string          `json:"error"`
	Result   json.RawMessage `json:"result"`
}

func getOptimizeJob(t testing.TB, p *serverProc, id string) optimizeStatus {
	t.Helper()
	status, _, body := p.call(t, "GET", "/api/v1/optimize/"+id, "", nil)
	var j optimizeStatus
	if status != http.StatusOK || json.Unmarshal(body, &j) != nil {
		t.Fatalf("GET /api/v1/optimize/%s: %d: %.300s", id, status, body)
	}
	return j
}

// TestReplicasOptimizeSurvivesKill: an optimization posted to one of two
// replicas on one PostgreSQL database is run by the replica that claims it;
// the other shows its progress; killed (kill -9) mid-search, it leaves the
// job to the other once its lease runs out, which runs the search again and
// ends with the bytes `tuxlb optimize --format json` prints.
func TestReplicasOptimizeSurvivesKill(t *testing.T) {
	const lease = 2 * time.Second
	url := pgtest.Database(t)
	// The server tests' scenario with runs 500 times as long (about 60 ms
	// each), and an objective on its cheapest configuration's mean within
	// a narrow zone: some 34 runs before the search ends.
	base, err := os.ReadFile(filepath.Join(repoRoot(t), "server", "testdata", "scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	scenario := strings.Replace(string(base), `"duration_ms": 2000`, `"duration_ms": 1000000`, 1)
	path := filepath.Join(t.TempDir(), "slow.json")
	if err := os.WriteFile(path, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	cli := exec.Command(binaryPath(t), "optimize", path, "--vary", "SERVERS.simpserv.MIN=3..6/1", "--objective", "wait_mean_ms<=10.4",
		"--epsilon", "0.5%", "--first-stage", "4", "--max-replications", "30", "--format", "json")
	var cliErr bytes.Buffer
	cli.Stderr = &cliErr
	want, err := cli.Output()
	if err != nil {
		t.Fatalf("tuxlb optimize: %v\n%s", err, cliErr.String())
	}
	db, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())

	flags := []string{"--sweep-workers", "1", "--sweep-lease", lease.String()}
	procs := map[string]*serverProc{"A": startServer(t, url, append(flags, "--replica-id", "A")...),
		"B": startServer(t, url, append(flags, "--replica-id", "B")...)}
	body, _ := json.Marshal(map[string]any{"scenario": json.RawMessage(scenario), "vary": []string{"SERVERS.simpserv.MIN=3..6/1"},
		"objectives": []string{"wait_mean_ms<=10.4"}, "epsilon": "0.5%", "first_stage": 4, "max_replications": 30})
	status, _, out := procs["B"].call(t, "POST", "/api/v1/optimize", "application/json", body)
	var created struct{ ID string }
	if status != http.StatusAccepted || json.Unmarshal(out, &created) != nil || created.ID == "" {
		t.Fatalf("POST /api/v1/optimize to B: %d %s", status, out)
	}
	id := created.ID
	owner := func() string {
		var o string
		db.QueryRow(context.Background(), "SELECT owner FROM sweep_units WHERE job_id = $1", id).Scan(&o)
		return o
	}
	// The replica running it writes its progress; the other reads it.
	var runner string
	pollUntil(t, 120*time.Second, "a replica runs the search and writes its progress", func() bool {
		runner = owner()
		if runner != "A" && runner != "B" {
			return false
		}
		other := map[string]string{"A": "B", "B": "A"}[runner]
		j := getOptimizeJob(t, procs[other], id)
		if j.Status != "running" {
			t.Fatalf("the job is %s before its replica was killed: make its runs longer", j.Status)
		}
		return j.RunsDone > 0
	})
	survivor := map[string]string{"A": "B", "B": "A"}[runner]
	procs[runner].Kill(t)
	killed := time.Now()
	if o := owner(); o != runner && time.Since(killed) < lease/2 {
		t.Errorf("right after the kill the point is %q's, want still %s's (its lease runs)", o, runner)
	}
	var final optimizeStatus
	pollUntil(t, 120*time.Second, survivor+" finishes the optimization", func() bool {
		final = getOptimizeJob(t, procs[survivor], id)
		return final.Status != "running"
	})
	if final.Status != "done" || !bytes.Equal(append(final.Result, '\n'), want) {
		t.Fatalf("after %s: status %s (%s), result:\n%s\nwant tuxlb optimize --format json:\n%s", survivor, final.Status, final.Error, final.Result, want)
	}
	var worker string
	if err := db.QueryRow(context.Background(), "SELECT worker FROM sweep_points WHERE job_id = $1", id).Scan(&worker); err != nil || worker != survivor {
		t.Errorf("the report was stored by %q (%v), want %s", worker, err, survivor)
	}
	var res struct{ Replications struct{ Spent int } }
	json.Unmarshal(final.Result, &res)
	if final.RunsDone != res.Replications.Spent {
		t.Errorf("runs_done %d, want the report's %d spent (counted from the survivor's start)", final.RunsDone, res.Replications.Spent)
	}
}
