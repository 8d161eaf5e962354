package partition

import "github.com/gopar-dev/gopar/internal/invariant"

// maxChecked is the longest loop whose items gopar_debug tracks: 2^28
// items take a 32 MiB bitmap.
const maxChecked = 1 << 28

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
