package pipe

// EachIndex calls yield with the source index and the item of every
// surviving item with index in [lo, hi), in index order: the index is i, not
// i-s.Lo (the caller shifts it). After a FlatMap, the items of one source
// index share it. Like Each, it picks the Spec's form once per block.
func (s *Spec[T]) EachIndex(lo, hi int, yield func(i int, v T)) {
	onBlock[T, struct{}](s, lo, hi, eachIndexLoop[T]{yield})
}

// eachIndexLoop is EachIndex's loops.
type eachIndexLoop[T any] struct{ yield func(int, T) }

func (l eachIndexLoop[T]) ints(lo, hi int) struct{} {
	// T is int: convert yield once rather than every item.
	yieldInt := any(l.yield).(func(int, int))
	for i := lo; i < hi; i++ {
		yieldInt(i, i)
	}
	return struct{}{}
}

func (l eachIndexLoop[T]) slice(xs []T, lo int) struct{} {
	for k, v := range xs {
		l.yield(lo+k, v)
	}
	return struct{}{}
}

func (l eachIndexLoop[T]) at(at func(int) T, lo, hi int) struct{} {
	for i := lo; i < hi; i++ {
		l.yield(i, at(i))
	}
	return struct{}{}
}

func (l eachIndexLoop[T]) gen(gen func(int) (T, bool), lo, hi int) struct{} {
	for i := lo; i < hi; i++ {
		if v, ok := gen(i); ok {
			l.yield(i, v)
		}
	}
	return struct{}{}
}

func (l eachIndexLoop[T]) flat(s flatItems[T], lo, hi int) struct{} {
	for i := lo; i < hi; i++ {
		s.flat(i, func(v T) bool { l.yield(i, v); return true })
	}
	return struct{}{}
}
