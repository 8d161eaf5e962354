package par

import (
	"context"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// TryMap calls f for every item of it, in parallel, and returns the results
// in source order (an empty, non-nil slice for no items); the errgroup
// fan-out that fills a results slice, in one call. On an error it stops as
// TryForEach does (no item starts that was not handed out; the calls in
// flight run to their end, where TryMapContext cancels them), and returns
// a nil slice with the error of the lowest-index failing item among those
// that ran. A done context
// (WithContext) that left an item out gives a nil slice and
// context.Cause(ctx): see Iter.WithContext.
func TryMap[T, U any](it Iterator[T], f func(T) (U, error)) ([]U, error) {
	mustFunc(f, "TryMap")
	return tryMap(specOf(it), f, true, "TryMap")
}

// tryMap is TryMap, and TryForEach with collect false: then the results
// are dropped, so any range length works. op names the operation in
// panics.
func tryMap[T, U any](s pipe.Spec[T], f func(T) (U, error), collect bool, op string) ([]U, error) {
	type part = tryMapRun[U]
	var out []U
	// The items of the source: a seq's are known once it has ended by
	// itself (SeqLen); one that the loop stopped had items left.
	total, known := uint64(s.Hi)-uint64(s.Lo), !pipe.IsSeq(&s)
	if collect && !pipe.Filtered(&s) {
		// Every result has a known place: write it there directly.
		out = makeFor[U](s, length(s, op), op)
	}
	r := pipe.Run(s.Config, s.Lo, s.Hi, pipe.Reducer[part]{
		Identity: func() part { return part{} },
		Fold: func(acc part, lo, hi int) part {
			acc.indexes += uint64(hi - lo)
			if acc.err != nil {
				return acc
			}
			if out != nil {
				// One dispatch per block; the fill stops at the first error.
				acc.err = pipe.TryFill(&s, out[lo-s.Lo:], lo, hi, f)
				return acc
			}
			s.EachUntil(lo, hi, func(v T) bool {
				var u U
				if u, acc.err = f(v); acc.err == nil && collect {
					acc.out = append(acc.out, u)
				}
				return acc.err == nil
			})
			return acc
		},
		Combine: part.combine,
		Stop:    func(acc part) bool { return acc.err != nil },
		AllRuns: true, // an error counts wherever it came from
		SeqLen:  func(n int) { total, known = uint64(n), true },
	})
	switch {
	case r.err != nil:
		return nil, r.err
	case sourceErr(&s) != nil:
		// A source failed (FromWalk, ReadLines): its error comes after
		// its items'.
		return nil, sourceErr(&s)
	case s.Context != nil && (!known || r.indexes < total):
		// The context stopped the loop before every item ran.
		return nil, context.Cause(s.Context)
	case out != nil || !collect:
		return out, nil
	case r.out == nil:
		return []U{}, nil
	}
	return r.out, nil
}

// tryMapRun is what one run of tryMap's loop gives.
type tryMapRun[U any] struct {
	out     []U // filtered sources: this run's results
	err     error
	indexes uint64 // how many indexes the folds covered: all, unless cancelled
}

// combine appends b, the run after a, to a: b's results count only if a
// did not fail.
func (a tryMapRun[U]) combine(b tryMapRun[U]) tryMapRun[U] {
	if a.err == nil {
		a.err = b.err
		a.out = append(a.out, b.out...)
	}
	a.indexes += b.indexes
	return a
}
