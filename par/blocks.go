package par

import (
	"context"
	"fmt"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// Ints is the iterator over a range of integers that Range returns: a Nums
// that adds the block API, Blocks and ReduceBlocks, where body receives a
// whole sub-range [lo, hi) and runs its own loop over it with no call per
// item. Its settings (WithPool, WithContext, WithBlockSize, Blocking,
// WithProgress, WithTimeline, Unordered, WithBuffer) keep it an Ints and
// apply to the block API as to every terminal operation; Map and Filter
// make it a Nums[int].
type Ints struct {
	Nums[int]
}

// WithPool returns r with its terminal operations running on pool.
func (r Ints) WithPool(pool *Pool) Ints { return Ints{r.Nums.WithPool(pool)} }

// WithContext returns r with its terminal operations, Blocks and
// ReduceBlocks included, cancelled by ctx; see Iter.WithContext.
func (r Ints) WithContext(ctx context.Context) Ints { return Ints{r.Nums.WithContext(ctx)} }

// WithBlockSize returns r with bounds on how many items run in one go, and
// so on the length of the sub-ranges given to Blocks and ReduceBlocks;
// see Iter.WithBlockSize.
func (r Ints) WithBlockSize(min, max int) Ints { return Ints{r.Nums.WithBlockSize(min, max)} }

// Blocking returns r with its terminal operations, Blocks and ReduceBlocks
// included, run for callbacks that block, at most limit at once on
// goroutines of their own; see Iter.Blocking. The block API then hands body
// one index at a time (WithBlockSize's min, if set: that many), in order.
func (r Ints) Blocking(limit int) Ints { return Ints{r.Nums.Blocking(limit)} }

// WithProgress returns r with its terminal operations, Blocks and
// ReduceBlocks included, reporting progress to report; see
// Iter.WithProgress.
func (r Ints) WithProgress(report func(done, total int)) Ints {
	return Ints{r.Nums.WithProgress(report)}
}

// Blocks calls body on disjoint contiguous sub-ranges [lo, hi) that together
// cover the range, in parallel, and returns when all calls have returned.
// The loop of a hand-written fan-out moves into body unchanged. The blocks
// grow with the range (a worker takes half of what its part has left), so
// body is called O(workers x log n) times and a setup per call, such as a
// map or a buffer, is amortised; WithBlockSize bounds them. Once
// a context given with WithContext is done, sub-ranges not yet started are
// skipped, as in ForEach. With Blocking(limit), body runs on goroutines of
// the operation's own, at most limit calls at once, each on one index (or
// WithBlockSize's min), for a loop body that waits on I/O.
func (r Ints) Blocks(body func(lo, hi int)) {
	mustFunc(body, "Blocks")
	pipe.Run(r.s.Config, r.s.Lo, r.s.Hi, pipe.Reducer[struct{}]{
		Identity: func() struct{} { return struct{}{} },
		Fold: func(acc struct{}, lo, hi int) struct{} {
			body(lo, hi)
			return acc
		},
		Setup: true,
	})
}

// ReduceBlocks calls body on disjoint contiguous sub-ranges [lo, hi) that
// together cover the range r, in parallel, and combines their results with
// op in index order (op must be associative, not necessarily commutative).
// It returns the zero T for an empty range. As with Ints.Blocks, body is
// called O(workers x log n) times, so it may build a map or a buffer per
// call and op merge them, and r's settings (WithPool, WithContext,
// WithBlockSize, Blocking, ...) apply. Once r's context is done, sub-ranges
// not yet started are skipped and the result combines those of a prefix of
// the range (see Iter.WithContext): check ctx.Err() before using it.
//
// It is a function because, before Go 1.27, Go methods cannot have type
// parameters of their own; with Go 1.27 or newer, Ints.ReduceBlocks is the
// same operation as a method.
//
//	sum := par.ReduceBlocks(par.Range(0, n), func(lo, hi int) uint64 {
//		var s uint64
//		for i := lo; i < hi; i++ {
//			s += mix(uint64(i))
//		}
//		return s
//	}, func(a, b uint64) uint64 { return a + b })
func ReduceBlocks[T any](r Ints, body func(lo, hi int) T, op func(a, b T) T) T {
	mustFunc(body, "ReduceBlocks (body)")
	mustFunc(op, "ReduceBlocks (op)")
	type partial struct {
		v  T
		ok bool
	}
	res := pipe.Run(r.s.Config, r.s.Lo, r.s.Hi, pipe.Reducer[partial]{ // Identity: no value yet
		Fold: func(acc partial, lo, hi int) partial {
			v := body(lo, hi)
			if acc.ok {
				v = op(acc.v, v)
			}
			return partial{v, true}
		},
		Combine: func(a, b partial) partial {
			switch {
			case !a.ok:
				return b
			case !b.ok:
				return a
			}
			return partial{op(a.v, b.v), true}
		},
		Setup: true,
	})
	return res.v
}

// Chunks returns an iterator over the consecutive sub-slices of xs of size
// items each, the last one shorter if size does not divide len(xs), as
// Rayon's par_chunks: chunk i is xs[i*size : min((i+1)*size, len(xs))].
// The chunks share xs's memory (with their capacity cut at their end, so an
// append never writes into the next chunk); every setting and terminal
// operation applies. It panics if size < 1.
//
// For the offset of each chunk in xs, iterate over chunk numbers instead,
// from 0 to len(xs)/size rounded up. To let
// gopar choose the sizes, use par.Range(0, len(xs)).Blocks.
func Chunks[T any](xs []T, size int) Iter[[]T] {
	if size < 1 {
		panic(fmt.Sprintf("gopar: par.Chunks was given size %d; it must be at least 1", size))
	}
	// Rounded up without overflow: size may be as large as math.MaxInt.
	n := len(xs) / size
	if len(xs)%size != 0 {
		n++
	}
	return Map[int, []T](Range(0, n), func(i int) []T {
		lo := i * size
		hi := lo + min(size, len(xs)-lo)
		return xs[lo:hi:hi]
	})
}
