package partition

import (
	"math"
	"math/bits"
	"sync/atomic"

	"golang.org/x/sys/cpu"

	"github.com/gopar-dev/gopar/internal/cut"
	"github.com/gopar-dev/gopar/internal/invariant"
)

// A Loop coordinates one parallel loop over [lo, hi) among participants:
// goroutines that each Enter it, call Next for blocks of items to run until
// it reports nothing left, and Leave. Any lo <= hi is valid, up to
// [math.MinInt, math.MaxInt): 2^64-1 items.
//
// The loop is cut into partitions, claimed in index order; each is a Range
// that its claimer owns and takes blocks from. When no partition is left, a
// participant steals the top quarter of another's range, which becomes its
// own. The doc of this package describes the schedule, the cut and why
// counting active participants detects the end.
//
// For every item to run, at least one participant must Enter and call Next
// until it returns ok=false, and every participant that entered must then
// Leave.
type Loop struct {
	// Read-only after NewLoop.
	lo     int
	n      uint64                  // hi - lo, up to 2^64-1
	parts  uint64                  // number of partitions
	every  uint64                  // partitions per size step (the number of slots)
	first  uint64                  // size of the first partitions; 0: equal partitions
	capK   uint64                  // growing: the first partition of size MaxLen
	capOff uint64                  // growing: its offset
	slot   []atomic.Pointer[Range] // slot[i]: the range participant i owns now
	ranges []Range                 // the Range of each of the first partitions
	_      cpu.CacheLinePad        // keep the counters off the read-only fields

	// Next partition to claim; counts past parts once all are claimed.
	claimed atomic.Uint64
	_       cpu.CacheLinePad
	// Participants that entered, for their slot numbers.
	entered atomic.Int64
	_       cpu.CacheLinePad
	// Participants inside the loop, with doneBit set by the last to leave.
	active atomic.Uint64
	_      cpu.CacheLinePad
	// Items at or above cut are no longer needed (uncut: all are).
	cut cut.Line
	_   cpu.CacheLinePad

	// seen has one bit per item, set when a participant claims it: under
	// the gopar_debug build tag only (nil otherwise, and for loops longer
	// than maxChecked), to check that no item is handed out twice and, when
	// the loop is done, that none below the cut was missed.
	seen []atomic.Uint64
}

// MaxParticipants bounds the participants of one Loop (a larger parts is
// treated as MaxParticipants): each has a slot that thieves scan.
const MaxParticipants = 1 << 16

// doneBit in Loop.active marks a loop whose every participant has left:
// Enter refuses newcomers from then on, so exactly one Leave sees the end.
const doneBit = 1 << 63

// NewLoop returns a Loop over [lo, hi) for at most parts participants
// (parts is clamped to [1, MaxParticipants]), split statically into
// min(parts, hi-lo) equal contiguous partitions, the best split when items
// cost the same. A loop too long for that (a partition would hold MaxLen
// items or more) is split as NewGrowingLoop splits it, from partitions of
// MaxLen items. hi <= lo gives an empty loop, already done.
func NewLoop(lo, hi, parts int) *Loop {
	p := uint64(min(max(parts, 1), MaxParticipants))
	if n := span(lo, hi); n/p >= MaxLen {
		return NewGrowingLoop(lo, hi, parts, MaxLen)
	}
	return newLoop(lo, hi, p, 0)
}

// NewGrowingLoop returns a Loop over [lo, hi) for at most parts
// participants (clamped as in NewLoop) whose partitions grow from the
// bottom: the first parts partitions hold first items each (first < 1 is
// treated as 1, and at most MaxLen), the next parts twice as many, and so on
// up to MaxLen. Participants claim partitions in index order, so they all
// work near lo first: a loop that is cut early (CutAt) has done little work
// above the cut, whatever its length.
func NewGrowingLoop(lo, hi, parts, first int) *Loop {
	p := uint64(min(max(parts, 1), MaxParticipants))
	return newLoop(lo, hi, p, uint64(min(max(first, 1), MaxLen)))
}

// span returns the number of items in [lo, hi): hi-lo, exact even where it
// overflows int, or 0 if hi <= lo.
func span(lo, hi int) uint64 {
	if hi <= lo {
		return 0
	}
	return uint64(hi) - uint64(lo) // two's complement difference
}

func newLoop(lo, hi int, every, first uint64) *Loop {
	l := &Loop{lo: lo, n: span(lo, hi), first: first}
	if l.n == 0 {
		l.active.Store(doneBit)
		return l
	}
	if first == 0 {
		l.every = min(every, l.n)
		l.parts = l.every
	} else {
		// Sizes double every `every` partitions until they reach MaxLen:
		// capK partitions (capQ steps) come before the first full one.
		capQ := uint64(bits.Len64((MaxLen - 1) / first))
		l.every = every
		l.capK = satMul(capQ, every)
		l.capOff = satMul(satMul(every, first), 1<<capQ-1)
		l.parts = l.partsGrowing()
	}
	l.slot = make([]atomic.Pointer[Range], l.every)
	// One allocation for the ranges of the first partitions: for an equal
	// split that is all of them, so a loop costs O(1) allocations.
	l.ranges = make([]Range, min(l.parts, l.every))
	if invariant.Enabled && l.n <= maxChecked {
		l.seen = make([]atomic.Uint64, (l.n+63)/64)
	}
	return l
}

// at returns the absolute index at offset off (wrapping arithmetic gives the
// exact int, since lo+off lies in [lo, hi]).
func (l *Loop) at(off uint64) int { return int(uint64(l.lo) + off) }

// Len returns the number of items in the loop, hi-lo (0 if hi <= lo). It is
// a uint64 because [math.MinInt, math.MaxInt) holds more items than an int
// can count.
func (l *Loop) Len() uint64 { return l.n }

// Partitions returns the number of partitions the loop was split into.
func (l *Loop) Partitions() uint64 { return l.parts }

// Done reports whether every participant that entered has left after Next
// returned ok=false, that is, whether every item below the cut has run.
// Once true it stays true.
func (l *Loop) Done() bool { return l.active.Load()&doneBit != 0 }

// CutAt tells the loop that the items at or above index c are no longer
// needed: from now on Next hands out none of them. Owners drop what they
// hold above c, thieves leave it, and partitions starting at or above c are
// never claimed; a block already handed out still runs to its end. Items
// below c are handed out as before, each exactly once. The cut only moves
// down: a call with a higher c than an earlier one changes nothing. Any
// goroutine may call CutAt, at any time.
func (l *Loop) CutAt(c int) { l.cut.Lower(c) }

// Cancel stops the loop early: it is CutAt(math.MinInt), which leaves no
// item to hand out.
func (l *Loop) Cancel() { l.CutAt(math.MinInt) }

// Cut returns the current cut: math.MaxInt if the loop was never cut,
// math.MinInt after Cancel.
func (l *Loop) Cut() int { return l.cut.At() }
