package par

import (
	"context"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// TryFold is Fold with a fold that can fail: each participant folds the
// items it runs, in index order, into an accumulator that starts at init(),
// until a call of fold returns an error; the accumulators of adjacent runs
// are joined with combine in index order. It returns the folded value and
// nil, or the zero A and an error: no partial result.
//
// The rules are TryForEach's. At the first error no more items are handed
// out; the calls of fold already running on other goroutines finish (their
// results are dropped), and TryFold returns the error of the lowest-index
// failing item among the calls that ran. A done context (WithContext) that
// left an item out, with no call failing, gives context.Cause(ctx). A panic
// in init, fold or combine is re-raised in the caller as a *Panic, and a
// runtime.Goexit ends the caller's goroutine.
//
// The accumulator is also the place of what a goroutine's calls share: a
// scratch buffer beside a running total, as TryForEachInit's state, is a
// field of A, made once per run by init, so that TryFold needs no Init
// form. init is called once per run of contiguous items (see Fold): it
// must add nothing to the result. combine must be associative; TryFold
// combines in index order also under Unordered, so that the error it
// returns is the lowest-index one.
//
// It replaces TryForEachInit with a mutex-guarded registry of the states
// to sum up afterwards, and the errgroup fan-out with a partial result per
// goroutine merged after Wait.
func TryFold[T, A any](it Iterator[T], init func() A, fold func(A, T) (A, error), combine func(A, A) A) (A, error) {
	mustFunc(init, "TryFold (init)")
	mustFunc(fold, "TryFold (fold)")
	mustFunc(combine, "TryFold (combine)")
	return tryFold(specOf(it), init, fold, func(a, b A) (A, error) { return combine(a, b), nil })
}

// TryFoldMerge is TryFold with a combine that can fail, merge: a bound
// checked across the accumulators (a total that each run keeps under
// budget but two runs together may pass) fails where the runs are joined.
//
//	total, err := par.TryFoldMerge(par.Slice(orders), func() int64 { return 0 },
//		func(sum int64, o Order) (int64, error) { return sum + o.Cents, nil },
//		func(a, b int64) (int64, error) {
//			if a+b > limit {
//				return 0, ErrOverLimit
//			}
//			return a + b, nil
//		})
//
// Its rules are TryFold's; an error from merge counts at the first index
// of the later of the two runs that it joins, as a failing op joining two
// runs does in TryReduce. merge must be associative. A nil function panics
// at once.
func TryFoldMerge[T, A any](it Iterator[T], init func() A, fold func(A, T) (A, error), merge func(A, A) (A, error)) (A, error) {
	mustFunc(init, "TryFoldMerge (init)")
	mustFunc(fold, "TryFoldMerge (fold)")
	mustFunc(merge, "TryFoldMerge (merge)")
	return tryFold(specOf(it), init, fold, merge)
}

// TryReduce is Reduce with an operation that can fail: it combines the
// items of it with op, in index order, starting each run from identity()
// (see Reduce), until a call of op returns an error. It returns the reduced
// value and nil (identity() for no items), or the zero T and the error of
// the lowest-index failing call among those that ran; a call that joins two
// runs' results counts at the first index of the later run. Early stop,
// calls in flight, the context, panics and Goexit follow TryFold. op must
// be associative (it need not be commutative); identity() must add nothing
// to the result.
func (it Iter[T]) TryReduce(identity func() T, op func(T, T) (T, error)) (T, error) {
	mustFunc(identity, "TryReduce (identity)")
	mustFunc(op, "TryReduce (op)")
	return tryFold(it.s, identity, op, op)
}

// tryFold is TryFold and TryReduce: a fold per run that stops at its first
// error, runs combined in index order so that the lowest-index error wins.
func tryFold[T, A any](s pipe.Spec[T], init func() A, fold func(A, T) (A, error), combine func(A, A) (A, error)) (A, error) {
	type part struct {
		acc     A
		err     error
		indexes uint64 // how many indexes the folds covered: all, unless cancelled
	}
	total, known := uint64(s.Hi)-uint64(s.Lo), !pipe.IsSeq(&s)
	accs := pipe.NewApart(init)
	r := pipe.Run(s.Config, s.Lo, s.Hi, pipe.Reducer[part]{
		Identity: func() part { return part{acc: accs.Make()} },
		Fold: func(p part, lo, hi int) part {
			p.indexes += uint64(hi - lo)
			if p.err != nil {
				return p
			}
			s.EachUntil(lo, hi, func(v T) bool {
				p.acc, p.err = fold(p.acc, v)
				return p.err == nil
			})
			return p
		},
		Combine: func(a, b part) part {
			a.indexes += b.indexes
			switch {
			case a.err != nil:
			case b.err != nil:
				a.err = b.err
			default:
				a.acc, a.err = combine(a.acc, b.acc)
			}
			return a
		},
		Stop:    func(p part) bool { return p.err != nil },
		AllRuns: true, // an error counts wherever it came from
		SeqLen:  func(n int) { total, known = uint64(n), true },
	})
	var zero A
	switch {
	case r.err != nil:
		return zero, r.err
	case sourceErr(&s) != nil:
		// A source failed (FromWalk, ReadLines): its error comes after
		// its items'.
		return zero, sourceErr(&s)
	case s.Context != nil && (!known || r.indexes < total):
		// The context stopped the loop before every item ran.
		return zero, context.Cause(s.Context)
	}
	// The values of init that Make passed over (pipe.Apart) add nothing.
	for _, a := range accs.Spares() {
		var err error
		if r.acc, err = combine(r.acc, a); err != nil {
			return zero, err
		}
	}
	return r.acc, nil
}
