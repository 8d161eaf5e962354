package pipe

// EachIndex calls yield with the source index and the item of every
// surviving item with index in [lo, hi), in index order: the index is i, not
// i-s.Lo (the caller shifts it). After a FlatMap, the items of one source
// index share it. Like Each, it picks the Spec's form once per block.
func (s *Spec[T]) EachIndex(lo, hi int, yield func(i int, v T)) {
	if s.bind != nil {
		t, release := s.bind()
		t.EachIndex(lo, hi, yield)
		release()
		return
	}
	switch s.kind {
	case formFlat:
		for i := lo; i < hi; i++ {
			s.flat(i, func(v T) bool { yield(i, v); return true })
		}
	case formGen:
		for i := lo; i < hi; i++ {
			if v, ok := s.gen(i); ok {
				yield(i, v)
			}
		}
	case formAt:
		at := s.at
		for i := lo; i < hi; i++ {
			yield(i, at(i))
		}
	case formSlice:
		for k, v := range s.slice[lo:hi] {
			yield(lo+k, v)
		}
	default:
		// T is int: convert yield once rather than every item.
		yieldInt := any(yield).(func(int, int))
		for i := lo; i < hi; i++ {
			yieldInt(i, i)
		}
	}
}
