package par_test

import (
	"context"
	"fmt"
	"maps"
	goruntime "runtime"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// TestCountManyKeys: counts with more keys than the goroutines keep in maps
// of their own (counts.go) equal the loop's, on 2 and 8 workers and every
// source, Unordered, and in index order under a context, where every run
// keeps a map of its own. (Under the gopar_small tag, every count of the
// tests goes through the shared counts.)
func TestCountManyKeys(t *testing.T) {
	n := 400_000 / race.Scale
	xs, key := keyedItems(n, 1<<40, uint64(n))
	want := countModel(xs, key)
	wantItems := countModel(xs, func(x int) int { return x })
	for _, p := range scanPools()[1:] {
		if p.Workers() == 3 {
			continue
		}
		for _, src := range keyedSources {
			for _, how := range []string{"", ".Unordered()", ".WithContext(ctx)"} {
				what := fmt.Sprintf("%s%s on %d workers", src.name, how, p.Workers())
				it := src.make(p, xs)
				switch how {
				case ".Unordered()":
					it = it.Unordered()
				case ".WithContext(ctx)":
					it = it.WithContext(context.Background())
				}
				if got := par.CountBy(it, key); !maps.Equal(got, want) {
					t.Errorf("%s: CountBy gave %d keys, the loop %d, and they differ", what, len(got), len(want))
				}
				if src.name == "Filter" || how != "" {
					continue // Filter's items are not xs
				}
				if got := par.Counts(it); !maps.Equal(got, wantItems) {
					t.Errorf("%s: Counts gave %d items, the loop %d, and they differ", what, len(got), len(wantItems))
				}
			}
		}
	}
}

// TestCountHoldsOneMap: a count over many keys allocates about as much on
// eight workers as on one, not a map per worker.
func TestCountHoldsOneMap(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector's shadow memory counts as allocation")
	}
	const n, keys = 4_000_000, 2_000_000
	xs, key := keyedItems(n, 1<<40, keys)
	want := countModel(xs, key)
	allocated := func(workers int) uint64 {
		p, err := par.NewPool(workers)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		got := par.CountBy(par.Slice(xs).WithPool(p), key)
		goruntime.ReadMemStats(&after)
		if !maps.Equal(got, want) {
			t.Fatalf("CountBy on %d workers gave %d keys, the loop %d, and they differ", workers, len(got), len(want))
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	one, eight := allocated(1), allocated(8)
	if eight > one*5/4 {
		t.Errorf("CountBy of %d keys allocated %d MB on 8 workers, %d MB on 1: more than 1.25x", keys, eight>>20, one>>20)
	}
}
