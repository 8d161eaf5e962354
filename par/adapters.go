package par

import (
	"fmt"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// The index adapters, Rayon's take, skip, enumerate, zip and chain: each
// works on the positions of the items, as Collect numbers them, and keeps
// their order, each item running once through the steps after it.
//
// Over a source whose items sit at known positions (Range, Slice,
// Numbers, Chunks, and Map or MapInit of one), they cost nothing of their
// own: Take and Skip narrow the range of positions, and nothing runs for
// the items they leave out; Enumerate, Zip and Chain map a position to its
// items. The result is such a source too, and Len and a Count without a
// Filter still run nothing.
//
// Over FromSeq and FromChan, and after a Filter, FilterMap or FlatMap (or
// Lines, whose records come as a FlatMap's do), an item's position is known
// only once the items before it have run. There the result is a stream, as
// FromSeq's is: the steps before the adapter run in batches, in order, each
// batch in parallel on the pool, a few batches ahead of the steps after it,
// which run on the items as on FromSeq's. So, as for FromSeq, Len returns
// -1, and the result runs one terminal operation at a time. Every setting
// applies to the whole pipeline, wherever it is given, and a done context
// stops both sides of the adapter; a Blocking limit applies to the steps
// before the adapter and to those after it, each. (Rayon has these
// adapters on indexed iterators only. Chain needs no stream unless one side
// is FromSeq's or FromChan's: after a Filter, its positions are those of
// its two sides, one after the other.)

// Enumerate returns an iterator over the items of it with their positions,
// Pair{i, x} for the i-th item x, counted from 0 as Collect places them: a
// parallel iterator that chains on (Filter, Map, ForEach, ...), where
// Iter.All is a range loop. Over a stream the position is the item's place
// in it; after a Filter, its place among the items the Filter keeps.
//
// Enumerate is a function, on every Go version: a method of Iter[T] cannot
// return an Iter of a type made from T, such as Pair[int, T] (the compiler
// reports an instantiation cycle). With Go 1.27 or newer, the method
// ZipWith chains instead: it.ZipWith(par.Range(0, math.MaxInt), f) hands f
// each item with its position.
//
//	lines := par.Map(par.Enumerate(par.Slice(names)), func(p par.Pair[int, string]) string {
//		return fmt.Sprintf("%d. %s", p.Key+1, p.Value)
//	}).Collect()
func Enumerate[T any](it Iterator[T]) Iter[Pair[int, T]] {
	return Iter[Pair[int, T]]{pipe.EnumerateSpec(specOf(it), func(i int, v T) Pair[int, T] { return Pair[int, T]{i, v} })}
}

// Take returns an iterator over the first n items of it, all of them if it
// has fewer. Over a source with known positions it is a shorter range:
// nothing runs for the other items. Over a stream, the steps before Take
// run on items in order until n have come through, and no item of a
// FromSeq or FromChan is pulled past those needed, unless a FlatMap (each
// of whose items may give several) or another of these adapters comes
// first; over a Range or a Slice with a Filter before Take, items past the
// n-th may run, as those past a search's match do. It panics if n < 0.
//
//	first := par.FromChan(jobs).Take(100).Blocking(8).TryForEach(run) // receives 100 values, no more
func (it Iter[T]) Take(n int) Iter[T] {
	mustCount(n, "Take")
	return Iter[T]{pipe.TakeSpec(it.s, n)}
}

// Skip returns an iterator over the items of it after the first n, none if
// it has n or fewer. Over a source with known positions it is a shorter
// range: nothing runs for the items skipped. Over a stream, and after a
// Filter, the steps before Skip run on every item, to count those skipped.
// It panics if n < 0.
func (it Iter[T]) Skip(n int) Iter[T] {
	mustCount(n, "Skip")
	return Iter[T]{pipe.SkipSpec(it.s, n)}
}

// Take returns an iterator over the first n items of it, which stays a
// numeric iterator; see Iter.Take.
func (it Nums[T]) Take(n int) Nums[T] { return Nums[T]{it.Iter.Take(n)} }

// Skip returns an iterator over the items of it after the first n, which
// stays a numeric iterator; see Iter.Skip.
func (it Nums[T]) Skip(n int) Nums[T] { return Nums[T]{it.Iter.Skip(n)} }

// Take returns the range of the first n integers of r, which keeps r's
// settings: Range(lo, hi).Take(n) is Range(lo, min(hi, lo+n)).
func (r Ints) Take(n int) Ints { return Ints{r.Nums.Take(n)} }

// Skip returns the range of the integers of r after the first n, which
// keeps r's settings: Range(lo, hi).Skip(n) is Range(min(hi, lo+n), hi).
func (r Ints) Skip(n int) Ints { return Ints{r.Nums.Skip(n)} }

// Chain returns an iterator over the items of it, then those of b, in that
// order: the function Chain as a method.
func (it Iter[T]) Chain(b Iterator[T]) Iter[T] { return Chain[T](it, b) }

// Chain returns an iterator over the items of it, then those of b, which
// stays a numeric iterator; see the function Chain.
func (it Nums[T]) Chain(b Iterator[T]) Nums[T] { return Nums[T]{Chain[T](it.Iter, b)} }

// Chain returns an iterator over the items of a, then those of b, in that
// order: Collect gives a's items and then b's, while ForEach may run items
// of both sides at once, as it runs any items. The result has
// a's settings (pool, context, ...); b's are not used. Over two sources
// with known positions it is one range of positions, a's then b's (as
// ForEachIndex counts them), and so is it after a Filter on either side;
// over a stream on either side it is a stream of a's items, then b's.
// It panics if the two sides hold more positions than an int can count.
//
//	all := par.Chain(par.Slice(local), par.Slice(remote)).Filter(fresh).Collect()
func Chain[T any](a, b Iterator[T]) Iter[T] {
	sa, sb := specOf(a), specOf(b)
	if !pipe.IsSeq(&sa) && !pipe.IsSeq(&sb) {
		if la, lb := uint64(sa.Hi)-uint64(sa.Lo), uint64(sb.Hi)-uint64(sb.Lo); la > 1<<63-1 || lb > 1<<63-1-la {
			panic(fmt.Sprintf("gopar: par.Chain: the ranges [%d, %d) and [%d, %d) hold %d and %d positions, more than an int can count together",
				sa.Lo, sa.Hi, sb.Lo, sb.Hi, la, lb))
		}
	}
	return Iter[T]{pipe.ChainSpec(sa, sb)}
}

// Zip returns an iterator over the pairs of the items of a and b at the
// same positions, Pair{x, y} for the i-th item x of a and the i-th y of b,
// in order. As Rayon's zip and Rust's, it has as many pairs as the shorter
// side has items: the items of the longer side past them are left out
// (over sources with known positions, they never run; compare the sides'
// Len first to require equal lengths). The result has a's settings; b's
// are not used. A MapInit stage that both sides share (Zip(it, it.Skip(1)))
// keeps a value per side on each goroutine.
//
// Over a stream on either side (FromSeq, FromChan, or after a Filter), the
// pairs are made in order as the items of both sides come, each side
// computed ahead as Values does; the items that the longer side computed
// past the end of the shorter one are dropped (a FromChan's values that it
// received among them too). Zip panics if both sides read the same FromSeq
// or FromChan source, which one operation cannot pull twice at once: pair
// its items with their positions with Enumerate instead.
//
// Zip is a function, on every Go version, for the reason Enumerate is one:
// ZipWith, which hands each pair to a function, is also a method with Go
// 1.27 or newer.
//
//	pairs := par.Zip(par.Slice(keys), par.Slice(values)).Collect()
func Zip[T, U any](a Iterator[T], b Iterator[U]) Iter[Pair[T, U]] {
	return ZipWith(a, b, func(x T, y U) Pair[T, U] { return Pair[T, U]{x, y} })
}

// ZipWith returns an iterator over f(x, y) for the items x of a and y of b
// at the same positions, in order: Zip and a Map in one step, with Zip's
// rules (as many items as the shorter side has; a's settings). With Go 1.27
// or newer it is also a method, which chains:
//
//	dist := par.Sum(par.ZipWith(par.Slice(xs), par.Slice(ys), func(x, y float64) float64 { return math.Abs(x - y) }))
func ZipWith[T, U, V any](a Iterator[T], b Iterator[U], f func(T, U) V) Iter[V] {
	mustFunc(f, "ZipWith")
	return Iter[V]{pipe.ZipSpec(specOf(a), specOf(b), f)}
}

// mustCount panics with a clear message on a negative count, where the
// pipeline is built.
func mustCount(n int, op string) {
	if n < 0 {
		panic(fmt.Sprintf("gopar: %s(%d): the number of items must be >= 0", op, n))
	}
}
