package pipe

import (
	"github.com/gopar-dev/gopar/internal/latch"
	"github.com/gopar-dev/gopar/internal/plumb"
	"github.com/gopar-dev/gopar/runtime"
)

// regionLoop is a parallel loop whose caller runs its own part in a region
// of the fork tree, with help offered to the pool (runRegion): the pool
// driver's loop and the sequence driver's poolSeq.
type regionLoop interface {
	// entered is told the worker the caller entered the pool as (nil:
	// none), before any help is offered.
	entered(w *runtime.Worker)
	help(w *runtime.Worker) // a helper job
	self(w *runtime.Worker) // the caller's part
	ended() *latch.Latch    // set once every participant has left
	// unwound runs on a caller that unwinds (a Goexit) once the others
	// have left, before the Goexit goes on.
	unwound()
}

// runRegion runs l on pool: the caller enters the pool, opens the loop's
// region with helpers offers of help, runs its own part, and closes the
// region once every participant has left, each a plain call, so that its
// part runs on its own stack. The helpers and the caller's wait live in
// the region, so the wait runs only this loop's work, never a task that
// might block on a lock the caller holds (runtime/WAITING.md). With no
// worker to offer help from, the caller runs the whole loop.
func runRegion(pool *runtime.Pool, helpers int, l regionLoop) {
	w, lease := plumb.Enter(pool)
	defer plumb.Leave(pool, lease)
	l.entered(w)
	var region any
	waited := false
	defer func() {
		// Reached only if runtime.Goexit ends the caller's goroutine (its
		// part has left the loop by then): wait for the others, as after
		// a panic, then let the Goexit go on (see runtime's goexit.go).
		if waited {
			return
		}
		if region != nil {
			plumb.Abandon(w, region)
		}
		if w != nil {
			plumb.Wait(w, l.ended())
		}
		l.unwound()
	}()
	if w != nil {
		region = plumb.Open(w, helpers, l.help)
	}
	l.self(w)
	if region != nil {
		plumb.Close(w, region, l.ended())
	}
	waited = true
}
