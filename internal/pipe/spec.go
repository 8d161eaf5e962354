package pipe

import "golang.org/x/exp/constraints"

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

// Filter keeps the items for which pred returns true.
func (s Spec[T]) Filter(pred func(T) bool) Spec[T] {
	out := s.filter(pred)
	if bind := s.bind; bind != nil {
		out.bind = func() (Spec[T], func()) {
			t, release := bind()
			return t.filter(pred), release
		}
	}
	return out
}

func (s Spec[T]) filter(pred func(T) bool) Spec[T] {
	switch s.kind {
	case formFlat:
		flat := s.flat
		s.flat = func(i int, yield func(T) bool) bool {
			return flat(i, func(v T) bool { return !pred(v) || yield(v) })
		}
		s.slices = nil
		return s
	case formGen:
		gen := s.gen
		s.gen = func(i int) (T, bool) {
			v, ok := gen(i)
			return v, ok && pred(v)
		}
		return s
	case formAt:
		at := s.at
		s.gen = func(i int) (T, bool) {
			v := at(i)
			return v, pred(v)
		}
	case formSlice:
		xs := s.slice
		s.gen = func(i int) (T, bool) {
			v := xs[i]
			return v, pred(v)
		}
	default:
		// T is int: convert pred once rather than every item.
		predInt := any(pred).(func(int) bool)
		s.gen = any(func(i int) (int, bool) { return i, predInt(i) }).(func(int) (T, bool))
	}
	s.kind, s.at, s.slice = formGen, nil, nil
	return s
}

// Map applies f to every item. f runs only on items that survive the
// filters before it.
func (s Spec[T]) Map(f func(T) T) Spec[T] {
	return MapSpec(s, f)
}

// MapSpec is Map with a change of item type.
func MapSpec[T, U any](s Spec[T], f func(T) U) Spec[U] {
	out := mapSpec(s, f)
	if bind := s.bind; bind != nil {
		out.bind = func() (Spec[U], func()) {
			t, release := bind()
			return mapSpec(t, f), release
		}
	}
	return out
}

func mapSpec[T, U any](s Spec[T], f func(T) U) Spec[U] {
	out := Spec[U]{Lo: s.Lo, Hi: s.Hi, Config: s.Config, kind: s.kind}
	switch s.kind {
	case formFlat:
		flat := s.flat
		out.flat = func(i int, yield func(U) bool) bool {
			return flat(i, func(v T) bool { return yield(f(v)) })
		}
	case formGen:
		gen := s.gen
		out.gen = func(i int) (U, bool) {
			v, ok := gen(i)
			if !ok {
				var zero U
				return zero, false
			}
			return f(v), true
		}
	case formAt:
		at := s.at
		out.at = func(i int) U { return f(at(i)) }
	case formSlice:
		xs := s.slice
		out.kind, out.at = formAt, func(i int) U { return f(xs[i]) }
	default:
		// The items are the indices: T is int, so f is a func(int) U and
		// becomes at itself, with no wrapper to call through.
		out.kind, out.at = formAt, any(f).(func(int) U)
	}
	return out
}

// FilterMapSpec keeps f(x) for the items x for which f reports true: a map
// and a filter in one step.
func FilterMapSpec[T, U any](s Spec[T], f func(T) (U, bool)) Spec[U] {
	out := filterMapSpec(s, f)
	if bind := s.bind; bind != nil {
		out.bind = func() (Spec[U], func()) {
			t, release := bind()
			return filterMapSpec(t, f), release
		}
	}
	return out
}

func filterMapSpec[T, U any](s Spec[T], f func(T) (U, bool)) Spec[U] {
	if s.kind == formFlat {
		flat := s.flat
		return Spec[U]{Lo: s.Lo, Hi: s.Hi, Config: s.Config, kind: formFlat, flat: func(i int, yield func(U) bool) bool {
			return flat(i, func(v T) bool {
				u, ok := f(v)
				return !ok || yield(u)
			})
		}}
	}
	item := func(i int) (T, bool) { return Item(&s, i) }
	return Spec[U]{Lo: s.Lo, Hi: s.Hi, Config: s.Config, kind: formGen, gen: func(i int) (U, bool) {
		if v, ok := item(i); ok {
			return f(v)
		}
		var zero U
		return zero, false
	}}
}

// FlatMapSpec replaces every item x by the items of f(x), in order.
func FlatMapSpec[T, U any](s Spec[T], f func(T) []U) Spec[U] {
	out := flatMapSpec(s, f)
	if bind := s.bind; bind != nil {
		out.bind = func() (Spec[U], func()) {
			t, release := bind()
			return flatMapSpec(t, f), release
		}
	}
	return out
}

func flatMapSpec[T, U any](s Spec[T], f func(T) []U) Spec[U] {
	expand := func(v T, yield func(U) bool) bool {
		for _, u := range f(v) {
			if !yield(u) {
				return false
			}
		}
		return true
	}
	out := Spec[U]{Lo: s.Lo, Hi: s.Hi, Config: s.Config, kind: formFlat}
	if s.kind == formFlat {
		flat := s.flat
		out.flat = func(i int, yield func(U) bool) bool {
			return flat(i, func(v T) bool { return expand(v, yield) })
		}
		return out
	}
	item := func(i int) (T, bool) { return Item(&s, i) }
	out.flat = func(i int, yield func(U) bool) bool {
		v, ok := item(i)
		return !ok || expand(v, yield)
	}
	out.slices = func(i int) []U {
		if v, ok := item(i); ok {
			return f(v)
		}
		return nil
	}
	return out
}

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

// Each calls yield for every surviving item with index in [lo, hi), in
// index order.
func (s *Spec[T]) Each(lo, hi int, yield func(T)) {
	onBlock[T, struct{}](s, lo, hi, eachLoop[T]{yield})
}

// eachLoop is Each's loops.
type eachLoop[T any] struct{ yield func(T) }

func (l eachLoop[T]) ints(lo, hi int) struct{} {
	// T is int: convert yield once rather than every item.
	yieldInt := any(l.yield).(func(int))
	for i := lo; i < hi; i++ {
		yieldInt(i)
	}
	return struct{}{}
}

func (l eachLoop[T]) slice(xs []T, _ int) struct{} {
	for _, v := range xs {
		l.yield(v)
	}
	return struct{}{}
}

func (l eachLoop[T]) at(at func(int) T, lo, hi int) struct{} {
	for i := lo; i < hi; i++ {
		l.yield(at(i))
	}
	return struct{}{}
}

func (l eachLoop[T]) gen(gen func(int) (T, bool), lo, hi int) struct{} {
	for i := lo; i < hi; i++ {
		if v, ok := gen(i); ok {
			l.yield(v)
		}
	}
	return struct{}{}
}

func (l eachLoop[T]) flat(s flatItems[T], lo, hi int) struct{} {
	yield := l.yield
	more := func(v T) bool { yield(v); return true }
	for i := lo; i < hi; i++ {
		s.flat(i, more)
	}
	return struct{}{}
}

// Fill stores the items with index in [lo, hi) at dst[i-s.Lo]. It must
// only be used on an unfiltered Spec.
func Fill[T any](s *Spec[T], dst []T, lo, hi int) {
	onBlock[T, struct{}](s, lo, hi, fillLoop[T]{dst[lo-s.Lo : hi-s.Lo]})
}

// fillLoop is Fill's loops; out is the block's part of dst.
type fillLoop[T any] struct{ out []T }

func (l fillLoop[T]) ints(lo, _ int) struct{} {
	ints := any(l.out).([]int) // T is int
	for k := range ints {
		ints[k] = lo + k
	}
	return struct{}{}
}

func (l fillLoop[T]) slice(xs []T, _ int) struct{} {
	copy(l.out, xs)
	return struct{}{}
}

func (l fillLoop[T]) at(at func(int) T, lo, _ int) struct{} {
	for k := range l.out {
		l.out[k] = at(lo + k)
	}
	return struct{}{}
}

func (fillLoop[T]) gen(func(int) (T, bool), int, int) struct{} { panic(unfiltered("Fill")) }
func (fillLoop[T]) flat(flatItems[T], int, int) struct{}       { panic(unfiltered("Fill")) }

// unfiltered is the panic of an entry point that takes only an unfiltered
// Spec (one item per index), called on another.
func unfiltered(entry string) string {
	return "pipe: " + entry + " on a filtered or flat Spec"
}

// EachUntil is Each that stops as soon as yield returns false; it reports
// whether it went through the whole block.
func (s *Spec[T]) EachUntil(lo, hi int, yield func(T) bool) bool {
	return onBlock[T, bool](s, lo, hi, eachUntilLoop[T]{yield})
}

// eachUntilLoop is EachUntil's loops.
type eachUntilLoop[T any] struct{ yield func(T) bool }

func (l eachUntilLoop[T]) ints(lo, hi int) bool {
	yieldInt := any(l.yield).(func(int) bool) // T is int
	for i := lo; i < hi; i++ {
		if !yieldInt(i) {
			return false
		}
	}
	return true
}

func (l eachUntilLoop[T]) slice(xs []T, _ int) bool {
	for _, v := range xs {
		if !l.yield(v) {
			return false
		}
	}
	return true
}

func (l eachUntilLoop[T]) at(at func(int) T, lo, hi int) bool {
	for i := lo; i < hi; i++ {
		if !l.yield(at(i)) {
			return false
		}
	}
	return true
}

func (l eachUntilLoop[T]) gen(gen func(int) (T, bool), lo, hi int) bool {
	for i := lo; i < hi; i++ {
		if v, ok := gen(i); ok && !l.yield(v) {
			return false
		}
	}
	return true
}

func (l eachUntilLoop[T]) flat(s flatItems[T], lo, hi int) bool {
	for i := lo; i < hi; i++ {
		if !s.flat(i, l.yield) {
			return false
		}
	}
	return true
}

// Number is the set of types Sum accepts: every integer, float and complex
// type, and the types defined on them.
type Number interface {
	constraints.Integer | constraints.Float | constraints.Complex
}

// SumBlock adds up the surviving items with index in [lo, hi).
func SumBlock[T Number](s *Spec[T], lo, hi int) T {
	return onBlock[T, T](s, lo, hi, sumLoop[T]{})
}

// sumLoop is SumBlock's loops.
type sumLoop[T Number] struct{}

func (sumLoop[T]) ints(lo, hi int) T {
	// T is int: add as ints and convert once.
	var sum int
	for i := lo; i < hi; i++ {
		sum += i
	}
	return any(sum).(T)
}

func (sumLoop[T]) slice(xs []T, _ int) T {
	var acc T
	for _, v := range xs {
		acc += v
	}
	return acc
}

// at is the hot loop of par.Range(lo, hi).Map(f).Sum(): one call per item.
func (sumLoop[T]) at(at func(int) T, lo, hi int) T { return sumAt(at, lo, hi) }

func (sumLoop[T]) gen(gen func(int) (T, bool), lo, hi int) T {
	var acc T
	for i := lo; i < hi; i++ {
		if v, ok := gen(i); ok {
			acc += v
		}
	}
	return acc
}

func (sumLoop[T]) flat(s flatItems[T], lo, hi int) T {
	// A variable of its own for the closure: one that a closure captures
	// lives in memory, and is loaded and stored at every addition.
	var kept T
	add := func(v T) bool { kept += v; return true }
	for i := lo; i < hi; i++ {
		s.flat(i, add)
	}
	return kept
}

// sumAt is the per-item loop of par.Range(lo, hi).Map(f).Sum(): one call
// of at per item, four calls to a turn of the loop, in a function of its
// own.
//
// Four calls a turn keep the loop's speed from depending on where the
// linker puts it. Go aligns a function only to 32 bytes, and on some
// processors a loop runs slower when the straight runs of code between its
// jumps and calls cross a 64-byte line. Go has no callee-saved registers,
// so a loop that calls a func value stores its index and sum before each
// call and loads them after it: the one-call loop was 52 bytes, and in one
// of the two places the linker may give the function it lay inside a line
// while in the other it crossed one, 11-21% on the per-item call with
// unrelated code changes. The unrolled loop (165 bytes) crosses two or
// three lines in either place, a few bytes' share of four items: par's W0
// per-item call differs by under 2% between the two places, where the
// one-call loop's differs by 17%. The index and the sum also go through
// memory once per four items instead of once per item.
//
// acc + a + b + c + d adds left to right, item by item as the one-call loop
// did: a float sum keeps its bits (see sumBlock).
//
// A build with a CPU profile (PGO) can devirtualize the calls here and
// align the loop to a line itself: the guide's PGO section. The call site
// is one for every item function of the same GC shape in the program, so
// only the hottest of them gets the direct call.
//
//go:noinline
func sumAt[T Number](at func(int) T, lo, hi int) T {
	var acc T
	i := lo
	// hi-i wraps negative only past 2^63 items; the one-call loop below
	// takes those.
	for i < hi && hi-i >= 4 {
		a := at(i)
		b := at(i + 1)
		c := at(i + 2)
		d := at(i + 3)
		acc = acc + a + b + c + d
		i += 4
	}
	for ; i < hi; i++ {
		acc += at(i)
	}
	return acc
}

// SearchBlock returns the lowest index i in [lo, hi) whose item survives the
// filters and satisfies pred, with that item. It dispatches on the Spec's
// form once per block, so the searches pay one indirect call per item (pred)
// where Item would add a second. After a FlatMap, v is the first match
// among the items of index i.
func SearchBlock[T any](s *Spec[T], lo, hi int, pred func(T) bool) (i int, v T, found bool) {
	h := onBlock[T, hit[T]](s, lo, hi, searchLoop[T]{pred})
	return h.i, h.v, h.found
}

// hit is SearchBlock's result.
type hit[T any] struct {
	i     int
	v     T
	found bool
}

// searchLoop is SearchBlock's loops.
type searchLoop[T any] struct{ pred func(T) bool }

func (l searchLoop[T]) ints(lo, hi int) hit[T] {
	predInt := any(l.pred).(func(int) bool) // T is int
	for i := lo; i < hi; i++ {
		if predInt(i) {
			return hit[T]{i, any(i).(T), true}
		}
	}
	return hit[T]{}
}

func (l searchLoop[T]) slice(xs []T, lo int) hit[T] {
	for k, v := range xs {
		if l.pred(v) {
			return hit[T]{lo + k, v, true}
		}
	}
	return hit[T]{}
}

func (l searchLoop[T]) at(at func(int) T, lo, hi int) hit[T] {
	for i := lo; i < hi; i++ {
		if v := at(i); l.pred(v) {
			return hit[T]{i, v, true}
		}
	}
	return hit[T]{}
}

func (l searchLoop[T]) gen(gen func(int) (T, bool), lo, hi int) hit[T] {
	for i := lo; i < hi; i++ {
		if v, ok := gen(i); ok && l.pred(v) {
			return hit[T]{i, v, true}
		}
	}
	return hit[T]{}
}

func (l searchLoop[T]) flat(s flatItems[T], lo, hi int) hit[T] {
	var h hit[T]
	pred := l.pred
	match := func(x T) bool {
		if pred(x) {
			h.v, h.found = x, true
			return false
		}
		return true
	}
	for i := lo; i < hi; i++ {
		if !s.flat(i, match) {
			h.i = i
			return h
		}
	}
	return h
}

// TryFill stores f(item) for the items with index in [lo, hi) at
// dst[i-lo], in index order, until f returns an error, which it returns.
// It must only be used on an unfiltered Spec. Like SearchBlock, it picks
// the Spec's form once per block, so an item costs the call of f (and of at
// for a mapped source) and nothing more.
func TryFill[T, U any](s *Spec[T], dst []U, lo, hi int, f func(T) (U, error)) error {
	return onBlock[T, error](s, lo, hi, tryFillLoop[T, U]{dst[:hi-lo], f})
}

// tryFillLoop is TryFill's loops; out is the block's part of dst.
type tryFillLoop[T, U any] struct {
	out []U
	f   func(T) (U, error)
}

func (l tryFillLoop[T, U]) ints(lo, _ int) error {
	fInt := any(l.f).(func(int) (U, error)) // T is int
	var err error
	for k := range l.out {
		if l.out[k], err = fInt(lo + k); err != nil {
			return err
		}
	}
	return nil
}

func (l tryFillLoop[T, U]) slice(xs []T, _ int) error {
	var err error
	for k, v := range xs {
		if l.out[k], err = l.f(v); err != nil {
			return err
		}
	}
	return nil
}

func (l tryFillLoop[T, U]) at(at func(int) T, lo, _ int) error {
	var err error
	for k := range l.out {
		if l.out[k], err = l.f(at(lo + k)); err != nil {
			return err
		}
	}
	return nil
}

func (tryFillLoop[T, U]) gen(func(int) (T, bool), int, int) error { panic(unfiltered("TryFill")) }
func (tryFillLoop[T, U]) flat(flatItems[T], int, int) error       { panic(unfiltered("TryFill")) }
