package par

import "github.com/gopar-dev/gopar/internal/pipe"

// ForEach calls f for every item, in parallel, and returns when all calls
// have returned. The calls happen in no particular order.
func (it Iter[T]) ForEach(f func(T)) {
	mustFunc(f, "ForEach")
	s := it.s
	pipe.RunBlocks(s.Config, s.Lo, s.Hi, func(lo, hi int) { s.Each(lo, hi, f) })
}

// Reduce combines the items with op, starting each piece of the work from
// identity(), and returns the result (identity() for no items).
//
// op must be associative: op(op(a, b), c) == op(a, op(b, c)). It need not be
// commutative: partial results are combined in index order, so string
// concatenation gives the same result as a sequential loop. identity() must
// be a neutral element of op (0 for +, 1 for *, "" for concatenation),
// because it is used once per piece, and the number of pieces varies: with
// identity 1 for +, the result changes from run to run. If op changes its
// first argument (appends to a slice), identity() must return a fresh value
// on every call. Over floats, the pieces' boundaries follow the schedule,
// so the last bits of a sum can differ from run to run; Sum is
// reproducible.
func (it Iter[T]) Reduce(identity func() T, op func(T, T) T) T {
	mustFunc(identity, "Reduce (identity)")
	mustFunc(op, "Reduce (op)")
	return Fold(it, identity, op, op) // a Fold whose accumulator is an item
}

// Count returns the number of items. When no step of the pipeline can drop
// or add items (no Filter, FilterMap or FlatMap, and a source other than
// FromSeq), the number is known without running anything, and no function
// of the pipeline is called (not even Map's); then it panics as Len does on
// a range longer than math.MaxInt. Otherwise Count runs the pipeline: every
// function of it is called as by ForEach.
func (it Iter[T]) Count() int {
	s := it.s
	if !pipe.Filtered(&s) {
		return length(s, "Count")
	}
	return pipe.Run(s.Config, s.Lo, s.Hi, pipe.Reducer[int]{
		Identity: func() int { return 0 },
		Fold: func(acc int, lo, hi int) int {
			s.Each(lo, hi, func(T) { acc++ })
			return acc
		},
		Combine: func(a, b int) int { return a + b },
	})
}

// Collect returns the items in a new slice, in source order; a cancelled
// Collect returns those of a prefix (see Iter.WithContext). Without a
// Filter in the pipeline it makes the slice first, before any item runs: a
// range longer than math.MaxInt panics as Len does, and a length that no
// slice can have panics with a message that names Collect, the range and
// its length; a length that memory cannot hold ends the program, as make
// does. No items give an empty slice, not nil.
func (it Iter[T]) Collect() []T {
	s := it.s
	if !pipe.Filtered(&s) {
		// Every item has a known place: write it there directly.
		out := makeFor[T](s, length(s, "Collect"), "Collect")
		if s.Context == nil {
			pipe.RunBlocks(s.Config, s.Lo, s.Hi, func(lo, hi int) { pipe.Fill(&s, out, lo, hi) })
			return out
		}
		// A done context may stop the loop with holes in out: count the
		// items of the prefix that ran (see Iter.WithContext), and return
		// that much.
		n := pipe.RunPrefix(s.Config, s.Lo, s.Hi, func(lo, hi int) { pipe.Fill(&s, out, lo, hi) })
		return out[:n:n]
	}
	out := pipe.Run(s.Config, s.Lo, s.Hi, pipe.Reducer[[]T]{
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

// Sum returns the sum of the items of any numeric iterator of this package
// (0 for none). It is the function form of the method Nums.Sum, for an
// iterator that has no such method, such as the result of par.Map; Nums.Sum
// gives the rules of integer overflow and of reproducible float sums.
func Sum[T Number](it Iterator[T]) T { return pipe.Sum(specOf(it)) }
