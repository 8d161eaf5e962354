package par

import (
	"context"
	"fmt"
	"math"
	"reflect"
	goruntime "runtime"
	"strings"
	"unsafe"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// Number is the set of element types that Sum accepts: every integer,
// float and complex type, and the types defined on them.
type Number = pipe.Number

// Iterator is implemented by every parallel iterator of this package (Iter
// and Nums), so that the functions that take one, such as Map, Sum and Fold,
// accept any of them. (It is not the standard library's iter.Seq: FromSeq
// turns one of those into an Iter.)
type Iterator[T any] interface {
	spec() pipe.Spec[T]
}

// Iter is a parallel iterator over items of type T: a source (Range, Slice)
// and the adapters applied to it. Adapters return a new Iter and leave their
// receiver unchanged; nothing runs until a terminal operation (ForEach,
// Reduce, Count, Collect, ...) is called. The zero Iter is empty.
//
// Iter has no Sum method, since its items need not be numbers: for an Iter
// of numbers, such as the result of par.Map (where the compiler says "has no
// field or method Sum"), use the function par.Sum, or start from Numbers or
// Range, whose Nums has the method.
//
// The functions handed to an iterator run on several goroutines at once and
// in no particular order, so they must be safe for concurrent use.
// Terminal operations return when every item is done. A panic in any of
// them stops the operation and is re-raised in the caller as a
// *Panic holding the original value and stack.
type Iter[T any] struct {
	s pipe.Spec[T]
}

// Nums is an Iter over numbers, which adds Sum. Range returns one, and Map
// and Filter on it keep it a Nums, so par.Range(0, n).Map(f).Sum() reads as
// it runs.
type Nums[T Number] struct {
	Iter[T]
}

func (it Iter[T]) spec() pipe.Spec[T] { return it.s }

// specOf returns it.spec() without moving it to the heap.
//
// An Iterator holding an Iter is an interface over a struct of some 200
// bytes, which Go stores behind a pointer: in the caller's frame if the
// callee does not let it escape, on the heap otherwise. A call of an
// interface's method lets its receiver escape, since the compiler cannot
// see which method runs, so every par.Map(par.Range(0, n), f) and
// par.Sum(it) allocated one such box per Iterator argument (two on W0's
// per-item form: 384 of its 440 bytes per call). Here the method can only
// be par's own (spec is unexported: no type outside par can define it, and
// one that embeds an Iter gets the promoted method, which copies the
// embedded value): each returns a copy of its receiver's Spec and keeps no
// pointer to the receiver. So the receiver may stay in the caller's frame,
// and the compiler is told so by hiding the flow from the argument to the
// call, as Go's own runtime does with its noescape.
//
// The hidden flow alone would hide too much: the Spec returned holds
// pointers loaded from the box (a FromSeq's store, the closures), and the
// compiler must still see them flow to the result, or a caller may keep
// them in its frame while the pipeline that holds them outlives it. The
// type assertion tells it that: it copies the value out of the box, so
// what the box points to flows to the result, whichever type the box
// holds, while the box itself does not escape.
func specOf[T any](it Iterator[T]) pipe.Spec[T] {
	switch v := any(it).(type) {
	case Iter[T]:
		return v.s
	case Ints:
		// Range's iterator, the common source. T is int here (Ints is
		// an Iterator[int] and no other), which the assertion checks;
		// the method call below would cost an indirect call and two
		// more copies of the Spec (internal/pipe's TestCopiesInWholeWords says
		// what a copy costs).
		return *any(&v.s).(*pipe.Spec[T])
	}
	return (*(*Iterator[T])(noescape(unsafe.Pointer(&it)))).spec()
}

// noescape hides a pointer from escape analysis: the result is p, and
// nothing that the compiler can see flows from p to it. Only for a pointer
// whose target is known not to outlive the frame that holds it (see
// specOf). Go's runtime.noescape, written so that go vet accepts it: the
// pointer goes through a uintptr variable, which escape analysis does not
// follow, and is read back as a pointer at once (nosplit and no call in
// between: the stack cannot move while it is only a number). Plain code
// (it.spec()) lets every Iterator argument escape: two allocations per
// par.Sum(par.Map(par.Range(0, n), f)) (TestAllocationsDoNotGrowWithN),
// which BenchmarkSpecOf measures beside this form. TestSpecKeepsNoReceiver
// fails if a spec method that could keep its receiver appears.
//
//go:nosplit
func noescape(p unsafe.Pointer) unsafe.Pointer {
	x := uintptr(p)
	return *(*unsafe.Pointer)(unsafe.Pointer(&x))
}

// Range returns the integers lo, lo+1, ..., hi-1. It is empty when hi <= lo.
// Besides the methods of every numeric iterator, the result has the block
// API (see Ints).
func Range(lo, hi int) Ints {
	return Ints{Nums[int]{Iter[int]{pipe.Ints(lo, hi)}}}
}

// Slice returns the elements of xs in order. The slice is read while the
// terminal operation runs and must not be modified meanwhile.
func Slice[T any](xs []T) Iter[T] {
	return Iter[T]{pipe.Slice(xs)}
}

// Numbers is Slice for a slice of numbers: the result has Sum.
func Numbers[T Number](xs []T) Nums[T] {
	return Nums[T]{Slice(xs)}
}

// Filter returns an iterator over the items x of it for which pred(x) is
// true, in the same order.
func (it Iter[T]) Filter(pred func(T) bool) Iter[T] {
	mustFunc(pred, "Filter")
	return Iter[T]{it.s.Filter(pred)}
}

// Len returns the number of items when no Filter is in the pipeline, and an
// upper bound otherwise, without running anything. It panics if that number
// does not fit in an int: only a Range longer than math.MaxInt, such as
// Range(math.MinInt, math.MaxInt) with its 2^64-1 items, has that many.
// Over FromSeq, whose length is unknown until it runs, and after FlatMap,
// where a source item may give any number of items, it returns -1: use
// Count, which runs the pipeline.
func (it Iter[T]) Len() int {
	if pipe.IsSeq(&it.s) || pipe.Flat(&it.s) {
		return -1
	}
	return length(it.s, "Len")
}

// length returns the number of source indices of s, or panics naming the
// operation op if an int cannot hold it.
func length[T any](s pipe.Spec[T], op string) int {
	n := uint64(s.Hi) - uint64(s.Lo) // exact: Hi >= Lo
	if n > math.MaxInt {
		panic(fmt.Sprintf("gopar: %s: the range [%d, %d) holds %d items, more than an int can count", op, s.Lo, s.Hi, n))
	}
	return int(n)
}

// makeFor makes the slice of n results that op fills over the range of s,
// or panics with a message that names op, the range and n if no slice of
// R can have that length (Go's own panic, "makeslice: len out of range",
// names none of them). A length that a slice may have but memory cannot
// hold still ends the program, as make does.
func makeFor[R, T any](s pipe.Spec[T], n int, op string) []R {
	defer func() {
		if v := recover(); v != nil {
			if e, ok := v.(goruntime.Error); ok && strings.Contains(e.Error(), "makeslice") {
				panic(fmt.Sprintf("gopar: %s: the range [%d, %d) holds %d items, more than a slice of %T can hold (%v): "+
					"collect a shorter range, or fold the items with Fold or Reduce instead", op, s.Lo, s.Hi, n, *new(R), e))
			}
			panic(v)
		}
	}()
	return make([]R, n)
}

// WithPool returns it with its terminal operations running on pool rather
// than on DefaultPool().
func (it Iter[T]) WithPool(pool *Pool) Iter[T] {
	it.s.Pool = pool
	return it
}

// WithContext returns it with its terminal operations cancelled by ctx.
// The context is polled between blocks of items (every few microseconds of
// work): once it is done, no block starts, calls already running finish,
// and the operation returns promptly. A context that is already done runs
// no item at all.
//
// An operation that a done context stopped before every item ran returns
// its result over a prefix of the source: the items before the first one
// that did not run, as if the input ended there. So a cancelled Collect is
// shorter, never holed with zero values; Sum, Count, Reduce, Fold, Min,
// Max, Partition, ReduceBlocks and the searches (Any, Every, Find,
// FindFirst) answer for that prefix; Values and All end after it. Items
// after the prefix may have run too: their side effects happened, their
// results are dropped. A context done before the operation starts gives the
// empty prefix: an empty Collect, a zero Sum, Find's false. Check ctx.Err()
// to tell a cut result from a whole one.
//
// The Try forms (TryForEach, TryMap, their Context and Init forms) return
// no partial result. An error returned by a call wins over the context
// (see TryForEach for which one). If no call failed, they return
// context.Cause(ctx) when the context left an item out, and nil (TryMap
// with every result) when every item ran, even if ctx was done by the end:
// over an empty input, a done context gives nil. ForEachErr, MapErr and
// Results, which run every item whatever it returns, keep what ran: the
// result of every call that ran, its failures, and an *Unfinished last
// that names the items left out and unwraps to context.Cause(ctx) (see
// Unfinished).
//
// Every terminal operation of an iterator observes it, the block API of a
// Range (Ints.Blocks, ReduceBlocks) and Chunks included. The calls that take
// no iterator take no context and run to their end: Join, JoinFunc,
// JoinAll, Scope (and the runtime package's Worker.Join and Pool.Do),
// ForEachPtr, the scans and the sorts; check ctx.Err() in their functions
// to return early. TryScope takes a context of its own.
func (it Iter[T]) WithContext(ctx context.Context) Iter[T] {
	if ctx == nil {
		panic("gopar: WithContext was given a nil context; use context.Background() for none")
	}
	it.s.Context = ctx
	return it
}

// Blocking returns it with its terminal operations run for callbacks that
// block, such as HTTP, database or file calls: the fan-out written today
// with errgroup.SetLimit, a semaphore channel or conc's pool. Each item runs
// on a goroutine of the operation's own, at most limit at once, never on the
// pool's workers, so blocked calls do not hold up the CPU-bound loops of the
// program (a pipeline nested in such a callback runs on the pool as usual).
//
// Items are handed out one at a time in source order, so the first items
// start first. Every terminal operation works and keeps its rules: results
// in source order, errors (TryForEach, TryMap), early exit, cancellation by
// WithContext (no item starts once the context is done; calls already
// running finish), and panics, re-raised as a *Panic once every
// call has returned. The goroutines start as items need them and have all
// returned when the operation returns. WithBlockSize's min, if set, hands
// out that many items at a time (for calls that batch well), and a batch
// once handed out runs to its end, like a block in the CPU mode: a done
// context stops the next batch, not the rest of this one. Its max and
// WithPool do not apply here.
//
// Blocking panics if limit < 1.
func (it Iter[T]) Blocking(limit int) Iter[T] {
	if limit < 1 {
		pipe.RefuseBlocking(limit)
	}
	it.s.Blocking = limit
	return it
}

// Blocking returns it with its terminal operations run for callbacks that
// block, at most limit at once; see Iter.Blocking.
func (it Nums[T]) Blocking(limit int) Nums[T] {
	return Nums[T]{it.Iter.Blocking(limit)}
}

// WithContext returns it with its terminal operations cancelled by ctx; see
// Iter.WithContext.
func (it Nums[T]) WithContext(ctx context.Context) Nums[T] {
	return Nums[T]{it.Iter.WithContext(ctx)}
}

// WithBlockSize returns it with bounds on how many items its terminal
// operations run in one go: at least min (a range that runs out still hands
// out its last, smaller piece) and at most max; 0 leaves a bound unset.
// Block sizes adapt to the measured cost of items without them; set max to
// bound the work that no idle worker can take over when item costs vary by
// orders of magnitude, min to amortise a costly per-block setup. It panics
// on negative bounds or min > max.
func (it Iter[T]) WithBlockSize(min, max int) Iter[T] {
	if min < 0 || max < 0 || (max > 0 && min > max) {
		panic(fmt.Sprintf("gopar: WithBlockSize(%d, %d): bounds must be >= 0 (0: none) with min <= max", min, max))
	}
	it.s.MinBlock, it.s.MaxBlock = min, max
	return it
}

// WithBlockSize returns it with bounds on how many items run in one go; see
// Iter.WithBlockSize.
func (it Nums[T]) WithBlockSize(min, max int) Nums[T] {
	return Nums[T]{it.Iter.WithBlockSize(min, max)}
}

// Filter returns an iterator over the items x of it for which pred(x) is
// true, in the same order.
func (it Nums[T]) Filter(pred func(T) bool) Nums[T] {
	return Nums[T]{it.Iter.Filter(pred)}
}

// WithPool returns it with its terminal operations running on pool.
func (it Nums[T]) WithPool(pool *Pool) Nums[T] {
	return Nums[T]{it.Iter.WithPool(pool)}
}

// Sum returns the sum of the items (0 for none). It is the method form of
// the function Sum, which takes any Iterator of numbers: use that one for
// the result of par.Map (where the compiler says "has no field or method
// Sum").
//
// Integer sums wrap around on overflow as the + operator does. Float (and
// complex) sums are reproducible: the same pipeline over the same source
// gives the same bits on any number of workers and in every run, though
// they may differ from a sequential loop's in the last bits. The items are
// added in fixed blocks of source positions, so the items that a Filter
// drops still shape the blocks: Slice(xs).Filter(p).Sum() need not have the
// bits of Slice(kept).Sum(), where kept holds the items that pass p. Over
// FromSeq the positions are the sequence's: the bits are those of the same
// pipeline over a Slice of the same items (up to 2^32 of them).
//
// How: the items are cut into fixed blocks of 4096 source positions from
// the start, each block is added up in order, and the block sums are
// combined in a fixed pairwise tree, whose rounding error grows with log n
// where a loop's grows with n. The cost is one stored sum per block and the
// final tree (docs/benchmarks.md, row T7, has the figure). Reduce, Fold and
// ReduceBlocks with + on floats are not reproducible: their pieces follow
// the schedule, so their last bits can differ from run to run.
func (it Nums[T]) Sum() T { return pipe.Sum(it.s) } // not Sum(it): an Iterator holding it would be allocated

// Map returns an iterator over f(x) for every item x of it; f may change the
// item type. It works on every iterator of this package (with Go 1.27 or
// newer, Iter.Map does the same as a method):
//
//	squares := par.Map(par.Range(0, n), func(i int) float64 { return float64(i * i) })
func Map[T, U any](it Iterator[T], f func(T) U) Iter[U] {
	mustFunc(f, "Map")
	return Iter[U]{pipe.MapSpec(specOf(it), f)}
}

// FilterMap returns an iterator over f(x) for the items x of it for which f
// reports true, in the same order: a Map and a Filter in one step, for a
// function that may have nothing to give, such as a parser or a lookup.
//
//	ns := par.FilterMap(par.Slice(lines), func(s string) (int, bool) {
//		n, err := strconv.Atoi(s)
//		return n, err == nil
//	}).Collect()
func FilterMap[T, U any](it Iterator[T], f func(T) (U, bool)) Iter[U] {
	mustFunc(f, "FilterMap")
	return Iter[U]{pipe.FilterMapSpec(specOf(it), f)}
}

// FlatMap returns an iterator over the items of f(x) for every item x of it:
// Collect gives them in source order, and the items of one f(x) in slice
// order. Each f(x) runs in one piece, so a long slice for one item is not
// shared among workers; split such work at the source instead.
//
//	words := par.FlatMap(par.Slice(lines), strings.Fields).Collect()
func FlatMap[T, U any](it Iterator[T], f func(T) []U) Iter[U] {
	mustFunc(f, "FlatMap")
	return Iter[U]{pipe.FlatMapSpec(specOf(it), f)}
}

// mustFunc panics with a clear message on a nil function, at the point where
// the pipeline is built rather than later on some worker.
func mustFunc[F any](f F, where string) {
	if v := reflect.ValueOf(f); v.Kind() != reflect.Func || v.IsNil() {
		panic("gopar: par." + where + " was given a nil function")
	}
}
