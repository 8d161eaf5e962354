package par

import (
	"fmt"
	"unsafe"

	"github.com/gopar-dev/gopar/runtime"
)

// The scans follow ParlayLib's blocked two-pass scan (primitives.h,
// sequence_ops.h): the input is cut into blocks of scanBlock elements
// (the last one shorter), a first parallel pass reduces every block but the
// last, a sequential loop
// turns the block sums into the offset of each block, and a second parallel
// pass scans every block from its offset into dst. The blocks depend on the
// length alone, never on the schedule, so a float scan gives the same bits
// on any number of workers and in every run; and since offsets and blocks
// are combined in index order, an operation that is associative but not
// commutative (string concatenation, a matrix product) gives the
// sequential answer.
//
// The cost is a second read of the input: a plain loop reads and writes
// every element once, the blocked scan reads it twice. On a machine where
// each core's memory bandwidth bounds the loop, P workers would gain at
// most about P*2/3 over it if both reads came from memory; the rounds below
// serve the second from the cache. docs/benchmarks.md has the measured
// ceiling.
const (
	scanBlock   = 1 << 13
	superBlocks = 32
)

// The passes run in rounds of superBlocks blocks (2 MiB of int64s), and in
// each round the blocks are cut into one contiguous part per worker, the
// same parts in both passes (see spread): the second pass then reads its
// part from the cache where the first pass left it, instead of from memory.
// On the development VMs that took 2^24 int64s from 19.6-20.8 ms to 18.7 ms
// (a plain loop: 23 ms), and to 14.5 ms in place (loop: 18.8 ms); rounds of
// 8 to 128 blocks were measured, and the driver's adaptive blocks
// (iter.RunBlocks) ran the two passes on different cores.

// ScanInclusive writes the inclusive scan of src under op into dst:
// dst[i] = src[0] op src[1] op ... op src[i], in parallel on the default
// pool, and returns the whole reduction (identity for an empty src). It is
// the parallel form of
//
//	acc := identity
//	for i, x := range src {
//		acc = op(acc, x)
//		dst[i] = acc
//	}
//
// op must be associative, not necessarily commutative, and identity its
// neutral element (0 for +, 1 for *, "" for concatenation): the scan groups
// the operations differently from the loop, and combines them in index
// order. Integer and string scans therefore give the loop's result exactly;
// float scans give the same bits on every run and worker count, which may
// differ from the loop's in the last bits, as Sum's do.
//
// dst may be src itself, for a scan in place; it must otherwise not overlap
// src, and must be at least as long (the elements after len(src) are left
// as they are). A panic in op stops the scan and is re-raised as a *Panic;
// dst then holds a mix of old and new values. A nil op, a short dst or a
// partial overlap panics before anything is written.
func ScanInclusive[T any](dst, src []T, identity T, op func(T, T) T) T {
	return scan(dst, src, identity, op, true, "ScanInclusive")
}

// ScanExclusive writes the exclusive scan of src under op into dst:
// dst[0] = identity, dst[i] = src[0] op ... op src[i-1], in parallel on the
// default pool, and returns the whole reduction, src[0] op ... op
// src[len(src)-1] (identity for an empty src), which no element of dst
// holds. It is the parallel form of
//
//	acc := identity
//	for i, x := range src {
//		dst[i] = acc
//		acc = op(acc, x)
//	}
//
// An exclusive scan of sizes gives offsets: where each part starts once the
// parts are laid end to end, and the total length. Everything ScanInclusive
// says of op, identity, dst and panics holds here too.
func ScanExclusive[T any](dst, src []T, identity T, op func(T, T) T) T {
	return scan(dst, src, identity, op, false, "ScanExclusive")
}

// ScanSumInclusive is ScanInclusive under +, for numbers: dst[i] = src[0] +
// ... + src[i]. The additions are inlined where op's calls are not (a call
// through a func value costs more than an addition), so it runs at the
// speed of memory. Integer sums wrap around as + does; float sums give the
// same bits on every run and worker count.
func ScanSumInclusive[T Number](dst, src []T) T {
	return scanWith(dst, src, 0, addNumbers[T], true, "ScanSumInclusive", reduceSum[T], scanSumFrom[T])
}

// ScanSumExclusive is ScanExclusive under +, for numbers: dst[0] = 0,
// dst[i] = src[0] + ... + src[i-1], and it returns the sum of src; the
// offsets of parts laid end to end, given their sizes. See
// ScanSumInclusive.
func ScanSumExclusive[T Number](dst, src []T) T {
	return scanWith(dst, src, 0, addNumbers[T], false, "ScanSumExclusive", reduceSum[T], scanSumFrom[T])
}

func addNumbers[T Number](a, b T) T { return a + b }

func scan[T any](dst, src []T, identity T, op func(T, T) T, inclusive bool, name string) T {
	mustFunc(op, name)
	return scanWith(dst, src, identity, op, inclusive, name,
		func(xs []T) T { return reduceBlock(xs, op) },
		func(dst, src []T, acc T, inclusive bool) T { return scanFrom(dst, src, acc, op, inclusive) })
}

// scanWith is the blocked scan (see scanBlock), with the loops over a block
// given as functions so that the scans under + inline their additions: op
// itself only combines block sums.
func scanWith[T any](dst, src []T, identity T, op func(T, T) T, inclusive bool, name string,
	reduce func(xs []T) T, scanFrom func(dst, src []T, acc T, inclusive bool) T) T {
	n := len(src)
	if len(dst) < n {
		panic(fmt.Sprintf("gopar: par.%s: dst has %d elements, fewer than src's %d", name, len(dst), n))
	}
	dst = dst[:n]
	if overlapPartly(dst, src) {
		panic(fmt.Sprintf("gopar: par.%s: dst and src overlap without being the same slice; pass the same slice for a scan in place, or slices that do not overlap", name))
	}
	if n == 0 {
		return identity
	}
	pool := runtime.Default()
	// A panic in op comes back as a *Panic whichever goroutine ran it
	// (Join wraps those of other goroutines, this those of the caller's).
	defer func() {
		if v := recover(); v != nil {
			panic(runtime.NewPanic(v))
		}
	}()
	// The rounds: superBlocks blocks at a time, so that the second pass
	// reads what the first left in the cache.
	offsets := make([]T, min((n-1)/scanBlock+1, superBlocks))
	var carry T // the reduction of every round before this one
	for round := 0; round < n; round += scanBlock * superBlocks {
		end := min(round+scanBlock*superBlocks, n)
		blocks := (end-round-1)/scanBlock + 1
		// Block k covers [at(k), at(k+1)).
		at := func(k int) int { return min(round+k*scanBlock, end) }
		// offsets[k] is the reduction of everything before block k
		// (offsets[0] of the first round is unused).
		offsets[0] = carry
		if blocks > 1 {
			// Pass 1: the sum of every block but the last, in offsets[k+1].
			spread(pool, blocks-1, func(lo, hi int) {
				for k := lo; k < hi; k++ {
					offsets[k+1] = reduce(src[at(k):at(k+1)])
				}
			})
			start := 1
			if round == 0 {
				start = 2 // offsets[1] is block 0's sum itself
			}
			for k := start; k < blocks; k++ {
				offsets[k] = op(offsets[k-1], offsets[k])
			}
		}
		// Pass 2: scan each block from its offset. The last block's end is
		// the carry; one goroutine runs it, and RunBlocks's return
		// publishes what it stored.
		first := round == 0
		spread(pool, blocks, func(lo, hi int) {
			for k := lo; k < hi; k++ {
				from, to := at(k), at(k+1)
				var acc T
				switch {
				case k > 0 || !first:
					acc = scanFrom(dst[from:to], src[from:to], offsets[k], inclusive)
				case inclusive:
					// From src[0] itself, as the loop's op(identity,
					// src[0]) would give for a neutral identity: the
					// exact src[0] where identity is neutral only up to
					// rounding (0.0 + -0.0 is 0.0).
					dst[0] = src[0]
					acc = scanFrom(dst[1:to], src[1:to], src[0], true)
				default:
					acc = scanFrom(dst[:to], src[:to], identity, false)
				}
				if k == blocks-1 {
					carry = acc
				}
			}
		})
	}
	return carry
}

// spread calls body on [0, n) cut into one contiguous part per worker of
// pool, joined with JoinLazy: the caller runs the first part, and the same
// parts go to the same participants from one call to the next, so that the
// second pass of a round finds its blocks in the cache the first pass
// filled.
func spread(pool *runtime.Pool, n int, body func(lo, hi int)) {
	parts := min(pool.Workers(), n)
	var split func(w *runtime.Worker, p0, p1 int)
	split = func(w *runtime.Worker, p0, p1 int) {
		if p1-p0 == 1 {
			body(p0*n/parts, p1*n/parts)
			return
		}
		mid := (p0 + p1) / 2
		w.Join(func(w *runtime.Worker) { split(w, p0, mid) }, func(w *runtime.Worker) { split(w, mid, p1) })
	}
	pool.Do(func(w *runtime.Worker) { split(w, 0, parts) })
}

// reduceSum returns the sum of a non-empty xs.
func reduceSum[T Number](xs []T) T {
	var acc T
	for _, x := range xs {
		acc += x
	}
	return acc
}

// scanSumFrom is scanFrom under +.
func scanSumFrom[T Number](dst, src []T, acc T, inclusive bool) T {
	dst = dst[:len(src)]
	if inclusive {
		for i, x := range src {
			acc += x
			dst[i] = acc
		}
		return acc
	}
	for i, x := range src {
		dst[i] = acc
		acc += x
	}
	return acc
}

// reduceBlock returns xs[0] op xs[1] op ... for a non-empty xs.
func reduceBlock[T any](xs []T, op func(T, T) T) T {
	acc := xs[0]
	for _, x := range xs[1:] {
		acc = op(acc, x)
	}
	return acc
}

// scanFrom scans src into dst (of the same length, possibly the same
// slice) starting from acc, and returns the reduction of acc and all of src.
func scanFrom[T any](dst, src []T, acc T, op func(T, T) T, inclusive bool) T {
	dst = dst[:len(src)]
	if inclusive {
		for i, x := range src {
			acc = op(acc, x)
			dst[i] = acc
		}
		return acc
	}
	for i, x := range src {
		dst[i] = acc // after reading x: dst may be src
		acc = op(acc, x)
	}
	return acc
}

// overlapPartly reports whether a and b share memory without starting at
// the same element.
func overlapPartly[T any](a, b []T) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	size := unsafe.Sizeof(a[0])
	if size == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if pa == pb {
		return false
	}
	return pa < pb+uintptr(len(b))*size && pb < pa+uintptr(len(a))*size
}
