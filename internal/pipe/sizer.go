package pipe

// The sizer that adapts a block's size to the measured cost of its items.
// The timing of the adaptive schedule it follows is in tuning.go.

import (
	"math"
	"math/bits"
	"time"
)

// A sizer adapts the number of items run in one go to their measured cost,
// so that cheap items run in long blocks and costly ones one at a time.
//
// It is fed windows of takes: the inline phase reads the clock after every
// block (one take), a participant after takesPerClock takes. size is the
// number of items a window should hold: a window that took less than half
// its target grows the next one in proportion, up to maxGrowth times; one
// that took more than twice its target scales the next one down to it.
//
// The target is blockTarget, unless a take has a fixed cost (the take
// itself, a setup in Fold, or everything slowed down by the race detector or
// a preempted machine): then a take is made to last fixedShare times that
// cost, so the fixed part can never dominate. Scaling down alone would shrink
// such takes to one item each and keep them there, since no number of items
// brings their time under the target. The fixed cost is estimated from two
// consecutive windows whose takes held different numbers of items: a take
// of s items costs c + s*a, so two sizes give c. The estimate is clamped to
// the cheaper take's time, so a change of item cost between the two windows
// (a hot spot) can only make it too small, never larger than a take.
type sizer struct {
	size int // items per window
	// growth, if not 0, replaces maxGrowth: how many times a window may
	// hold the last one's items (maxInlineGrowth in the inline phase).
	growth int
	fixed  time.Duration // estimated fixed cost of one take
	// The last estimate: two in a row must agree before fixed rises, so
	// that one noisy window cannot inflate blocks.
	estimate time.Duration
	// Windows since the last estimate: every probeEvery, a window of twice
	// the size lets a fixed cost be told apart from a cost per item even
	// when the size has settled.
	unprobed int
	// The previous window: items and time per take.
	prevItems int
	prevTime  time.Duration
}

// observe adapts size to a window of takes that held n items and took
// took.
func (z *sizer) observe(n, takes int, took time.Duration) {
	per, perTime := n, took
	if takes > 1 {
		// Two 64-bit divisions: skipped in the inline phase, which
		// observes every block and may run only a few of them (W0).
		per, perTime = n/takes, took/time.Duration(takes)
	}
	if c, ok := estimateFixed(z.prevItems, z.prevTime, per, perTime); ok {
		z.fixed, z.estimate, z.unprobed = min(c, z.estimate), c, 0
	} else {
		z.unprobed++
	}
	target := max(blockTarget, time.Duration(takes*fixedShare)*z.fixed)
	growth := maxGrowth
	if z.growth != 0 {
		growth = z.growth
	}
	z.size = nextBlock(z.size, n, took, target, growth)
	z.prevItems, z.prevTime = per, perTime
	if z.unprobed >= probeEvery {
		// Twice the items per take (a window of one-item takes would
		// otherwise stay one-item takes).
		// Bounded like any growth: a MaxBlock below size leaves every
		// window short, and unbounded doubling would overflow.
		z.size, z.unprobed = min(2*max(z.size, per*takes), blockLimit(target)), 0
	}
}

// estimateFixed estimates the fixed cost of a take from two takes of s1 and
// s2 items that took t1 and t2, if their sizes differ enough to tell: from
// t = c + s*a at both sizes, c = (s2*t1 - s1*t2) / (s2 - s1).
func estimateFixed(s1 int, t1 time.Duration, s2 int, t2 time.Duration) (time.Duration, bool) {
	if s1 > s2 {
		s1, t1, s2, t2 = s2, t2, s1, t1
	}
	if s1 < 1 || s2 < 2*s1 {
		return 0, false
	}
	c := (float64(s2)*float64(t1) - float64(s1)*float64(t2)) / float64(s2-s1)
	return time.Duration(max(0, min(c, float64(min(t1, t2))))), true
}

// blockLimit is the largest window for a target: it grows with the target,
// so that a large fixed cost can still be amortised.
func blockLimit(target time.Duration) int {
	return int(min(int64(maxBlock)*int64(target/blockTarget), math.MaxInt32))
}

// nextBlock returns the size of the next window given that the last one,
// of n items (size had been asked for), took took, for a window that should
// take target, growing at most growth times.
func nextBlock(size, n int, took, target time.Duration, growth int) int {
	limit := blockLimit(target)
	switch {
	case took < target/2:
		if n < size {
			return size // the block was cut short by the end of a range
		}
		// grow = min(growth, target/took), dividing only where target/took
		// is the smaller: the inline phase asks this after each of a short
		// loop's few blocks, and a 64-bit division costs several times the
		// multiplication (whose 128-bit product cannot wrap).
		grow := int64(growth)
		if hi, lo := bits.Mul64(uint64(took), uint64(growth)); took > 0 && (hi != 0 || lo > uint64(target)) {
			grow = int64(target / took)
		}
		return int(min(int64(size)*grow, int64(limit)))
	case took > 2*target:
		return max(1, int(int64(n)*int64(target)/int64(took)))
	}
	return min(size, limit)
}
