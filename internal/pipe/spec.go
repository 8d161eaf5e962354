package pipe

// Spec describes an indexed pipeline: a source of items addressed by index
// in [Lo, Hi), and the adapters applied to them. Its kind says how item i
// is found (see form); the operations on a Spec switch on it once per
// block, not per item.
//
// The special forms exist so that the common pipelines pay one indirect
// call per item or none: Range(lo, hi).Map(f) stores f itself as at, and a
// terminal operation loops over it directly.
//
// A Spec is a small value; adapters return modified copies and never change
// their receiver, so a pipeline can be reused and extended.
type Spec[T any] struct {
	Lo, Hi int
	Config

	kind  form
	slice []T                                  // formSlice
	at    func(int) T                          // formAt
	gen   func(int) (T, bool)                  // formGen
	flat  func(i int, yield func(T) bool) bool // formFlat
	// slices, if not nil (formFlat), gives the items of index i as one
	// slice: a FlatMap straight after a form with one item per index,
	// whose function returns them so (FoldSlices hands them on as they
	// are). An adapter that replaces flat in a copy of its Spec clears it.
	slices func(i int) []T

	// bind, if not nil, says that the pipeline has a stage with state of
	// its own per goroutine (MapInitSpec). The item functions above then
	// only give the pipeline's shape (kind): every block entry point runs
	// its block on bind(), the pipeline with a state checked out for the
	// block, and calls the release function bind returned once the block
	// is done (onBlock, dispatch.go). The adapters compose into bind.
	bind func() (Spec[T], func())

	_ [8]byte // a size in whole 16-byte words: see TestCopiesInWholeWords
}

// form is the kind of a Spec: how item i is found.
type form uint8

const (
	// formInts: the index itself (T is int).
	formInts form = iota
	// formSlice: slice[i].
	formSlice
	// formAt: at(i).
	formAt
	// formGen: gen(i) gives the item and whether it survives the filters.
	formGen
	// formFlat: flat(i, yield) yields the zero or more items of source
	// index i, in order, until yield returns false (FlatMap); it returns
	// false if yield did.
	formFlat
)

// Ints is the Spec of the integers in [lo, hi); hi <= lo gives an empty one.
func Ints(lo, hi int) Spec[int] {
	return Spec[int]{Lo: lo, Hi: max(lo, hi)}
}

// Slice is the Spec of the elements of xs, in order.
func Slice[T any](xs []T) Spec[T] {
	return Spec[T]{Lo: 0, Hi: len(xs), kind: formSlice, slice: xs}
}

// Filtered reports whether some items may be dropped.
func Filtered[T any](s *Spec[T]) bool { return s.kind >= formGen }

// Flat reports whether a source index may give any number of items (after
// FlatMap), so that the number of source indices bounds nothing.
func Flat[T any](s *Spec[T]) bool { return s.kind == formFlat }

// Item returns item i and whether it survives the filters. It is the slow,
// general path; the terminal operations loop over the special forms. A flat
// Spec has no single item per index: every caller handles it first.
func Item[T any](s *Spec[T], i int) (T, bool) {
	switch s.kind {
	case formFlat:
		panic("pipe: Item on a Spec after FlatMap")
	case formGen:
		return s.gen(i)
	case formAt:
		return s.at(i), true
	case formSlice:
		return s.slice[i], true
	}
	return any(i).(T), true
}
