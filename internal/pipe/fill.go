package pipe

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
