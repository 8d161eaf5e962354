package pipe

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
