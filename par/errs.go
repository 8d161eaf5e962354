package par

import (
	"context"
	"errors"
	"fmt"
	goiter "iter"

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

// Unfinished is the error with which ForEachErr, MapErr and Results say
// that they stopped before every item ran: a done context (WithContext)
// stopped them, or a source that can fail (FromWalk, FromSeqErr,
// ReadLines) failed. These operations run every item whatever its call
// returns, so they keep what ran: MapErr returns the result of every call
// that ran, ForEachErr and MapErr every failure among them, and Results
// gives each pair as it comes. The Unfinished comes last, after those
// failures in the errors.Join that the operation returns (in Results, as
// the last pair's error, with U's zero value), and unwraps to Cause, so
// errors.Is(err, context.DeadlineExceeded) and errors.Is(err, fs.ErrNotExist)
// still tell why.
//
// Left and Rest say what did not run, in source positions as
// ItemError.Index counts them. Over a Slice or a Range, Left names every
// item that did not run and Rest is -1; over a source read as it runs
// (FromSeq, FromWalk and the like), the items from position Rest on were
// never read, and Left names the items before it that did not run. Over a
// Slice or a Range without adapters that drop or add items (Filter,
// FlatMap), MapErr's result i is that of item i, and the slots of the
// items in Left hold U's zero value; otherwise MapErr returns the results
// of the calls that ran, in source order (over FromSeq with no such
// adapter: those of the positions below Rest that Left does not name).
// Results gives its pairs in source order (or, with Unordered and
// Blocking, as they finish), and its Unfinished holds the cause alone:
// Left gives nothing and Rest is -1.
//
// A context done after every item ran changes nothing: the operation
// returns as if it had no context.
//
// It holds the items left as ranges of positions, whatever their number:
// a Range of a billion items cancelled at its start costs a few words.
type Unfinished struct {
	Cause error // context.Cause of the operation's context, or the source's error
	Rest  int   // the first position never read, -1 if the source was read to its end
	left  []posSpan
}

// Left returns the positions, in increasing order, of the items read that
// did not run.
func (e *Unfinished) Left() goiter.Seq[int] {
	return func(yield func(int) bool) {
		for _, x := range e.left {
			for i := x.lo; i < x.hi; i++ {
				if !yield(i) {
					return
				}
			}
		}
	}
}

// LeftCount returns the number of positions that Left gives.
func (e *Unfinished) LeftCount() int {
	n := 0
	for _, x := range e.left {
		n += x.hi - x.lo
	}
	return n
}

// Error says how many items did not run, and why.
func (e *Unfinished) Error() string {
	n := e.LeftCount()
	switch {
	case e.Rest >= 0 && n == 0:
		return fmt.Sprintf("gopar: stopped before source position %d: %v", e.Rest, e.Cause)
	case e.Rest >= 0:
		return fmt.Sprintf("gopar: %d items did not run, nor any from source position %d on: %v", n, e.Rest, e.Cause)
	case n == 0:
		return fmt.Sprintf("gopar: stopped before every item ran: %v", e.Cause)
	}
	return fmt.Sprintf("gopar: %d items did not run: %v", n, e.Cause)
}

// Unwrap returns Cause.
func (e *Unfinished) Unwrap() error { return e.Cause }

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
// the failures of the calls that ran, in index order, then an *Unfinished
// that names the items that did not run and unwraps to context.Cause(ctx).
// If every item ran, the context changes nothing, even if it was done by
// the end: the error is nil or the failures alone, as without a context.
// So errors.As(err, &u) with u an *Unfinished (or errors.Is(err,
// context.Canceled)) tells whether items were left out.
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
// A done context (WithContext) or a failed source that left an item out
// gives the results of the calls that ran, in their slots, and the joined
// failures of those calls followed by an *Unfinished that names the items
// left: a deadline keeps the work finished before it (see Unfinished). A
// context done after every item ran changes nothing. See ForEachErr for the
// rules, panics and Goexit.
func MapErr[T, U any](it Iterator[T], f func(T) (U, error)) ([]U, error) {
	mustFunc(f, "MapErr")
	return mapErr(specOf(it), f, true, "MapErr")
}

// mapErr is MapErr, and ForEachErr with collect false: then the results
// are dropped. op names the operation in panics.
//
// The loop has no Stop: every block that starts runs all its items, and
// each run keeps its failures, in index order, beside its results and the
// positions it covered. The runs are combined in index order, all of them
// (AllRuns): a failure counts wherever it came from, and a loop that a done
// context stopped returns the results of every call that ran, with an
// *Unfinished that names the positions left.
func mapErr[T, U any](s pipe.Spec[T], f func(T) (U, error), collect bool, op string) ([]U, error) {
	type part = mapErrRun[U]
	base := s.Lo
	var out []U
	// The items of the source: a seq's are known once it has ended by
	// itself (SeqLen); one that the loop stopped had items left.
	total, known := 0, !pipe.IsSeq(&s)
	if known {
		total = length(s, op) // the positions must fit an int
	}
	if collect && !pipe.Filtered(&s) {
		// Every result has a known place: write it there directly.
		out = makeFor[U](s, length(s, op), op)
	}
	r := pipe.Run(s.Config, s.Lo, s.Hi, pipe.Reducer[part]{
		Fold: func(acc part, lo, hi int) part {
			acc.ran = addSpan(acc.ran, posSpan{lo - base, hi - base})
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
		Combine: part.combine,
		AllRuns: true, // a failure counts wherever it came from
		SeqLen:  func(n int) { total, known = n, true },
	})
	errs := r.errs
	if u := unfinished(&s, r.ran, total, known); u != nil {
		errs = append(errs, u)
	}
	var err error
	if len(errs) > 0 {
		err = errors.Join(errs...)
	}
	switch {
	case out != nil || !collect:
		return out, err
	case r.out == nil:
		return []U{}, err
	}
	return r.out, err
}

// mapErrRun is what one run of mapErr's loop gives.
type mapErrRun[U any] struct {
	out  []U       // filtered sources: this run's results
	errs []error   // this run's failures, *ItemError, in index order
	ran  []posSpan // the positions its folds covered, from base, in order
}

// combine appends b, the run after a, to a.
func (a mapErrRun[U]) combine(b mapErrRun[U]) mapErrRun[U] {
	a.out = append(a.out, b.out...)
	a.errs = append(a.errs, b.errs...)
	for _, x := range b.ran {
		a.ran = addSpan(a.ran, x)
	}
	return a
}

// posSpan is the source positions [lo, hi).
type posSpan struct{ lo, hi int }

// addSpan appends x to spans, which end at or before x starts, joining it
// to the last if they touch.
func addSpan(spans []posSpan, x posSpan) []posSpan {
	if n := len(spans); n > 0 && spans[n-1].hi == x.lo {
		spans[n-1].hi = x.hi
		return spans
	}
	return append(spans, x)
}

// unfinished returns the *Unfinished of a loop over s whose folds covered
// the positions ran, nil if it ran every item: total is the number of
// source positions if known, or (over a seq that did not end by itself)
// not. A failed source stops the loop as a done context does; it comes
// first.
func unfinished[T any](s *pipe.Spec[T], ran []posSpan, total int, known bool) *Unfinished {
	covered, end := 0, 0 // positions that ran, and the end of the last
	for _, x := range ran {
		covered += x.hi - x.lo
		end = max(end, x.hi)
	}
	u := &Unfinished{Cause: sourceErr(s), Rest: -1}
	switch {
	case u.Cause != nil:
		u.Rest = end // nothing past what the loop read
		if known {
			u.Rest = total
		}
	case s.Context == nil || known && covered == total:
		return nil // every item ran, whatever the context says now
	default:
		u.Cause = context.Cause(s.Context)
	}
	if !known {
		u.Rest, total = end, end
	}
	at := 0 // the gaps between the spans that ran, and after them
	for _, x := range append(ran, posSpan{total, total}) {
		if at < x.lo {
			u.left = append(u.left, posSpan{at, x.lo})
		}
		at = x.hi
	}
	return u
}
