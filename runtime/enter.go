package runtime

// Do runs f on the calling goroutine as a participant of the pool, and
// returns when f returns. f receives the worker record through which it
// forks work (Join, Scope, Offer): work forked there is visible to the
// pool's workers, and while f waits for it (Join, Scope, Wait), the calling
// goroutine runs it, and what it forks, itself. Work offered with Offer that f
// does not wait for may still be pending when Do returns; it stays in the
// guest slot's deque, where the pool's workers find it.
//
// Called from a goroutine that already acts as a member of the pool (a task
// of the pool, a func a worker took from the board, or f of an enclosing
// Do), Do leases nothing: f receives that member, and runs in the frame the
// goroutine runs in, as a fork there would (rayon's in_worker). Its forks
// go on the member's deque, and its waits run what that frame's waits may
// run, and lend a pool worker's slot to a spare (WAITING.md, "Spares").
//
// If every guest slot is taken (many goroutines inside Do at once), or the
// calling goroutine belongs to a testing/synctest bubble (bubble.go), f runs
// with a nil *Worker, on which Join runs its two functions one after the
// other. A panic in f propagates to the caller unchanged.
func (p *Pool) Do(f func(w *Worker)) {
	if p == nil || f == nil {
		p.refuseDo("Pool.Do", f == nil)
	}
	w, lease := p.participant()
	if lease != nil {
		defer p.release(lease)
	}
	f(w)
}

// participant is Do's way in: the member of p that the calling goroutine
// runs as, and the guest slot leased for it, which the caller releases
// when it is done (nil where the goroutine was a member already, or where
// it runs with a nil Worker). par's loops enter this way (internal/plumb's
// Enter), to run their part as a plain call of their own.
func (p *Pool) participant() (w, lease *Worker) {
	if p.closed.Load() {
		panic(ErrClosed)
	}
	if p.inline || inBubble() {
		// The pool's workers are outside the bubble (bubble.go).
		return nil, nil
	}
	if p.nWorkers == 1 && p.follows {
		// A pool of one worker, where operations give it nothing to do
		// (par's run inline), has nobody else to look (noticeProcs).
		p.noticeProcs()
	}
	if w := p.self(); w != nil {
		// A task of p (or f of an enclosing Do) calls Do: it forks on
		// the member it already runs as, in the frame it runs in, as
		// rayon's in_worker does.
		return w, nil
	}
	w = p.lease(curG())
	return w, w
}

// Join runs a and b, possibly in parallel, and returns when both are done.
// It is Do followed by Worker.Join; see Worker.Join.
func (p *Pool) Join(a, b func(*Worker)) {
	if p == nil || a == nil || b == nil {
		p.refuseDo("Pool.Join", a == nil || b == nil)
	}
	p.Do(func(w *Worker) { w.Join(a, b) })
}

// self returns the member of p that the calling goroutine acts as: the pool
// worker whose goroutine it is (running a task, or a func taken from the
// board), the guest slot it leased with Do, or the slot a spare runs as;
// nil if it is none of them, or where curG does not tell goroutines apart
// (curgcheck.go). It is the one answer to "who is running": Do and
// JoinLazy fork on the member it returns, Scope.Spawn pushes onto a
// worker's deque only if it is that worker, Close refuses to run inside
// the pool, a waiter with no *Worker at hand lends its slot (slotHolder),
// and the board tells which entries a waiter may run (promote.go).
//
// A goroutine acts as at most one member of p: Do and JoinLazy lease a
// guest slot only for a goroutine that is none. The scan reads the owner
// words of the members thieves look at; each member's owner is written by
// the goroutine it names, or cleared (by it, or by release) once it is no
// longer that goroutine's, so the one entry equal to the caller's g was
// written by the caller itself.
func (p *Pool) self() *Worker {
	if !useCurG.Load() || p.inline { // an inline pool has no member (bubble.go)
		return nil
	}
	g := curG()
	for _, w := range p.victims() {
		if w.owner.Load() == g {
			return w
		}
	}
	return nil
}

// isSelf reports whether w is the member of its pool that the calling
// goroutine runs as: p.self() == w, answered for a member already in hand
// with one load instead of self's scan of every member (Scope.Spawn asks it
// at every spawn).
func (w *Worker) isSelf() bool {
	return useCurG.Load() && !w.pool.inline && w.owner.Load() == curG()
}

// lease claims a free guest slot for the goroutine owner (a curG): the
// calling goroutine for Do, or 0 for a spare, whose own goroutine makes
// itself the owner as it starts (runSpare).
func (p *Pool) lease(owner uintptr) *Worker {
	guests := p.members[p.nWorkers:]
	for i, g := range guests {
		// Is the slot free? Then try to claim it.
		if !g.leased.Load() && g.leased.CompareAndSwap(false, true) {
			// The lease is the root of what the guest forks.
			g.at = g.lease
			if owner != 0 {
				g.owner.Store(owner)
			}
			// Raise the high-water mark so that thieves look at this slot.
			for {
				n := p.guestsInUse.Load()
				if int(n) > i || p.guestsInUse.CompareAndSwap(n, int32(i+1)) {
					break
				}
			}
			return g
		}
	}
	return nil
}

// release gives a guest slot back. Work the guest offered and nobody ran
// stays in its deque, where thieves (and a spare that takes the slot) find
// it. Its chain leads to this lease's frame, which the next guest must not
// wait in: a wait there would run work that does not descend from what it
// waits for (WAITING.md), so a frame that such work may hang from is left
// to it, and the next guest gets a new one.
func (p *Pool) release(g *Worker) {
	g.at = nil
	g.bound = scopeBinding{}
	if g.leaseShared {
		g.lease = &frame{region: true}
		g.leaseShared = false
	}
	// The next guest may be another goroutine: make sure no wake-up token
	// meant for this one makes the next one's first sleep return early.
	// Before the slot is free, not after: the next guest may lease it at
	// once, and a token meant for it must not be drained here (a lost
	// wake-up; spare.pml's BUG_DRAIN_AFTER_RELEASE). A token that arrives
	// after the drain was meant for this guest, and is a spare one for the
	// next.
	select {
	case <-g.wake:
	default:
	}
	g.owner.Store(0)
	g.leased.Store(false)
}
