// Package pool runs core's independent work units — a sweep's point
// replications, a comparison's variants, a scenario's replications — on a
// fixed number of goroutines. core stays free of goroutines; what it computes
// does not depend on the number of workers, because every unit is a pure
// function of its index and results are reduced by index, never by arrival.
package pool

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/sweep"
)

// Workers returns n when it is > 0, else the number of CPUs.
func Workers(n int) int {
	if n > 0 {
		return n
	}
	return runtime.NumCPU()
}

// Run calls work(ctx, i) for every i in 0..n-1 for which skip (when not nil)
// is false, on Workers(workers) goroutines, handing out indexes in order.
// done is called with each result, one call at a time, in completion order.
// The first error (of work or done) stops the hand-out, cancels the context
// the other units see, and is returned once every started unit has ended;
// so is the context's error when ctx ends first.
func Run[T any](ctx context.Context, workers, n int, skip func(int) bool,
	work func(context.Context, int) (T, error), done func(int, T) error) error {
	if ctx == nil {
		ctx = context.Background()
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	fail := func(err error) {
		if first == nil {
			first = err
			cancel()
		}
	}
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		for next < n && skip != nil && skip(next) {
			next++
		}
		if next >= n || first != nil || ctx.Err() != nil {
			return 0, false
		}
		next++
		return next - 1, true
	}
	w := min(Workers(workers), max(n, 1))
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := take()
				if !ok {
					return
				}
				v, err := work(ctx, i)
				mu.Lock()
				if err == nil && first == nil {
					err = done(i, v)
				}
				if err != nil {
					fail(err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := parent.Err(); err != nil {
		return err
	}
	return first
}

// SweepOptions are the knobs of running a sweep.
type SweepOptions struct {
	Workers     int   // goroutines; 0: the number of CPUs
	MaxRequests int64 // per run; 0: core's default
	// Restored are points finished before (a resumed job): their units are
	// not run again.
	Restored []*sweep.Point
	// Progress, when set, is called after every unit with the units done
	// and the total.
	Progress func(done, total int)
	// OnPoint, when set, is called as each point completes (with the units
	// done so far); an error from it stops the sweep.
	OnPoint func(p *sweep.Point, done int) error
	// MaxRunTime, when > 0, bounds each run (unit): one that passes it
	// stops the sweep with an error naming its point and replication.
	MaxRunTime time.Duration
}

// Sweep runs the sweep's units and returns its result: complete, or, when
// ctx ends or a unit fails, the points finished so far together with the error.
func Sweep(ctx context.Context, s *sweep.Sweep, opt SweepOptions) (*sweep.Result, error) {
	r := s.NewReducer()
	for _, p := range opt.Restored {
		if err := r.Restore(p); err != nil {
			return nil, err
		}
	}
	err := rounds(ctx, s, r, nil, opt)
	return r.Result(), err
}

// SweepPoints runs every unit of the sweep's points (the points a server
// claimed), in rounds as Sweep does: with a precision, a point's next batch
// is decided by its batches done, with the same seeds as anywhere else.
// opt.OnPoint is called as each point completes; opt.Workers,
// opt.MaxRequests and opt.MaxRunTime are used.
func SweepPoints(ctx context.Context, s *sweep.Sweep, points []int, opt SweepOptions) error {
	mine := make(map[int]bool, len(points))
	for _, p := range points {
		mine[p] = true
	}
	return rounds(ctx, s, s.NewReducer(), func(p int) bool { return mine[p] }, opt)
}

// rounds runs the units the reducer asks for (of the points keep keeps;
// nil: all), then those it asks for once they are in (with a precision,
// the next batches of the points not yet precise), so what runs depends
// only on completed batches, never on timing.
func rounds(ctx context.Context, s *sweep.Sweep, r *sweep.Reducer, keep func(point int) bool, opt SweepOptions) error {
	pending := func() []int {
		order := r.Pending()
		if keep == nil {
			return order
		}
		return slices.DeleteFunc(order, func(u int) bool { p, _ := s.Unit(u); return !keep(p) })
	}
	var err error
	for order := pending(); len(order) > 0 && err == nil; order = pending() {
		err = Run(ctx, opt.Workers, len(order), nil,
			func(ctx context.Context, k int) (*sweep.Sample, error) {
				runCtx, cancel := withRunTime(ctx, opt.MaxRunTime)
				defer cancel()
				smp, err := s.RunUnit(order[k], core.RunOptions{Context: runCtx, MaxRequests: opt.MaxRequests})
				if err != nil && ctx.Err() == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) {
					p, rep := s.Unit(order[k])
					return nil, runTooLong("point %d, replication %d: the run did not finish within %s", p+1, rep+1, opt.MaxRunTime)
				}
				return smp, err
			},
			func(k int, smp *sweep.Sample) error {
				pt, err := r.Add(order[k], smp)
				if err != nil {
					return err
				}
				if opt.Progress != nil {
					opt.Progress(r.Done(), s.Units())
				}
				if pt != nil && opt.OnPoint != nil {
					return opt.OnPoint(pt, r.Done())
				}
				return nil
			})
	}
	return err
}

// withRunTime is ctx bounded by limit when limit > 0.
func withRunTime(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	if limit <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, limit)
}

// Compare runs the scenario under each variant (on the identical request
// stream) on the pool and puts the results side by side, as sweep.Compare does.
// runTime, when > 0, bounds each variant's run: one that passes it stops
// the comparison with an error naming it.
func Compare(ctx context.Context, sc *scenario.Scenario, variants []sweep.Variant, opt core.RunOptions, workers int, runTime time.Duration) (*sweep.Comparison, []*result.Result, error) {
	scs := make([]*scenario.Scenario, len(variants))
	names := make([]string, len(variants))
	for i, v := range variants {
		vsc, err := sweep.ApplyVariant(sc, v)
		if err != nil {
			return nil, nil, err
		}
		scs[i], names[i] = vsc, v.Name
	}
	results := make([]*result.Result, len(variants))
	err := Run(ctx, workers, len(variants), nil,
		func(ctx context.Context, i int) (*result.Result, error) {
			runCtx, cancel := withRunTime(ctx, runTime)
			defer cancel()
			o := opt
			o.Context = runCtx
			r, err := core.Run(scs[i], o)
			if err != nil && ctx.Err() == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) {
				return nil, runTooLong("variant %s: the run did not finish within %s", quote(variants[i].Name), runTime)
			}
			if err != nil {
				return nil, &diag.Error{Code: diag.ErrorCode(err), Message: "variant " + quote(variants[i].Name) + ": " + err.Error()}
			}
			return r, nil
		},
		func(i int, r *result.Result) error { results[i] = r; return nil })
	if err != nil {
		return nil, nil, err
	}
	return sweep.CompareResults(names, results), results, nil
}

// Replications runs the plan's replications on the pool and combines them,
// as Plan.Run does one after another: every replication runs the one plan,
// reseeded.
func Replications(ctx context.Context, plan *core.Plan, opt core.RunOptions, workers int) (*result.Result, error) {
	k := plan.Replications()
	results := make([]*result.Result, k)
	err := Run(ctx, workers, k, nil,
		func(ctx context.Context, i int) (*result.Result, error) {
			o := opt
			o.Context = ctx
			if i > 0 {
				o.Progress = nil
			}
			r, err := plan.RunReplication(i, o)
			if err == nil && i > 0 {
				r = result.ReplicationSummary(r) // what CombineReplications reads of it
			}
			return r, err
		},
		func(i int, r *result.Result) error { results[i] = r; return nil })
	if err != nil {
		return nil, err
	}
	return result.CombineReplications(results), nil
}

func quote(s string) string { return "\"" + s + "\"" }

// SweepUnits runs the given units of the sweep (a shard's, or the points a
// server claimed) and returns their samples, samples[k] for units[k].
// opt.Workers, opt.MaxRequests, opt.Progress (units done of len(units)),
// opt.MaxRunTime and opt.OnPoint (called as each point whose every
// replication is among the units completes) are used.
func SweepUnits(ctx context.Context, s *sweep.Sweep, units []int, opt SweepOptions) ([]*sweep.Sample, error) {
	out := make([]*sweep.Sample, len(units))
	done := 0
	var r *sweep.Reducer
	if opt.OnPoint != nil {
		r = s.NewReducer()
	}
	err := Run(ctx, opt.Workers, len(units), nil,
		func(ctx context.Context, k int) (*sweep.Sample, error) {
			runCtx, cancel := withRunTime(ctx, opt.MaxRunTime)
			defer cancel()
			smp, err := s.RunUnit(units[k], core.RunOptions{Context: runCtx, MaxRequests: opt.MaxRequests})
			if err != nil && ctx.Err() == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) {
				p, rep := s.Unit(units[k])
				return nil, runTooLong("point %d, replication %d: the run did not finish within %s", p+1, rep+1, opt.MaxRunTime)
			}
			return smp, err
		},
		func(k int, smp *sweep.Sample) error {
			out[k] = smp
			done++
			if opt.Progress != nil {
				opt.Progress(done, len(units))
			}
			if r != nil {
				pt, err := r.Add(units[k], smp)
				if err != nil || pt == nil {
					return err
				}
				return opt.OnPoint(pt, done)
			}
			return nil
		})
	return out, err
}

// runTooLong is the error of a point's or variant's run that did not finish
// within its time: too_large, naming the limit it passed (diag.LimitRunTime)
// so that callers can name their own flag.
func runTooLong(format string, args ...any) error {
	e := diag.Errorf(diag.ETOOLARGE, format, args...)
	e.Limit = diag.LimitRunTime
	return e
}
