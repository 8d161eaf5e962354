package par

import "github.com/gopar-dev/gopar/iter"

// Partition returns the items for which pred is true and the others, each
// in source order, in one pass: pred is called once per item, where two
// Filter(...).Collect() calls (one with pred, one with its negation) call
// it twice and walk the source twice. It is Rayon's partition, and the
// parallel form of
//
//	for _, x := range xs {
//		if pred(x) {
//			matched = append(matched, x)
//		} else {
//			rest = append(rest, x)
//		}
//	}
//
// Each participant appends to two slices of its own per run of items; the
// runs are then copied, in parallel, into the two results, which are new
// slices of exactly the right lengths (empty, not nil, when nothing goes
// there). The iterator's settings apply; a done context leaves the results
// holding the items that ran, and a panic in pred is re-raised as a *Panic.
// A nil pred panics at once.
func (it Iter[T]) Partition(pred func(T) bool) (matched, rest []T) {
	mustFunc(pred, "Partition")
	s := it.s
	runs := iter.Run(s.Config, s.Lo, s.Hi, iter.Reducer[[]*split[T]]{
		Identity: func() []*split[T] { return []*split[T]{{}} },
		Fold: func(acc []*split[T], lo, hi int) []*split[T] {
			sp := acc[0] // a run's list holds its own split only
			sp.yes, sp.no = iter.SplitBlock(&s, lo, hi, pred, sp.yes, sp.no)
			return acc
		},
		// The lists of adjacent runs, left first: nothing is copied until
		// the lengths are known.
		Combine: func(a, b []*split[T]) []*split[T] { return append(a, b...) },
	})
	// Where each run's items go: offsets into the results.
	at := make([][2]int, len(runs)+1)
	for k, sp := range runs {
		at[k+1] = [2]int{at[k][0] + len(sp.yes), at[k][1] + len(sp.no)}
	}
	matched, rest = make([]T, at[len(runs)][0]), make([]T, at[len(runs)][1])
	cfg := iter.Config{Pool: s.Pool}
	iter.RunBlocks(cfg, 0, len(runs), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			copy(matched[at[k][0]:], runs[k].yes)
			copy(rest[at[k][1]:], runs[k].no)
		}
	})
	return matched, rest
}

// split is one run's share of a Partition.
type split[T any] struct{ yes, no []T }
