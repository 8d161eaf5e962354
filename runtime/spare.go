package runtime

import (
	"sync/atomic"

	"github.com/gopar-dev/gopar/internal/labels"
)

// Spares: a pool worker that parks in a wait (nothing under the frame it
// waits for, see frame.go) lends its slot to a spare goroutine, which runs
// any work of the pool until the waiter's latch is set. WAITING.md, "Spares",
// states the protocol, its bound and why no wake-up is lost; spare.pml is
// its model.

// spare is one spare goroutine, lent a slot by a parked waiter.
type spare struct {
	// g is the guest slot the spare runs as, leased by the lender.
	g *Worker
	// retire is set by the lender once its latch is set: the spare stops
	// at its next job boundary, once its own deque is empty.
	retire atomic.Bool
	// counted: the spare counts in its pool's spares (the bound), from
	// lend until it is recalled or exits, whichever comes first (uncount).
	counted atomic.Bool
}

// uncount takes s out of its pool's spares, once.
func (s *spare) uncount(p *Pool) {
	if s.counted.CompareAndSwap(true, false) {
		p.spares.Add(-1)
	}
}

// lend starts a spare to take w's slot while w parks, and returns it, or
// returns nil at the bound: when the pool already runs Workers() spares
// that have not been recalled, or has no free guest slot, or is closed. w must hold a slot: be a pool
// worker, or a spare itself (a spare that parks in a wait lends on).
func (w *Worker) lend() *spare {
	p := w.pool
	if p.closed.Load() {
		return nil
	}
	for {
		n := p.spares.Load()
		if int(n) >= p.nWorkers {
			return nil
		}
		if p.spares.CompareAndSwap(n, n+1) {
			break
		}
	}
	g := p.lease(0)
	if g == nil {
		p.spares.Add(-1)
		return nil
	}
	s := &spare{g: g}
	s.counted.Store(true)
	// The spare's fields are the new goroutine's from here on; the go
	// statement orders these writes before it reads them.
	g.spare = s
	g.at = nil // a spare's loop is a root: it runs any job
	// Waited for by Close: the lender, a goroutine of the pool that has not
	// exited, keeps the count above zero, so Close cannot have found it
	// zero already.
	p.enter()
	w.stats.spares.Add(1)
	go g.runSpare(s)
	return s
}

// recall tells s to retire. The token makes a spare parked for want of work
// look again, see retire and exit. If s has already left its slot, the
// token may reach the slot's next guest: a spare token, harmless (SLEEP.md).
func (s *spare) recall() {
	s.retire.Store(true)
	s.uncount(s.g.pool)
	s.g.wakeup()
}

// runSpare is the goroutine of a spare: a pool worker's main loop on a
// guest slot, until it is recalled (or the pool closes).
func (w *Worker) runSpare(s *spare) {
	p := w.pool
	// The lender leased the slot: this goroutine acts as it now (see
	// Worker.owner).
	w.owner.Store(curG())
	labels.Clear() // as a pool worker's (see Worker.run)
	// Also on runtime.Goexit from a job: a spare is not replaced, its
	// lender runs with one spare less.
	defer func() {
		// The spare may have been woken for work that it leaves to
		// others: it hands the wake-up on (spare.pml's BUG_NO_HANDOFF).
		if p.workVisible() {
			p.notify()
		}
		w.spare = nil
		s.uncount(p)
		p.release(w)
		p.exit()
	}()
	// Not counted idle until its loop first finds nothing (a new pool
	// worker is counted from the start, see Worker.run): setIdle keeps
	// every count it feeds balanced on its own.
	w.loop(false)
}

// retiring reports whether w is a spare that has been recalled and has no
// work of its own left: its main loop returns at this job boundary.
func (w *Worker) retiring() bool {
	s := w.spare
	return s != nil && s.retire.Load() && w.deque.Len() == 0
}

// slotHolder returns the member of p that the calling goroutine acts as
// (self) if it holds a slot of the pool's parallelism (holdsSlot), or nil:
// for a wait that has no *Worker at hand (Promotion.Wait).
func (p *Pool) slotHolder() *Worker {
	// Only the goroutine acting as w reads w.spare: self first.
	if w := p.self(); w != nil && w.holdsSlot() {
		return w
	}
	return nil
}

// holdsSlot reports whether a wait on w parks a slot of the pool's
// parallelism, which a spare may take: w is a pool worker, or a spare. A
// guest (a goroutine from outside the pool that entered it with Do) parks
// without a spare. A task of the pool that calls Do runs as its own
// member (self), so its waits lend as the member's do.
func (w *Worker) holdsSlot() bool { return w.isPool || w.spare != nil }

// block runs wait, a wait of the calling goroutine that no job of p can
// end (a condition variable, or a channel that another goroutine feeds),
// with the goroutine's slot of p's parallelism lent to a spare meanwhile if
// it holds one (a worker of p running a task, or a spare), as a waiter
// that parks lends it (WAITING.md, "Spares"): a callback that waits for a
// stream, or a loop over a seq called from one, keeps no worker from the
// pool. A nil p is the default pool, if one has been made. Any other
// goroutine just waits. The spare is recalled when wait returns, and
// retires at its next job boundary. A nil wait panics.
func block(p *Pool, wait func()) {
	if wait == nil {
		refuse("Block", nilFunc)
	}
	if p == nil {
		p = defaultPool.Load()
	}
	if p != nil {
		if w := p.slotHolder(); w != nil {
			if s := w.lend(); s != nil {
				defer s.recall()
			}
		}
	}
	wait()
}
