package par

import "github.com/gopar-dev/gopar/internal/pipe"

// Fold folds the items of it into accumulators and combines them: each
// participant folds the items it runs, in index order, into an accumulator
// that starts at init(); the accumulators of adjacent runs are then joined
// with combine in index order. It returns init() for no items.
//
// init is called once per run of contiguous items, that is O(workers +
// steals) times, not once per item or per block, so an accumulator may be
// costly to make: a map for a histogram or a word count, a buffer, a
// hasher. Where init returns a map or a pointer to a small object, Fold
// calls it again when its value would share a cache line with another
// run's accumulator (two goroutines that write one line at every item run
// two to three times slower), and combines the value passed over into the
// result, on the right, once the loop is done. Since the number of runs depends on timing, init() must add
// nothing to the result (an empty map, a zero count), and return a fresh
// value on every call when fold or combine changes its accumulator. fold
// is called once per item through a func value, which Go cannot inline:
// over items that cost a few nanoseconds, such as a histogram of floats, a
// loop of your own over a block with ReduceBlocks is faster. combine must
// be associative (it need not be commutative); fold(acc, x) may change and
// return acc, since no other goroutine sees it.
//
// With Unordered, Fold keeps an accumulator per goroutine that runs it
// for the whole operation (over FromSeq too, where the runs of an ordered
// Fold end wherever another goroutine took the next chunk), and combines
// them in no particular order:
// combine must then be commutative as well, as merging maps of counts is.
//
//	counts := par.Fold(par.Slice(words),
//		func() map[string]int { return map[string]int{} },
//		func(m map[string]int, w string) map[string]int { m[w]++; return m },
//		func(a, b map[string]int) map[string]int {
//			for w, n := range b {
//				a[w] += n
//			}
//			return a
//		})
func Fold[T, A any](it Iterator[T], init func() A, fold func(A, T) A, combine func(A, A) A) A {
	mustFunc(init, "Fold (init)")
	mustFunc(fold, "Fold (fold)")
	mustFunc(combine, "Fold (combine)")
	s := specOf(it)
	foldBlock := func(acc A, lo, hi int) A { return pipe.FoldBlock(&s, acc, lo, hi, fold) }
	if s.Unordered {
		return pipe.FoldUnordered(s.Config, s.Lo, s.Hi, init, foldBlock, combine)
	}
	return pipe.FoldRuns(s.Config, s.Lo, s.Hi, init, foldBlock, combine)
}
