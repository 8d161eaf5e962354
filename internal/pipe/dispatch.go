package pipe

// The block entry points of a Spec (Each, EachUntil, EachIndex, Fill,
// TryFill, SumBlock, SearchBlock, FoldBlock, FoldSlices, SplitBlock) each
// run a loop over a block of its indices, with one loop per form, so that
// an item costs the user's calls and no dispatch. Their loops are the
// methods of a blockLoop, and onBlock is the one place that picks a loop
// for the Spec's form and checks out the per-goroutine state of a
// pipeline that has one (Spec.bind): a new entry point is a new
// blockLoop, and gets both.

// blockLoop is one entry point's loops over a block [lo, hi) of a Spec's
// indices, one method per form, each returning the entry point's result.
// An entry point that does not take some forms (Fill takes no filtered
// Spec) panics in their methods.
type blockLoop[T, R any] interface {
	ints(lo, hi int) R                         // formInts: the items are the indices (T is int)
	slice(xs []T, lo int) R                    // formSlice: xs is the block's part of the slice, from index lo
	at(at func(int) T, lo, hi int) R           // formAt
	gen(gen func(int) (T, bool), lo, hi int) R // formGen
	flat(f flatItems[T], lo, hi int) R         // formFlat
}

// flatItems is a flat Spec's item functions (Spec.flat, Spec.slices), as
// blockLoop.flat gets them: by value, so that no entry point's Spec leaves
// its stack through a loop, which onBlock calls through its dictionary.
type flatItems[T any] struct {
	flat   func(i int, yield func(T) bool) bool
	slices func(i int) []T
}

// onBlock runs the loop of l for s's form over [lo, hi). A pipeline with
// per-goroutine state runs it on bind()'s Spec, which has the range s has,
// and gives the state back once it returns, not after a panic: a state
// that a panic left behind is not reused. l's type is a type parameter so
// that each entry point's loops are compiled into its own onBlock and
// called directly.
func onBlock[T, R any, L blockLoop[T, R]](s *Spec[T], lo, hi int, l L) R {
	if s.bind != nil {
		t, release := s.bind()
		t.Lo, t.Hi = s.Lo, s.Hi
		r := onBlock[T, R](&t, lo, hi, l)
		release()
		return r
	}
	switch s.kind {
	case formFlat:
		return l.flat(flatItems[T]{s.flat, s.slices}, lo, hi)
	case formGen:
		return l.gen(s.gen, lo, hi)
	case formAt:
		return l.at(s.at, lo, hi)
	case formSlice:
		return l.slice(s.slice[lo:hi], lo)
	}
	return l.ints(lo, hi)
}
