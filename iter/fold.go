package iter

// FoldBlock folds the surviving items with index in [lo, hi) into acc with
// fold, in index order, and returns acc. Like SearchBlock, it picks the
// Spec's form once per block, so that an item costs the call of fold (and of
// at for a mapped source) with acc kept in registers: through Each, a fold
// costs a second call per item, and acc, captured by Each's closure, is
// loaded and stored in memory at every item (docs/benchmarks.md, "Fold over
// cheap items").
func FoldBlock[T, A any](s *Spec[T], acc A, lo, hi int, fold func(A, T) A) A {
	if s.bind != nil {
		t, release := s.bind()
		acc = FoldBlock(&t, acc, lo, hi, fold)
		release() // not after a panic: see Spec.bind
		return acc
	}
	switch s.kind {
	case formFlat, formGen:
		s.Each(lo, hi, func(v T) { acc = fold(acc, v) })
	case formAt:
		at := s.at
		for i := lo; i < hi; i++ {
			acc = fold(acc, at(i))
		}
	case formSlice:
		for _, v := range s.slice[lo:hi] {
			acc = fold(acc, v)
		}
	default:
		// T is int: convert fold once rather than every item.
		foldInt := any(fold).(func(A, int) A)
		for i := lo; i < hi; i++ {
			acc = foldInt(acc, i)
		}
	}
	return acc
}

// FoldUnordered folds the items of s with one accumulator per goroutine
// that runs the loop, whatever the number of blocks, steals and batches
// (over a seq, for the whole seq): each block checks an accumulator out of
// a free list, as MapInit checks out its states (state.go), folds its items
// into it in index order, and gives it back. The accumulators are then
// joined with combine in no particular order, so combine must be
// commutative as well as associative. init runs at most as many times as
// blocks ran at once; with no item, FoldUnordered returns init().
//
// A done context stops the loop as usual; what the accumulators hold is
// then what ran (the prefix rule of ordered loops does not apply: there is
// no order to cut).
func FoldUnordered[T, A any](s Spec[T], init func() A, fold func(A, T) A, combine func(A, A) A) A {
	accs := &stateList[A]{init: init}
	RunBlocks(s.Config, s.Lo, s.Hi, func(lo, hi int) {
		acc := accs.get()
		acc = FoldBlock(&s, acc, lo, hi, fold)
		accs.put(acc) // not after a panic: the operation ends with it
	})
	if len(accs.idle) == 0 {
		return init()
	}
	acc := accs.idle[0]
	for _, a := range accs.idle[1:] {
		acc = combine(acc, a)
	}
	return acc
}

// SplitBlock appends the surviving items with index in [lo, hi) for which
// pred is true to yes and the others to no, in index order, and returns
// both: Partition's loop, with one call per item (pred) on the unfiltered
// forms.
func SplitBlock[T any](s *Spec[T], lo, hi int, pred func(T) bool, yes, no []T) ([]T, []T) {
	if s.bind != nil {
		t, release := s.bind()
		yes, no = SplitBlock(&t, lo, hi, pred, yes, no)
		release()
		return yes, no
	}
	switch s.kind {
	case formFlat, formGen:
		s.Each(lo, hi, func(v T) {
			if pred(v) {
				yes = append(yes, v)
			} else {
				no = append(no, v)
			}
		})
	case formAt:
		at := s.at
		for i := lo; i < hi; i++ {
			if v := at(i); pred(v) {
				yes = append(yes, v)
			} else {
				no = append(no, v)
			}
		}
	case formSlice:
		for _, v := range s.slice[lo:hi] {
			if pred(v) {
				yes = append(yes, v)
			} else {
				no = append(no, v)
			}
		}
	default:
		// T is int: convert once rather than every item.
		predInt := any(pred).(func(int) bool)
		yesInt, noInt := any(yes).([]int), any(no).([]int)
		for i := lo; i < hi; i++ {
			if predInt(i) {
				yesInt = append(yesInt, i)
			} else {
				noInt = append(noInt, i)
			}
		}
		yes, no = any(yesInt).([]T), any(noInt).([]T)
	}
	return yes, no
}
