// Package cut holds a loop's cut: the index at or above which no item is
// needed any more (an ordered search that matched, a Take that has its
// items). A cut only moves down, and any goroutine may lower it or read
// it at any time. partition's Loop and internal/pipe's in-order loop
// (inOrderLoop) keep one each.
package cut

import (
	"math"
	"sync/atomic"
)

// Line is a cut. Its zero value is uncut (math.MaxInt: every item is
// needed). It stores its distance below math.MaxInt, which only grows, so
// that the zero value needs no setup.
type Line struct{ below atomic.Uint64 }

// Lower moves the cut down to c; a c at or above the cut changes nothing.
// Every c is valid, down to math.MinInt (nothing is needed).
func (l *Line) Lower(c int) {
	d := distance(c)
	for {
		old := l.below.Load()
		if d <= old || l.below.CompareAndSwap(old, d) {
			return
		}
	}
}

// At returns the cut: math.MaxInt if it was never lowered.
func (l *Line) At() int { return int(uint64(math.MaxInt) - l.below.Load()) }

// distance is math.MaxInt - c, exact for every int c: it lies in
// [0, 2^64-1], and the two's complement difference is exact modulo 2^64.
func distance(c int) uint64 { return uint64(math.MaxInt) - uint64(c) }
