package runtime

import (
	"sync"
	"sync/atomic"
)

// useCurG says whether curG tells goroutines apart here: it is implemented
// (haveCurG) and passed its self-test (curGDistinct) when the first pool
// was made. Where it is false, Spawn treats every caller as a foreign
// goroutine, a promoted func's owner waits without helping, and Close
// cannot tell that it is called from inside the pool: all correct, only
// slower or less helpful. If curG ever gave two goroutines the same value,
// two of them could push onto one deque, and jobs could be lost or run
// twice; the self-test makes that a fallback instead.
var useCurG atomic.Bool

var curGOnce sync.Once

// checkCurG runs the self-test once, before the first pool's goroutines
// start (makePool).
func checkCurG() {
	curGOnce.Do(func() { useCurG.Store(haveCurG && curGDistinct(curG)) })
}

// curGDistinct reports whether id gives the calling goroutine the same
// non-zero value twice, and goroutines alive at the same time values of
// their own.
func curGDistinct(id func() uintptr) bool {
	me := id()
	if me == 0 || id() != me {
		return false
	}
	const n = 8
	ids := make(chan uintptr, n)
	hold := make(chan struct{})
	defer close(hold)
	for range n {
		go func() {
			ids <- id()
			<-hold // alive until every one has answered
		}()
	}
	seen := map[uintptr]bool{me: true}
	distinct := true
	for range n {
		g := <-ids
		if g == 0 || seen[g] {
			distinct = false
		}
		seen[g] = true
	}
	return distinct
}
