package partition

import (
	"math"
	"os"
	"strconv"
	"sync/atomic"

	"golang.org/x/sys/cpu"

	"github.com/gopar-dev/gopar/internal/invariant"
	"github.com/gopar-dev/gopar/steal"
)

// The protocol of a Range (who writes what, Take, Steal, and the memory
// ordering argument that makes owner and thief blocks disjoint) is described
// once, in this package's doc (doc.go); range.pml model-checks it.

// MaxLen is the longest range a Range can hold: both ends of the steal range
// are 32-bit offsets from the range's base.
const MaxLen = 1<<32 - 1

// Status is the outcome of Steal: the same three outcomes as a deque steal,
// so that a lost race is never confused with an exhausted range. Here Empty
// means nothing a thief could take (the range is exhausted, or what remains
// is the owner's current block), Success that the thief now owns the block
// it was given, Retry that it lost a race and the range may still hold items.
type Status = steal.Status

// The outcomes of Steal.
const (
	Empty   = steal.Empty
	Success = steal.Success
	Retry   = steal.Retry
)

// A Range is a contiguous block of indices [lo, hi) that one goroutine, its
// owner, consumes from the bottom a grain at a time with Take, while any
// other goroutine may Steal the top quarter of what remains:
//
//	[low .. [mid .. high))
//	 owner   thieves
//
// A Range is never reset or reused for other items: a thief makes a new
// Range of what it stole (see "Why a new Range per steal" in the package
// doc).
type Range struct {
	// Read-only after NewRange.
	base int    // absolute index of offset 0
	n    uint32 // number of items
	// Owner only: offset where the next Take starts.
	next uint32
	_    cpu.CacheLinePad

	// Written by the owner only (Take), read by thieves. Kept off the
	// word's cache line so that thieves' CASes do not steal the line the
	// owner stores to on every Take.
	low atomic.Uint32
	_   cpu.CacheLinePad

	// The steal range, packed as mid<<32 | high (see pack). Changed only
	// by CAS, by the owner and by thieves.
	word atomic.Uint64
	_    cpu.CacheLinePad
}

// pack puts the steal range [mid, high) into one word, mid in the high 32
// bits and high in the low 32 bits, so that one CAS replaces both ends at
// once without an allocation. Both are offsets from base, at most MaxLen.
func pack(mid, high uint64) uint64 { return mid<<32 | high }

// unpack is the inverse of pack.
func unpack(w uint64) (mid, high uint64) { return w >> 32, w & (1<<32 - 1) }

// split returns the word for the remaining items [a, b): the steal range is
// their top quarter (1/stealDivisor), rounded up, so that a single remaining
// item can be stolen. With nothing left (b <= a) the word is (b, b): empty,
// since mid >= high, and still recording high.
func split(a, b uint64) uint64 {
	if b <= a {
		return pack(b, b)
	}
	if stealDivisor == 4 {
		return pack(a+3*(b-a)/4, b) // the default, with no division instruction
	}
	return pack(a+(stealDivisor-1)*(b-a)/stealDivisor, b)
}

// stealDivisor: thieves take 1/stealDivisor of what an owner has left. The
// quarter measured best or tied on every workload (docs/steal-fraction.md,
// which GOPAR_STEAL_DIVISOR, 2 to 16, exists to reproduce). Any value keeps
// the protocol correct: split only needs a <= mid < b.
var stealDivisor = stealDivisorFromEnv(os.Getenv("GOPAR_STEAL_DIVISOR"))

func stealDivisorFromEnv(v string) uint64 {
	if d, err := strconv.Atoi(v); err == nil && d >= 2 && d <= 16 {
		return uint64(d)
	}
	return 4
}

// NewRange returns a Range holding [lo, hi), owned by the caller. hi <= lo
// gives an empty range. It panics if hi-lo > MaxLen.
func NewRange(lo, hi int) *Range {
	r := new(Range)
	r.init(lo, hi)
	return r
}

// init sets up a zero Range to hold [lo, hi); see initAt.
func (r *Range) init(lo, hi int) {
	var n uint64
	if hi > lo {
		n = uint64(hi) - uint64(lo) // exact even when hi-lo overflows int
	}
	if n > MaxLen {
		panic("partition: NewRange: range longer than MaxLen")
	}
	r.initAt(lo, n)
}

// initAt sets up a zero Range to hold the n <= MaxLen items from base on. It
// must happen before the Range is shared (publishing it, e.g. by an atomic
// pointer store, orders these writes before any thief's reads).
func (r *Range) initAt(base int, n uint64) {
	r.base = base
	r.n = uint32(n)
	r.word.Store(split(0, n))
}

// Take claims the next block of at most grain items for the owner and
// returns it as [lo, hi) in absolute indices. Only the owner may call Take.
// A grain below 1 is treated as 1. ok=false means the range is exhausted:
// every item was taken or stolen, and Take will never return more.
//
// The fast path costs one atomic store and one atomic load; the owner CASes
// the word only when it comes near the steal range or takes its last items.
func (r *Range) Take(grain int) (lo, hi int, ok bool) {
	l := uint64(r.next)
	n := uint64(r.n)
	if l >= n {
		return 0, 0, false
	}
	g := uint64(1)
	if grain > 1 {
		g = uint64(grain)
	}
	nl := n
	if g < n-l {
		nl = l + g
	}
	// Reserve [l, nl): from here on no thief computes a steal range below
	// nl from this value. The store is sequentially consistent, so it is
	// ordered before the load of the word below.
	r.low.Store(uint32(nl))
	w := r.word.Load()
	// Fast path: does the block lie below the steal range, far from it?
	// Then no thief can reach it any more: it is ours.
	if mid, high := unpack(w); nl <= mid && mid-nl > 2*(high-mid) {
		r.next = uint32(nl)
		return r.base + int(l), r.base + int(nl), true
	}
	return r.takeSlow(l, nl, w)
}

// takeSlow finishes a Take whose block [l, nl) is reserved (low = nl) when
// the word w loaded after that comes close to the block or overlaps it.
//
// Tests run a thief between the two halves of a Take by storing low
// themselves before calling Take: Take stores the same value again, which
// changes nothing.
func (r *Range) takeSlow(l, nl, w uint64) (lo, hi int, ok bool) {
	for {
		mid, high := unpack(w)
		// Was everything from l up stolen?
		if l >= high {
			r.next = r.n
			return 0, 0, false
		}
		// Does the block lie below the steal range? Then it is ours.
		if nl <= mid {
			// Close to the steal range: shrink it to the top quarter of
			// what remains so thieves keep finding work we will not
			// reach soon. A failed CAS is fine: a thief moved it.
			if mid-nl <= 2*(high-mid) {
				if nw := split(nl, high); nw != w {
					r.word.CompareAndSwap(w, nw)
				}
			}
			r.next = uint32(nl)
			return r.base + int(l), r.base + int(nl), true
		}
		// The block reaches into the steal range, or the word is stale
		// (a thief computed it from an older low). Contend for it: the
		// CAS claims [l, min(nl, high)) and leaves [nl, high) stealable.
		if r.word.CompareAndSwap(w, split(nl, high)) {
			r.next = uint32(nl)
			return r.base + int(l), r.base + int(min(nl, high)), true
		}
		// Lost to a thief: high went down, look again.
		w = r.word.Load()
	}
}

// Steal tries to claim the top quarter of what remains in the range for
// the calling goroutine, which must not be the owner. On Success [lo, hi)
// is a non-empty block that the caller now owns; it should wrap it in a new
// Range (NewRange) if others are to steal from it in turn.
//
// Empty means there was nothing to steal; Retry means a race was lost and
// another attempt may succeed.
func (r *Range) Steal() (lo, hi int, s Status) { return r.steal(math.MaxInt) }

// steal is Steal for a loop cut at limit: a block that would start at or
// above limit is not taken (Empty). Refusing is a read-only early exit, so
// it leaves the protocol of the package doc unchanged.
func (r *Range) steal(limit int) (lo, hi int, s Status) {
	w := r.word.Load()
	// Is there a steal range at all?
	if mid, high := unpack(w); mid >= high {
		return 0, 0, Empty
	}
	// Where has the owner got to? Loaded after the word (see doc.go).
	x := uint64(r.low.Load())
	return r.stealFrom(w, x, limit)
}

// stealFrom is the second half of steal: given the word w and then low x
// that the thief loaded, it tries to claim the top of [max(x, mid), high).
// (Split out so that tests can let the owner run between the loads and the
// CAS.)
func (r *Range) stealFrom(w, x uint64, limit int) (lo, hi int, s Status) {
	mid, high := unpack(w)
	if mid >= high {
		return 0, 0, Empty
	}
	// Has the owner reserved everything up to high? Then it is the owner's.
	if x >= high {
		return 0, 0, Empty
	}
	from := mid
	if x > mid {
		// The word is stale, or the owner is about to CAS its way into
		// the steal range: take the top quarter of [x, high) instead of
		// waiting for the owner to publish a fresh word. Safe because we
		// stay at or above both x and mid (see doc.go).
		from, _ = unpack(split(x, high))
	}
	// Is the whole block above the loop's cut? Then nobody needs it.
	if r.base+int(from) >= limit {
		return 0, 0, Empty
	}
	// Leave the owner [x, from) with its own top quarter stealable.
	if !r.word.CompareAndSwap(w, split(x, from)) {
		return 0, 0, Retry
	}
	if invariant.Enabled {
		// The loot lies at or above what the owner had reserved and below
		// the old end of the steal range, and is not empty.
		if from < x || from < mid || from >= high || high > uint64(r.n) {
			invariant.Failf("steal of [%d, %d) with owner at %d, steal range [%d, %d), length %d", from, high, x, mid, high, r.n)
		}
	}
	return r.base + int(from), r.base + int(high), Success
}

// Len returns an estimate of the number of items left in the range, from a
// racy snapshot; it is never negative. It is meant for heuristics such as
// choosing a victim.
func (r *Range) Len() int {
	_, high := unpack(r.word.Load())
	x := uint64(r.low.Load())
	if high <= x {
		return 0
	}
	return int(high - x)
}
