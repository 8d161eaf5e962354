package par

import (
	"context"
	"errors"
	goiter "iter"
	"sync/atomic"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// FromWalk returns an iterator over the items that walk passes to yield: a
// producer that calls back and can fail, such as a paged lister
// (list(func(page []T) error) error), fs.WalkDir or a loop over sql.Rows.
// walk runs as FromSeq's seq does, pulled on a goroutine of the
// operation's own, never concurrently, while the pool works on the items
// already yielded, with FromSeq's speed and guarantees; errors go both
// ways:
//
//   - An error returned by walk ends the operation with that error: the
//     items yielded that have not started are dropped, the calls running
//     finish, and the operation returns. The operations that return an
//     error (the Try forms, ForEachErr, MapErr, Results) return it, with
//     no partial result; TryForEachContext and TryMapContext also cancel
//     their calls' context with it as the cause. A call's own error wins
//     over walk's, whose place is after the items it yielded. The other
//     operations have no error to return: they return a result that
//     misses items, and Err reports the error, as ReadLines's err does.
//   - Once the operation stops taking items (a search decided, a call's
//     error, a panic, a done context, a break out of Values), yield
//     returns a non-nil error: walk should then return, with that error
//     or any other (what it returns then is ignored). The operation
//     returns once walk has: a walk that waits on a page request should
//     make it with FromWalkContext's context, which the operation cancels
//     as it stops.
//     A yield called again returns the error again, at once.
//
// Over pages, yield each item of a page, so that the items, not the
// pages, spread over the goroutines:
//
//	objects := par.FromWalk(func(yield func(Object) error) error {
//		return client.ListPages(ctx, func(page []Object) error {
//			for _, o := range page {
//				if err := yield(o); err != nil {
//					return err // the operation has stopped
//				}
//			}
//			return nil
//		})
//	})
//	err := objects.Blocking(16).TryForEach(upload) // upload's error or the lister's
//
// Once walk has failed, the iterator yields no more items, in this
// operation or a later one, and Err returns the error from then on; a walk
// that returned nil runs again for the next operation, as FromSeq's seq
// does. yield must not be called concurrently, nor after walk has
// returned (it panics then). A panic in walk propagates to the caller as
// it is. A nil walk yields no items.
func FromWalk[T any](walk func(yield func(T) error) error) Iter[T] {
	if walk == nil {
		return FromSeq[T](nil)
	}
	f := newSourceFailure()
	return failingSource(f, pipe.FromSeq(func(yield func(T) bool) { walkInto(f, walk, yield) }))
}

// FromWalkContext is FromWalk of a walk that takes a context: the
// operation's (WithContext's, or context.Background), cancelled once the
// operation stops taking items, with an error as its cause that says so.
// A walk that waits on a request made with ctx, a page of a lister, stops
// waiting then: a call's error, a search decided or a done context end the
// operation without waiting for the page in flight.
//
//	objects := par.FromWalkContext(func(ctx context.Context, yield func(Object) error) error {
//		return client.ListPages(ctx, func(page []Object) error {
//			for _, o := range page {
//				if err := yield(o); err != nil {
//					return err
//				}
//			}
//			return nil
//		})
//	})
//	err := objects.Blocking(16).TryForEach(upload) // an upload's error cancels the page request
//
// ctx is done when walk returns. The rest is FromWalk's.
func FromWalkContext[T any](walk func(ctx context.Context, yield func(T) error) error) Iter[T] {
	if walk == nil {
		return FromSeq[T](nil)
	}
	f := newSourceFailure()
	return failingSource(f, pipe.FromSeqContext(func(ctx context.Context, yield func(T) bool) {
		walkInto(f, func(yield func(T) error) error { return walk(ctx, yield) }, yield)
	}, errStopped))
}

// walkInto runs walk, handing its items to yield, and records in f the
// error walk returns unless the operation had stopped taking items. A walk
// that has failed does not run again.
func walkInto[T any](f *sourceFailure, walk func(yield func(T) error) error, yield func(T) bool) {
	if f.Err() != nil {
		return
	}
	var stopped, returned atomic.Bool
	err := walk(func(v T) error {
		switch {
		case returned.Load():
			panic("gopar: par.FromWalk: yield was called after walk had returned")
		case stopped.Load():
			return errStopped
		case !yield(v):
			stopped.Store(true)
			return errStopped
		}
		return nil
	})
	returned.Store(true)
	if err != nil && !stopped.Load() {
		f.fail(err)
	}
}

// FromSeqErr returns an iterator over the values of seq, a sequence of
// values and errors (the convention of stream libraries such as rill, and
// of a pager's pages made into a sequence): the first pair with a non-nil
// error ends the items with that error, and its value is dropped. It is
// FromWalk over a range loop on seq, with FromWalk's rules for the error
// and for Err; once the operation stops taking items, seq's yield returns
// false. A nil seq yields no items.
//
//	rows := par.FromSeqErr(db.Rows(ctx, query)) // an iter.Seq2[Row, error]
//	sums, err := par.TryMap(rows.Blocking(8), summarize)
func FromSeqErr[T any](seq goiter.Seq2[T, error]) Iter[T] {
	if seq == nil {
		return FromSeq[T](nil)
	}
	f := newSourceFailure()
	return failingSource(f, pipe.FromSeq(func(yield func(T) bool) {
		if f.Err() != nil {
			return
		}
		for v, err := range seq {
			if err != nil {
				f.fail(err)
				return
			}
			if !yield(v) {
				return
			}
		}
	}))
}

// failingSource is the iterator over src, a seq that records its failure
// in f: the items it yielded that have not started are dropped once f has
// failed. The seq does not run once f has failed: it checks f first.
func failingSource[T any](f *sourceFailure, src pipe.Spec[T]) Iter[T] {
	s := src.Filter(func(T) bool { return f.err.Load() == nil })
	s.Failure = f
	return Iter[T]{s}
}

// errStopped is what FromWalk's yield returns once the operation has
// stopped taking items.
var errStopped = errors.New("gopar: par.FromWalk: the operation takes no more items")

// Err returns the error of a source of it that failed (FromWalk,
// FromSeqErr, ReadLines; either side's after Chain or Zip), nil if none
// has: the error that the Try forms return, for the operations that have
// none to return. As with bufio.Scanner's Err, check it after the
// operation:
//
//	files := par.FromWalk(walkFiles)
//	sizes := par.CountBy(files, filepath.Ext)
//	if err := files.Err(); err != nil {
//		return err // sizes misses files
//	}
//
// A source's error stays once it has failed. Err is nil over the sources
// that cannot fail. A FromSeq of an iterator's Values is a source of its
// own, which does not have the other's Err: check that one's after.
func (it Iter[T]) Err() error { return sourceErr(&it.s) }

// sourceErr returns the error of a failed source of s, nil if none.
func sourceErr[T any](s *pipe.Spec[T]) error {
	if s.Failure == nil {
		return nil
	}
	return s.Failure.Err()
}

// sourceFailure is the pipe.Failure of a source that can fail: the first
// error recorded, kept from then on.
type sourceFailure struct {
	err    atomic.Pointer[error]
	failed context.Context // done once err is set, for AfterFail
	done   context.CancelFunc
}

func newSourceFailure() *sourceFailure {
	f := &sourceFailure{}
	f.failed, f.done = context.WithCancel(context.Background())
	return f
}

// fail records err, unless an error is recorded already.
func (f *sourceFailure) fail(err error) {
	if f.err.CompareAndSwap(nil, &err) {
		f.done()
	}
}

func (f *sourceFailure) Err() error {
	if e := f.err.Load(); e != nil {
		return *e
	}
	return nil
}

func (f *sourceFailure) AfterFail(fn func()) (stop func() bool) {
	return context.AfterFunc(f.failed, fn)
}
