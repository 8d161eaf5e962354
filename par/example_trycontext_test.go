package par_test

import (
	"context"
	"fmt"
	"time"

	"github.com/gopar-dev/gopar/par"
)

// fetch stands for a request that honours its context.
func fetch(ctx context.Context, name string) (int, error) {
	if name == "missing" {
		return 0, fmt.Errorf("fetch %s: not found", name)
	}
	select {
	case <-time.After(10 * time.Millisecond):
		return len(name), nil
	case <-ctx.Done():
		return 0, ctx.Err() // provoked by the failure: never returned in its place
	}
}

// errgroup.WithContext with SetLimit(4), in one call: the first error
// cancels the context of the calls still running, and is what comes back.
func ExampleIter_TryForEachContext() {
	names := []string{"alpha", "beta", "missing", "delta", "epsilon", "zeta"}
	err := par.Slice(names).Blocking(4).TryForEachContext(func(ctx context.Context, name string) error {
		_, err := fetch(ctx, name)
		return err
	})
	fmt.Println(err)
	// Output: fetch missing: not found
}

// Results in source order; the calls get a context cancelled at the first
// failure.
func ExampleTryMapContext() {
	sizes, err := par.TryMapContext(par.Slice([]string{"a", "bb", "ccc"}).Blocking(3), fetch)
	fmt.Println(sizes, err)
	_, err = par.TryMapContext(par.Slice([]string{"a", "missing", "ccc"}).Blocking(3), fetch)
	fmt.Println(err)
	// Output:
	// [1 2 3] <nil>
	// fetch missing: not found
}
