package par_test

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

var errBoom = errors.New("boom")

// sleepCtx waits d, or until ctx is done; it returns ctx.Err() then, as a
// call that honours its context does.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestTryContextReplacesErrgroup is the errgroup.WithContext + SetLimit(16)
// fan-out: 200 calls of 20 ms that honour ctx, 16 in flight, one failing
// at 50 ms. The operation returns within 60 ms of the failure with that
// error, and no call starts after it.
func TestTryContextReplacesErrgroup(t *testing.T) {
	const (
		calls    = 200
		limit    = 16
		callTime = 20 * time.Millisecond
		failAt   = 50 * time.Millisecond
		failing  = 40 // starts at about 40 ms, in the third wave of 16
	)
	var (
		mu          sync.Mutex
		failed      time.Time
		inFlight    atomic.Int32
		maxInFlight atomic.Int32
		lateStarts  atomic.Int32
		started     atomic.Int32
	)
	start := time.Now()
	err := par.Range(0, calls).Blocking(limit).TryForEachContext(func(ctx context.Context, i int) error {
		if ctx.Err() != nil {
			lateStarts.Add(1) // called with the context already cancelled
		}
		started.Add(1)
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := maxInFlight.Load(); n > m && !maxInFlight.CompareAndSwap(m, n); m = maxInFlight.Load() {
		}
		if i == failing {
			if err := sleepCtx(ctx, failAt-time.Since(start)); err != nil {
				return err
			}
			mu.Lock()
			failed = time.Now()
			mu.Unlock()
			return errBoom
		}
		return sleepCtx(ctx, callTime)
	})
	end := time.Now()
	mu.Lock()
	defer mu.Unlock()
	if !errors.Is(err, errBoom) {
		t.Fatalf("TryForEachContext = %v, want %v", err, errBoom)
	}
	after := end.Sub(failed)
	t.Logf("failure at %v, returned %v after it; %d calls started, at most %d in flight",
		failed.Sub(start).Round(time.Millisecond), after.Round(100*time.Microsecond), started.Load(), maxInFlight.Load())
	if after > 60*time.Millisecond {
		t.Errorf("returned %v after the failure, want at most 60 ms", after)
	}
	if lateStarts.Load() != 0 {
		t.Errorf("%d calls started after the failure", lateStarts.Load())
	}
	if maxInFlight.Load() > limit {
		t.Errorf("%d calls in flight, limit %d", maxInFlight.Load(), limit)
	}
	if s := started.Load(); s >= calls {
		t.Errorf("all %d calls started", s)
	}
}

// TestTryContextRealFailureWins: calls at lower indexes that return
// ctx.Err() once the failure cancelled the context do not hide it, in both
// modes and on every pool size, for TryForEachContext and TryMapContext.
// TryMap with a context built by hand returns context.Canceled here.
func TestTryContextRealFailureWins(t *testing.T) {
	const n, failing = 64, 50
	f := func(ctx context.Context, i int) (int, error) {
		if i == failing {
			return 0, errBoom
		}
		// Every other call runs 2 ms, unless the cancellation stops it
		// first: then it returns the error it provoked.
		return 0, sleepCtx(ctx, 2*time.Millisecond)
	}
	// The trap: TryMap with a context built by hand returns the
	// cancellation that the failure provoked at a lower index.
	ctx, cancel := context.WithCancel(context.Background())
	_, err := par.TryMap(par.Range(0, n).Blocking(n), func(i int) (int, error) {
		v, err := f(ctx, i)
		if err != nil && i == failing {
			cancel()
		}
		return v, err
	})
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Errorf("TryMap with a hand-built context = %v; the trap is gone, %v expected", err, context.Canceled)
	}
	for _, workers := range []int{1, 2, 8} {
		p := newPool(t, workers)
		for _, mode := range []struct {
			name string
			it   par.Ints
		}{
			{"pool", par.Range(0, n).WithPool(p)},
			{"Blocking(8)", par.Range(0, n).Blocking(8)},
			{"Blocking(n)", par.Range(0, n).Blocking(n)},
		} {
			what := fmt.Sprintf("%s on %d workers", mode.name, workers)
			out, err := par.TryMapContext(mode.it, f)
			if !errors.Is(err, errBoom) || out != nil {
				t.Errorf("%s: TryMapContext = %v, %v; want nil, %v", what, out, err, errBoom)
			}
			err = mode.it.TryForEachContext(func(ctx context.Context, i int) error { _, err := f(ctx, i); return err })
			if !errors.Is(err, errBoom) {
				t.Errorf("%s: TryForEachContext = %v, want %v", what, err, errBoom)
			}
		}
	}
}

// TestTryContextCause: the callbacks' context is cancelled with the failure
// as its cause, derives from the iterator's context, and is cancelled once
// the operation has returned.
func TestTryContextCause(t *testing.T) {
	// The cause seen by a call still running.
	var seen atomic.Value
	err := par.Range(0, 2).Blocking(2).TryForEachContext(func(ctx context.Context, i int) error {
		if i == 0 {
			<-ctx.Done()
			seen.Store(context.Cause(ctx))
			return ctx.Err()
		}
		return errBoom
	})
	if !errors.Is(err, errBoom) || seen.Load() != errBoom {
		t.Errorf("err %v, cause seen by the other call %v; want %v for both", err, seen.Load(), errBoom)
	}

	// Derived from WithContext: the parent's values and its cancellation.
	type key struct{}
	parentCause := errors.New("parent gone")
	parent, cancel := context.WithCancelCause(context.WithValue(context.Background(), key{}, "v"))
	var kept context.Context
	var once sync.Once
	err = par.Range(0, 1<<20).WithContext(parent).TryForEachContext(func(ctx context.Context, i int) error {
		once.Do(func() { kept = ctx })
		if ctx.Value(key{}) != "v" {
			return errors.New("value of the parent missing")
		}
		if i == 1000 {
			cancel(parentCause)
		}
		return nil
	})
	if err != parentCause {
		t.Errorf("parent cancelled: err %v, want its cause %v", err, parentCause)
	}

	// Cancelled on return, also when nothing failed.
	out, err := par.TryMapContext(par.Range(0, 100), func(ctx context.Context, i int) (int, error) {
		if i == 0 {
			kept = ctx
		}
		return 2 * i, nil
	})
	if err != nil || len(out) != 100 || out[99] != 198 || !slices.IsSorted(out) {
		t.Errorf("TryMapContext without failure = %d results, %v", len(out), err)
	}
	if kept.Err() == nil {
		t.Error("the callbacks' context is not cancelled after the operation returned")
	}

	// An already-done context runs nothing and returns its cause.
	var calls atomic.Int32
	err = par.Range(0, 10).WithContext(parent).TryForEachContext(func(context.Context, int) error { calls.Add(1); return nil })
	if err != parentCause || calls.Load() != 0 {
		t.Errorf("done parent: %d calls, err %v; want none and %v", calls.Load(), err, parentCause)
	}
}

// TestTryContextPanicAndGoexit: a panic cancels the others' context with
// the *Panic as its cause and is re-raised; a Goexit cancels it with
// ErrGoexit and ends the caller's goroutine.
func TestTryContextPanicAndGoexit(t *testing.T) {
	// On the pool, the caller runs item 0 alone first: the failing item
	// must be item 0 there. In Blocking mode item 0 waits for item 1's
	// failure and records the cause it sees; item 1 fails only once item 0
	// has been called, since an item handed out before a failure but not
	// yet called is skipped (its goroutine may be descheduled in between).
	for _, mode := range []struct {
		name    string
		it      par.Ints
		failing int
	}{{"pool", par.Range(0, 2).WithPool(newPool(t, 2)), 0}, {"Blocking(2)", par.Range(0, 2).Blocking(2), 1}} {
		for _, goexit := range []bool{false, true} {
			var cause atomic.Value
			called := make(chan struct{}) // item 0 was called (Blocking mode)
			e := endOf(t, func() {
				mode.it.TryForEachContext(func(ctx context.Context, i int) error {
					if i == 0 && mode.failing == 1 {
						close(called)
					}
					if i == mode.failing {
						if mode.failing == 1 {
							select {
							case <-called:
							case <-time.After(hangLimit):
							}
						}
						if goexit {
							goruntime.Goexit()
						}
						panic("boom")
					}
					select {
					case <-ctx.Done():
						cause.Store(context.Cause(ctx))
					case <-time.After(hangLimit):
					}
					return ctx.Err()
				})
			})
			c, _ := cause.Load().(error)
			what := fmt.Sprintf("%s, Goexit %v", mode.name, goexit)
			if mode.failing == 1 && c == nil {
				t.Errorf("%s: the other call saw no cancellation", what)
			}
			if goexit {
				if !e.Goexited || (c != nil && c != par.ErrGoexit) {
					t.Errorf("%s: %v, cause %v; want Goexit and ErrGoexit", what, e, c)
				}
				continue
			}
			p, ok := e.Panicked.(*runtime.Panic)
			if !ok || p.Value != "boom" {
				t.Errorf("%s: %v, want the panic", what, e)
			}
			if c != nil {
				if cp, ok := c.(*runtime.Panic); !ok || cp.Value != "boom" {
					t.Errorf("%s: cause %v, want the *Panic", what, c)
				}
			}
		}
	}
}

func TestTryContextNilFunc(t *testing.T) {
	mustPanicWith(t, "par.TryForEachContext was given a nil function", func() { par.Range(0, 1).TryForEachContext(nil) })
	mustPanicWith(t, "par.TryMapContext was given a nil function", func() {
		par.TryMapContext[int, int](par.Range(0, 1), nil)
	})
}
