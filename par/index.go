package par

import "github.com/gopar-dev/gopar/internal/pipe"

// ForEachIndex calls f(i, x) for every item x, in parallel, where i is the
// position in the source of the item x came from, counted from 0: xs[i] for
// Slice(xs), lo+i for Range(lo, hi), the i-th item for FromSeq. It is the
// parallel form of ranging over slices.All (index and value), and returns
// when all calls have returned; they happen in no particular order.
//
// Adapters keep the source's positions: after a Filter, the indexes of the
// items that remain have gaps; after a FlatMap, the items made from one
// source item share its position. To change a slice's elements, use
// ForEachPtr, which hands a pointer.
//
//	par.Slice(names).ForEachIndex(func(i int, name string) {
//		rows[i] = render(i, name)
//	})
//
// It panics as Len does on a Range longer than math.MaxInt, whose positions
// an int cannot hold, and at once on a nil f.
func (it Iter[T]) ForEachIndex(f func(i int, x T)) {
	mustFunc(f, "ForEachIndex")
	s := it.s
	base := s.Lo
	if !pipe.IsSeq(&s) {
		length(s, "ForEachIndex")
	}
	pipe.RunBlocks(s.Config, s.Lo, s.Hi, func(lo, hi int) {
		s.EachIndex(lo, hi, func(i int, v T) { f(i-base, v) })
	})
}

// ForEachPtr calls f(i, &xs[i]) for every index i of xs, in parallel, so that
// f can update the elements in place: the parallel form of
//
//	for i := range xs {
//		update(i, &xs[i])
//	}
//
// (conc's iter.ForEachIdx). The calls happen in no particular order, each
// index once, and ForEachPtr returns when all have returned. Each call may
// change its own element freely; reading or writing other elements of xs
// needs the care of any concurrent code. It runs on the default pool; for a
// pool, a context or other settings, write
// par.Range(0, len(xs)).WithPool(p).ForEach(func(i int) { f(i, &xs[i]) }).
//
// An empty xs calls nothing; a nil f panics at once.
func ForEachPtr[T any](xs []T, f func(i int, p *T)) {
	mustFunc(f, "ForEachPtr")
	pipe.RunBlocks(pipe.Config{}, 0, len(xs), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			f(i, &xs[i])
		}
	})
}
