package storage

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/sweep"
)

// TestSweepJobLifeCycle: create, claim (with a lease), save points, cancel,
// reclaim after a lease runs out, finish. The test clock ticks one second per
// call of Now.
func TestSweepJobLifeCycle(t *testing.T) { eachStore(t, testSweepJobLifeCycle) }

// tick advances the store's test clock by a second.
func tick(st Store) {
	switch db := st.(type) {
	case *DB:
		db.Now()
	case *Postgres:
		db.Now()
	}
}

func testSweepJobLifeCycle(t *testing.T, db Store) {
	ctx := context.Background()
	job := func(id string) *sweep.Job {
		return &sweep.Job{ID: id, ScenarioID: "scenario0000000000000", Scenario: []byte(`{"ubbconfig":"x"}`),
			Spec: sweep.Spec{Vary: []string{"rate_scale=1,2"}, Replications: 2}, Total: 2, RunsTotal: 4}
	}
	for _, id := range []string{"job-a", "job-b"} {
		if err := db.CreateSweep(ctx, job(id)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Sweep(ctx, "job-a")
	if err != nil || got.Status != sweep.Queued || got.Spec.Replications != 2 || got.Spec.Vary[0] != "rate_scale=1,2" ||
		string(got.Scenario) != `{"ubbconfig":"x"}` {
		t.Fatalf("stored job: %+v, %v", got, err)
	}
	a, err := db.ClaimSweep(ctx, "server1", time.Minute)
	if err != nil || a.ID != "job-a" || a.Status != sweep.Running || a.Owner != "server1" {
		t.Fatalf("first claim: %+v, %v; want job-a running for server1", a, err)
	}
	b, err := db.ClaimSweep(ctx, "server2", 5*time.Second)
	if err != nil || b.ID != "job-b" {
		t.Fatalf("second claim: %+v, %v; want job-b (job-a is leased)", b, err)
	}
	if _, err := db.ClaimSweep(ctx, "server3", time.Minute); core.ErrorCode(err) != core.ENOTFOUND {
		t.Fatalf("third claim: %v, want not found (both leased)", err)
	}
	if err := db.SaveSweepPoint(ctx, "job-a", "server1", 0, []byte(`{"index":0}`), 2, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveSweepPoint(ctx, "job-a", "server2", 1, []byte(`{"index":1}`), 4, time.Minute); core.ErrorCode(err) != core.ECONFLICT {
		t.Errorf("save by a server that does not hold the job: %v, want conflict", err)
	}
	// job-b's lease (5 s) runs out after a few ticks: server3 takes it over
	// with its points.
	if err := db.SaveSweepPoint(ctx, "job-b", "server2", 1, []byte(`{"index":1}`), 2, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		tick(db)
	}
	b2, err := db.ClaimSweep(ctx, "server3", time.Minute)
	if err != nil || b2.ID != "job-b" || b2.Owner != "server3" || len(b2.Points) != 1 || b2.RunsDone != 2 {
		t.Fatalf("reclaim: %+v, %v; want job-b for server3 with its point", b2, err)
	}
	if err := db.RenewSweep(ctx, "job-b", "server2", time.Minute); core.ErrorCode(err) != core.ECONFLICT {
		t.Errorf("renew by the old owner: %v, want conflict", err)
	}
	c, err := db.CancelSweep(ctx, "job-a")
	if err != nil || c.Status != sweep.Canceled || len(c.Points) != 1 {
		t.Fatalf("cancel: %+v, %v", c, err)
	}
	if err := db.RenewSweep(ctx, "job-a", "server1", time.Minute); core.ErrorCode(err) != core.ECONFLICT {
		t.Errorf("renew of a canceled job: %v, want conflict", err)
	}
	if err := db.FinishSweep(ctx, "job-b", "server3", sweep.Done, []byte("{}\n"), 4, ""); err != nil {
		t.Fatal(err)
	}
	done, err := db.Sweep(ctx, "job-b")
	if err != nil || done.Status != sweep.Done || string(done.Result) != "{}\n" || done.RunsDone != 4 || done.Owner != "" {
		t.Errorf("finished job: %+v, %v", done, err)
	}
	if again, err := db.CancelSweep(ctx, "job-b"); err != nil || again.Status != sweep.Done {
		t.Errorf("cancel of a done job: %+v, %v; want it unchanged", again, err)
	}
	if _, err := db.Sweep(ctx, "nope"); core.ErrorCode(err) != core.ENOTFOUND {
		t.Errorf("unknown job: %v", err)
	}
}

// TestSweepClaimsConcurrent: servers claiming at the same time never get
// the same job, and every job is claimed.
func TestSweepClaimsConcurrent(t *testing.T) {
	eachStore(t, func(t *testing.T, db Store) {
		ctx := context.Background()
		const jobs = 12
		for i := range jobs {
			j := &sweep.Job{ID: fmt.Sprintf("job%02d", i), ScenarioID: "scenario0000000000000", Scenario: []byte(`{}`),
				Spec: sweep.Spec{Vary: []string{"rate_scale=1"}}, Total: 1, RunsTotal: 1}
			if err := db.CreateSweep(ctx, j); err != nil {
				t.Fatal(err)
			}
		}
		var mu sync.Mutex
		claimed := map[string]int{}
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					j, err := db.ClaimSweep(ctx, fmt.Sprintf("server%d", w), time.Hour)
					if core.ErrorCode(err) == core.ENOTFOUND {
						return
					}
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					claimed[j.ID]++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(claimed) != jobs {
			t.Errorf("claimed %d jobs, want %d", len(claimed), jobs)
		}
		for id, n := range claimed {
			if n != 1 {
				t.Errorf("job %s claimed %d times", id, n)
			}
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

// TestSweepLateWritesRefused: a server whose lease ran out has lost the
// job: its point, renewal and finish are refused (ECONFLICT), before
// another server claims the job and after, and nothing it sends is stored;
// the point the new owner stores is stored once even when sent twice. The
// test clock ticks one second per call.
func TestSweepLateWritesRefused(t *testing.T) {
	eachStore(t, func(t *testing.T, db Store) {
		ctx := context.Background()
		if err := db.CreateSweep(ctx, sweepJob("job-late", 3)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ClaimSweep(ctx, "slow", 3*time.Second); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveSweepPoint(ctx, "job-late", "slow", 0, []byte(`{"index":0}`), 1, 3*time.Second); err != nil {
			t.Fatalf("save within the lease: %v", err)
		}
		for range 4 {
			tick(db) // past the lease; nobody has claimed the job yet
		}
		for what, err := range map[string]error{
			"save":   db.SaveSweepPoint(ctx, "job-late", "slow", 1, []byte(`{"index":1,"by":"slow"}`), 2, time.Minute),
			"renew":  db.RenewSweep(ctx, "job-late", "slow", time.Minute),
			"finish": db.FinishSweep(ctx, "job-late", "slow", sweep.Done, []byte("{}"), 3, ""),
		} {
			if core.ErrorCode(err) != core.ECONFLICT {
				t.Errorf("%s after the lease ran out, before another claim: %v, want conflict", what, err)
			}
		}
		j, err := db.ClaimSweep(ctx, "fresh", time.Minute)
		if err != nil || j.ID != "job-late" || j.Owner != "fresh" || j.RunsDone != 1 || len(j.Points) != 1 {
			t.Fatalf("claim after the lease ran out: %+v, %v; want job-late for fresh with point 0", j, err)
		}
		if err := db.SaveSweepPoint(ctx, "job-late", "fresh", 1, []byte(`{"index":1}`), 2, time.Minute); err != nil {
			t.Fatal(err)
		}
		// The new owner sends point 1 again (a retry): still one row, the first.
		if err := db.SaveSweepPoint(ctx, "job-late", "fresh", 1, []byte(`{"index":1,"again":true}`), 2, time.Minute); err != nil {
			t.Fatal(err)
		}
		for what, err := range map[string]error{
			"save":   db.SaveSweepPoint(ctx, "job-late", "slow", 2, []byte(`{"index":2,"by":"slow"}`), 3, time.Minute),
			"renew":  db.RenewSweep(ctx, "job-late", "slow", time.Minute),
			"finish": db.FinishSweep(ctx, "job-late", "slow", sweep.Failed, nil, 3, "late"),
		} {
			if core.ErrorCode(err) != core.ECONFLICT {
				t.Errorf("%s by the old owner after another claimed: %v, want conflict", what, err)
			}
		}
		wantPoints(t, db, "job-late", `{"index":0}`, `{"index":1}`)
		if err := db.FinishSweep(ctx, "job-late", "fresh", sweep.Done, []byte("{}"), 3, ""); err != nil {
			t.Fatal(err)
		}
		if j, _ := db.Sweep(ctx, "job-late"); j.Status != sweep.Done || j.Error != "" {
			t.Errorf("finished job: %+v, want done by the new owner", j)
		}
	})
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

// TestSweepLeaseTwoReplicas: two stores on one database (two replicas),
// with real clocks: the second cannot claim a job the first holds, takes it
// over once the lease has run out, and the first's late writes are refused.
func TestSweepLeaseTwoReplicas(t *testing.T) {
	eachTarget(t, func(t *testing.T, target string) {
		ctx := context.Background()
		a, b := connect(t, target), connect(t, target)
		const lease = 300 * time.Millisecond
		if err := a.CreateSweep(ctx, sweepJob("job-ab", 2)); err != nil {
			t.Fatal(err)
		}
		if j, err := a.ClaimSweep(ctx, "A", lease); err != nil || j.ID != "job-ab" {
			t.Fatalf("A's claim: %+v, %v", j, err)
		}
		if _, err := b.ClaimSweep(ctx, "B", lease); core.ErrorCode(err) != core.ENOTFOUND {
			t.Fatalf("B's claim while A's lease runs: %v, want not found", err)
		}
		if err := a.SaveSweepPoint(ctx, "job-ab", "A", 0, []byte(`{"index":0}`), 1, lease); err != nil {
			t.Fatal(err)
		}
		waitLeaseOver(t, a, "job-ab")
		if err := a.SaveSweepPoint(ctx, "job-ab", "A", 1, []byte(`{"index":1,"by":"A"}`), 2, lease); core.ErrorCode(err) != core.ECONFLICT {
			t.Errorf("A's save after its lease ran out: %v, want conflict", err)
		}
		j, err := b.ClaimSweep(ctx, "B", time.Minute)
		if err != nil || j.ID != "job-ab" || j.Owner != "B" || len(j.Points) != 1 {
			t.Fatalf("B's claim after A's lease ran out: %+v, %v; want job-ab with point 0", j, err)
		}
		if err := a.FinishSweep(ctx, "job-ab", "A", sweep.Done, []byte("{}"), 2, ""); core.ErrorCode(err) != core.ECONFLICT {
			t.Errorf("A's finish after B took over: %v, want conflict", err)
		}
		if err := b.SaveSweepPoint(ctx, "job-ab", "B", 1, []byte(`{"index":1}`), 2, time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := b.FinishSweep(ctx, "job-ab", "B", sweep.Done, []byte("{}"), 2, ""); err != nil {
			t.Fatal(err)
		}
		wantPoints(t, a, "job-ab", `{"index":0}`, `{"index":1}`)
	})
}

// TestSweepClaimsTwoReplicas: two stores on one database claiming at the
// same time never get the same job, and every job is claimed.
func TestSweepClaimsTwoReplicas(t *testing.T) {
	eachTarget(t, func(t *testing.T, target string) {
		ctx := context.Background()
		stores := []Store{connect(t, target), connect(t, target)}
		const jobs = 16
		for i := range jobs {
			if err := stores[0].CreateSweep(ctx, sweepJob(fmt.Sprintf("job%02d", i), 1)); err != nil {
				t.Fatal(err)
			}
		}
		var mu sync.Mutex
		claimed := map[string][]string{}
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				st, owner := stores[w%2], fmt.Sprintf("replica%d-worker%d", w%2, w)
				for {
					j, err := st.ClaimSweep(ctx, owner, time.Hour)
					if core.ErrorCode(err) == core.ENOTFOUND {
						return
					}
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					claimed[j.ID] = append(claimed[j.ID], owner)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(claimed) != jobs {
			t.Errorf("claimed %d jobs, want %d", len(claimed), jobs)
		}
		for id, by := range claimed {
			if len(by) != 1 {
				t.Errorf("job %s claimed %d times (by %v), want once", id, len(by), by)
			}
		}
	})
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
