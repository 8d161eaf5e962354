package par_test

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/par"
)

// taskTree returns a task that starts a task for each of its fanout children
// down to depth, counting each node's runs in runs (indexed by node
// number, the children of node k being k*fanout+1 ... k*fanout+fanout),
// and the most tasks that ran at once in peak.
func taskTree(runs []atomic.Int32, fanout, depth int, running, peak *atomic.Int64) func(k, d int) func(context.Context, *par.TryGroup) error {
	var node func(k, d int) func(context.Context, *par.TryGroup) error
	node = func(k, d int) func(context.Context, *par.TryGroup) error {
		return func(ctx context.Context, g *par.TryGroup) error {
			r := running.Add(1)
			defer running.Add(-1)
			for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
			}
			runs[k].Add(1)
			if d < depth {
				for c := 1; c <= fanout; c++ {
					g.Go(node(k*fanout+c, d+1))
				}
			}
			return nil
		}
	}
	return node
}

// TestTryScopeRunsEveryTaskOnce: a tree of tasks that start tasks runs
// every node exactly once, never more than the limit at once, with limits
// of 1 (which an errgroup whose Go waits for a slot cannot do without
// deadlock), 2 and 16.
func TestTryScopeRunsEveryTaskOnce(t *testing.T) {
	const fanout, depth = 3, 7 // 3280 nodes
	nodes := 0
	for d, w := 0, 1; d <= depth; d, w = d+1, w*fanout {
		nodes += w
	}
	for _, limit := range []int{1, 2, 16} {
		runs := make([]atomic.Int32, nodes)
		var running, peak atomic.Int64
		node := taskTree(runs, fanout, depth, &running, &peak)
		err := par.TryScope(context.Background(), limit, func(ctx context.Context, g *par.TryGroup) error {
			g.Go(node(0, 0))
			return nil
		})
		if err != nil {
			t.Fatalf("limit %d: TryScope = %v", limit, err)
		}
		for k := range runs {
			if c := runs[k].Load(); c != 1 {
				t.Fatalf("limit %d: node %d ran %d times", limit, k, c)
			}
		}
		if p := peak.Load(); p > int64(limit) {
			t.Fatalf("limit %d: %d tasks ran at once", limit, p)
		}
		if r := running.Load(); r != 0 {
			t.Fatalf("limit %d: %d tasks still running after TryScope returned", limit, r)
		}
	}
}

// TestTryScopeFirstFailure: the first error cancels the tasks' context with
// it as the cause, no waiting task starts after it, and TryScope returns
// it, not the context.Canceled errors it provoked in the running tasks.
func TestTryScopeFirstFailure(t *testing.T) {
	boom := errors.New("boom")
	var afterFailure atomic.Int64
	err := par.TryScope(context.Background(), 4, func(ctx context.Context, g *par.TryGroup) error {
		for i := range 1000 {
			g.Go(func(ctx context.Context, g *par.TryGroup) error {
				// Counted from the cancellation, which follows the failing
				// task's return: the other goroutines may start any number
				// of tasks between its decision to fail and its return.
				if ctx.Err() != nil {
					afterFailure.Add(1)
				}
				if i == 500 {
					return boom
				}
				return ctx.Err() // an error the failure provokes
			})
		}
		return nil
	})
	if err != boom {
		t.Fatalf("TryScope = %v, want boom", err)
	}
	// Once the context is cancelled, a task starts only if a goroutine had
	// taken it from the queue before: at most one per goroutine.
	if a := afterFailure.Load(); a > 4 {
		t.Fatalf("%d tasks started after the failure", a)
	}
}

// TestTryScopeContext: a parent context cancelled while tasks wait makes
// TryScope return its cause, with the waiting tasks dropped; cancelled
// during the last task, nothing is left out and TryScope returns nil; an
// error of body is returned like a task's.
func TestTryScopeContext(t *testing.T) {
	cause := errors.New("the cause")
	ctx, cancel := context.WithCancelCause(context.Background())
	var ran atomic.Int64
	err := par.TryScope(ctx, 1, func(ctx context.Context, g *par.TryGroup) error {
		for i := range 100 {
			g.Go(func(context.Context, *par.TryGroup) error {
				if ran.Add(1) == 10 {
					cancel(cause)
				}
				_ = i
				return nil
			})
		}
		return nil
	})
	if err != cause || ran.Load() >= 100 {
		t.Fatalf("TryScope = %v with %d of 100 tasks run, want the cause with tasks left out", err, ran.Load())
	}

	ctx, cancel = context.WithCancelCause(context.Background())
	err = par.TryScope(ctx, 2, func(ctx context.Context, g *par.TryGroup) error {
		g.Go(func(context.Context, *par.TryGroup) error { cancel(cause); return nil })
		return nil
	})
	if err != nil {
		t.Fatalf("TryScope cancelled during its last task = %v, want nil", err)
	}

	boom := errors.New("boom")
	if err := par.TryScope(context.Background(), 2, func(context.Context, *par.TryGroup) error { return boom }); err != boom {
		t.Fatalf("TryScope whose body fails = %v, want boom", err)
	}
}

// TestTryScopePanicAndGoexit: a panic in a task is re-raised as a
// *par.Panic once the other running tasks have returned, and a
// runtime.Goexit in a task ends the caller's goroutine.
func TestTryScopePanicAndGoexit(t *testing.T) {
	var running, started atomic.Int64
	// Which tasks take the 4 slots first depends on scheduling; whichever
	// starts fourth panics while the other three wait for the cancellation
	// that the panic brings, and the tasks still queued are dropped.
	mustPanicWith(t, "the fourth task", func() {
		par.TryScope(context.Background(), 4, func(ctx context.Context, g *par.TryGroup) error {
			for range 20 {
				g.Go(func(ctx context.Context, _ *par.TryGroup) error {
					running.Add(1)
					defer running.Add(-1)
					if started.Add(1) == 4 {
						panic("the fourth task")
					}
					<-ctx.Done()
					return nil
				})
			}
			return nil
		})
	})
	if r := running.Load(); r != 0 {
		t.Fatalf("%d tasks still running after the panic was re-raised", r)
	}
	if s := started.Load(); s != 4 {
		t.Fatalf("%d tasks started, want the 4 that held the slots when the panic came (the rest dropped)", s)
	}
	ended := make(chan bool)
	go func() {
		returned := false
		defer func() { ended <- returned }()
		par.TryScope(context.Background(), 2, func(ctx context.Context, g *par.TryGroup) error {
			g.Go(func(context.Context, *par.TryGroup) error { runtime.Goexit(); return nil })
			return nil
		})
		returned = true
	}()
	if <-ended {
		t.Fatal("TryScope returned after a task's runtime.Goexit")
	}
}

// TestTryScopeBadInput: nil functions, a nil context, a limit below 1 and
// a Go after the scope ended panic with a message that says so.
func TestTryScopeBadInput(t *testing.T) {
	ok := func(context.Context, *par.TryGroup) error { return nil }
	mustPanicWith(t, "nil function", func() { par.TryScope(context.Background(), 1, nil) })
	mustPanicWith(t, "nil context", func() { par.TryScope(nil, 1, ok) }) //nolint:staticcheck // the test
	mustPanicWith(t, "at least 1", func() { par.TryScope(context.Background(), 0, ok) })
	mustPanicWith(t, "nil function", func() {
		par.TryScope(context.Background(), 1, func(ctx context.Context, g *par.TryGroup) error { g.Go(nil); return nil })
	})
	var kept *par.TryGroup
	par.TryScope(context.Background(), 1, func(ctx context.Context, g *par.TryGroup) error { kept = g; return nil })
	mustPanicWith(t, "after its TryScope ended", func() { kept.Go(ok) })
}
