package par

import "github.com/gopar-dev/gopar/iter"

// ForEach calls f for every item, in parallel, and returns when all calls
// have returned. The calls happen in no particular order.
func (it Iter[T]) ForEach(f func(T)) {
	mustFunc(f, "ForEach")
	s := it.s
	iter.RunBlocks(s.Config, s.Lo, s.Hi, func(lo, hi int) { s.Each(lo, hi, f) })
}

// Reduce combines the items with op, starting each piece of the work from
// identity(), and returns the result (identity() for no items).
//
// op must be associative: op(op(a, b), c) == op(a, op(b, c)). It need not be
// commutative: partial results are combined in index order, so string
// concatenation gives the same result as a sequential loop. identity() must
// be a neutral element of op (0 for +, 1 for *, "" for concatenation),
// because it is used once per piece, and the number of pieces varies.
func (it Iter[T]) Reduce(identity func() T, op func(T, T) T) T {
	mustFunc(identity, "Reduce (identity)")
	mustFunc(op, "Reduce (op)")
	s := it.s
	return iter.Run(s.Config, s.Lo, s.Hi, iter.Reducer[T]{
		Identity: identity,
		Fold: func(acc T, lo, hi int) T {
			s.Each(lo, hi, func(v T) { acc = op(acc, v) })
			return acc
		},
		Combine: op,
	})
}

// Count returns the number of items. Without a Filter in the pipeline it is
// known without running anything, and no function of the pipeline is
// called; then it panics as Len does on a range longer than math.MaxInt.
func (it Iter[T]) Count() int {
	s := it.s
	if !s.Filtered() {
		return length(s, "Count")
	}
	return iter.Run(s.Config, s.Lo, s.Hi, iter.Reducer[int]{
		Identity: func() int { return 0 },
		Fold: func(acc int, lo, hi int) int {
			s.Each(lo, hi, func(T) { acc++ })
			return acc
		},
		Combine: func(a, b int) int { return a + b },
	})
}

// Collect returns the items in a new slice, in source order.
func (it Iter[T]) Collect() []T {
	s := it.s
	if !s.Filtered() {
		// Every item has a known place: write it there directly.
		out := make([]T, length(s, "Collect"))
		iter.RunBlocks(s.Config, s.Lo, s.Hi, func(lo, hi int) { s.Fill(out, lo, hi) })
		return out
	}
	out := iter.Run(s.Config, s.Lo, s.Hi, iter.Reducer[[]T]{
		Identity: func() []T { return nil },
		Fold: func(acc []T, lo, hi int) []T {
			s.Each(lo, hi, func(v T) { acc = append(acc, v) })
			return acc
		},
		Combine: func(a, b []T) []T { return append(a, b...) },
	})
	if out == nil {
		out = []T{}
	}
	return out
}

// Sum returns the sum of the items of any numeric iterator of this package,
// such as the result of par.Map (0 for none). See Nums.Sum.
func Sum[T Number](it Iterator[T]) T {
	s := it.spec()
	if inexact[T]() {
		if s.IsSeq() {
			return seqSum(s)
		}
		return reproducibleSum(s)
	}
	return iter.Run(s.Config, s.Lo, s.Hi, iter.Reducer[T]{
		Identity: func() T { return 0 },
		Fold: func(acc T, lo, hi int) T {
			return acc + iter.SumBlock(&s, lo, hi)
		},
		Combine: func(a, b T) T { return a + b },
	})
}
