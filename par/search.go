package par

import (
	"math"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// Any reports whether pred is true for some item. It stops as soon as one
// is found: items after it may or may not be tested.
func (it Iter[T]) Any(pred func(T) bool) bool {
	mustFunc(pred, "Any")
	_, found := it.Find(pred)
	return found
}

// Every reports whether pred is true for every item (true for none). It
// stops at the first item for which pred is false. (In Go, a method named
// All returns an iterator over every item, as slices.All does: see
// Iter.All.)
func (it Iter[T]) Every(pred func(T) bool) bool {
	mustFunc(pred, "Every")
	_, found := it.Find(func(v T) bool { return !pred(v) })
	return !found
}

type match[T any] struct {
	v     T
	found bool
}

// Find returns some item for which pred is true, and true; or the zero T
// and false if there is none. Which match it returns when there are several
// is not specified (use FindFirst for the first). It stops early: once a
// match is found, blocks not yet started are skipped.
func (it Iter[T]) Find(pred func(T) bool) (T, bool) {
	mustFunc(pred, "Find")
	s := it.s
	m := pipe.Run(s.Config, s.Lo, s.Hi, pipe.Reducer[match[T]]{
		Identity: func() match[T] { return match[T]{} },
		Fold: func(acc match[T], lo, hi int) match[T] {
			if acc.found {
				return acc
			}
			if _, v, ok := pipe.SearchBlock(&s, lo, hi, pred); ok {
				return match[T]{v, true}
			}
			return acc
		},
		Combine: func(a, b match[T]) match[T] {
			if a.found {
				return a
			}
			return b
		},
		Stop: func(acc match[T]) bool { return acc.found },
	})
	return m.v, m.found
}

// FindFirst returns the lowest-index item for which pred is true, and true;
// or the zero T and false if there is none. Once a match is found, the items
// above it are dropped (at most the blocks already running finish) and
// every item below it still runs. The loop works from its low end first, so
// searching [0, math.MaxInt) for a match near the start takes about as long
// as the match's index divided among the workers.
func (it Iter[T]) FindFirst(pred func(T) bool) (T, bool) {
	mustFunc(pred, "FindFirst")
	s := it.s
	type hit struct {
		v     T
		i     int // the index of v
		found bool
	}
	h := pipe.Run(s.Config, s.Lo, s.Hi, pipe.Reducer[hit]{
		Identity: func() hit { return hit{} },
		Fold: func(acc hit, lo, hi int) hit {
			if acc.found {
				return acc // a run keeps its first match
			}
			if i, v, ok := pipe.SearchBlock(&s, lo, hi, pred); ok {
				return hit{v, i, true}
			}
			return acc
		},
		Combine: func(a, b hit) hit {
			if a.found {
				return a
			}
			return b
		},
		Cut: func(acc hit) int {
			if acc.found {
				return acc.i
			}
			return math.MaxInt
		},
	})
	return h.v, h.found
}

// TryForEach calls f for every item until one returns an error, and returns
// that error (nil if none did).
//
// Once a call returns an error, no item starts that has not been handed
// out: the failing call's own block stops at it, and the blocks already
// handed out to other goroutines run to their end (a block is a few
// microseconds of items; in Blocking mode, one item, or WithBlockSize's
// min). The calls in flight are not told of the error: they run to their
// end, and TryForEach returns once they have (in Blocking(n) mode, up to
// n-1 calls that wait on I/O). To cancel them, as errgroup.WithContext
// does, use TryForEachContext, whose calls take a context.
//
// When several calls fail, the error of the lowest-index one among
// them is returned, not the first in time (TryForEachContext returns
// that). Which calls ran before the loop stopped depends on timing: an item
// below the failing one that no goroutine had taken yet does not run, so
// the error is the first a plain loop would meet only where that item ran.
// An error wins over a done context (WithContext): without one, see
// Iter.WithContext for what a cancelled TryForEach returns. A source that
// fails (FromWalk, ReadLines) ends the loop with its error, which comes
// after its items' errors: see Iter.Err.
func (it Iter[T]) TryForEach(f func(T) error) error {
	mustFunc(f, "TryForEach")
	_, err := tryMap(it.s, func(v T) (struct{}, error) { return struct{}{}, f(v) }, false, "TryForEach")
	return err
}
