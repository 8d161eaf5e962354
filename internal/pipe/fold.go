package pipe

// FoldBlock folds the surviving items with index in [lo, hi) into acc with
// fold, in index order, and returns acc. Like SearchBlock, it picks the
// Spec's form once per block, so that an item costs the call of fold (and of
// at for a mapped source) with acc kept in registers: through Each, a fold
// costs a second call per item, and acc, captured by Each's closure, is
// loaded and stored in memory at every item.
func FoldBlock[T, A any](s *Spec[T], acc A, lo, hi int, fold func(A, T) A) A {
	return onBlock[T, A](s, lo, hi, foldLoop[T, A]{acc, fold})
}

// foldLoop is FoldBlock's loops, from the accumulator acc.
type foldLoop[T, A any] struct {
	acc  A
	fold func(A, T) A
}

func (l foldLoop[T, A]) ints(lo, hi int) A {
	foldInt := any(l.fold).(func(A, int) A) // T is int
	acc := l.acc
	for i := lo; i < hi; i++ {
		acc = foldInt(acc, i)
	}
	return acc
}

func (l foldLoop[T, A]) slice(xs []T, _ int) A {
	acc := l.acc
	for _, v := range xs {
		acc = l.fold(acc, v)
	}
	return acc
}

func (l foldLoop[T, A]) at(at func(int) T, lo, hi int) A {
	acc := l.acc
	for i := lo; i < hi; i++ {
		acc = l.fold(acc, at(i))
	}
	return acc
}

func (l foldLoop[T, A]) gen(gen func(int) (T, bool), lo, hi int) A {
	acc := l.acc
	for i := lo; i < hi; i++ {
		if v, ok := gen(i); ok {
			acc = l.fold(acc, v)
		}
	}
	return acc
}

func (l foldLoop[T, A]) flat(s flatItems[T], lo, hi int) A {
	acc, fold := l.acc, l.fold
	more := func(v T) bool { acc = fold(acc, v); return true }
	for i := lo; i < hi; i++ {
		s.flat(i, more)
	}
	return acc
}

// FoldRuns is Run with a Reducer that folds blocks into accumulators made
// by init, kept apart in memory (Apart), and joins adjacent runs' with
// combine, in index order; the values of init that Apart passed over are
// combined on the right of the result.
func FoldRuns[A any](cfg Config, lo, hi int, init func() A, fold func(acc A, lo, hi int) A, combine func(A, A) A) A {
	accs := NewApart(init)
	acc := Run(cfg, lo, hi, Reducer[A]{Identity: accs.Make, Fold: fold, Combine: combine})
	for _, a := range accs.Spares() {
		acc = combine(acc, a)
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
// keeps its accumulator, and the cache lines it fills, for the whole loop.
// The accumulators are made by init and kept apart in memory (Apart). They
// are then joined with combine in no particular order, spares included, so
// combine must be commutative as well as associative. init runs at most
// about twice per goroutine (a caller's inline phase and a taken rest of a
// loop hold one more than its participants), whatever the number of items,
// steals and batches, and a few more times where Apart passes its values
// over; with no item, FoldUnordered returns init().
//
// A done context stops the loop as usual; what the accumulators hold is
// then what ran (AllRuns: there is no order, so no prefix, to keep).
func FoldUnordered[A any](cfg Config, lo, hi int, init func() A, fold func(acc A, lo, hi int) A, combine func(A, A) A) A {
	made := NewApart(init)
	accs := &stateList[A]{init: made.Make}
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
	for _, a := range append(accs.idle, made.Spares()...) {
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
	if lo >= hi {
		return acc
	}
	return onBlock[T, A](s, lo, hi, foldSlicesLoop[T, A]{acc, fold})
}

// foldSlicesLoop is FoldSlices' loops, from the accumulator acc.
type foldSlicesLoop[T, A any] struct {
	acc  A
	fold func(A, []T) A
}

func (l foldSlicesLoop[T, A]) ints(lo, hi int) A {
	fold := any(l.fold).(func(A, []int) A) // T is int
	acc, one := l.acc, make([]int, 1)      // the item, reused for the block
	for i := lo; i < hi; i++ {
		one[0] = i
		acc = fold(acc, one)
	}
	return acc
}

func (l foldSlicesLoop[T, A]) slice(xs []T, _ int) A { return l.fold(l.acc, xs) }

func (l foldSlicesLoop[T, A]) at(at func(int) T, lo, hi int) A {
	acc, one := l.acc, make([]T, 1)
	for i := lo; i < hi; i++ {
		one[0] = at(i)
		acc = l.fold(acc, one)
	}
	return acc
}

func (l foldSlicesLoop[T, A]) gen(gen func(int) (T, bool), lo, hi int) A {
	acc, one := l.acc, make([]T, 1)
	for i := lo; i < hi; i++ {
		if v, ok := gen(i); ok {
			one[0] = v
			acc = l.fold(acc, one)
		}
	}
	return acc
}

func (l foldSlicesLoop[T, A]) flat(s flatItems[T], lo, hi int) A {
	acc, fold := l.acc, l.fold
	if s.slices != nil {
		for i := lo; i < hi; i++ {
			if xs := s.slices(i); len(xs) > 0 {
				acc = fold(acc, xs)
			}
		}
		return acc
	}
	one := make([]T, 1)
	more := func(v T) bool {
		one[0] = v
		acc = fold(acc, one)
		return true
	}
	for i := lo; i < hi; i++ {
		s.flat(i, more)
	}
	return acc
}

// SplitBlock appends the surviving items with index in [lo, hi) for which
// pred is true to yes and the others to no, in index order, and returns
// both: Partition's loop, with one call per item (pred) on the unfiltered
// forms.
func SplitBlock[T any](s *Spec[T], lo, hi int, pred func(T) bool, yes, no []T) ([]T, []T) {
	out := onBlock[T, split[T]](s, lo, hi, splitLoop[T]{split[T]{yes, no}, pred})
	return out.yes, out.no
}

// split is SplitBlock's result.
type split[T any] struct{ yes, no []T }

// add appends v to yes or no.
func (sp *split[T]) add(v T, yes bool) {
	if yes {
		sp.yes = append(sp.yes, v)
	} else {
		sp.no = append(sp.no, v)
	}
}

// splitLoop is SplitBlock's loops, from the slices in to.
type splitLoop[T any] struct {
	to   split[T]
	pred func(T) bool
}

func (l splitLoop[T]) ints(lo, hi int) split[T] {
	// T is int: convert once rather than every item.
	predInt := any(l.pred).(func(int) bool)
	to := any(l.to).(split[int])
	for i := lo; i < hi; i++ {
		to.add(i, predInt(i))
	}
	return any(to).(split[T])
}

func (l splitLoop[T]) slice(xs []T, _ int) split[T] {
	to := l.to
	for _, v := range xs {
		to.add(v, l.pred(v))
	}
	return to
}

func (l splitLoop[T]) at(at func(int) T, lo, hi int) split[T] {
	to := l.to
	for i := lo; i < hi; i++ {
		v := at(i)
		to.add(v, l.pred(v))
	}
	return to
}

func (l splitLoop[T]) gen(gen func(int) (T, bool), lo, hi int) split[T] {
	to := l.to
	for i := lo; i < hi; i++ {
		if v, ok := gen(i); ok {
			to.add(v, l.pred(v))
		}
	}
	return to
}

func (l splitLoop[T]) flat(s flatItems[T], lo, hi int) split[T] {
	to, pred := l.to, l.pred
	more := func(v T) bool { to.add(v, pred(v)); return true }
	for i := lo; i < hi; i++ {
		s.flat(i, more)
	}
	return to
}
