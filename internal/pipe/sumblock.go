package pipe

import "golang.org/x/exp/constraints"

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
