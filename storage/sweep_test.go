package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/sweep"
)

// tick advances the store's test clock by a second.
func tick(st Store) {
	switch db := st.(type) {
	case *DB:
		db.Now()
	case *Postgres:
		db.Now()
	}
}

// joined is a FinalFunc: the bodies joined by "|", so a test sees which
// points, in which order, the result was made from.
func joined(points [][]byte) ([]byte, error) { return bytes.Join(points, []byte("|")), nil }

// claim claims for owner and fails the test on an error other than ENOTFOUND.
func claim(t *testing.T, st Store, owner string, maxRuns int, lease time.Duration) (string, []int) {
	t.Helper()
	j, points, err := st.ClaimSweepPoints(context.Background(), owner, maxRuns, lease)
	if diag.ErrorCode(err) == diag.ENOTFOUND {
		return "", nil
	}
	if err != nil {
		t.Fatalf("%s's claim: %v", owner, err)
	}
	if j.Points != nil || j.Status != sweep.Running {
		t.Errorf("%s's claim: job %s with %d points, status %s; want no points read, running", owner, j.ID, len(j.Points), j.Status)
	}
	return j.ID, points
}

// TestSweepUnitsLifeCycle: points are claimed a few at a time (maxRuns /
// replications), by rank; two claimers get disjoint points; a point can be
// saved only by its claimer, once; the last save makes the result from every
// point in point order and ends the job; workers counts who computed what.
// The test clock ticks one second per call.
// unitRows counts the point rows a store keeps for job id.
func unitRows(t *testing.T, st Store, id string) (n int) {
	t.Helper()
	var err error
	switch db := st.(type) {
	case *DB:
		err = db.read.QueryRowContext(context.Background(), "SELECT count(*) FROM sweep_units WHERE job_id = ?", id).Scan(&n)
	case *Postgres:
		err = db.pool.QueryRow(context.Background(), "SELECT count(*) FROM sweep_units WHERE job_id = $1", id).Scan(&n)
	default:
		t.Fatalf("unitRows: a %T", st)
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSweepUnitsLifeCycle(t *testing.T) { eachStore(t, testSweepUnitsLifeCycle) }

func testSweepUnitsLifeCycle(t *testing.T, db Store) {
	ctx := context.Background()
	j := &sweep.Job{ID: "job-u", ScenarioID: "scenario0000000000000", Scenario: []byte(`{}`),
		Spec: sweep.Spec{Vary: []string{"rate_scale=1,2,3"}, Replications: 2}, Total: 3, RunsTotal: 6, Order: []int{2, 0, 1}}
	if err := db.CreateSweep(ctx, j); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Sweep(ctx, "job-u"); err != nil || got.Status != sweep.Queued || len(got.Workers) != 0 {
		t.Fatalf("new job: %+v, %v", got, err)
	}
	// 4 runs at 2 replications a point: two points, ranks 0 and 1 (points 2 and 0).
	if id, pts := claim(t, db, "A", 4, time.Hour); id != "job-u" || fmt.Sprint(pts) != "[0 2]" {
		t.Fatalf("A's claim: %s %v, want job-u [0 2]", id, pts)
	}
	// 1 run: still one point, the one left.
	if id, pts := claim(t, db, "B", 1, time.Hour); id != "job-u" || fmt.Sprint(pts) != "[1]" {
		t.Fatalf("B's claim: %s %v, want job-u [1]", id, pts)
	}
	if id, pts := claim(t, db, "C", 4, time.Hour); id != "" {
		t.Fatalf("C's claim with every point held: %s %v, want none", id, pts)
	}
	save := func(owner string, point int) (bool, error) {
		return db.SaveSweepUnit(ctx, "job-u", owner, point, []byte(fmt.Sprintf(`{"index":%d}`, point)), time.Hour, joined)
	}
	if done, err := save("A", 2); err != nil || done {
		t.Fatalf("A saves 2: %v, %v; want not done", done, err)
	}
	if _, err := save("B", 0); diag.ErrorCode(err) != diag.ECONFLICT {
		t.Errorf("B saves A's point 0: %v, want conflict", err)
	}
	if _, err := save("A", 2); diag.ErrorCode(err) != diag.ECONFLICT {
		t.Errorf("A saves 2 again: %v, want conflict (stored already)", err)
	}
	if done, err := save("B", 1); err != nil || done {
		t.Fatalf("B saves 1: %v, %v", done, err)
	}
	if got, _ := db.Sweep(ctx, "job-u"); got.Status != sweep.Running || got.RunsDone != 4 || len(got.Points) != 2 {
		t.Errorf("two points of three: status %s, runs done %d, %d points; want running, 4, 2", got.Status, got.RunsDone, len(got.Points))
	}
	if done, err := save("A", 0); err != nil || !done {
		t.Fatalf("A saves the last point: %v, %v; want done", done, err)
	}
	got, err := db.Sweep(ctx, "job-u")
	if err != nil || got.Status != sweep.Done || got.RunsDone != 6 ||
		string(got.Result) != `{"index":0}|{"index":1}|{"index":2}` || fmt.Sprint(got.Workers) != "map[A:2 B:1]" {
		t.Fatalf("finished job: status %s, runs %d, result %s, workers %v, %v", got.Status, got.RunsDone, got.Result, got.Workers, err)
	}
	if id, _ := claim(t, db, "C", 4, time.Hour); id != "" {
		t.Errorf("claim after the end: %s", id)
	}
	if err := db.RenewSweepUnits(ctx, "job-u", "A", time.Hour); diag.ErrorCode(err) != diag.ECONFLICT {
		t.Errorf("renew of a done job: %v, want conflict", err)
	}

	// A canceled job gives no more points and refuses saves; a failed one too.
	for _, end := range []string{"cancel", "fail", "final fails"} {
		id := "job-" + end[:4]
		if err := db.CreateSweep(ctx, sweepJob(id, 2)); err != nil {
			t.Fatal(err)
		}
		if got, pts := claim(t, db, "A", 1, time.Hour); got != id || len(pts) != 1 {
			t.Fatalf("%s: claim %s %v", end, got, pts)
		}
		final := FinalFunc(joined)
		switch end {
		case "cancel":
			_, err = db.CancelSweep(ctx, id)
		case "fail":
			err = db.FailSweep(ctx, id, "a run failed")
		default:
			final = func([][]byte) ([]byte, error) { return nil, errors.New("cannot encode") }
			_, pts := claim(t, db, "B", 1, time.Hour)
			if _, err := db.SaveSweepUnit(ctx, id, "B", pts[0], []byte("{}"), time.Hour, final); err != nil {
				t.Fatal(err)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		if got, pts := claim(t, db, "B", 1, time.Hour); got != "" && end != "final fails" {
			t.Errorf("%s: claim after: %s %v, want none", end, got, pts)
		}
		if n := unitRows(t, db, id); n != 0 && end != "final fails" {
			t.Errorf("%s: %d point rows left, want none (no one claims them)", end, n)
		}
		done, err := db.SaveSweepUnit(ctx, id, "A", 0, []byte("{}"), time.Hour, final)
		j, _ := db.Sweep(ctx, id)
		switch end {
		case "final fails":
			if err != nil || !done || j.Status != sweep.Failed || j.Error != "cannot encode" {
				t.Errorf("%s: %v %v, status %s %q; want the job failed with final's error", end, done, err, j.Status, j.Error)
			}
		default:
			if diag.ErrorCode(err) != diag.ECONFLICT || j.Status == sweep.Running {
				t.Errorf("%s: save after: %v, status %s; want conflict and the job ended", end, err, j.Status)
			}
		}
	}
}

// TestSweepUnitLeaseHandover: a claimer that stops (its lease runs out)
// leaves only its points: another claims them, the stopped one's late save
// is refused, and each point is stored once, by who holds it. The test
// clock ticks one second per call.
func TestSweepUnitLeaseHandover(t *testing.T) {
	eachStore(t, func(t *testing.T, db Store) {
		ctx := context.Background()
		if err := db.CreateSweep(ctx, sweepJob("job-h", 3)); err != nil {
			t.Fatal(err)
		}
		if _, pts := claim(t, db, "dead", 1, 3*time.Second); fmt.Sprint(pts) != "[0]" {
			t.Fatalf("dead's claim: %v", pts)
		}
		if _, pts := claim(t, db, "B", 1, time.Hour); fmt.Sprint(pts) != "[1]" {
			t.Fatalf("B's claim: %v", pts)
		}
		for range 4 { // dead's lease (3 s) runs out
			tick(db)
		}
		if _, pts := claim(t, db, "C", 2, time.Hour); fmt.Sprint(pts) != "[0 2]" {
			t.Fatalf("C's claim after dead's lease ran out: %v, want its point 0 and the free 2", pts)
		}
		if err := db.RenewSweepUnits(ctx, "job-h", "dead", time.Hour); err != nil {
			t.Fatal(err)
		}
		if _, err := db.SaveSweepUnit(ctx, "job-h", "dead", 0, []byte(`{"by":"dead"}`), time.Hour, joined); diag.ErrorCode(err) != diag.ECONFLICT {
			t.Errorf("dead's late save: %v, want conflict", err)
		}
		for _, s := range []struct {
			owner string
			point int
		}{{"C", 0}, {"B", 1}, {"C", 2}} {
			if _, err := db.SaveSweepUnit(ctx, "job-h", s.owner, s.point, []byte(fmt.Sprintf(`{"index":%d}`, s.point)), time.Hour, joined); err != nil {
				t.Fatal(err)
			}
		}
		wantPoints(t, db, "job-h", `{"index":0}`, `{"index":1}`, `{"index":2}`)
		if j, _ := db.Sweep(ctx, "job-h"); j.Status != sweep.Done || fmt.Sprint(j.Workers) != "map[B:1 C:2]" {
			t.Errorf("job: %s, workers %v; want done, B:1 C:2", j.Status, j.Workers)
		}
	})
}

// TestSweepUnitsTwoClaimers: two stores on one database (two replicas),
// two claimers each, with real clocks, work one 60-point sweep to its end:
// each point is stored once, by the one claimer whose save succeeded, none
// is lost, both replicas computed points, and the result is made once from
// all of them. Then a lease that runs out by the real clock hands a point
// over between the two stores.
func TestSweepUnitsTwoClaimers(t *testing.T) {
	eachTarget(t, func(t *testing.T, target string) {
		ctx := context.Background()
		stores := []Store{connect(t, target), connect(t, target)}
		const points = 60
		if err := stores[0].CreateSweep(ctx, sweepJob("job-2", points)); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		savedBy := map[int][]string{}
		finals := 0
		final := func(b [][]byte) ([]byte, error) {
			mu.Lock()
			finals++
			mu.Unlock()
			return joined(b)
		}
		work := func(st Store, owner string, once bool) {
			for {
				id, pts := claim(t, st, owner, 2, time.Minute)
				if id == "" {
					return
				}
				for _, p := range pts {
					_, err := st.SaveSweepUnit(ctx, id, owner, p, []byte(fmt.Sprintf(`{"index":%d}`, p)), time.Minute, final)
					if err != nil {
						t.Errorf("%s saves %d: %v", owner, p, err)
						continue
					}
					mu.Lock()
					savedBy[p] = append(savedBy[p], owner)
					mu.Unlock()
				}
				if once {
					return
				}
			}
		}
		work(stores[0], "r0", true) // each replica takes some before the race
		work(stores[1], "r1", true)
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() { defer wg.Done(); work(stores[w%2], fmt.Sprintf("r%d", w%2), false) }()
		}
		wg.Wait()
		for p := range points {
			if len(savedBy[p]) != 1 {
				t.Errorf("point %d saved by %v, want exactly one", p, savedBy[p])
			}
		}
		j, err := stores[1].Sweep(ctx, "job-2")
		if err != nil || j.Status != sweep.Done || len(j.Points) != points || finals != 1 ||
			j.Workers["r0"] == 0 || j.Workers["r1"] == 0 || j.Workers["r0"]+j.Workers["r1"] != points {
			t.Fatalf("job: %s, %d points, %d finals, workers %v, %v; want done, %d, 1, both replicas", j.Status, len(j.Points), finals, j.Workers, err, points)
		}

		// A lease by the real clock: r0's point goes to r1 once it runs out.
		a, b := stores[0], stores[1]
		if err := a.CreateSweep(ctx, sweepJob("job-lease", 2)); err != nil {
			t.Fatal(err)
		}
		const lease = 300 * time.Millisecond
		if _, pts := claim(t, a, "A", 1, lease); fmt.Sprint(pts) != "[0]" {
			t.Fatalf("A's claim: %v", pts)
		}
		if _, pts := claim(t, b, "B", 1, time.Minute); fmt.Sprint(pts) != "[1]" {
			t.Fatalf("B's claim while A holds 0: %v, want [1]", pts)
		}
		time.Sleep(lease + 50*time.Millisecond)
		if _, pts := claim(t, b, "B", 1, time.Minute); fmt.Sprint(pts) != "[0]" {
			t.Fatalf("B's claim after A's lease ran out: %v, want [0]", pts)
		}
		if _, err := a.SaveSweepUnit(ctx, "job-lease", "A", 0, []byte(`{"by":"A"}`), lease, joined); diag.ErrorCode(err) != diag.ECONFLICT {
			t.Errorf("A's save after its lease ran out: %v, want conflict", err)
		}
	})
}

// sweepJob is a job of points points, one replication each, on a shared
// test scenario.
func sweepJob(id string, points int) *sweep.Job {
	return &sweep.Job{ID: id, ScenarioID: "scenario0000000000000", Scenario: []byte(`{}`),
		Spec: sweep.Spec{Vary: []string{"rate_scale=1"}}, Total: points, RunsTotal: points}
}

// wantPoints checks that job id has exactly the points want stored, once each.
func wantPoints(t *testing.T, st Store, id string, want ...string) {
	t.Helper()
	j, err := st.Sweep(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range j.Points {
		got = append(got, string(p))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stored points of %s: got %q, want %q", id, got, want)
	}
}

// eachTarget runs test once per backend with a fresh database target that
// several stores (replicas) may open.
func eachTarget(t *testing.T, test func(t *testing.T, target string)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b.target(t)) })
	}
}

// connect opens target with the real clocks (PostgreSQL: the database
// server's clock for leases) and closes it when the test ends.
func connect(t *testing.T, target string) Store {
	t.Helper()
	st, err := Connect(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// waitLeaseOver polls until the lease of job id, as the store records it, has
// run out: until now is past it by the store's precision (SQLite's times are
// text to the millisecond, and a lease is over once now's text is later).
func waitLeaseOver(t *testing.T, st Store, id string) {
	t.Helper()
	j, err := st.Sweep(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	for !time.Now().After(j.LeaseUntil.Add(time.Millisecond)) {
		time.Sleep(5 * time.Millisecond)
	}
}

// BenchmarkSweepClaimSave measures the cost of point-by-point claims: a
// 1 000-point job claimed one point at a time, each point saved (the last
// with the result), per backend. ns/op is one whole job: divide by 1 000
// for a claim and a save.
func BenchmarkSweepClaimSave(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			st, err := Connect(context.Background(), be.target(b))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			ctx := context.Background()
			for i := 0; b.Loop(); i++ {
				id := fmt.Sprintf("bench%06d", i)
				if err := st.CreateSweep(ctx, sweepJob(id, 1000)); err != nil {
					b.Fatal(err)
				}
				for {
					j, pts, err := st.ClaimSweepPoints(ctx, "bench", 1, time.Minute)
					if diag.ErrorCode(err) == diag.ENOTFOUND {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					if _, err := st.SaveSweepUnit(ctx, j.ID, "bench", pts[0], []byte(`{}`), time.Minute, joined); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// TestOptimizeJob: an optimization is stored as a job of one point with
// its own spec and kind, read back as written; its progress is what
// SweepProgress records (only by the replica holding its point), and the
// stored point, its report, does not add to it.
func TestOptimizeJob(t *testing.T) { eachStore(t, testOptimizeJob) }

func testOptimizeJob(t *testing.T, db Store) {
	ctx := context.Background()
	spec := &sweep.OptimizeSpec{Vary: []string{"SERVERS.a.MIN=1..3/1"}, Objectives: []string{"wait_mean_ms<=5"},
		Costs: []string{"SERVERS.a.MIN=2"}, PCS: 0.9, Epsilon: 0.1}
	j := &sweep.Job{ID: "opt-1", Kind: sweep.KindOptimize, ScenarioID: "scenario0000000000001", Scenario: []byte(`{}`),
		Optimize: spec, Total: 1, RunsTotal: 300}
	if err := db.CreateSweep(ctx, j); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateSweep(ctx, sweepJob("plain", 2)); err != nil {
		t.Fatal(err)
	}
	got, err := db.Sweep(ctx, "opt-1")
	if err != nil || got.Kind != sweep.KindOptimize || got.Optimize == nil || fmt.Sprint(*got.Optimize) != fmt.Sprint(*spec) ||
		len(got.Spec.Vary) != 0 {
		t.Fatalf("stored optimization: %+v (spec %+v), %v", got, got.Optimize, err)
	}
	if p, _ := db.Sweep(ctx, "plain"); p.Kind != sweep.KindSweep || p.Optimize != nil || len(p.Spec.Vary) != 1 {
		t.Errorf("stored sweep: kind %q, optimize %v, spec %+v", p.Kind, p.Optimize, p.Spec)
	}
	if err := db.SweepProgress(ctx, "opt-1", "A", 5); diag.ErrorCode(err) != diag.ECONFLICT {
		t.Errorf("progress of a queued job: %v, want conflict", err)
	}
	// The older job first: the optimization's one point, whatever the runs asked.
	if id, pts := claim(t, db, "A", 8, time.Hour); id != "opt-1" || fmt.Sprint(pts) != "[0]" {
		t.Fatalf("A's claim: %s %v, want opt-1 [0]", id, pts)
	}
	if err := db.SweepProgress(ctx, "opt-1", "B", 7); diag.ErrorCode(err) != diag.ECONFLICT {
		t.Errorf("progress by a replica without the lease: %v, want conflict", err)
	}
	for _, n := range []int{40, 75} {
		if err := db.SweepProgress(ctx, "opt-1", "A", n); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := db.Sweep(ctx, "opt-1"); got.RunsDone != 75 || got.Status != sweep.Running {
		t.Errorf("progress: %d runs, %s; want 75, running", got.RunsDone, got.Status)
	}
	report := []byte(`{"feasible":true}`)
	first := func(b [][]byte) ([]byte, error) { return b[0], nil }
	if done, err := db.SaveSweepUnit(ctx, "opt-1", "A", 0, report, time.Hour, first); err != nil || !done {
		t.Fatalf("save: %v %v", done, err)
	}
	got, _ = db.Sweep(ctx, "opt-1")
	if got.Status != sweep.Done || got.RunsDone != 75 || string(got.Result) != string(report) {
		t.Errorf("done: %s, %d runs, result %s; want done, 75, the report", got.Status, got.RunsDone, got.Result)
	}
	if err := db.SweepProgress(ctx, "opt-1", "A", 80); diag.ErrorCode(err) != diag.ECONFLICT {
		t.Errorf("progress after the end: %v, want conflict", err)
	}
}
