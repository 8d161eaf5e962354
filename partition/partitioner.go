package partition

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"sync/atomic"

	"golang.org/x/sys/cpu"

	"github.com/gopar-dev/gopar/internal/invariant"

	"github.com/gopar-dev/gopar/internal/cut"
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

// maxChecked is the longest loop whose items gopar_debug tracks: 2^28
// items take a 32 MiB bitmap.
const maxChecked = 1 << 28

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

// partsGrowing counts the partitions of a growing loop: the first k whose
// offset reaches n.
func (l *Loop) partsGrowing() uint64 {
	if l.n > l.capOff {
		full := (l.n-l.capOff-1)/MaxLen + 1 // rounded up, without overflow
		return l.capK + full
	}
	// Find the size step q whose partitions hold offset n-1, then the
	// partition of that step.
	for q := uint64(0); ; q++ {
		size := l.first << q
		stepStart := l.offset(q * l.every)
		if l.n <= satAdd(stepStart, satMul(l.every, size)) {
			return q*l.every + (l.n-stepStart+size-1)/size
		}
	}
}

// offset returns where partition k starts, relative to lo, clamped to n.
func (l *Loop) offset(k uint64) uint64 {
	if l.first == 0 {
		// Equal partitions: floor(k*n/parts), without overflow.
		hi, lo := bits.Mul64(k, l.n)
		q, _ := bits.Div64(hi, lo, l.parts) // hi < parts since k <= parts
		return q
	}
	var off uint64
	if k < l.capK {
		q, r := k/l.every, k%l.every
		off = satAdd(satMul(satMul(l.every, l.first), 1<<q-1), satMul(r, l.first<<q))
	} else {
		off = satAdd(l.capOff, satMul(k-l.capK, MaxLen))
	}
	return min(off, l.n)
}

// satMul and satAdd saturate at the largest uint64 instead of wrapping: an
// offset past the end of the loop only needs to compare as such.
func satMul(a, b uint64) uint64 {
	if hi, lo := bits.Mul64(a, b); hi == 0 {
		return lo
	}
	return math.MaxUint64
}

func satAdd(a, b uint64) uint64 {
	if s, carry := bits.Add64(a, b, 0); carry == 0 {
		return s
	}
	return math.MaxUint64
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

// claim claims the next unclaimed partition below the cut and returns its
// Range, or nil if there is none.
func (l *Loop) claim(cut int) *Range {
	k := l.claimed.Add(1) - 1
	if k >= l.parts {
		return nil
	}
	off := l.offset(k)
	if l.at(off) >= cut {
		// This one and every later one lie above the cut.
		l.claimed.Store(l.parts)
		return nil
	}
	var r *Range
	if k < uint64(len(l.ranges)) {
		r = &l.ranges[k]
	} else {
		r = new(Range)
	}
	r.initAt(l.at(off), l.offset(k+1)-off)
	return r
}

// nextSize returns the size of the next partition to claim, or 0 if none is
// left (a racy snapshot, for the choice between stealing and claiming).
func (l *Loop) nextSize() int {
	k := l.claimed.Load()
	if k >= l.parts {
		return 0
	}
	return int(l.offset(k+1) - l.offset(k))
}

// A Participant is one goroutine's part in running a Loop. The zero value is
// ready for Enter; a Participant is small and needs no allocation. It must be
// used by one goroutine at a time.
type Participant struct {
	loop   *Loop
	r      *Range // the range this participant owns, nil when it has none
	slot   int    // where r is published for thieves
	steals int    // successful steals
	// stolen logs every successful steal once RecordSteals was called
	// (nil otherwise): a test per steal, none per block.
	stolen *[]Stolen
}

// Stolen is one successful steal, as RecordSteals logs it: the items
// [Lo, Hi) were taken from the range of the participant whose Slot is
// Victim.
type Stolen struct {
	Victim int
	Lo, Hi int
}

// Enter makes p a participant of l. It returns false if l already has as
// many participants as it was made for, or is done; then p must not be
// used, and the caller has nothing to do for this loop.
func (l *Loop) Enter(p *Participant) bool {
	i := l.entered.Add(1) - 1
	if i >= int64(l.every) {
		return false
	}
	for {
		a := l.active.Load()
		if a&doneBit != 0 {
			return false
		}
		if l.active.CompareAndSwap(a, a+1) {
			break
		}
	}
	*p = Participant{loop: l, slot: int(i)}
	return true
}

// Next returns the next block [lo, hi) of items for p to run, in absolute
// indices, with at most grain items (grain < 1 is treated as 1; blocks from a
// range's end or at the cut may be shorter). It takes blocks from the range
// p owns; when that is exhausted it claims the next partition; when none is
// left it steals the top quarter of another participant's range, which
// becomes p's own (published so others can steal from it in turn).
//
// ok=false means nothing below the cut is left that p can get: other
// participants may still be running their last blocks.
func (p *Participant) Next(grain int) (lo, hi int, ok bool) {
	l := p.loop
	for {
		cut := l.cut.At()
		if r := p.r; r != nil {
			if lo, hi, ok := r.Take(grain); ok && lo < cut {
				hi = min(hi, cut)
				if invariant.Enabled {
					l.markClaimed(lo, hi)
				}
				return lo, hi, true
			}
			// Exhausted, or what is left lies above the cut: drop it.
			p.r = nil
		}
		// A growing loop works from the bottom up: lower items are the
		// ones a cut keeps. So if another participant lags, holding more
		// than the next partition would give us, help it first; then
		// claim the next (higher) partition; only then steal whatever is
		// left. (Stealing first from any range that has a few blocks left
		// made 16 participants contend: 2x slower there.)
		var r *Range
		if l.first != 0 {
			if size := l.nextSize(); size > 0 {
				r = p.steal(cut, size)
			}
		}
		if r == nil {
			r = l.claim(cut)
		}
		if r == nil {
			if r = p.steal(cut, 1); r == nil {
				return 0, 0, false
			}
		}
		// Publish our new range, in place of the one we dropped.
		l.slot[p.slot].Store(r)
		p.r = r
	}
}

// steal scans every slot, starting at a random one, for a range with at
// least atLeast items left (by Range.Len's estimate) and something below the
// cut to steal. A scan that lost a race somewhere is repeated; a scan that
// found nothing gives up.
func (p *Participant) steal(cut, atLeast int) *Range {
	l := p.loop
	n := len(l.slot)
	for {
		retry := false
		start := rand.IntN(n)
		for k := range n {
			i := start + k
			if i >= n {
				i -= n
			}
			r := l.slot[i].Load()
			if i == p.slot || r == nil || r.base >= cut || atLeast > 1 && r.Len() < atLeast {
				continue // ours (exhausted), nobody's yet, above the cut, or too little
			}
			lo, hi, s := r.steal(cut)
			switch s {
			case Success:
				p.steals++
				if p.stolen != nil {
					*p.stolen = append(*p.stolen, Stolen{Victim: i, Lo: lo, Hi: hi})
				}
				return NewRange(lo, hi)
			case Retry:
				retry = true
			}
		}
		if !retry {
			return nil
		}
		cut = l.cut.At()
	}
}

// Leave takes p out of the loop. Call it once Next has returned ok=false.
// It returns true iff p was the last participant inside: then every item
// below the cut has run (see the package doc for why), and no participant
// can enter any more. Exactly one Leave of a non-empty loop returns true.
func (p *Participant) Leave() (last bool) {
	l := p.loop
	for {
		a := l.active.Load()
		na := a - 1
		if na == 0 {
			na = doneBit
		}
		if l.active.CompareAndSwap(a, na) {
			if invariant.Enabled && na == doneBit {
				l.checkAllClaimed()
			}
			return na == doneBit
		}
	}
}

// Left returns an estimate of the items left in the range p owns (0 when
// it owns none), from a racy snapshot: enough to size its next block.
func (p *Participant) Left() int {
	if p.r == nil {
		return 0
	}
	return p.r.Len()
}

// Steals returns the number of successful steals p made.
func (p *Participant) Steals() int { return p.steals }

// Slot returns p's number among the participants of its loop, in the order
// they entered (0 to parts-1): the Victim that a steal from p logs.
func (p *Participant) Slot() int { return p.slot }

// RecordSteals makes p append each of its later successful steals to *log,
// oldest first, so that len(*log) grows with Steals. It is for a schedule
// timeline; a participant that does not record pays nothing for it.
func (p *Participant) RecordSteals(log *[]Stolen) { p.stolen = log }

// markClaimed records that [lo, hi) was claimed, and fails if any of it was
// claimed before (gopar_debug only; loops too long to track are skipped).
func (l *Loop) markClaimed(lo, hi int) {
	if l.seen == nil {
		return
	}
	end := l.at(l.n)
	if lo < l.lo || lo >= hi || hi > end {
		invariant.Failf("block [%d, %d) outside the loop [%d, %d)", lo, hi, l.lo, end)
	}
	for i := uint64(lo - l.lo); i < uint64(hi-l.lo); i++ {
		bit := uint64(1) << (i % 64)
		// Guarded, so that the arguments are boxed only on failure.
		if old := l.seen[i/64].Or(bit); old&bit != 0 {
			invariant.Failf("item %d claimed twice", l.lo+int(i))
		}
	}
}

// checkAllClaimed fails unless every item below the cut was claimed
// (gopar_debug only). The last participant to leave calls it: the CAS on
// active orders every participant's marks before this read.
func (l *Loop) checkAllClaimed() {
	if l.seen == nil {
		return
	}
	cut := l.Cut()
	for i := uint64(0); i < l.n && l.at(i) < cut; i++ {
		if l.seen[i/64].Load()&(1<<(i%64)) == 0 {
			invariant.Failf("the loop is done but item %d was never claimed", l.lo+int(i))
		}
	}
}
