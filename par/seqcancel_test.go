package par_test

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// TestContextDoneWhileAStreamOpens: a context cancelled by the steps
// before a Skip of a stream (their pump runs while the operation over the
// Skip opens its source) stops the operation with no result and no panic
// of gopar's own, however the cancellation falls between the source's
// opening and the driver's look at the context.
func TestContextDoneWhileAStreamOpens(t *testing.T) {
	pool, err := par.NewPool(32)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for range 3000 / race.Scale {
		ctx, cancel := context.WithCancel(context.Background())
		func() {
			defer func() {
				if v := recover(); v != nil {
					t.Fatalf("the operation panicked: %v\n%s", v, debug.Stack())
				}
			}()
			it := par.Map(par.FromSeq(func(yield func(int) bool) { yield(1) }).WithContext(ctx).Skip(0),
				func(x int) int { cancel(); return x }).WithPool(pool).WithBlockSize(1, 5).Skip(1)
			if v, ok := it.Find(func(x int) bool { return x%2 == 0 }); ok {
				t.Fatalf("Find found %d in a stream of no items", v)
			}
		}()
		cancel()
	}
}
