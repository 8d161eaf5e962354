package par

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/gopar-dev/gopar/internal/plumb"
	"github.com/gopar-dev/gopar/runtime"
)

// The sorts' algorithm for inputs above sortLeafMin, a sample sort, in a
// few words:
//
//	pick k-1 splitters from a sorted sample of xs;
//	cut xs into fixed blocks; in parallel, give each element of a block its
//	  bucket (how many splitters are not greater than it) and count the
//	  block's elements per bucket;
//	from the counts, where each (block, bucket) pair starts in buf: bucket
//	  by bucket, block by block;
//	in parallel, copy each block's elements to their places in buf;
//	in parallel, sort each bucket in buf and copy it back to xs.
//
// A merge sort makes one pass over memory per level of merges (four at 2
// workers for 2^24 elements); this makes one, and sorts each bucket where it
// will stay. Its pieces are also short: 2^24 ints in 256 buckets leave
// sorts of 2^16 elements, whose log is 16 against 24 for the whole, so the
// bucket sorts add up to less work than one sort of xs.
//
// Stability. The copy into buf keeps the order of the blocks and of the
// elements in each block, and elements that compare equal have the same
// bucket (the same splitters are not greater than each), so a stable sort
// of each bucket makes a stable sort of xs.
//
// Bad cmp. An element's bucket is computed once and stored, so whatever cmp
// answers, the copy moves every element exactly once; the search always ends
// in [0, k). If cmp panics, xs holds every element once all the same: before
// the copy into buf only xs is read; after it, buf holds every element once
// (the slices sorts only swap), and sampleSort copies it back to xs before
// passing the panic on, as a *Panic.
//
// Determinism. The sample positions, the blocks and k depend only on
// len(xs), so where everything lands depends on xs and cmp, not on the pool
// or on timing: equal elements that can be told apart (+0 and -0, NaNs,
// records with equal keys) end in the same order on every run.
//
// Many equal elements end in one bucket, which the slices sorts handle in
// linear time; a sample that happens to be skewed makes a large bucket,
// which is slower to sort but still right.

const (
	// maxBuckets is the most buckets: a bucket number fits in a byte, so
	// the counting pass stores it in one byte per element for the copy.
	maxBuckets = 256
	// oversample: the sample holds this many elements per bucket, so that
	// the largest bucket is rarely much above the average.
	oversample = 32
	// sampleSortBlocks: the counting and copying passes cut xs into this
	// many blocks, enough for a pool of a few dozen workers to balance;
	// each block's counts take k words.
	sampleSortBlocks = 64
)

// sampleOps is what the three sorts differ in.
type sampleOps[E any] struct {
	// sort sorts s in place, only swapping elements: a bucket, or the
	// sample.
	sort func(s []E)
	// count sets bucketOf[i] to the bucket of xs[i] and counts each bucket's
	// elements into count: countBuckets or countBucketsFunc.
	count func(splitters, xs []E, bucketOf []uint8, count []int)
}

// orderedOps are Sort's operations: comparisons compiled in.
func orderedOps[E cmp.Ordered]() sampleOps[E] {
	return sampleOps[E]{sort: slices.Sort[[]E], count: countBuckets[E]}
}

// funcOps are SortFunc's operations (SortStableFunc's if stable): calls of
// cmp.
func funcOps[E any](cmp func(a, b E) int, stable bool) sampleOps[E] {
	ops := sampleOps[E]{
		sort: func(s []E) { slices.SortFunc(s, cmp) },
		count: func(splitters, xs []E, bucketOf []uint8, count []int) {
			countBucketsFunc(splitters, xs, bucketOf, count, cmp)
		},
	}
	if stable {
		ops.sort = func(s []E) { slices.SortStableFunc(s, cmp) }
	}
	return ops
}

// sampleSort sorts xs, longer than sortLeafMin, on pool p (nil: the default
// pool). See the sketch above.
func sampleSort[E any](p *runtime.Pool, xs []E, ops sampleOps[E]) {
	if p != nil && p.Closed() {
		panic(runtime.ErrClosed) // as every operation does, before any work
	}
	var buf []E // once set, holds every element of xs
	returned := false
	defer func() {
		v := recover()
		if v == nil && !returned && buf != nil {
			copy(xs, buf) // runtime.Goexit in cmp: it goes on
		}
		if v != nil {
			if buf != nil {
				copy(xs, buf)
			}
			if _, ok := v.(*runtime.Panic); !ok {
				v = plumb.NewPanic(v) // a panic in cmp on this goroutine
			}
			panic(v)
		}
	}()
	n := len(xs)
	// k: a power of two, with buckets of sortLeafMin elements at least.
	k := min(maxBuckets, 1<<(bits.Len(uint(n/sortLeafMin))-1))
	if k < 2 {
		ops.sort(xs)
		return
	}
	splitters := pickSplitters(xs, k, ops.sort)

	blocks := min(sampleSortBlocks, n/sortLeafMin)
	blockLo := func(b int) int { return b * n / blocks }
	bucketOf := make([]uint8, n)
	counts := make([]int, blocks*k) // counts[b*k+j]: elements of block b in bucket j
	onBlocks(p, blocks, func(b int) {
		lo, hi := blockLo(b), blockLo(b+1)
		ops.count(splitters, xs[lo:hi], bucketOf[lo:hi], counts[b*k:(b+1)*k])
	})

	// Bucket j starts at bucketLo[j]; block b's elements of bucket j go
	// from counts[b*k+j], turned into that start, on.
	bucketLo := bucketStarts(counts, blocks, k, n)

	moved := make([]E, n)
	onBlocks(p, blocks, func(b int) {
		lo, hi := blockLo(b), blockLo(b+1)
		next := counts[b*k : (b+1)*k]
		for i, j := range bucketOf[lo:hi] {
			moved[next[j]] = xs[lo+i]
			next[j]++
		}
	})
	buf = moved
	onBlocks(p, k, func(j int) {
		lo, hi := bucketLo[j], bucketLo[j+1]
		ops.sort(buf[lo:hi])
		copy(xs[lo:hi], buf[lo:hi])
	})
	returned = true
}

// bucketStarts turns counts, where counts[b*k+j] is the number of
// elements of block b in bucket j, into where those elements start once
// the n elements are laid out bucket by bucket, block by block; and returns
// where each of the k buckets starts, with n after the last.
func bucketStarts(counts []int, blocks, k, n int) []int {
	bucketLo := make([]int, k+1)
	at := 0
	for j := range k {
		bucketLo[j] = at
		for b := range blocks {
			c := counts[b*k+j]
			counts[b*k+j] = at
			at += c
		}
	}
	bucketLo[k] = n
	return bucketLo
}

// onBlocks runs f(0), ..., f(count-1) in parallel on pool p (nil: the
// default pool).
func onBlocks(p *runtime.Pool, count int, f func(int)) {
	Range(0, count).WithPool(p).ForEach(f)
}

// pickSplitters returns k-1 splitters, in order, from a sample of
// oversample*k elements of xs sorted with sort. The sample takes one
// element from each of as many equal slices of xs, at a pseudo-random place
// inside it (so that a periodic input does not fool it), the same places
// for the same len(xs).
func pickSplitters[E any](xs []E, k int, sort func([]E)) []E {
	m := min(oversample*k, len(xs))
	sample := make([]E, m)
	for s := range sample {
		lo, hi := s*len(xs)/m, (s+1)*len(xs)/m
		sample[s] = xs[lo+int(splitmix(uint64(s))%uint64(hi-lo))]
	}
	sort(sample)
	splitters := make([]E, k-1)
	for j := range splitters {
		splitters[j] = sample[(j+1)*m/k]
	}
	return splitters
}

// countBuckets sets bucketOf[i] to the bucket of xs[i], the number of
// splitters not greater than it, and counts the elements of each bucket
// into count (len(splitters)+1 of them, a power of two).
//
// The search halves the candidates at every step without a branch on the
// outcome (a branch there is mispredicted half the time: 41 ns per element
// for 255 splitters, against 15 ns with the outcome added as 0 or step),
// and runs four searches side by side, whose steps do not wait for each
// other (to about 10 ns per element, counting included).
func countBuckets[E cmp.Ordered](splitters, xs []E, bucketOf []uint8, count []int) {
	half := (len(splitters) + 1) / 2
	i := 0
	for ; i+4 <= len(xs); i += 4 {
		x0, x1, x2, x3 := xs[i], xs[i+1], xs[i+2], xs[i+3]
		j0, j1, j2, j3 := 0, 0, 0, 0
		for step := half; step > 0; step /= 2 {
			j0 += step & -notLess(x0, splitters[j0+step-1])
			j1 += step & -notLess(x1, splitters[j1+step-1])
			j2 += step & -notLess(x2, splitters[j2+step-1])
			j3 += step & -notLess(x3, splitters[j3+step-1])
		}
		bucketOf[i], bucketOf[i+1], bucketOf[i+2], bucketOf[i+3] = uint8(j0), uint8(j1), uint8(j2), uint8(j3)
		count[j0]++
		count[j1]++
		count[j2]++
		count[j3]++
	}
	for ; i < len(xs); i++ {
		j := 0
		for step := half; step > 0; step /= 2 {
			j += step & -notLess(xs[i], splitters[j+step-1])
		}
		bucketOf[i] = uint8(j)
		count[j]++
	}
}

// countBucketsFunc is countBuckets with cmp in place of cmp.Less, one
// search at a time: with a call per comparison, four side by side gained
// nothing, as every call spills what the other searches hold in registers
// (2^24 ints on 2 workers: 645-710 ms for the pass four-wide, 575-630 ms
// one at a time).
func countBucketsFunc[E any](splitters, xs []E, bucketOf []uint8, count []int, cmp func(a, b E) int) {
	half := (len(splitters) + 1) / 2
	for i, x := range xs {
		j := 0
		for step := half; step > 0; step /= 2 {
			j += step & -notNegative(cmp(x, splitters[j+step-1]))
		}
		bucketOf[i] = uint8(j)
		count[j]++
	}
}

// notLess is 1 if x is not less than s, else 0, and notNegative is 1 if c
// >= 0, else 0: each compiles to a flag set from the comparison, no branch.
func notLess[E cmp.Ordered](x, s E) int {
	if cmp.Less(x, s) {
		return 0
	}
	return 1
}

func notNegative(c int) int {
	if c < 0 {
		return 0
	}
	return 1
}

// splitmix is the splitmix64 finalizer: a fixed, well-spread function of s.
func splitmix(s uint64) uint64 {
	s += 0x9E3779B97F4A7C15
	s = (s ^ s>>30) * 0xBF58476D1CE4E5B9
	s = (s ^ s>>27) * 0x94D049BB133111EB
	return s ^ s>>31
}
