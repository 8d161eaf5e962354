package par

import (
	"context"
	"errors"
	"fmt"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// ItemError is one failure of ForEachErr or MapErr: the error Err that the
// call of f on the item at Index returned. Index is the item's position in
// the source, counted from 0, as ForEachIndex gives it: xs[Index] for
// Slice(xs), lo+Index for Range(lo, hi), the Index-th item for FromSeq.
// Adapters keep the source's positions, so after a Filter the failures'
// indexes have gaps, and the items that a FlatMap made from one source item
// share its index. Without such adapters, Index is also the failed item's
// slot in MapErr's results.
//
// ItemError unwraps to Err, so errors.Is and errors.As see through it (and
// through the errors.Join that holds it).
type ItemError struct {
	Index int
	Err   error
}

// Error returns "gopar: item <Index>: <Err>".
func (e *ItemError) Error() string { return fmt.Sprintf("gopar: item %d: %v", e.Index, e.Err) }

// Unwrap returns Err.
func (e *ItemError) Unwrap() error { return e.Err }

// ForEachErr calls f for every item, in parallel, whatever the calls
// return, and returns every failure: nil if no call returned an error, and
// otherwise the errors.Join of one *ItemError per failed call, in index
// order, each holding the item's index and its error. It is the fan-out
// that runs every task and collects all the errors (errgroup without the
// early exit; conc's ErrorPool), where TryForEach stops at the first error.
// Read the failures back with errors.Is and errors.As, which see through
// the join and the ItemError, or one by one:
//
//	if err := par.Slice(urls).ForEachErr(fetch); err != nil {
//		for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
//			var ie *par.ItemError
//			if errors.As(e, &ie) {
//				log.Printf("%s: %v", urls[ie.Index], ie.Err)
//			}
//		}
//	}
//
// One failure is joined too, so the error always has the Unwrap() []error
// method.
//
// A done context (WithContext) stops ForEachErr as it stops every
// operation (see Iter.WithContext): no block of items starts once it is
// done (in Blocking mode, no item), and calls already running finish. If
// the context left an item out, the error returned is the errors.Join of
// the failures of the calls that ran, in index order, then
// context.Cause(ctx), last and not wrapped in an ItemError. If every item
// ran, the context changes nothing, even if it was done by the end: the
// error is nil or the failures alone, as without a context. So
// errors.Is(err, context.Canceled) (or the cause's own error) tells whether
// items were left out.
//
// A panic in f stops the loop and is re-raised in the caller as a *Panic,
// and a runtime.Goexit in f ends the caller's goroutine, as in ForEach. It
// panics as Len does on a Range longer than math.MaxInt, whose positions an
// int cannot hold, and at once on a nil f.
func (it Iter[T]) ForEachErr(f func(T) error) error {
	mustFunc(f, "ForEachErr")
	_, err := mapErr(it.s, func(v T) (struct{}, error) { return struct{}{}, f(v) }, false, "ForEachErr")
	return err
}

// MapErr calls f for every item of it, in parallel, whatever the calls
// return, and returns every result in source order (an empty, non-nil
// slice for no items) with every failure: a nil error if no call failed,
// and otherwise the errors.Join of one *ItemError per failed call, in index
// order, as ForEachErr returns them. A failed item's slot holds the value f
// returned with its error. It is conc's iter.MapErr, where TryMap stops at
// the first error and returns no results.
//
// A done context (WithContext) that left an item out gives a nil slice, and
// the joined failures of the calls that ran followed by
// context.Cause(ctx); one that left none out changes nothing. See
// ForEachErr for the rules, panics and Goexit.
func MapErr[T, U any](it Iterator[T], f func(T) (U, error)) ([]U, error) {
	mustFunc(f, "MapErr")
	return mapErr(specOf(it), f, true, "MapErr")
}

// mapErr is MapErr, and ForEachErr with collect false: then the results
// are dropped. op names the operation in panics.
//
// The loop has no Stop: every block that starts runs all its items, and
// each run keeps its failures, in index order, beside its results. The
// runs are combined in index order, all of them (AllRuns): a failure counts
// wherever it came from, and a loop that a done context stopped returns no
// results.
func mapErr[T, U any](s pipe.Spec[T], f func(T) (U, error), collect bool, op string) ([]U, error) {
	type part struct {
		out     []U     // filtered sources: this run's results
		errs    []error // this run's failures, *ItemError, in index order
		indexes uint64  // how many indexes the folds covered: all, unless cancelled
	}
	base := s.Lo
	var out []U
	// The items of the source: a seq's are known once it has ended by
	// itself (SeqLen); one that the loop stopped had items left.
	total, known := uint64(s.Hi)-uint64(s.Lo), !pipe.IsSeq(&s)
	if known {
		length(s, op) // the positions must fit an int
	}
	if collect && !pipe.Filtered(&s) {
		// Every result has a known place: write it there directly.
		out = makeFor[U](s, length(s, op), op)
	}
	r := pipe.Run(s.Config, s.Lo, s.Hi, pipe.Reducer[part]{
		Fold: func(acc part, lo, hi int) part {
			acc.indexes += uint64(hi - lo)
			s.EachIndex(lo, hi, func(i int, v T) {
				u, err := f(v)
				if err != nil {
					acc.errs = append(acc.errs, &ItemError{Index: i - base, Err: err})
				}
				if out != nil {
					out[i-base] = u
				} else if collect {
					acc.out = append(acc.out, u)
				}
			})
			return acc
		},
		Combine: func(a, b part) part {
			a.out = append(a.out, b.out...)
			a.errs = append(a.errs, b.errs...)
			a.indexes += b.indexes
			return a
		},
		AllRuns: true, // a failure counts wherever it came from
		SeqLen:  func(n int) { total, known = uint64(n), true },
	})
	if err := sourceErr(&s); err != nil {
		// A source failed (FromWalk, ReadLines): its error follows the
		// failures of its items.
		return nil, errors.Join(append(r.errs, err)...)
	}
	if s.Context != nil && (!known || r.indexes < total) {
		// The context stopped the loop before every item ran.
		return nil, errors.Join(append(r.errs, context.Cause(s.Context))...)
	}
	var err error
	if len(r.errs) > 0 {
		err = errors.Join(r.errs...)
	}
	switch {
	case out != nil || !collect:
		return out, err
	case r.out == nil:
		return []U{}, err
	}
	return r.out, err
}
