package par

import (
	"cmp"
	"slices"

	"github.com/gopar-dev/gopar/internal/plumb"
	"github.com/gopar-dev/gopar/runtime"
)

// Sort sorts xs in increasing order, in parallel on the default pool. It
// orders the elements as slices.Sort does (NaNs before the other floats)
// and, like it, is not stable; for equal elements that can be told apart
// (+0 and -0) the order they end in is not specified.
//
// Sort is a sample sort: it picks up to 255 splitters from a sample of xs,
// moves every element to its bucket between two splitters in one parallel
// pass, and sorts the buckets with slices.Sort in parallel. It gains more
// than the cores give (docs/benchmarks.md,
// "Results", T2): the buckets are short, so their sorts add up to less
// work than one sort of the whole.
//
// Inputs of fewer than 8192 elements are sorted by slices.Sort on the
// calling goroutine, without touching the pool. Where the buckets fall depends only
// on xs, not on the pool or on timing, so the result is the same on every
// run, even for elements that compare equal but can be told apart (+0 and
// -0, NaNs). Sort may be called from inside another parallel operation.
//
// Memory: for inputs of 8192 elements or more, Sort allocates one buffer
// of len(xs) elements and one byte per element (its bucket), and nothing
// else that grows with xs.
//
// A nil or empty xs is left as it is.
func Sort[S ~[]E, E cmp.Ordered](xs S) {
	sortOrderedOn(nil, xs)
}

// SortFunc sorts xs in increasing order as determined by cmp, in parallel
// on the default pool; it is to slices.SortFunc what Sort is to
// slices.Sort, and is not stable either. cmp(a, b) returns a negative
// number when a < b, a positive one when a > b, and zero when they are
// equal or unordered. It must be a strict weak ordering (see
// slices.SortFunc) and safe to call from several goroutines at once.
//
// A cmp that is not a strict weak ordering gives an order that is not
// specified, but SortFunc still returns, and xs still holds each of its
// elements exactly once. If cmp panics, SortFunc skips the parts of the
// sort not yet started, lets those running finish, and re-panics with a
// *Panic holding the value and the stack where it happened; xs then
// holds its elements, each exactly once, in no specified order.
// A nil cmp panics, naming SortFunc.
//
// SortFunc runs the same sample sort as Sort, with slices.SortFunc on the
// buckets and calls of cmp in place of compiled comparisons. Small inputs,
// memory and determinism (for a cmp that always gives the same answer) are
// as for Sort.
func SortFunc[S ~[]E, E any](xs S, cmp func(a, b E) int) {
	mustFunc(cmp, "SortFunc")
	sortFuncOn(nil, xs, cmp)
}

// SortStableFunc sorts xs as SortFunc does, keeping the original order of
// equal elements, as slices.SortStableFunc does. It runs the same sample
// sort, with slices.SortStableFunc on the buckets: elements that compare
// equal fall in the same bucket, and the pass that fills the buckets keeps
// their order. Unlike slices.SortStableFunc, which sorts in place, it
// allocates as Sort does: one buffer of len(xs) elements and one byte per
// element.
//
// Bad input behaves as for SortFunc: a cmp that is not a strict weak
// ordering leaves every element in xs exactly once; a panicking cmp comes
// back as a *Panic, with every element of xs still there once; a
// nil cmp panics, naming SortStableFunc.
func SortStableFunc[S ~[]E, E any](xs S, cmp func(a, b E) int) {
	mustFunc(cmp, "SortStableFunc")
	sortStableFuncOn(nil, xs, cmp)
}

// sortOrderedOn, sortFuncOn and sortStableFuncOn are Sort, SortFunc and
// SortStableFunc on pool p (nil: the default pool).

func sortOrderedOn[E cmp.Ordered](p *runtime.Pool, xs []E) {
	if len(xs) < sortParallelMin {
		slices.Sort(xs) // it cannot panic
		return
	}
	sampleSort(p, xs, orderedOps[E]())
}

func sortFuncOn[E any](p *runtime.Pool, xs []E, cmp func(a, b E) int) {
	if len(xs) < sortParallelMin {
		sortSmall(xs, cmp, false)
		return
	}
	sampleSort(p, xs, funcOps(cmp, false))
}

func sortStableFuncOn[E any](p *runtime.Pool, xs []E, cmp func(a, b E) int) {
	if len(xs) < sortParallelMin {
		sortSmall(xs, cmp, true)
		return
	}
	sampleSort(p, xs, funcOps(cmp, true))
}

// sortLeafMin is the largest input sorted without the pool, and the least
// average bucket: slices.Sort takes about 60 µs for 4096 ints, against a
// few µs to wake a worker and allocate the buffer.
const sortLeafMin = 1 << 12

// sortParallelMin is the shortest input sorted in parallel: two buckets of
// sortLeafMin elements. Below it, sampleSort would make one bucket and sort
// it on the caller anyway, after allocating the buffers for nothing.
const sortParallelMin = 2 * sortLeafMin

// sortSmall sorts xs on the calling goroutine with slices.SortFunc, or
// slices.SortStableFunc if stable, and re-panics with a *Panic if
// cmp panics, as the parallel sort does.
func sortSmall[E any](xs []E, cmp func(a, b E) int, stable bool) {
	defer func() {
		if v := recover(); v != nil {
			panic(plumb.NewPanic(v))
		}
	}()
	if stable {
		slices.SortStableFunc(xs, cmp)
	} else {
		slices.SortFunc(xs, cmp)
	}
}
