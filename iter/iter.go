package iter

import (
	stditer "iter"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// Spec describes an indexed pipeline: a source of items addressed by index
// in [Lo, Hi) (Ints, Slice, FromSeq, FromChan, FlatSource), and the adapters
// applied to them (MapSpec, FilterMapSpec, FlatMapSpec, ...). A Spec is a
// small value; adapters return modified copies and never change their
// receiver, so a pipeline can be reused and extended.
//
// Its fields are Lo and Hi, the range of source indexes, and the embedded
// Config, the settings the loop over it runs with. A terminal operation
// passes all three to Run, and reads the items of each block it is handed
// with Each, EachUntil, EachIndex or FoldBlock.
//
// Over an iter.Seq (FromSeq, FromChan), Lo and Hi cover the indexes the seq
// may have, and Run pulls it as the loop goes; the same code serves both.
type Spec[T any] pipe.Spec[T]

// engine returns s as the engine's Spec, which has the same fields.
func (s *Spec[T]) engine() *pipe.Spec[T] { return (*pipe.Spec[T])(s) }

// Each calls yield for every surviving item with index in [lo, hi), in
// index order.
func (s *Spec[T]) Each(lo, hi int, yield func(T)) { s.engine().Each(lo, hi, yield) }

// EachUntil is Each that stops as soon as yield returns false; it reports
// whether it went through the whole block.
func (s *Spec[T]) EachUntil(lo, hi int, yield func(T) bool) bool {
	return s.engine().EachUntil(lo, hi, yield)
}

// EachIndex is Each with the source index of each item: yield(i, v) for the
// item v of index i (not i-s.Lo). After a FlatMap, the items of one source
// index share it.
func (s *Spec[T]) EachIndex(lo, hi int, yield func(i int, v T)) {
	s.engine().EachIndex(lo, hi, yield)
}

// Map applies f to every item. f runs only on items that survive the
// filters before it.
func (s Spec[T]) Map(f func(T) T) Spec[T] { return Spec[T](pipe.Spec[T](s).Map(f)) }

// Filter keeps the items for which pred returns true.
func (s Spec[T]) Filter(pred func(T) bool) Spec[T] { return Spec[T](pipe.Spec[T](s).Filter(pred)) }

// Config is how a loop runs: on which pool (Pool; nil is runtime.Default()),
// within which bounds on the items handed out at a time (MinBlock,
// MaxBlock), until which context is done (Context), on goroutines of its own
// for callbacks that block (Blocking), and with which observers (Progress,
// and Timeline, a *partition.Timeline). Buffer bounds what Stream computes
// ahead of its consumer. Failure reports a source of the pipeline that can
// fail. Unordered is read by package par's operations only. The zero Config
// runs on runtime.Default() with no bounds, the schedule gopar is tuned for.
type Config = pipe.Config

// Failure is a source of items that can fail: Err returns its error (nil
// until it fails), and AfterFail(f) arranges to call f once it has failed.
// A Spec carries its sources' Failure in Config.Failure; the adapters keep
// it, and ChainSpec and ZipSpec join both sides'.
type Failure = pipe.Failure

// Number is the set of types Sum accepts: every integer, float and complex
// type, and the types defined on them.
type Number = pipe.Number

// Reducer says how a parallel loop turns blocks of indices into a result.
//
// The loop is cut into runs: maximal sequences of contiguous blocks that
// one goroutine folds, one after the other, into an accumulator that starts
// at Identity(). Combine then joins the runs' accumulators in index order,
// so it needs to be associative, not commutative.
type Reducer[A any] struct {
	// Identity gives a run's starting accumulator; nil gives A's zero
	// value. (Leave it nil where that is the identity: a closure costs an
	// allocation at every call of Run.)
	Identity func() A
	// Fold folds the items with index in [lo, hi) into acc.
	Fold func(acc A, lo, hi int) A
	// Combine joins the results of two adjacent runs, left first. Nil means
	// only the side effects of Fold matter, and Run returns Identity().
	Combine func(left, right A) A
	// Stop, if not nil, is asked after each block whether the loop is
	// decided (an item was found, an error returned): then no item that is
	// not already running is run.
	Stop func(acc A) bool
	// Cut, if not nil, is asked after each block from which index on the
	// items are no longer needed (math.MaxInt: all still are), as when a
	// search for the first match has one at that index: items above it are
	// dropped, those below still run, and the loop hands out low indexes
	// first.
	Cut func(acc A) int
	// Setup, if set, says that each call of Fold carries a setup that only
	// large blocks amortise (a map or a buffer per block): a participant
	// then takes half of what its range has left at a time, so that Fold is
	// called O(participants x log n) times.
	Setup bool
	// AllRuns keeps every run that ran when a done context stops the loop.
	// By default a stopped loop's result covers a prefix: only the runs
	// before the first index that did not run are combined, so that a
	// cancelled loop's result is that of a shorter input, never one with
	// holes.
	AllRuns bool
}

// Run folds the items of [lo, hi) with r and returns the combined result;
// a terminal operation over a Spec s calls Run(s.Config, s.Lo, s.Hi, r). It
// starts on the caller, moves to the pool's workers once the loop has
// lasted long enough to be worth it, and adapts the block size to the
// measured cost of items.
//
// A panic in Fold stops the loop and is re-raised in the caller as a
// *runtime.Panic, after every goroutine that ran the loop has left it. On a
// closed pool, Run panics with runtime.ErrClosed before running any item.
func Run[A any](cfg Config, lo, hi int, r Reducer[A]) A {
	return pipe.Run(cfg, lo, hi, pipe.Reducer[A]{
		Identity: r.Identity, Fold: r.Fold, Combine: r.Combine,
		Stop: r.Stop, Cut: r.Cut, Setup: r.Setup, AllRuns: r.AllRuns,
	})
}

// RunBlocks runs body on blocks that together cover [lo, hi), as Run does,
// for loops that produce no result but their side effects.
func RunBlocks(cfg Config, lo, hi int, body func(lo, hi int)) { pipe.RunBlocks(cfg, lo, hi, body) }

// FoldBlock folds the surviving items of s with index in [lo, hi) into acc
// with fold, in index order, and returns acc: the body of a Reducer's Fold
// that keeps acc in registers, where one written with Each loads and
// stores it at every item.
func FoldBlock[T, A any](s *Spec[T], acc A, lo, hi int, fold func(A, T) A) A {
	return pipe.FoldBlock(s.engine(), acc, lo, hi, fold)
}

// Stream returns the items of s in source order, a part at a time,
// computed on the pool (or on goroutines of its own, for a Blocking
// Config) ahead of the loop that ranges over the result, at most
// Config.Buffer source items ahead. Each range over the result runs the
// pipeline once; a loop body that stops stops the pipeline. On a closed
// pool it panics with runtime.ErrClosed when the range starts.
func Stream[T any](s Spec[T]) stditer.Seq[[]T] { return pipe.Stream(pipe.Spec[T](s)) }

// Sum returns the sum of the surviving items of s (0 for none). Integer
// sums wrap around as + does; float and complex sums are reproducible:
// the same for every schedule.
func Sum[T Number](s Spec[T]) T { return pipe.Sum(pipe.Spec[T](s)) }

// Ints is the Spec of the integers in [lo, hi); hi <= lo gives an empty one.
func Ints(lo, hi int) Spec[int] { return Spec[int](pipe.Ints(lo, hi)) }

// Slice is the Spec of the elements of xs, in order.
func Slice[T any](xs []T) Spec[T] { return Spec[T](pipe.Slice(xs)) }

// FromSeq is the Spec of the items of seq, in order, pulled by one
// goroutine at a time as the loop goes (see package par's FromSeq for the
// guarantees).
func FromSeq[T any](seq stditer.Seq[T]) Spec[T] { return Spec[T](pipe.FromSeq(seq)) }

// FromChan is the Spec of the values received from ch until it is closed.
// It is FromSeq of a range over ch, except that a loop that stops pulling
// also stops waiting on ch.
func FromChan[T any](ch <-chan T) Spec[T] { return Spec[T](pipe.FromChan(ch)) }

// FlatSource is the Spec of the items that flat yields for every source
// index i in [lo, hi), in index order: flat(i, yield) yields the zero or
// more items of index i, in order, until yield returns false, and returns
// false if yield did. hi <= lo gives an empty Spec.
func FlatSource[T any](lo, hi int, flat func(i int, yield func(T) bool) bool) Spec[T] {
	return Spec[T](pipe.FlatSource(lo, hi, flat))
}

// MapSpec is f(x) for every item x of s: Spec.Map with a change of item
// type.
func MapSpec[T, U any](s Spec[T], f func(T) U) Spec[U] {
	return Spec[U](pipe.MapSpec(pipe.Spec[T](s), f))
}

// MapInitSpec is f(st, x) for every item x of s, with a state st made by
// init: a state is used by one goroutine at a time, and init runs at most
// about as many times as blocks ran at once, whatever the number of items.
func MapInitSpec[T, S, U any](s Spec[T], init func() S, f func(S, T) U) Spec[U] {
	return Spec[U](pipe.MapInitSpec(pipe.Spec[T](s), init, f))
}

// FilterMapSpec keeps f(x) for the items x for which f reports true: a map
// and a filter in one step.
func FilterMapSpec[T, U any](s Spec[T], f func(T) (U, bool)) Spec[U] {
	return Spec[U](pipe.FilterMapSpec(pipe.Spec[T](s), f))
}

// FlatMapSpec replaces every item x of s by the items of f(x), in order.
func FlatMapSpec[T, U any](s Spec[T], f func(T) []U) Spec[U] {
	return Spec[U](pipe.FlatMapSpec(pipe.Spec[T](s), f))
}

// EnumerateSpec is f(i, x) for the item x at each position i of s, from 0.
func EnumerateSpec[T, U any](s Spec[T], f func(i int, v T) U) Spec[U] {
	return Spec[U](pipe.EnumerateSpec(pipe.Spec[T](s), f))
}

// SkipSpec is s without its first n items (n >= 0).
func SkipSpec[T any](s Spec[T], n int) Spec[T] { return Spec[T](pipe.SkipSpec(pipe.Spec[T](s), n)) }

// TakeSpec is the first n items of s (n >= 0), all of them if s has fewer.
func TakeSpec[T any](s Spec[T], n int) Spec[T] { return Spec[T](pipe.TakeSpec(pipe.Spec[T](s), n)) }

// ChainSpec is the items of a, then those of b, with a's settings and both
// sides' Failure. Over two Specs that read no seq, the numbers of their
// indexes must add up to at most math.MaxInt.
func ChainSpec[T any](a, b Spec[T]) Spec[T] {
	return Spec[T](pipe.ChainSpec(pipe.Spec[T](a), pipe.Spec[T](b)))
}

// ZipSpec is f(x, y) for the items x of a and y of b at each position, as
// many as the shorter of the two has, with a's settings and both sides'
// Failure. It panics if a and b read the same seq, which one loop cannot
// pull twice at once.
func ZipSpec[T, U, V any](a Spec[T], b Spec[U], f func(T, U) V) Spec[V] {
	return Spec[V](pipe.ZipSpec(pipe.Spec[T](a), pipe.Spec[U](b), f))
}
