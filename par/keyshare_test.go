package par_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	goruntime "runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// TestCountManyKeys: counts with more keys than the goroutines keep in maps
// of their own (keyshare.go) equal the loop's, on 2 and 8 workers and every
// source, Unordered, and in index order under a context, where every run
// keeps a map of its own. (Under the gopar_small tag, every count of the
// tests goes through the shared maps.)
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

// TestUnorderedManyKeys: ReduceByKey, CollectMap, GroupBy and GroupByKey
// under Unordered, with more keys than the goroutines keep in maps of their
// own (keyshare.go), give the loop's result up to order, on 2 and 8 workers
// and every source, with and without a context.
func TestUnorderedManyKeys(t *testing.T) {
	n := 200_000 / race.Scale
	xs, key := keyedItems(n, 1<<40, uint64(n/2))
	want := groupModel(xs, key)
	kv := func(x int) (int, int) { return key(x), x }
	for _, p := range scanPools()[1:] {
		if p.Workers() == 3 {
			continue
		}
		for _, src := range keyedSources {
			for _, how := range []string{".Unordered()", ".Unordered().WithContext(ctx)"} {
				what := fmt.Sprintf("%s%s on %d workers", src.name, how, p.Workers())
				it := src.make(p, xs).Unordered()
				if how != ".Unordered()" {
					it = it.WithContext(context.Background())
				}
				checkUnorderedKeyed(t, what, want,
					par.ReduceByKey(it, kv, func(a, b int) int { return a + b }),
					par.CollectMap(it, kv), par.GroupBy(it, key), par.GroupByKey(it, kv))
			}
		}
	}
}

// checkUnorderedKeyed checks the results of the four operations of
// TestUnorderedManyKeys against the loop's groups.
func checkUnorderedKeyed(t *testing.T, what string, want map[int][]int, sums, last map[int]int, groups, values map[int][]int) {
	t.Helper()
	if len(sums) != len(want) || len(last) != len(want) || len(groups) != len(want) || len(values) != len(want) {
		t.Errorf("%s: %d, %d, %d and %d keys (ReduceByKey, CollectMap, GroupBy, GroupByKey), the loop %d",
			what, len(sums), len(last), len(groups), len(values), len(want))
		return
	}
	for k, g := range want {
		s := 0
		for _, x := range g {
			s += x
		}
		switch {
		case sums[k] != s:
			t.Errorf("%s: ReduceByKey's sum of key %d is %d, the loop's %d", what, k, sums[k], s)
		case !slices.Contains(g, last[k]):
			t.Errorf("%s: CollectMap gave key %d the value %d, which no item of that key has", what, k, last[k])
		case !sameItems(groups[k], g) || !sameItems(values[k], g):
			t.Errorf("%s: the group of key %d holds other items than the loop's", what, k)
		default:
			continue
		}
		return
	}
}

// sameItems reports whether a and b hold the same items, in any order.
func sameItems(a, b []int) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestCountHoldsOneMap: a count over many keys allocates about as much on
// eight workers as on one, not a map per worker; so does ReduceByKey under
// Unordered.
func TestCountHoldsOneMap(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector's shadow memory counts as allocation")
	}
	const n, keys = 4_000_000, 2_000_000
	xs, key := keyedItems(n, 1<<40, keys)
	want := countModel(xs, key)
	allocated := func(workers int, run func(it par.Iter[int]) map[int]int) uint64 {
		p, err := par.NewPool(workers)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		got := run(par.Slice(xs).WithPool(p))
		goruntime.ReadMemStats(&after)
		if !maps.Equal(got, want) {
			t.Fatalf("on %d workers: %d keys, the loop %d, and they differ", workers, len(got), len(want))
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	for name, run := range map[string]func(it par.Iter[int]) map[int]int{
		"CountBy": func(it par.Iter[int]) map[int]int { return par.CountBy(it, key) },
		"ReduceByKey (Unordered)": func(it par.Iter[int]) map[int]int {
			return par.ReduceByKey(it.Unordered(), func(x int) (int, int) { return key(x), 1 }, func(a, b int) int { return a + b })
		},
	} {
		one, eight := allocated(1, run), allocated(8, run)
		if eight > one*5/4 {
			t.Errorf("%s of %d keys allocated %d MB on 8 workers, %d MB on 1: more than 1.25x", name, keys, eight>>20, one>>20)
		}
	}
}

// TestSharedOpFails: a panic or Goexit in ReduceByKey's op while the
// goroutines share their maps (op runs under a shard's lock, or the one
// map's) ends the operation, and the other goroutines, which go on until
// they see it, do not wait for the lock for ever. (A panic in op while the
// caller joins the goroutines' maps at the end comes as it was raised, not
// as a *Panic.)
func TestSharedOpFails(t *testing.T) {
	n := 800_000 / race.Scale // n/2 keys: past localKeys in the default build too
	for _, workers := range []int{2, 8} {
		p := newPool(t, workers)
		for _, goexit := range []bool{false, true} {
			var calls atomic.Int64
			e := endOf(t, func() {
				par.ReduceByKey(par.Range(0, n).WithPool(p).Unordered(),
					func(i int) (int, int) { return i % (n / 2), i },
					func(a, b int) int {
						if calls.Add(1) == int64(n/4) {
							if goexit {
								goruntime.Goexit()
							}
							panic(keyedBoom{n / 4})
						}
						return a + b
					})
			})
			var pv *par.Panic
			switch err, _ := e.Panicked.(error); {
			case goexit && !e.Goexited:
				t.Errorf("%d workers, Goexit in op: %v, want runtime.Goexit", workers, e)
			case !goexit && e.Panicked != (keyedBoom{n / 4}) && (!errors.As(err, &pv) || pv.Value != (keyedBoom{n / 4})):
				t.Errorf("%d workers, panic in op: %v, want a *par.Panic of keyedBoom{%d}", workers, e, n/4)
			}
		}
		checkWhole(t, p)
	}
}
