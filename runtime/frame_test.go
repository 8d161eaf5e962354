package runtime

import (
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/latch"
)

// TestSpreadTakesBackUnstolenHelpers: help that nobody took by the time the
// region ends is not left on the caller's deque, where it would keep the
// region's state alive until a thief ran it as a no-op, each costing a
// wake-up. Every worker is busy, so nobody steals the helpers; self ends
// the region alone. Work self offers and leaves stays.
func TestSpreadTakesBackUnstolenHelpers(t *testing.T) {
	p := newPool(t, 2)
	release := busyWorkers(t, p)
	var helped, offered atomic.Int32
	p.Do(func(w *Worker) {
		for round := range 3 {
			before := w.deque.Len()
			var done latch.Latch
			spread(w, 4, func(*Worker) { helped.Add(1) }, func(w *Worker) {
				if round == 2 {
					offer(w, func(*Worker) { offered.Add(1) })
				}
				done.Set()
			}, &done)
			want := before
			if round == 2 {
				want++ // self's offer
			}
			if got := w.deque.Len(); got != want {
				t.Errorf("round %d: %d jobs on the caller's deque after Spread, want %d (none of its helpers)", round, got, want)
			}
		}
	})
	if n := helped.Load(); n != 0 {
		t.Errorf("help ran %d times in regions that self ended alone", n)
	}
	release(-1)
	eventually(t, "self's offer to run", func() bool { return offered.Load() == 1 })
}

// spread is what a parallel loop's caller does through internal/plumb: it
// opens a region with n offers of help, runs self in it, and closes the
// region once done is set.
func spread(w *Worker, n int, help, self func(*Worker), done *latch.Latch) {
	if w == nil {
		self(nil)
		return
	}
	sr := open(w, n, help)
	self(w)
	sr.close(w, done)
}
