package pipe

// The Reducer: how a loop turns blocks of indices into a result.

import "math"

// Reducer says how a parallel loop turns blocks of indices into a result.
//
// The loop is cut into runs: maximal sequences of contiguous blocks that one
// goroutine folds, one after the other, into an accumulator that starts at
// Identity(). Combine then joins the runs' accumulators in index order, so
// it needs to be associative, not commutative.
type Reducer[A any] struct {
	// Identity gives a run's starting accumulator; nil gives A's zero
	// value. Every accumulator it gives is folded into or passed to
	// Combine (FoldUnordered's free list relies on that), except after a
	// panic, or when Stop or Cut says the first block holds the answer. (Leave it nil where that is the identity: in a generic
	// function each closure captures the type's dictionary, and Run's
	// closures escape into the parallel phase's state, so a closure
	// costs an allocation at every call, inline loops included.)
	Identity func() A
	// Fold folds the items with index in [lo, hi) into acc.
	Fold func(acc A, lo, hi int) A
	// Combine joins the results of two adjacent runs, left first. Nil means
	// only the side effects of Fold matter, and Run returns Identity().
	Combine func(left, right A) A
	// Stop, if not nil, is asked after each block whether the loop is
	// decided (an item was found, an error returned): then no item that is
	// not already running is run.
	Stop func(acc A) bool
	// Cut, if not nil, is asked after each block from which index on the
	// items are no longer needed (math.MaxInt: all still are), as when
	// FindFirst has a match at that index: items above it are dropped,
	// those below still run. A loop with a Cut hands out low indexes first
	// (see partition.NewGrowingLoop), so little runs above a cut.
	Cut func(acc A) int
	// Setup, if set, says that each call of Fold may carry a setup that
	// only large blocks amortise: the block API's body, which may build a
	// map or a buffer per block. Blocks then at least double in the
	// caller's inline phase, and a participant takes half of what its
	// range has left at a time (at least the sizer's block, which still
	// follows the clock), so that Fold is called O(participants x log n)
	// times, as the leaves of Rayon's splitting are, rather than once every
	// few microseconds of work. Half of a range stays in the thieves'
	// reach. See docs/design.md, "Blocks with a setup".
	Setup bool
	// AllRuns keeps every run that ran when a done context stops the loop.
	// By default a stopped loop's result covers a prefix: only the runs
	// before the first index that did not run are combined (see
	// prefixRuns), so that a cancelled Collect, Reduce or Sum is the result
	// of a shorter input, never one with holes. The Try forms set it: an
	// error counts wherever it came from, and they return no partial
	// result.
	AllRuns bool
	// Unordered lets a participant fold every block it runs into one
	// accumulator, contiguous or not, and Combine join any two: for an
	// accumulator whose combine is commutative (FoldUnordered), so that a
	// loop makes one per participant, not one per steal.
	Unordered bool
	// SeqLen, if not nil, is told the number of items of a seq that ended
	// by itself (the sequence driver's; see seqStore.batches). It is not
	// called when the loop stopped the seq while it still had items, or
	// over a range, whose length the caller knows.
	SeqLen func(n int)
}

// identity returns r.Identity(), or A's zero value if it is nil.
func (r *Reducer[A]) identity() A {
	if r.Identity == nil {
		var zero A
		return zero
	}
	return r.Identity()
}

// verdict is what a participant's run says of the loop after a block:
// stop, the loop is answered (Stop); or else cut, the index at and above
// which no item is needed any more (Cut; math.MaxInt if none). Every driver
// asks it after each block it folds.
func (r *Reducer[A]) verdict(acc A) (stop bool, cut int) {
	if r.Stop != nil && r.Stop(acc) {
		return true, math.MaxInt
	}
	if r.Cut != nil {
		return false, r.Cut(acc)
	}
	return false, math.MaxInt
}

// answered reports whether acc, the result of the loop's items in order
// from its start up to some index, holds the answer of a loop that ends at
// hi: Stop says so, or Cut is below hi (the prefix ran in order, so a match
// is at or below it). The items after it do not count. Asked between blocks
// where the items run in order: the inline phase, the first block beside a
// promoted rest, a FromSeq's batches.
func (r *Reducer[A]) answered(acc A, hi int) bool {
	stop, cut := r.verdict(acc)
	return stop || cut < hi
}

// decided reports whether the loop ends after acc: it is answered, or done
// is closed (a cancelled loop stops, and its prefix counts).
func (r *Reducer[A]) decided(acc A, hi int, done <-chan struct{}) bool {
	return r.answered(acc, hi) || isClosed(done)
}

// boxed returns r over accumulators of type any, each a *A (nil for A's
// zero value, as a nil Identity gives), for the drivers past the pool
// driver's inline phase: they are then compiled once, not once for every
// accumulator type that a program folds into, so that a program's build
// time, its compiler's memory and its binary grow with those types by the
// inline phase alone (TestDriversCompiledOnce). A reducer over any is
// returned as it is, so that boxing twice boxes once; unbox reads the
// result back. The cost is an allocation per run and a type assertion per
// block, small beside a block's microseconds and the parallel phase's own
// allocations.
func boxed[A any](r Reducer[A]) Reducer[any] {
	if b, ok := any(r).(Reducer[any]); ok {
		return b
	}
	b := Reducer[any]{Setup: r.Setup, AllRuns: r.AllRuns, Unordered: r.Unordered, SeqLen: r.SeqLen}
	if id := r.Identity; id != nil {
		b.Identity = func() any {
			acc := id()
			return &acc
		}
	}
	fold := r.Fold
	b.Fold = func(acc any, lo, hi int) any {
		p := slot[A](acc)
		*p = fold(*p, lo, hi)
		return p
	}
	if combine := r.Combine; combine != nil {
		b.Combine = func(left, right any) any {
			p := slot[A](left)
			*p = combine(*p, unbox[A](right))
			return p
		}
	}
	if stop := r.Stop; stop != nil {
		b.Stop = func(acc any) bool { return stop(unbox[A](acc)) }
	}
	if cut := r.Cut; cut != nil {
		b.Cut = func(acc any) int { return cut(unbox[A](acc)) }
	}
	return b
}

// slot returns the *A that a boxed accumulator acc holds, or a new one
// holding A's zero value if acc is nil: where Fold and Combine write.
func slot[A any](acc any) *A {
	if p, _ := acc.(*A); p != nil {
		return p
	}
	return new(A)
}

// unbox returns the accumulator that acc holds under boxed(r), for a
// Reducer[A] r.
func unbox[A any](acc any) A {
	if isAny[A]() {
		a, _ := acc.(A) // boxed left r as it was
		return a
	}
	if p, _ := acc.(*A); p != nil {
		return *p
	}
	var zero A
	return zero
}

// box returns acc as boxed(r) holds it, for a Reducer[A] r.
func box[A any](acc A) any {
	if isAny[A]() {
		return acc
	}
	return &acc
}

// isAny says whether A is any, which boxed leaves as it is.
func isAny[A any]() bool {
	_, ok := any((*A)(nil)).(*any)
	return ok
}
