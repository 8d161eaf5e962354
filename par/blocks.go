package par

import (
	"github.com/gopar-dev/gopar/iter"
	"github.com/gopar-dev/gopar/runtime"
)

// Blocks calls body on disjoint contiguous sub-ranges [lo, hi) that together
// cover [from, to), in parallel, and returns when all calls have returned.
// It is the block API: the loop of a hand-written fan-out moves into body
// unchanged and runs with no per-item call. Block sizes adapt to the
// measured cost of the work; nothing needs tuning.
func Blocks(from, to int, body func(lo, hi int)) {
	BlocksOn(nil, from, to, body)
}

// BlocksOn is Blocks on the given pool (nil: the default pool).
func BlocksOn(pool *runtime.Pool, from, to int, body func(lo, hi int)) {
	mustFunc(body, "Blocks")
	iter.RunBlocks(iter.Config{Pool: pool}, from, to, body)
}

// ReduceBlocks calls body on disjoint contiguous sub-ranges [lo, hi) that
// together cover [from, to), in parallel, and combines their results with
// op in index order (op must be associative, not necessarily commutative).
// It returns the zero T for an empty range.
//
//	sum := par.ReduceBlocks(0, n, func(lo, hi int) uint64 {
//		var s uint64
//		for i := lo; i < hi; i++ {
//			s += mix(uint64(i))
//		}
//		return s
//	}, func(a, b uint64) uint64 { return a + b })
func ReduceBlocks[T any](from, to int, body func(lo, hi int) T, op func(a, b T) T) T {
	return ReduceBlocksOn(nil, from, to, body, op)
}

// ReduceBlocksOn is ReduceBlocks on the given pool (nil: the default pool).
func ReduceBlocksOn[T any](pool *runtime.Pool, from, to int, body func(lo, hi int) T, op func(a, b T) T) T {
	mustFunc(body, "ReduceBlocks (body)")
	mustFunc(op, "ReduceBlocks (op)")
	type partial struct {
		v  T
		ok bool
	}
	r := iter.Run(iter.Config{Pool: pool}, from, to, iter.Reducer[partial]{
		Identity: func() partial { return partial{} },
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
	})
	return r.v
}

// Chunks calls body on disjoint contiguous sub-slices of xs that together
// cover it, in parallel; lo is the index in xs of chunk[0].
func Chunks[T any](xs []T, body func(lo int, chunk []T)) {
	mustFunc(body, "Chunks")
	Blocks(0, len(xs), func(lo, hi int) { body(lo, xs[lo:hi:hi]) })
}
