package par

import (
	"cmp"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// best is the accumulator of Min, Max, MinFunc and MaxFunc: ok is false
// until an item has been seen.
type best[T any] struct {
	v  T
	ok bool
}

// extreme folds the items with pick(acc, x), the preferred of the two, in
// index order, and reports whether there was any item. Runs are combined in
// index order with the same pick, so the result is what a sequential loop
// gives.
func extreme[T any](it Iterator[T], pick2 func(acc, x T) T) (T, bool) {
	s := specOf(it)
	pick := func(a, b best[T]) best[T] {
		switch {
		case !a.ok:
			return b
		case !b.ok:
			return a
		}
		return best[T]{pick2(a.v, b.v), true}
	}
	r := pipe.Run(s.Config, s.Lo, s.Hi, pipe.Reducer[best[T]]{
		Identity: func() best[T] { return best[T]{} },
		Fold: func(acc best[T], lo, hi int) best[T] {
			s.Each(lo, hi, func(v T) { acc = pick(acc, best[T]{v, true}) })
			return acc
		},
		Combine: pick,
	})
	return r.v, r.ok
}

// Min returns the smallest item and true, or the zero T and false if there
// is none. It folds with the built-in min, as slices.Min does (which panics
// on an empty slice instead): a float NaN anywhere makes the result NaN, and
// -0.0 counts as less than 0.0.
func Min[T cmp.Ordered](it Iterator[T]) (T, bool) {
	return extreme(it, func(acc, x T) T { return min(acc, x) })
}

// Max returns the largest item and true, or the zero T and false if there
// is none, with slices.Max's rules for NaN and -0.0 (see Min).
func Max[T cmp.Ordered](it Iterator[T]) (T, bool) {
	return extreme(it, func(acc, x T) T { return max(acc, x) })
}

// MinFunc returns the smallest item by cmp (negative when a < b, as for
// slices.SortFunc) and true, or the zero T and false if there is none. When
// several items are smallest, it returns the first in index order, as
// slices.MinFunc does. A cmp that is not a strict weak ordering still gives
// one of the items and true; one that always answers -1 gives the last
// item, as slices.MinFunc does.
func MinFunc[T any](it Iterator[T], cmp func(a, b T) int) (T, bool) {
	mustFunc(cmp, "MinFunc")
	return extreme(it, func(acc, x T) T {
		if cmp(x, acc) < 0 {
			return x
		}
		return acc
	})
}

// MaxFunc returns the largest item by cmp and true, or the zero T and false
// if there is none. When several items are largest, it returns the first in
// index order, as slices.MaxFunc does. A cmp that is not a strict weak
// ordering still gives one of the items and true (see MinFunc).
func MaxFunc[T any](it Iterator[T], cmp func(a, b T) int) (T, bool) {
	mustFunc(cmp, "MaxFunc")
	return extreme(it, func(acc, x T) T {
		if cmp(x, acc) > 0 {
			return x
		}
		return acc
	})
}
