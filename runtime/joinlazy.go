package runtime

import "github.com/gopar-dev/gopar/internal/invariant"

// hungry reports whether some participant of the pool is looking for work
// right now (a worker or guest spinning or parked for want of it) that work
// already shared by JoinLazy will not feed. Forking pays only then; while it
// reports false, every participant is busy, and work offered for stealing
// would only be taken back. Pool.JoinLazy consults it at every call.
//
// It is two atomic loads, a snapshot that may be stale by the time the
// caller acts on it: use it to decide whether to offer work, never for
// correctness.
func hungry(p *Pool) bool {
	if p == nil {
		refuse("Hungry", nilPool)
	}
	return p.idle.unfed()
}

// JoinLazy runs a and b, possibly in parallel, and returns when both are
// done: the fork for code that holds no *Worker, such as a recursion over
// plain functions (package par's Join is JoinLazy on the default pool). It
// takes no guest slot and allocates nothing while every participant of p is
// busy, where Pool.Join enters the pool at every call:
//
//   - While no participant of p looks for work, the calling goroutine runs
//     a while b waits on p's promotion board, where a worker that frees up
//     takes it once it has waited a heartbeat tick; then it takes b back
//     and runs it, or waits for that worker. The cost is a few nanoseconds
//     over the two calls.
//   - Otherwise it enters the pool as Do does and forks as Worker.Join
//     does: b is offered for stealing while the caller runs a.
//
// What it offers is the b of the call that found a participant idle, which
// in a recursion is most often a small piece near the leaves; JoinFunc,
// which has the worker, shares the largest pending piece instead.
//
// Panics behave as in Worker.Join: a panic in a does not skip b; JoinLazy
// re-panics with a *Panic once both are done, a's if both panicked. On a
// closed pool, where nobody is idle, it runs both calls inline. A nil a or
// b panics at once.
func (p *Pool) JoinLazy(a, b func()) {
	if p == nil || a == nil || b == nil {
		p.refuseDo("Pool.JoinLazy", a == nil || b == nil)
	}
	// While hungry is false, b goes on the board (Promote); a slot in use,
	// or a one-worker pool, leaves it unpublished. Otherwise the fork is
	// Worker.Join's on a guest slot; if that woke a parked worker, the
	// caller first yields its processor once, so that the worker starts b
	// at once (SLEEP.md, "Waking from a goroutine that goes on running").
	if !hungry(p) {
		if pr := promote(p, b); pr.Published() {
			joinPromoted(pr, a, b)
			return
		}
		joinCalls(a, b)
		return
	}
	p.joinShared(a, b)
}

// joinPromoted is JoinLazy's path while nobody is idle: b is on the
// promotion board while a runs (promote.go), and a worker that frees up may
// take it once it has waited a heartbeat tick. After a, the caller takes b
// back and runs it, or waits for the worker that took it. As in joinCalls,
// one deferred function covers both calls. It is joinCalls with a
// Promotion, kept apart so that the unpublished paths (joinCalls) pay
// nothing for a Promotion: joinCalls given the zero Promotion (whose
// Reclaim is true) would do the same, at a cost on every join that par's
// BenchmarkJoin shows, alone and beside a busy worker.
func joinPromoted(pr promotion, a, b func()) {
	if invariant.Enabled {
		defer pr.CheckEnded("JoinLazy")
	}
	phase := inA
	defer func() {
		if phase == finished {
			return
		}
		p := unwinding(recover())
		if phase == inA {
			// b still runs, here or on its taker; a's panic is the one
			// passed on.
			if pr.Reclaim() {
				p = callAfter(p, b)
			} else {
				p = stronger(p, pr.Wait())
			}
		}
		if isPanic(p) {
			panic(p)
		}
	}()
	a()
	phase = inB
	if !pr.Reclaim() {
		pb := pr.Wait()
		phase = finished
		raise(pb) // b's panic, or its Goexit on the worker
		return
	}
	b()
	phase = finished
}

// joinShared is JoinLazy's path when a participant is idle, out of line so
// that the closures it builds are allocated on this path only.
func (p *Pool) joinShared(a, b func()) {
	if p.closed.Load() {
		panic(ErrClosed)
	}
	if p.inline || inBubble() { // the pool's workers are outside the bubble (bubble.go)
		joinCalls(a, b)
		return
	}
	if w := p.self(); w != nil {
		w.join(func(*Worker) { a() }, func(*Worker) { b() }, true)
		return
	}
	w := p.lease(curG())
	if w == nil {
		joinCalls(a, b)
		return
	}
	defer p.release(w)
	w.join(func(*Worker) { a() }, func(*Worker) { b() }, true)
}

// joinCalls calls a, then b even if a panicked or called runtime.Goexit,
// then re-panics as Join does (a Goexit goes on, unless b panicked). As in
// JoinFunc, one deferred function covers both calls and does nothing unless
// one of them fails: cheaper than a recover around each call (par's
// BenchmarkJoin, alone on one worker).
func joinCalls(a, b func()) {
	phase := inA
	defer func() {
		if phase == finished {
			return
		}
		p := unwinding(recover())
		if phase == inA {
			// b still runs; a's panic is the one passed on.
			p = callAfter(p, b)
		}
		if isPanic(p) {
			panic(p)
		}
	}()
	a()
	phase = inB
	b()
	phase = finished
}
