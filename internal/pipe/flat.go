package pipe

// FlatSource is the Spec of the items that flat yields for every source
// index i in [lo, hi), in index order: flat(i, yield) yields the zero or
// more items of index i, in order, until yield returns false, and returns
// false if yield did. It is the form that FlatMap builds, for a source that
// yields its items straight from a loop of its own (the lines of a piece of
// text) with no slice per index. hi <= lo gives an empty Spec.
func FlatSource[T any](lo, hi int, flat func(i int, yield func(T) bool) bool) Spec[T] {
	return Spec[T]{Lo: lo, Hi: max(lo, hi), kind: formFlat, flat: flat}
}
