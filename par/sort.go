package par

import (
	"cmp"
	"slices"
	"sync/atomic"

	"github.com/gopar-dev/gopar/runtime"
)

// Sort sorts xs in increasing order, in parallel on the default pool. It
// orders the elements as slices.Sort does (NaNs before the other floats)
// and, like it, is not stable; for equal elements that can be told apart
// (+0 and -0) the order they end in is not specified.
//
// Sort is a sample sort: it picks up to 255 splitters from a sample of xs,
// moves every element to its bucket between two splitters in one parallel
// pass, and sorts the buckets with slices.Sort in parallel (see
// samplesort.go). On 2^24 random ints it took 0.4x the time of slices.Sort
// with 2 workers: the buckets are short, so their sorts add up to less
// work than one sort of the whole.
//
// Inputs of up to 4096 elements are sorted by slices.Sort on the calling
// goroutine, without touching the pool. Where the buckets fall depends only
// on xs, not on the pool or on timing, so the result is the same on every
// run, even for elements that compare equal but can be told apart (+0 and
// -0, NaNs). Sort may be called from inside another parallel operation.
//
// Memory: for inputs above 4096 elements, Sort allocates one buffer of
// len(xs) elements and one byte per element, and nothing else that grows
// with xs.
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
// *Panic holding the value and the stack where it happened; xs
// then holds its elements, each exactly once, in no specified order.
// A nil cmp panics, naming SortFunc.
//
// SortFunc is a merge sort: it splits xs in halves down to pieces of at
// least a few thousand elements, sorts the pieces with slices.SortFunc,
// and merges them pairwise, each merge itself split in parallel, so that
// the last, largest merge keeps every worker busy too. The forks are
// runtime.JoinFunc's, which cost nearly nothing while no worker is idle.
// (Sort's sample sort would save the merges, but SortFunc must survive a
// cmp that panics or is not a strict weak ordering, which the merge sort
// handles below.)
//
// Small inputs are sorted on the calling goroutine as for Sort. Memory: one
// buffer of len(xs) elements. Where the pieces fall depends only on
// len(xs) and the number of workers, so for a cmp that always gives the
// same answer the result is the same on every run on the same pool.
func SortFunc[S ~[]E, E any](xs S, cmp func(a, b E) int) {
	mustFunc(cmp, "SortFunc")
	sortFuncOn(nil, xs, cmp)
}

// SortStableFunc sorts xs as SortFunc does (the same merge sort), keeping the original order of
// equal elements, as slices.SortStableFunc does. It runs the same merge
// sort as Sort, with slices.SortStableFunc on the small pieces, and merges
// that take from the left run on ties. Unlike slices.SortStableFunc,
// which sorts in place in O(n log² n) comparisons, it allocates one buffer
// of len(xs) elements.
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
	if len(xs) <= sortLeafMin {
		slices.Sort(xs) // it cannot panic
		return
	}
	sampleSort(p, xs)
}

func sortFuncOn[E any](p *runtime.Pool, xs []E, cmp func(a, b E) int) {
	if len(xs) <= sortLeafMin {
		sortSmall(xs, cmp, false)
		return
	}
	sortOn(p, funcSorter(cmp, func(s []E) { slices.SortFunc(s, cmp) }), xs)
}

func sortStableFuncOn[E any](p *runtime.Pool, xs []E, cmp func(a, b E) int) {
	if len(xs) <= sortLeafMin {
		sortSmall(xs, cmp, true)
		return
	}
	sortOn(p, funcSorter(cmp, func(s []E) { slices.SortStableFunc(s, cmp) }), xs)
}

// The merge sort in a few words:
//
//	sort(lo, hi, target):             // leaves xs[lo:hi] sorted in target (xs or buf)
//		if hi-lo is small: sortLeaf xs[lo:hi] in place; copy it to target if that is buf
//		else: fork sort(lo, mid, other), sort(mid, hi, other)
//		      merge other[lo:mid] and other[mid:hi] into target[lo:hi], forking halves of the merge
//
// where other is the one of xs and buf that is not target. The root's
// target is xs, so the sorted result ends there without a final copy; the
// levels alternate between xs and buf below it.
//
// Panics. A merge only reads its source and only writes its destination,
// and slices.Sort only swaps, so at any moment every range's elements are
// whole in one place. sortRange keeps this invariant: if it panics, the
// elements of its range are in its target, each exactly once. A range
// whose children or merge panicked finds its elements whole in the
// children's target (JoinFunc waits for both children before it
// re-panics), and copies them to its own target before passing the panic
// on. At the root that target is xs. Once a panic has happened, the ranges
// and merges not yet started are skipped (failed), keeping the same
// invariant.

const (
	// sortLeafMin is the largest input sorted without the pool, and the
	// least bound on a piece (pieces are halved until they are no longer
	// than max(sortLeafMin, n/leaves)): slices.Sort takes about 60 µs
	// for 4096 ints, against a few µs to wake a worker and allocate the
	// buffer.
	sortLeafMin = 1 << 12
	// leavesPerWorker is about how many pieces per worker a large input
	// is cut into: enough for the workers to balance on a busy machine,
	// few enough that the levels of merges stay few: each is a pass over
	// all of memory. Sorting 2^24 ints with 2 workers on a busy machine,
	// 64 pieces took roughly 15% more CPU time than slices.Sort, 16
	// pieces roughly 5%.
	leavesPerWorker = 8
	// mergeLeafMin is the size up to which a merge runs sequentially; a
	// split costs a binary search and a fork.
	mergeLeafMin = 1 << 13
)

// sorter holds what one merge sort (SortFunc, SortStableFunc) shares across
// its tasks: the slice, the buffer, and its operations: the two sorts
// differ in sortLeaf.
type sorter[E any] struct {
	xs, buf []E
	leaf    int         // ranges of at most leaf elements are sorted sequentially
	failed  atomic.Bool // set once a call of cmp panicked: the rest is skipped

	sortLeaf func(s []E)          // sorts s in place, swapping only
	merge    func(dst, a, b []E)  // merges sorted a and b into dst, taking from a on ties
	lower    func(s []E, x E) int // the number of elements of sorted s that are less than x
	upper    func(s []E, x E) int // the number of elements of sorted s not greater than x

	// sortRange[E] and mergeRange[E] as func values, made once: inside
	// generic code, each evaluation of such a value allocates.
	sortRange  func(*runtime.Worker, sortTask[E]) struct{}
	mergeRange func(*runtime.Worker, mergeTask[E]) struct{}
}

// sortTask is one node of the recursion: sort xs[lo:hi] into buf[lo:hi]
// if toBuf, into xs[lo:hi] otherwise.
type sortTask[E any] struct {
	s      *sorter[E]
	lo, hi int
	toBuf  bool
}

// mergeTask merges a and b into dst (len(dst) == len(a)+len(b)).
type mergeTask[E any] struct {
	s         *sorter[E]
	a, b, dst []E
}

func funcSorter[E any](cmp func(a, b E) int, leaf func([]E)) *sorter[E] {
	return &sorter[E]{
		sortLeaf: leaf,
		merge:    func(dst, a, b []E) { mergeFunc(dst, a, b, cmp) },
		lower: func(s []E, x E) int {
			return search(len(s), func(i int) bool { return cmp(s[i], x) >= 0 })
		},
		upper: func(s []E, x E) int {
			return search(len(s), func(i int) bool { return cmp(s[i], x) > 0 })
		},
	}
}

// sortSmall sorts xs on the calling goroutine with slices.SortFunc, or
// slices.SortStableFunc if stable, and re-panics with a *Panic if
// cmp panics, as the parallel sort does.
func sortSmall[E any](xs []E, cmp func(a, b E) int, stable bool) {
	defer func() {
		if v := recover(); v != nil {
			panic(runtime.NewPanic(v))
		}
	}()
	if stable {
		slices.SortStableFunc(xs, cmp)
	} else {
		slices.SortFunc(xs, cmp)
	}
}

// sortOn sorts xs, longer than sortLeafMin, with s on pool p (nil: the
// default pool).
func sortOn[E any](p *runtime.Pool, s *sorter[E], xs []E) {
	s.xs = xs
	s.sortRange, s.mergeRange = sortRange[E], mergeRange[E]
	if p == nil {
		p = runtime.Default()
	}
	leaves := leavesPerWorker * p.Workers()
	s.leaf = max(sortLeafMin, (len(xs)+leaves-1)/leaves)
	s.buf = make([]E, len(xs))
	p.Do(func(w *runtime.Worker) {
		sortRange(w, sortTask[E]{s: s, lo: 0, hi: len(xs)})
	})
}

// sortRange sorts t's range into its target; see the sketch above.
func sortRange[E any](w *runtime.Worker, t sortTask[E]) (_ struct{}) {
	s := t.s
	target := s.xs
	if t.toBuf {
		target = s.buf
	}
	if s.failed.Load() {
		// Some call of cmp panicked and the panic is on its way to the
		// root: skip the work, but leave the elements whole in target.
		// Nothing has touched this range yet, so they are all in xs.
		if t.toBuf {
			copy(target[t.lo:t.hi], s.xs[t.lo:t.hi])
		}
		return
	}
	// work is where the range's elements are while it runs: xs for a
	// leaf, the children's target otherwise.
	work := s.xs
	done := false
	defer func() {
		if !done {
			v := recover()
			s.failed.Store(true)
			if &work[t.lo] != &target[t.lo] {
				copy(target[t.lo:t.hi], work[t.lo:t.hi])
			}
			if v != nil { // nil: runtime.Goexit, which goes on by itself
				panic(runtime.NewPanic(v))
			}
		}
	}()
	if t.hi-t.lo <= s.leaf {
		s.sortLeaf(s.xs[t.lo:t.hi])
		if t.toBuf {
			copy(target[t.lo:t.hi], s.xs[t.lo:t.hi])
		}
		done = true
		return
	}
	if !t.toBuf {
		work = s.buf
	}
	mid := t.lo + (t.hi-t.lo)/2
	runtime.JoinFunc(w, s.sortRange,
		sortTask[E]{s: s, lo: t.lo, hi: mid, toBuf: !t.toBuf},
		sortTask[E]{s: s, lo: mid, hi: t.hi, toBuf: !t.toBuf})
	mergeRange(w, mergeTask[E]{s: s, a: work[t.lo:mid], b: work[mid:t.hi], dst: target[t.lo:t.hi]})
	if s.failed.Load() {
		// Parts of the merge may have been skipped; its source is whole.
		copy(target[t.lo:t.hi], work[t.lo:t.hi])
	}
	done = true
	return
}

// mergeRange merges t.a and t.b into t.dst, splitting the merge in two
// independent ones while it is large: the middle element x of the longer
// run splits that run, a binary search splits the other one where x would
// go, and the two lower parts merge into the front of dst while the two
// upper parts merge into the rest. Ties keep a's elements first. Each
// half holds at least one element of the longer run less than the whole,
// so the recursion ends whatever cmp answers.
func mergeRange[E any](w *runtime.Worker, t mergeTask[E]) (_ struct{}) {
	a, b, s := t.a, t.b, t.s
	if s.failed.Load() {
		return // sortRange copies the source instead
	}
	if len(a) > 0 && len(b) > 0 && s.lower(b[:1], a[len(a)-1]) == 0 {
		// Already in order (b[0] is not less than a's last): the common
		// case on sorted input.
		copy(t.dst[copy(t.dst, a):], b)
		return
	}
	if len(a)+len(b) <= mergeLeafMin {
		s.merge(t.dst, a, b)
		return
	}
	var i, j int
	if len(a) >= len(b) {
		i = len(a) / 2
		j = s.lower(b, a[i]) // b's elements equal to a[i] go after it
	} else {
		j = len(b) / 2
		i = s.upper(a, b[j]) // a's elements equal to b[j] go before it
	}
	runtime.JoinFunc(w, s.mergeRange,
		mergeTask[E]{s: s, a: a[:i], b: b[:j], dst: t.dst[:i+j]},
		mergeTask[E]{s: s, a: a[i:], b: b[j:], dst: t.dst[i+j:]})
	return
}

func mergeFunc[E any](dst, a, b []E, cmp func(a, b E) int) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if cmp(b[j], a[i]) < 0 {
			dst[k] = b[j]
			j++
		} else {
			dst[k] = a[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}

// search returns the smallest i in [0, n) for which f(i) is true, or n,
// assuming f is false and then true over [0, n) (sort.Search). If f is
// not monotone, as with a cmp that is not a strict weak ordering, it
// still returns some i in [0, n].
func search(n int, f func(int) bool) int {
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if f(m) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}
