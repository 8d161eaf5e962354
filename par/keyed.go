package par

import (
	"github.com/gopar-dev/gopar/internal/pipe"
)

// The keyed operations gather the items of an iterator into a map (or, for
// Distinct, a slice) by key: the reductions a hand-written fan-out does with
// a map per worker and a merge written twice.
//
// The algorithm in a few words: each run of contiguous items that a
// participant folds gets a map of its own, filled with no lock; the maps of
// the runs are then merged, left to right, the smaller into the larger
// where the rule allows. So the merge costs O(keys x runs), runs being
// O(workers + steals), never a lock or an atomic per item. Where the
// result does not depend on the order of the items (counts, and every
// keyed operation under Unordered), each goroutine fills one map for the
// whole operation, and where keys abound the goroutines move their entries
// into maps they share, split by key hash, so that the result is held once
// and not once per goroutine (keyshare.go). Distinct, whose result is a
// slice that any number of goroutines may fill, shards the items by key
// hash where keys abound and deduplicates the shards in parallel.

// keyedFold folds the items of s into accumulators made by init (kept
// apart in memory: pipe.NewApart) and joins them with combine; a nil init
// gives A's zero value, which fold must accept (a pointer that it makes on
// its first item). fold takes a
// slice of consecutive items at a time (pipe.FoldSlices), so that an item
// costs the key function's call and the map's update, as in a loop of
// one's own. The runs are combined in index order, and a done context
// leaves the result of a prefix of the source (see Iter.WithContext),
// unless s is Unordered, or anyOrder says that the result does not depend
// on order and no context can cut the loop short: then each goroutine
// keeps one accumulator for the whole operation (pipe.FoldUnordered), and
// combine joins them in no particular order.
func keyedFold[T, A any](s pipe.Spec[T], anyOrder bool, init func() A, fold func(A, []T) A, combine func(A, A) A) A {
	if init == nil {
		init = func() A {
			var zero A
			return zero
		}
	}
	foldBlock := func(acc A, lo, hi int) A { return pipe.FoldSlices(&s, acc, lo, hi, fold) }
	if s.Unordered || anyOrder && s.Context == nil {
		return pipe.FoldUnordered(s.Config, s.Lo, s.Hi, init, foldBlock, combine)
	}
	return pipe.FoldRuns(s.Config, s.Lo, s.Hi, init, foldBlock, combine)
}

// emptyMap makes the map of a run (keyedFold's init). The operations
// that fold into maps make each run's map with it rather than on the run's
// first item, so that pipe.NewApart sees every map, and no items give an
// empty map, not a nil one, as maps.Collect does.
func emptyMap[K comparable, V any]() map[K]V { return map[K]V{} }

// GroupBy returns the items of it grouped by key: each key k that key gives
// maps to the items x with key(x) == k, in source order. It is the parallel
// form of
//
//	groups := map[K][]T{}
//	for _, x := range xs {
//		k := key(x)
//		groups[k] = append(groups[k], x)
//	}
//
// (ParlayLib's group_by, Java's groupingBy). No items give an empty map,
// not nil. Each participant groups the items it runs into a map of its own;
// the maps are then merged in index order, so a group lists its items as
// the loop does, whatever the workers and the timing. Those maps hold
// their keys once per run, so the memory of a result over many keys grows
// with the workers.
//
// With Unordered, the items of a group come in no particular order, and
// the goroutines share their maps past 256K keys, as CountBy's do: the
// result is held once at any number of workers. A done context
// (WithContext) leaves the groups of a prefix of the source (with
// Unordered, of the items that ran); a panic in key is re-raised as a
// *Panic. A nil key panics at once.
func GroupBy[T any, K comparable](it Iterator[T], key func(T) K) map[K][]T {
	mustFunc(key, "GroupBy")
	s := specOf(it)
	if s.Unordered {
		return shareUnordered(s, grouping[K, T](), func(x T) (K, T) { return key(x), x })
	}
	m := keyedFold(s, false, emptyMap[K, []T],
		func(m map[K][]T, xs []T) map[K][]T {
			for _, x := range xs {
				k := key(x)
				m[k] = append(m[k], x)
			}
			return m
		}, func(a, b map[K][]T) map[K][]T { return joinMaps(a, b, appendGroup[T]) })
	return m
}

// GroupByKey returns the values of the pairs that kv gives for the items of
// it, grouped by key: each key maps to its values in source order. It is
// GroupBy for a value other than the item itself (ParlayLib's
// group_by_key, Java's groupingBy with mapping), the parallel form of
//
//	groups := map[K][]V{}
//	for _, x := range xs {
//		k, v := kv(x)
//		groups[k] = append(groups[k], v)
//	}
//
// Its rules are those of GroupBy.
func GroupByKey[T any, K comparable, V any](it Iterator[T], kv func(T) (K, V)) map[K][]V {
	mustFunc(kv, "GroupByKey")
	s := specOf(it)
	if s.Unordered {
		return shareUnordered(s, grouping[K, V](), kv)
	}
	m := keyedFold(s, false, emptyMap[K, []V],
		func(m map[K][]V, xs []T) map[K][]V {
			for _, x := range xs {
				k, v := kv(x)
				m[k] = append(m[k], v)
			}
			return m
		}, func(a, b map[K][]V) map[K][]V { return joinMaps(a, b, appendGroup[V]) })
	return m
}

// ReduceByKey returns, for each key of the pairs that kv gives for the
// items of it, the values of that key combined with op in source order:
// v1 op v2 op ... op vn, with no identity needed (a key with one value maps
// to it). It is ParlayLib's reduce_by_key (Java's toMap with a merge
// function), the parallel form of
//
//	m := map[K]V{}
//	for _, x := range xs {
//		k, v := kv(x)
//		if acc, ok := m[k]; ok {
//			m[k] = op(acc, v)
//		} else {
//			m[k] = v
//		}
//	}
//
// op must be associative, as for Reduce; it need not be commutative: the
// runs' maps are merged in index order, so concatenation gives the loop's
// result. Per-key statistics fit in one pass, with a small struct as V:
//
//	type stats struct{ min, max, sum float64; n int }
//	per := par.ReduceByKey(par.Slice(recs),
//		func(r Rec) (string, stats) { return r.Station, stats{r.T, r.T, r.T, 1} },
//		func(a, b stats) stats { return stats{min(a.min, b.min), max(a.max, b.max), a.sum + b.sum, a.n + b.n} })
//
// The runs' maps hold their keys once per run, so the memory of a result
// over many keys grows with the workers. With Unordered, the values are
// combined in no particular order (op must then be commutative as well),
// and the goroutines share their maps past 256K keys, as CountBy's do: the
// result is held once at any number of workers. No items give an empty map, not nil. A done context
// (WithContext) leaves the result over a prefix of the source (with
// Unordered, over the items that ran); a panic in kv or op is re-raised as
// a *Panic. A nil function panics at once.
func ReduceByKey[T any, K comparable, V any](it Iterator[T], kv func(T) (K, V), op func(V, V) V) map[K]V {
	mustFunc(kv, "ReduceByKey (kv)")
	mustFunc(op, "ReduceByKey (op)")
	s := specOf(it)
	if s.Unordered {
		return shareUnordered(s, reducing[K](op), kv)
	}
	acc := keyedFold(s, false, nil,
		func(acc *reduced[K, V], xs []T) *reduced[K, V] {
			if acc == nil {
				acc = &reduced[K, V]{at: map[K]int{}}
			}
			return foldReduced(acc, xs, kv, op)
		},
		func(a, b *reduced[K, V]) *reduced[K, V] {
			switch {
			case a == nil:
				return b
			case b == nil:
				return a
			}
			return a.join(b, op)
		})
	if acc == nil {
		return map[K]V{}
	}
	return acc.result()
}

// CountBy returns, for each key that key gives for the items of it, the
// number of items with that key: a histogram, a word count. It is the
// parallel form of
//
//	counts := map[K]int{}
//	for _, x := range xs {
//		counts[key(x)]++
//	}
//
// (ParlayLib's histogram_by_key, Java's groupingBy with counting). Each
// goroutine that runs the operation counts into a map of its own, as a
// hand-written fan-out keeps one per worker, and the maps are merged at the
// end, the smaller into the larger. With many keys (the goroutines' maps
// holding 256K keys in all), the counts move into maps that the goroutines
// share, split by a hash of the key while they hold under 2M keys,
// then one: the result is held once, not once per goroutine, and a count
// over 10M keys takes about the memory of the loop's map at any number of
// workers. Counts do not depend on order, so all this holds without
// Unordered too, except under a context (WithContext), where the counts
// are those of a prefix of the source (with Unordered, of the items that
// ran), and every run counts into a map of its own.
//
// To count the items themselves (the words of a FlatMap), use Counts.
//
// No items give an empty map, not nil. A panic in key is re-raised as a
// *Panic. A nil key panics at once.
func CountBy[T any, K comparable](it Iterator[T], key func(T) K) map[K]int {
	mustFunc(key, "CountBy")
	return count(specOf(it), key)
}

// count counts the keys that key gives for the items of s: CountBy's
// shared maps (keyshare.go), with its own fold, which adds to a map of its
// own with no call but key's.
func count[T any, K comparable](s pipe.Spec[T], key func(T) K) map[K]int {
	return shareKeyed(s, true, counting[K](), func(a *keyer[K, int, struct{}], xs []T) *keyer[K, int, struct{}] {
		if m := a.own(); m != nil {
			for _, x := range xs {
				m[key(x)]++
			}
			a.grew()
			return a
		}
		for _, x := range xs {
			a.send(key(x), struct{}{})
		}
		return a
	})
}

// Counts returns, for each distinct item of it, the number of times it
// occurs: CountBy with the item as its own key, and CountBy's rules (as
// Rust's itertools has counts beside counts_by). A word count:
//
//	counts := par.Counts(par.FlatMap(par.Slice(lines), strings.Fields)) // map[string]int
//
// It is a function on every Go, as Distinct is: a method cannot require
// its items to be comparable.
func Counts[T comparable](it Iterator[T]) map[T]int {
	return count(specOf(it), func(x T) T { return x })
}

// CollectMap returns the map of the pairs that kv gives for the items of
// it. When several items give the same key, the value of the last one in
// source order wins, as in a loop that assigns m[k] = v (and as
// maps.Collect does):
//
//	byID := par.CollectMap(par.Slice(users), func(u User) (int, User) { return u.ID, u })
//
// For the first one to win, or to combine the values, use ReduceByKey with
// func(a, b V) V { return a } or another op. The runs' maps hold their
// keys once per run, so the memory of a result over many keys grows with
// the workers. With Unordered, the value of any one of the items with that
// key wins, and the goroutines share their maps past 256K keys, as
// CountBy's do: the result is held once at any number of workers. No items give an empty map, not
// nil. A done context (WithContext) leaves the pairs of a prefix of the
// source (with Unordered, of the items that ran); a panic in kv is
// re-raised as a *Panic. A nil kv panics at once.
func CollectMap[T any, K comparable, V any](it Iterator[T], kv func(T) (K, V)) map[K]V {
	mustFunc(kv, "CollectMap")
	s := specOf(it)
	if s.Unordered {
		return shareUnordered(s, collecting[K, V](), kv)
	}
	m := keyedFold(s, false, emptyMap[K, V],
		func(m map[K]V, xs []T) map[K]V {
			for _, x := range xs {
				k, v := kv(x)
				m[k] = v
			}
			return m
		},
		func(a, b map[K]V) map[K]V { return joinMaps(a, b, later[V]) })
	return m
}
