package par

import (
	"fmt"
	goruntime "runtime"
	"sync/atomic"
	"unsafe"

	"github.com/gopar-dev/gopar/internal/plumb"
	"github.com/gopar-dev/gopar/runtime"
)

// The scans are chained scans, one pass over the input: it is cut into
// blocks of scanBlock elements (the last one shorter), the participants
// claim the blocks in index order from a counter, and block k's prefix,
// the reduction of every block before it, is handed from block k-1 to
// block k through one atomic counter. A participant that claims block k
// while its prefix p is not known yet scans the block locally (from its
// first element, as if it were the whole input) into dst, waits for p,
// publishes p op (the block's reduction) for block k+1, and only then
// rewrites the block with dst[i] = p op dst[i], from the cache where the
// local scan left it. One that finds p already published writes p op
// local[i] at once. Either way each element of dst is p op (the local scan
// of its block at i), so the bits do not depend on which way ran.
//
// The blocks depend on the length alone, never on the schedule, and the
// prefixes are chained in block order, so a float scan gives the same bits
// on any number of workers and in every run; and since everything is
// combined in index order, an operation that is associative but not
// commutative (string concatenation, a matrix product) gives the
// sequential answer.
//
// The algorithm in a few words:
//
//	for each block k claimed, in order:
//		if k == 0: scan it as the loop does; publish its reduction
//		else if the prefix p of block k is published: dst = p op local scan; publish p op reduction
//		else: dst = local scan; wait for p; publish p op reduction; dst = p op dst
//
// Why it cannot deadlock: a participant waits only for the block claimed
// just before its own, claims happen in index order, and the claimer of
// block 0 never waits; so the claimer of the lowest unpublished block is
// always running its block (or a nested parallel call of op's, which waits
// only for its own work). A panic or runtime.Goexit in op sets stop, which
// ends every wait.
//
// Why one pass: a plain loop reads every element once and writes it once;
// a two-pass scan (reduce every block, then scan it from its offset) reads
// the input twice, and memory bandwidth, not arithmetic, bounds both. Here
// the second touch of a block (the rewrite) finds it in the cache, so the
// scan moves the loop's bytes to and from memory, and two cores can
// approach a parallel copy (go test -bench Scan measures both, and a
// two-goroutine copy).
//
// scanBlock is 8192 elements: 64 KiB of int64s in and 64 KiB out, so a
// block is still in the core's cache when it is rewritten, and the 2048
// blocks of 2^24 elements cost one counter claim and one handover each, too
// few to measure. Blocks of 2048, 4096 and 16384 elements run within 5% of
// it.
const scanBlock = 1 << 13

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
// float scans give the same bits on every run and worker count (NaN
// payloads aside), which may differ from the loop's in the last bits, as
// Sum's do.
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
	return scanWith(runtime.Default(), dst, src, 0, "ScanSumInclusive", sumKernels[T](true))
}

// ScanSumExclusive is ScanExclusive under +, for numbers: dst[0] = 0,
// dst[i] = src[0] + ... + src[i-1], and it returns the sum of src; the
// offsets of parts laid end to end, given their sizes. See
// ScanSumInclusive.
func ScanSumExclusive[T Number](dst, src []T) T {
	return scanWith(runtime.Default(), dst, src, 0, "ScanSumExclusive", sumKernels[T](false))
}

func addNumbers[T Number](a, b T) T { return a + b }

func scan[T any](dst, src []T, identity T, op func(T, T) T, inclusive bool, name string) T {
	mustFunc(op, name)
	return scanWith(runtime.Default(), dst, src, identity, name, opKernels(identity, op, inclusive))
}

// scanWith is the chained scan (see scanBlock) on pool with the given
// kernels, and their op.
func scanWith[T any](pool *runtime.Pool, dst, src []T, identity T, name string, k scanKernels[T]) T {
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
	// A panic in op comes back as a *Panic whichever goroutine ran it
	// (Join wraps those of other goroutines, this those of the caller's).
	defer func() {
		if v := recover(); v != nil {
			panic(plumb.NewPanic(v))
		}
	}()
	if n <= scanBlock {
		return k.first(dst, src) // one block: no one to share it with
	}
	c := &chain[T]{blocks: (n-1)/scanBlock + 1}
	parts := min(pool.Workers(), c.blocks)
	var split func(w *runtime.Worker, parts int)
	split = func(w *runtime.Worker, parts int) {
		if parts == 1 {
			c.run(dst, src, k)
			return
		}
		w.Join(func(w *runtime.Worker) { split(w, parts/2) }, func(w *runtime.Worker) { split(w, parts-parts/2) })
	}
	pool.Do(func(w *runtime.Worker) { split(w, parts) })
	// Every participant has returned (Do and Join publish what they
	// stored), and the last block's handover left the whole reduction in
	// carry.
	return c.carry
}

// chain is the state a chained scan's participants share.
type chain[T any] struct {
	blocks int
	// next is the next block to claim.
	next atomic.Int64
	_    [56]byte // next and done on lines of their own: every claim writes next
	// done is the number of blocks whose prefixes have been chained: block
	// k may read carry once done == k, and only block k's claimer then
	// writes carry and done.
	done atomic.Int64
	// stop is set when a participant leaves by a panic or runtime.Goexit:
	// the block it held will never be handed over.
	stop atomic.Bool
	// carry is the reduction of blocks [0, done).
	carry T
}

// run is one participant: it claims blocks in order until none is left.
func (c *chain[T]) run(dst, src []T, k scanKernels[T]) {
	finished := false
	defer func() {
		if !finished {
			c.stop.Store(true) // a panic or Goexit in op: release the waiters
		}
	}()
	n := len(src)
	for !c.stop.Load() {
		b := int(c.next.Add(1) - 1)
		if b >= c.blocks {
			break
		}
		lo, hi := b*scanBlock, min(b*scanBlock+scanBlock, n)
		d, s := dst[lo:hi], src[lo:hi]
		switch {
		case b == 0:
			c.carry = k.first(d, s)
			c.done.Store(1)
		case c.done.Load() == int64(b):
			// The prefix is here: one pass.
			p := c.carry
			c.carry = k.op(p, k.fused(d, s, p))
			c.done.Store(int64(b + 1))
		default:
			// Scan locally while the blocks before finish, then hand the
			// prefix over before rewriting, so the next block waits for
			// the handover only, not for the rewrite.
			r := k.local(d, s)
			if !c.wait(b) {
				finished = true
				return
			}
			p := c.carry
			c.carry = k.op(p, r)
			c.done.Store(int64(b + 1))
			k.fix(d, p)
		}
	}
	finished = true
}

// wait returns once block b's prefix is in carry (true) or a participant
// has stopped (false). The wait is the rest of block b-1's pass, a few
// microseconds; yielding after a short spin lets a claimer that shares this
// core run.
func (c *chain[T]) wait(b int) bool {
	for spin := 0; c.done.Load() != int64(b); spin++ {
		if c.stop.Load() {
			return false
		}
		if spin >= 64 {
			goruntime.Gosched()
		}
	}
	return true
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
