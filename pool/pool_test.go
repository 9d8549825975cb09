package pool

import (
	"bytes"
	"context"
	"errors"
	"os"
	"sync/atomic"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/sweep"
)

func TestRunEveryIndexOnce(t *testing.T) {
	for _, workers := range []int{1, 2, 7} {
		seen := make([]int, 50)
		err := Run(context.Background(), workers, 50, func(i int) bool { return i%10 == 3 },
			func(_ context.Context, i int) (int, error) { return i * i, nil },
			func(i, v int) error {
				if v != i*i {
					t.Errorf("unit %d: got %d", i, v)
				}
				seen[i]++
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		for i, n := range seen {
			want := 1
			if i%10 == 3 {
				want = 0
			}
			if n != want {
				t.Errorf("workers %d: unit %d done %d times, want %d", workers, i, n, want)
			}
		}
	}
}

func TestRunStopsAtFirstError(t *testing.T) {
	boom := errors.New("boom")
	var started atomic.Int64
	err := Run(context.Background(), 1, 100, nil,
		func(_ context.Context, i int) (int, error) {
			started.Add(1)
			if i == 5 {
				return 0, boom
			}
			return i, nil
		}, func(int, int) error { return nil })
	if !errors.Is(err, boom) || started.Load() != 6 {
		t.Errorf("got %v after %d units, want boom after 6", err, started.Load())
	}
}

func example(t testing.TB) *scenario.Scenario {
	t.Helper()
	data, err := os.ReadFile("../examples/mp-netload.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := core.ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func compile(t testing.TB, reps int) *sweep.Sweep {
	t.Helper()
	s, err := sweep.Compile(example(t), sweep.Spec{Vary: []string{"rate_scale=0.5,0.75,1", "policy=tuxedo,jsq"},
		Replications: reps, Objective: "response_p99_ms<=100"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSweepResumed: a sweep stopped after its first point and resumed from
// the points it had gives the same bytes as one run straight through.
func TestSweepResumed(t *testing.T) {
	s := compile(t, 2)
	full, err := Sweep(context.Background(), s, SweepOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var kept []*sweep.Point
	partial, err := Sweep(ctx, s, SweepOptions{Workers: 1, OnPoint: func(p *sweep.Point, done int) error {
		kept = append(kept, p)
		cancel()
		return nil
	}})
	if !errors.Is(err, context.Canceled) || len(partial.Points) != 1 || len(kept) != 1 {
		t.Fatalf("stopped sweep: %v with %d points, want canceled with 1", err, len(partial.Points))
	}
	var runs atomic.Int64
	resumed, err := Sweep(context.Background(), s, SweepOptions{Workers: 2, Restored: kept,
		Progress: func(done, total int) { runs.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := runs.Load(), int64(s.Units()-s.Reps); got != want {
		t.Errorf("resumed sweep ran %d units, want %d (the restored point's are skipped)", got, want)
	}
	if a, b := sweep.Encode(full), sweep.Encode(resumed); !bytes.Equal(a, b) {
		t.Errorf("resumed sweep differs from one run straight through:\n%s\n---\n%s", b, a)
	}
}

// BenchmarkSweepWorkers runs the same sweep on 1 and 2 workers, with the
// collector tuned as the tuxlb binary has it (TuneGC); on a 2-core machine
// the second should take little more than half the time of the first.
func BenchmarkSweepWorkers(b *testing.B) {
	TuneGC() // as the tuxlb binary runs
	s := compile(b, 4)
	for _, workers := range []int{1, 2} {
		b.Run(map[int]string{1: "workers=1", 2: "workers=2"}[workers], func(b *testing.B) {
			for b.Loop() {
				if _, err := Sweep(context.Background(), s, SweepOptions{Workers: workers}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
