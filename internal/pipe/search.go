package pipe

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
