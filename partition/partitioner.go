package partition

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"sync/atomic"

	"github.com/gopar-dev/gopar/internal/invariant"
)

// MaxPartitions bounds the number of partitions of one Loop: each costs a
// Range (three cache lines) allocated up front, and a thief scans them all.
// With partitions of at most MaxLen items it also bounds a Loop's length to
// MaxPartitions*MaxLen (about 2^48) items.
const MaxPartitions = 1 << 16

// A Loop coordinates one parallel loop over [lo, hi) among participants:
// goroutines that each Enter it, call Next for blocks of items to run until
// it reports nothing left, and Leave.
//
// The loop is split statically into equal contiguous partitions, each a
// Range. A participant owns the partition it claimed on Enter and takes
// blocks from it; when that runs dry it claims the next unclaimed partition;
// when none is left it steals from the others. Termination is detected by
// counting: every participant subtracts the items it took from the loop's
// remaining count when it leaves, and the one that brings it to zero knows
// that the whole loop has run.
//
// For every item to run, at least one participant must Enter and call Next
// until it returns ok=false (partitions nobody claims are never run), and
// every participant that entered must Leave.
type Loop struct {
	// Read-only after NewLoop.
	lo     int
	n      uint64                  // hi - lo
	parts  uint64                  // number of partitions (and slots)
	slot   []atomic.Pointer[Range] // slot[i]: the range last published for partition i
	ranges []Range                 // the initial Range of each partition
	_      [cacheLine]byte         // keep the counters off the read-only fields

	// Next partition to claim; counts past parts once all are claimed.
	claimed atomic.Int64
	_       [cacheLine - 8]byte
	// Items not yet reported by Leave.
	remaining atomic.Int64
	_         [cacheLine - 8]byte
	cancelled atomic.Bool
	_         [cacheLine - 1]byte

	// seen has one bit per item, set when a participant claims it: under
	// the gopar_debug build tag only (nil otherwise, and for loops longer
	// than maxChecked), to check that no item is handed out twice and, when
	// the loop is done, that none was missed.
	seen []atomic.Uint64
}

// maxChecked is the longest loop whose items gopar_debug tracks: 2^28
// items take a 32 MiB bitmap.
const maxChecked = 1 << 28

// NewLoop returns a Loop over [lo, hi), split statically into parts equal
// contiguous partitions (parts < 1 is treated as 1, and there are never more
// partitions than items or than MaxPartitions). If a partition would hold
// more than MaxLen items, more partitions are used. hi <= lo gives an empty
// loop, already done.
//
// NewLoop panics if hi-lo overflows int or the loop cannot be split into at
// most MaxPartitions partitions of at most MaxLen items.
func NewLoop(lo, hi, parts int) *Loop {
	l := &Loop{lo: lo}
	if hi <= lo {
		return l
	}
	n := uint64(hi) - uint64(lo) // exact: two's complement difference
	if n > math.MaxInt {
		panic("partition: NewLoop: hi-lo overflows int")
	}
	p := uint64(max(parts, 1))
	p = min(p, n, MaxPartitions)
	if need := (n + MaxLen - 1) / MaxLen; need > p {
		if need > MaxPartitions {
			panic("partition: NewLoop: loop longer than MaxPartitions*MaxLen")
		}
		p = need
	}
	l.n, l.parts = n, p
	l.remaining.Store(int64(n))
	if invariant.Enabled && n <= maxChecked {
		l.seen = make([]atomic.Uint64, (n+63)/64)
	}
	// One allocation for all the initial ranges (and one for the slots):
	// O(1) allocations per loop, whatever the number of partitions.
	l.ranges = make([]Range, p)
	l.slot = make([]atomic.Pointer[Range], p)
	for i := range l.ranges {
		r := &l.ranges[i]
		r.init(l.start(uint64(i)), l.start(uint64(i)+1))
		l.slot[i].Store(r)
	}
	return l
}

// start returns the first index of partition i, lo + floor(i*n/parts),
// computed without overflow.
func (l *Loop) start(i uint64) int {
	hi, lo := bits.Mul64(i, l.n)
	q, _ := bits.Div64(hi, lo, l.parts) // hi < parts since i <= parts
	return l.lo + int(q)
}

// Len returns the number of items in the loop, hi-lo, or 0 if hi <= lo.
func (l *Loop) Len() int { return int(l.n) }

// Partitions returns the number of partitions the loop was split into: at
// most that many participants can Enter it.
func (l *Loop) Partitions() int { return int(l.parts) }

// Done reports whether every item of the loop has been taken and reported
// by Leave. Once true it stays true.
func (l *Loop) Done() bool { return l.remaining.Load() == 0 }

// Cancel stops the loop early: from now on Next hands out no items.
// Instead each participant's next call to Next drains whatever it can still
// claim (its own range and any unclaimed partitions), counting those items as
// taken without running them, so that the remaining count still reaches zero
// when everyone has left. Cancel may be called by any goroutine, any number
// of times.
func (l *Loop) Cancel() { l.cancelled.Store(true) }

// Cancelled reports whether Cancel has been called.
func (l *Loop) Cancelled() bool { return l.cancelled.Load() }

// claim claims the next unclaimed partition and returns its index and
// Range, or (-1, nil) if every partition has been claimed.
func (l *Loop) claim() (int, *Range) {
	i := l.claimed.Add(1) - 1
	if i >= int64(l.parts) {
		return -1, nil
	}
	return int(i), l.slot[i].Load()
}

// A Participant is one goroutine's part in running a Loop. The zero value is
// ready for Enter; a Participant is small and needs no allocation. It must be
// used by one goroutine at a time.
type Participant struct {
	loop  *Loop
	r     *Range // the range this participant owns, nil when exhausted
	slot  int    // the slot where r is published
	taken int    // items taken (run or drained) and not yet reported

	blocks   int // blocks returned by Next
	claims   int // partitions claimed, including the one from Enter
	steals   int // successful steals
	retries  int // lost steal races
	drained  int // items drained after Cancel
	reported int // items already reported by Leave
}

// Enter makes p a participant of l by claiming the next unclaimed partition
// for it. It returns false if every partition is already claimed; then p
// must not be used, and the caller has nothing to do for this loop (the
// participants that claimed the partitions will run them).
func (l *Loop) Enter(p *Participant) bool {
	i, r := l.claim()
	if r == nil {
		return false
	}
	*p = Participant{loop: l, r: r, slot: i, claims: 1}
	return true
}

// Next returns the next block [lo, hi) of items for p to run, in absolute
// indices, with at most grain items (grain < 1 is treated as 1; blocks from a
// range's end may be shorter). It takes blocks from the range p owns; when
// that is exhausted it claims the next unclaimed partition; when none is
// left it steals the top quarter of another participant's range, which
// becomes p's own (published so others can steal from it in turn).
//
// ok=false means nothing is left that p can get now: other participants may
// still be running their last blocks. After Cancel, Next returns ok=false
// after draining what p can still claim.
func (p *Participant) Next(grain int) (lo, hi int, ok bool) {
	l := p.loop
	for !l.cancelled.Load() {
		if r := p.r; r != nil {
			if lo, hi, ok := r.Take(grain); ok {
				if invariant.Enabled {
					l.markClaimed(lo, hi)
				}
				p.taken += hi - lo
				p.blocks++
				return lo, hi, true
			}
			p.r = nil
		}
		// Our range is exhausted. Is a whole partition still unclaimed?
		if i, r := l.claim(); r != nil {
			p.slot, p.r = i, r
			p.claims++
			continue
		}
		// No: steal, and publish the loot in our slot (whose range is
		// exhausted) so that others can steal from it in turn.
		r := p.steal()
		if r == nil {
			return 0, 0, false
		}
		l.slot[p.slot].Store(r)
		p.r = r
	}
	p.drain()
	return 0, 0, false
}

// steal scans every slot, starting at a random one, for a range to steal
// from. A scan that lost a race somewhere is repeated; a scan that found only
// empty ranges gives up.
func (p *Participant) steal() *Range {
	l := p.loop
	n := int(l.parts)
	for {
		retry := false
		start := rand.IntN(n)
		for k := range n {
			i := start + k
			if i >= n {
				i -= n
			}
			if i == p.slot {
				continue // ours, and exhausted
			}
			lo, hi, s := l.slot[i].Load().Steal()
			switch s {
			case Success:
				p.steals++
				return NewRange(lo, hi)
			case Retry:
				p.retries++
				retry = true
			}
		}
		if !retry || l.cancelled.Load() {
			return nil
		}
	}
}

// drain claims, as taken but not run, everything p can still claim after
// Cancel: the rest of its own range and every unclaimed partition. Ranges
// owned by other participants are drained by their owners.
func (p *Participant) drain() {
	l := p.loop
	for {
		if r := p.r; r != nil {
			for {
				lo, hi, ok := r.Take(MaxLen)
				if !ok {
					break
				}
				if invariant.Enabled {
					l.markClaimed(lo, hi)
				}
				p.taken += hi - lo
				p.drained += hi - lo
			}
			p.r = nil
		}
		i, r := l.claim()
		if r == nil {
			return
		}
		p.slot, p.r = i, r
		p.claims++
	}
}

// Leave reports the items p took (every block Next returned, and whatever
// it drained after Cancel) by subtracting them from the loop's remaining
// count. It returns true iff this call brought the count to zero, that is,
// iff the whole loop has now been run: exactly one participant of a
// non-empty loop sees true. A participant that took nothing returns false.
//
// Call Leave once Next has returned ok=false. Leave may be called earlier
// (the items taken so far are reported and the count restarts from zero),
// but the loop is only done once every item taken has been reported.
func (p *Participant) Leave() (last bool) {
	t := p.taken
	p.reported += t
	p.taken = 0
	if t == 0 {
		return false
	}
	rem := p.loop.remaining.Add(-int64(t))
	if rem < 0 {
		panic("partition: Leave: remaining count below zero (an item was claimed twice)")
	}
	if invariant.Enabled && rem == 0 {
		p.loop.checkAllClaimed()
	}
	return rem == 0
}

// markClaimed records that [lo, hi) was claimed, and fails if any of it was
// claimed before (gopar_debug only; loops too long to track are skipped).
func (l *Loop) markClaimed(lo, hi int) {
	if l.seen == nil {
		return
	}
	if lo < l.lo || lo >= hi || hi > l.lo+int(l.n) {
		invariant.Failf("block [%d, %d) outside the loop [%d, %d)", lo, hi, l.lo, l.lo+int(l.n))
	}
	for i := uint64(lo - l.lo); i < uint64(hi-l.lo); i++ {
		bit := uint64(1) << (i % 64)
		// Guarded, so that the arguments are boxed only on failure.
		if old := l.seen[i/64].Or(bit); old&bit != 0 {
			invariant.Failf("item %d claimed twice", l.lo+int(i))
		}
	}
}

// checkAllClaimed fails unless every item was claimed (gopar_debug only).
// The participant that brings the remaining count to zero calls it: by then
// every claim has been reported, and the count's atomic orders the marks
// before this read.
func (l *Loop) checkAllClaimed() {
	if l.seen == nil {
		return
	}
	for i := uint64(0); i < l.n; i++ {
		if l.seen[i/64].Load()&(1<<(i%64)) == 0 {
			invariant.Failf("the loop is done but item %d was never claimed", l.lo+int(i))
		}
	}
}

// Steals returns the number of successful steals p made.
func (p *Participant) Steals() int { return p.steals }

// Retries returns the number of steal attempts of p that lost a race.
func (p *Participant) Retries() int { return p.retries }

// Blocks returns the number of blocks Next returned to p.
func (p *Participant) Blocks() int { return p.blocks }

// Claims returns the number of partitions p claimed, including the one it
// claimed in Enter.
func (p *Participant) Claims() int { return p.claims }

// Drained returns the number of items p drained without running them after
// Cancel.
func (p *Participant) Drained() int { return p.drained }

// Taken returns the number of items p took (run or drained), reported or
// not.
func (p *Participant) Taken() int { return p.taken + p.reported }
