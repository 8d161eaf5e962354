package par

import "github.com/gopar-dev/gopar/internal/pipe"

// TryMapInit is TryMap with a value per goroutine: it calls f(s, x) for
// every item x of it, in parallel, where s is a value made by init that the
// calls share one goroutine at a time (a scratch buffer, a database
// connection, a *rand.Rand), and returns the results in source order (an
// empty, non-nil slice for no items). init is called at most once per
// goroutine running the loop at once (the pool's workers, or Blocking's
// limit), never per item: see MapInit. The values are dropped when
// TryMapInit returns.
//
// Errors and a done context follow TryMap: at the first error no more
// items are handed out, the calls in flight run to their end, and
// TryMapInit returns a nil slice with the error
// of the lowest-index failing item among the calls that ran; a done
// context (WithContext) that left an item out gives a nil slice and
// context.Cause(ctx) (see Iter.WithContext). A value whose call returned an
// error is reused; one whose call of f panicked is not. A panic in init or
// f is re-raised in the caller as a *Panic, and a runtime.Goexit ends the
// caller's goroutine.
//
// It replaces MapInit chained into TryMap through a (value, error) pair,
// and the errgroup fan-out where each worker goroutine makes its own
// client before its loop.
func TryMapInit[T, S, U any](it Iterator[T], init func() S, f func(S, T) (U, error)) ([]U, error) {
	mustFunc(init, "TryMapInit (init)")
	mustFunc(f, "TryMapInit")
	return tryMap(tryInitSpec(specOf(it), init, f), outcome[U].get, true, "TryMapInit")
}

// TryForEachInit is TryForEach with a value per goroutine: it calls f(s, x)
// for every item x of it, in parallel, where s is a value made by init that
// the calls share one goroutine at a time, until a call returns an error.
// init is called at most once per goroutine running the loop at once, never
// per item (see MapInit). It stops and returns as TryForEach does (the
// calls in flight run to their end): nil, the error of the lowest-index
// failing item among the calls that ran, or, if a done context left an
// item out and no call failed, context.Cause(ctx). See
// TryMapInit for panics and Goexit.
func TryForEachInit[T, S any](it Iterator[T], init func() S, f func(S, T) error) error {
	mustFunc(init, "TryForEachInit (init)")
	mustFunc(f, "TryForEachInit")
	_, err := tryMap(tryInitSpec(specOf(it), init, func(s S, v T) (struct{}, error) {
		return struct{}{}, f(s, v)
	}), outcome[struct{}].get, false, "TryForEachInit")
	return err
}

// outcome is what a call of a Try form's f returned: the MapInit stage
// below tryMap yields it as its item, and tryMap's f takes it apart.
type outcome[U any] struct {
	v   U
	err error
}

func (o outcome[U]) get() (U, error) { return o.v, o.err }

// tryInitSpec is s with a MapInit stage whose items are the outcomes of
// f: tryMap over it is a Try form with a value per goroutine, the stage's
// state checked out per block (pipe.MapInitSpec).
func tryInitSpec[T, S, U any](s pipe.Spec[T], init func() S, f func(S, T) (U, error)) pipe.Spec[outcome[U]] {
	return pipe.MapInitSpec(s, init, func(st S, v T) outcome[U] {
		u, err := f(st, v)
		return outcome[U]{u, err}
	})
}
