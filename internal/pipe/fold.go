package pipe

// FoldBlock folds the surviving items with index in [lo, hi) into acc with
// fold, in index order, and returns acc. Like SearchBlock, it picks the
// Spec's form once per block, so that an item costs the call of fold (and of
// at for a mapped source) with acc kept in registers: through Each, a fold
// costs a second call per item, and acc, captured by Each's closure, is
// loaded and stored in memory at every item.
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

// FoldUnordered runs fold over the blocks of [lo, hi) (fold folds a block
// into an accumulator, with FoldBlock or FoldSlices) with an accumulator
// per goroutine that runs the loop, whatever the number of steals and
// batches (over a seq, for the whole seq): each participant of a loop checks an
// accumulator out of a free list when it starts, as MapInit checks out its
// states (state.go), folds every block it runs into it (Reducer.Unordered),
// and gives it back when the loop joins its runs, so that a participant
// keeps its accumulator, and the cache lines it fills, for the whole loop. The
// accumulators are then joined with combine in no particular order, so
// combine must be commutative as well as associative. init runs at most
// about twice per goroutine (a caller's inline phase and a taken rest of a
// loop hold one more than its participants), whatever the number of items,
// steals and batches; with no item, FoldUnordered returns init().
//
// A done context stops the loop as usual; what the accumulators hold is
// then what ran (AllRuns: there is no order, so no prefix, to keep).
func FoldUnordered[A any](cfg Config, lo, hi int, init func() A, fold func(acc A, lo, hi int) A, combine func(A, A) A) A {
	accs := &stateList[A]{init: init}
	acc := Run(cfg, lo, hi, Reducer[A]{
		Identity: accs.get,
		Fold:     fold,
		// Joining two runs gives the right one's accumulator back.
		Combine: func(a, b A) A {
			accs.put(b)
			return a
		},
		AllRuns:   true,
		Unordered: true,
	})
	accs.put(acc)
	acc = accs.idle[0]
	for _, a := range accs.idle[1:] {
		acc = combine(acc, a)
	}
	return acc
}

// FoldSlices folds the surviving items with index in [lo, hi) into acc,
// in index order, a slice of consecutive items at a time, and returns acc.
// fold must not keep the slice.
//
// It is FoldBlock for a fold that loops over the items itself, as the
// keyed operations do: over a slice source fold gets the block's part of
// the slice, and after a FlatMap straight over a source the slice that its
// function returned for each index, so that an item costs the calls that
// fold makes (a key function) and none of fold itself, which over items
// of a few nanoseconds (a map update) is most of the cost of the loop.
// Over the other forms fold gets one item at a time, as from FoldBlock.
func FoldSlices[T, A any](s *Spec[T], acc A, lo, hi int, fold func(A, []T) A) A {
	if s.bind != nil {
		t, release := s.bind()
		acc = FoldSlices(&t, acc, lo, hi, fold)
		release() // not after a panic: see Spec.bind
		return acc
	}
	switch {
	case lo >= hi:
		return acc
	case s.kind == formSlice:
		return fold(acc, s.slice[lo:hi])
	case s.slices != nil:
		for i := lo; i < hi; i++ {
			if xs := s.slices(i); len(xs) > 0 {
				acc = fold(acc, xs)
			}
		}
		return acc
	}
	one := make([]T, 1) // the item, reused for the block
	switch s.kind {
	case formAt:
		for i := lo; i < hi; i++ {
			one[0] = s.at(i)
			acc = fold(acc, one)
		}
	case formGen:
		for i := lo; i < hi; i++ {
			if v, ok := s.gen(i); ok {
				one[0] = v
				acc = fold(acc, one)
			}
		}
	default:
		s.Each(lo, hi, func(v T) {
			one[0] = v
			acc = fold(acc, one)
		})
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
