package partition

import (
	"math/rand/v2"

	"github.com/gopar-dev/gopar/internal/invariant"
)

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
