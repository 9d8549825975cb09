package storage

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core"
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
	job := func(id string) *core.SweepJob {
		return &core.SweepJob{ID: id, ScenarioID: "scenario0000000000000", Scenario: []byte(`{"ubbconfig":"x"}`),
			Spec: core.SweepSpec{Vary: []string{"rate_scale=1,2"}, Replications: 2}, Total: 2, RunsTotal: 4}
	}
	for _, id := range []string{"job-a", "job-b"} {
		if err := db.CreateSweep(ctx, job(id)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Sweep(ctx, "job-a")
	if err != nil || got.Status != core.SweepQueued || got.Spec.Replications != 2 || got.Spec.Vary[0] != "rate_scale=1,2" ||
		string(got.Scenario) != `{"ubbconfig":"x"}` {
		t.Fatalf("stored job: %+v, %v", got, err)
	}
	a, err := db.ClaimSweep(ctx, "server1", time.Minute)
	if err != nil || a.ID != "job-a" || a.Status != core.SweepRunning || a.Owner != "server1" {
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
	if err != nil || c.Status != core.SweepCanceled || len(c.Points) != 1 {
		t.Fatalf("cancel: %+v, %v", c, err)
	}
	if err := db.RenewSweep(ctx, "job-a", "server1", time.Minute); core.ErrorCode(err) != core.ECONFLICT {
		t.Errorf("renew of a canceled job: %v, want conflict", err)
	}
	if err := db.FinishSweep(ctx, "job-b", "server3", core.SweepDone, []byte("{}\n"), 4, ""); err != nil {
		t.Fatal(err)
	}
	done, err := db.Sweep(ctx, "job-b")
	if err != nil || done.Status != core.SweepDone || string(done.Result) != "{}\n" || done.RunsDone != 4 || done.Owner != "" {
		t.Errorf("finished job: %+v, %v", done, err)
	}
	if again, err := db.CancelSweep(ctx, "job-b"); err != nil || again.Status != core.SweepDone {
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
			j := &core.SweepJob{ID: fmt.Sprintf("job%02d", i), ScenarioID: "scenario0000000000000", Scenario: []byte(`{}`),
				Spec: core.SweepSpec{Vary: []string{"rate_scale=1"}}, Total: 1, RunsTotal: 1}
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
