package par_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

func TestWithContextAlreadyDoneRunsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var calls atomic.Int64
	it := par.Range(0, 1<<20).WithContext(ctx)
	err := it.TryForEach(func(int) error { calls.Add(1); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("TryForEach on a done context returned %v, want context.Canceled", err)
	}
	it.ForEach(func(int) { calls.Add(1) })
	if n := calls.Load(); n != 0 {
		t.Fatalf("%d calls on a done context, want 0", n)
	}
	if s := par.Range(1, 100).WithContext(ctx).Sum(); s != 0 {
		t.Fatalf("Sum on a done context = %d, want 0 (no item ran)", s)
	}
}

// TestWithContextStopsPromptly cancels from inside an item, with a cause,
// on pools of one and several workers: the loop must return the cause and
// skip most of the range.
func TestWithContextStopsPromptly(t *testing.T) {
	const n = 1 << 22
	for _, workers := range []int{1, 4} {
		pool, err := runtime.New(workers)
		if err != nil {
			t.Fatal(err)
		}
		cause := errors.New("user pressed stop")
		ctx, cancel := context.WithCancelCause(context.Background())
		var calls atomic.Int64
		err = par.Range(0, n).WithPool(pool).WithContext(ctx).TryForEach(func(i int) error {
			if calls.Add(1) == n/16 {
				cancel(cause)
			}
			return nil
		})
		pool.Close()
		if !errors.Is(err, cause) {
			t.Fatalf("workers=%d: TryForEach returned %v, want the cause %v", workers, err, cause)
		}
		// Blocks already taken finish; everything else is skipped.
		if c := calls.Load(); c < n/16 || c > n/2 {
			t.Fatalf("workers=%d: %d of %d items ran after a cancel at item %d", workers, c, n, n/16)
		}
	}
}

func TestWithContextErrorBeforeCancelWins(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	boom := errors.New("boom")
	err := par.Range(0, 1<<16).WithContext(ctx).TryForEach(func(i int) error {
		if i == 100 {
			cancel()
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("TryForEach returned %v, want the item's error", err)
	}
}

func TestWithContextNotCancelledRunsAll(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 1 << 20
	var calls atomic.Int64
	err := par.Range(0, n).Filter(func(i int) bool { return i%3 == 0 }).WithContext(ctx).TryForEach(func(int) error {
		calls.Add(1)
		return nil
	})
	if err != nil || calls.Load() != (n+2)/3 {
		t.Fatalf("TryForEach = %v after %d calls, want nil after %d", err, calls.Load(), (n+2)/3)
	}
	if got, want := par.Numbers([]int{1, 2, 3}).WithContext(ctx).Sum(), 6; got != want {
		t.Fatalf("Sum = %d, want %d", got, want)
	}
}

func TestWithContextNilPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("WithContext(nil) did not panic")
		}
	}()
	var ctx context.Context // nil
	par.Range(0, 1).WithContext(ctx)
}
