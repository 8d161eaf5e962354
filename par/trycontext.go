package par

import (
	"context"
	"errors"

	"github.com/gopar-dev/gopar/internal/pipe"
	"github.com/gopar-dev/gopar/internal/plumb"
)

// ErrGoexit is the cause with which TryForEachContext and TryMapContext
// cancel their context when a call of f ends its goroutine with
// runtime.Goexit (t.Fatal in a test).
var ErrGoexit = errors.New("gopar: a call called runtime.Goexit")

// TryForEachContext is TryForEach for calls that take a context, the form
// that replaces errgroup.WithContext: f receives a context that derives from
// the iterator's WithContext (or context.Background()) and is cancelled,
// with the failure as its cause (context.Cause), as soon as a call returns
// an error or panics, so that the calls still running (requests, queries)
// can stop early. It is also cancelled when TryForEachContext returns.
//
// From the failure on, no call of f starts: items not yet handed out are
// skipped, and an item whose turn comes after the cancellation is dropped
// without calling f. The calls in flight see their context done and may
// return early; TryForEachContext returns once they have, so that it
// takes about as long as errgroup's Wait, where TryForEach lets them run
// to their end.
//
// The error returned is the first failure, the one that cancelled the
// context, as errgroup's Wait returns the first error: the errors that the
// cancellation then provokes in the calls still running (context.Canceled,
// a broken connection) are never returned in its place. If the parent
// context was cancelled before any call failed, its cause is returned when
// that left an item out, and nil when every call had run and returned nil
// (Iter.WithContext's rule). (TryForEach, whose calls cannot observe each
// other's failures, returns the lowest-index error among the calls that
// ran instead.)
//
// A panic in f cancels the context with the *Panic as its cause, and is
// re-raised in the caller as TryForEach does; a runtime.Goexit cancels it
// with ErrGoexit, then ends the caller's goroutine as runtime.Goexit.
//
// In Blocking mode, par.Slice(xs).Blocking(n).TryForEachContext(f) is
// errgroup.WithContext with SetLimit(n).
func (it Iter[T]) TryForEachContext(f func(ctx context.Context, v T) error) error {
	mustFunc(f, "TryForEachContext")
	_, err := tryMapContext(it.s, func(ctx context.Context, v T) (struct{}, error) { return struct{}{}, f(ctx, v) }, false, "TryForEachContext")
	return err
}

// TryMapContext is TryMap for calls that take a context: f receives a
// context that is cancelled, with the failure as its cause, at the first
// error or panic of any call, and when TryMapContext returns. The results
// come in source order; on a failure, TryMapContext returns a nil slice and
// the first failure, the one that cancelled the context, never an error it
// provoked. See TryForEachContext for the rules.
func TryMapContext[T, U any](it Iterator[T], f func(ctx context.Context, v T) (U, error)) ([]U, error) {
	mustFunc(f, "TryMapContext")
	return tryMapContext(specOf(it), f, true, "TryMapContext")
}

// tryMapContext runs tryMap with calls of f that get a context cancelled
// at the first failure. The loop's own context is that context too, so a
// failure also stops the handing out of items at once.
func tryMapContext[T, U any](s pipe.Spec[T], f func(context.Context, T) (U, error), collect bool, op string) ([]U, error) {
	parent := s.Context
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	done := ctx.Done()
	call := func(v T) (u U, err error) {
		select {
		case <-done:
			// Handed out before the cancellation, its turn came after:
			// not called. The error only stops the loop; the cause is
			// what is returned.
			return u, context.Cause(ctx)
		default:
		}
		returned := false
		defer func() {
			if !returned {
				// A panic or a Goexit: the calls still running learn it
				// at once, not when the loop has ended.
				p := plumb.Unwinding(recover())
				if p.IsGoexit() {
					cancel(ErrGoexit)
					return // the Goexit goes on
				}
				cancel(p)
				panic(p)
			}
		}()
		u, err = f(ctx, v)
		returned = true
		if err != nil {
			cancel(err) // only the first cancel sets the cause
		}
		return u, err
	}
	if f := s.Failure; f != nil {
		// A source's failure cancels the calls as a call's error does.
		defer f.AfterFail(func() { cancel(f.Err()) })()
	}
	s.Context = ctx
	out, err := tryMap(s, call, collect, op)
	if err != nil {
		// The first failure, or the parent's cause if it came first. A
		// source's failure may not have cancelled ctx yet.
		cancel(err)
		return nil, context.Cause(ctx)
	}
	return out, nil
}
