package runtime

import (
	"sync/atomic"

	"github.com/gopar-dev/gopar/internal/latch"
)

// The waiting rule: a goroutine that waits runs only work that descends
// from what it waits for. WAITING.md beside this file states the rule, why
// it makes gopar deadlock-free wherever the sequential program is, and what
// it costs; waiting.pml is its model.

// frame is a node of the fork tree. Every job is one (the job's own frame),
// and so are a Scope, a loop's region (open) and a guest's lease. A job's
// parent is the frame that was running on the worker that forked it: the
// job, loop, scope or lease whose code called Join, JoinFunc, Offer or Spawn;
// a task that a Scope's task spawns is the Scope's child (Worker.newTask).
//
// parent is written before the job is published and not again while the
// job is in a deque. It is atomic because a thief reads it before it owns
// the job (see Deque.StealIf): a job it read from a stale slot may be in
// reuse by then.
type frame struct {
	parent atomic.Pointer[frame]
	// forked records that a job was forked under the frame, by the one
	// goroutine running in it. A job whose frame has children is not
	// recycled (see Worker.recycle): a child, which may outlive it, would
	// find a stranger's frame in its chain, and a chain could close into
	// a cycle.
	forked bool
	// detached marks the frame of a job nobody waits for (Offer, Spawn,
	// Pool.Go): the runner recycles it. region marks a frame that is no
	// job (a Scope, a loop's region, a lease). Both are written before anything is
	// forked under the frame. A job with neither, a Join's or JoinFunc's b,
	// that a raw Wait meets in its own frame is a pending b (see
	// Wait).
	detached, region bool
	// scope is the Scope whose body runs in the frame (a Scope's own
	// frame), or whose task it is (a task's job), written before the frame
	// runs: a task spawned there is the scope's child (Worker.newTask).
	scope *scopeState
}

// fork records that a job was forked under f, or a region entered from it
// (see forked); f may be nil (the root). Only the goroutine running in f
// calls it.
func (f *frame) fork() {
	if f != nil && !f.forked {
		f.forked = true
	}
}

// setParent sets f's parent to p, skipping the store when it already holds
// p, as a recycled job forked again from the same frame does.
func (f *frame) setParent(p *frame) {
	if f.parent.Load() != p {
		f.parent.Store(p)
	}
}

// under reports whether anc is a strict ancestor of f. Every frame is under
// the nil frame, the root where pool workers wait for any work.
func (f *frame) under(anc *frame) bool {
	if anc == nil {
		return true
	}
	for p := f.parent.Load(); p != nil; p = p.parent.Load() {
		if p == anc {
			return true
		}
	}
	return false
}

// notPendingUnder reports whether f is under anc, and not at or under a
// b that is pending at anc: whether the child of anc on f's chain (f
// itself, or an ancestor) is a job nobody waits for, or a region. That is
// what a raw Wait at anc may run (see Wait). The children of anc
// were made by the one goroutine running in anc, the one that waits, so it
// reads its own writes; and a child with children is never recycled, so its
// flags are stable.
func (f *frame) notPendingUnder(anc *frame) bool {
	c := f
	for {
		p := c.parent.Load()
		if p == nil {
			return false
		}
		if p == anc {
			return c.detached || c.region
		}
		c = p
	}
}

// enter makes f the frame running on w, under the current one, and returns
// what leave needs to restore the current one.
func (w *Worker) enter(f *frame) region {
	r := region{w.at, w.seal()}
	if !f.region {
		f.region = true
	}
	f.setParent(r.prev)
	// Work forked inside the region (a task spawned into an outer Scope, a
	// loop's helper nobody took) may outlive it, with the region and the
	// frame below in its chain: a job below is not recycled (see recycle).
	r.prev.fork()
	if r.prev == w.lease {
		w.leaseShared = true
	}
	w.at = f
	return r
}

// region is what leave restores: the frame that ran before, and the floors
// of w's JoinFunc stacks.
type region struct {
	prev *frame
	mark int
}

func (w *Worker) leave(r region) {
	w.at = r.prev
	w.unseal(r.mark)
}

// seal is called as w enters a new frame: the JoinFunc calls pending on w
// so far belong to the frame it leaves, and must not be shared while it
// runs inside the new one (see forkStack.floor). It saves each stack's
// floor on w.floors and returns the mark to hand to unseal. A worker that
// never called JoinFunc has no stacks, and pays a length check.
func (w *Worker) seal() (mark int) {
	mark = len(w.floors)
	for _, s := range w.forkStacks {
		w.floors = append(w.floors, s.seal())
	}
	return mark
}

// unseal restores the floors that seal saved at mark. A stack created since
// (first used inside the region) has no frame left by now: its floor stays.
func (w *Worker) unseal(mark int) {
	saved := w.floors[mark:]
	for i, f := range saved {
		w.forkStacks[i].unseal(f)
	}
	w.floors = w.floors[:mark]
}

// A parallel region: a frame of its own, opened by a loop's caller (open)
// with help offered to the pool, and closed once the loop's latch is set
// (close), as par's loops do through internal/plumb. The jobs forked inside
// it, and everything they fork, descend from its frame. The caller runs
// its own part of the loop between open and close, as a plain call of its
// own, so that its stack enters runtime only to open and to close.
//
// While close waits it runs only work that descends from the region (the
// help, and what it forks), never other work of the pool: a lock held by
// the caller cannot be taken by anything the wait runs unless the
// sequential program would take it there too. help may thus run on another
// worker, on this one during the wait, or never (if the latch is set
// first); whoever sets the latch decides when the region ends. Help that
// nobody has taken when the region ends is taken off the caller's deque,
// not run.
//
// The region lives on the heap: a helper that a thief took may still run,
// with the frame in its chain, after the region has ended.
type spreadRegion struct {
	fr    frame
	saved region // what leave restores
}

// open opens a region on w and offers help to the pool n times. If a
// participant was asleep as open made its offers (so that they woke it), it
// yields the processor once before it returns, so that the woken worker
// starts at once rather than after the Go scheduler's back-off (SLEEP.md,
// "Waking from a goroutine that goes on running"). A nil Worker or
// function panics.
func open(w *Worker, n int, help func(*Worker)) *spreadRegion {
	if w == nil {
		refuse("Open", "was called on a nil Worker; run the loop's part on the caller, with no region")
	}
	if help == nil {
		refuse("Open", nilFunc)
	}
	sr := new(spreadRegion)
	sr.saved = w.enter(&sr.fr)
	wakes := n > 0 && w.pool.idle.anyToWake()
	for range n {
		j := w.newJob(help)
		j.fr.detached, j.helper = true, true
		w.push(j)
	}
	if wakes {
		yield()
	}
	return sr
}

// close returns once done is set, running the region's work meanwhile,
// then drops the help nobody took and leaves the region. A nil Latch
// panics.
func (sr *spreadRegion) close(w *Worker, done *latch.Latch) {
	if done == nil {
		refuse("Close", "was given a nil *Latch; pass the latch that ends the region")
	}
	w.waitUnder(done, &sr.fr)
	w.dropHelpers(&sr.fr)
	w.leave(sr.saved)
}

// abandon leaves the region without waiting: the way out of a caller that
// unwinds (a Goexit) inside it, which then waits for the loop's latch
// outside it (Wait), as a deferred function runs.
func (sr *spreadRegion) abandon(w *Worker) { w.leave(sr.saved) }

// dropHelpers removes from w's deque the help that the region f
// offered and nobody took before the region ended: run now, it would find
// nothing to do, and left there it would keep the region's state alive
// until a thief ran it, each costing a wake-up. The region's jobs lie on
// top of the deque's older work; other jobs among them (work self offered
// and left) are pushed back, in their order.
func (w *Worker) dropHelpers(f *frame) {
	var buf [8]*job
	kept := buf[:0]
	for {
		j := w.deque.Pop()
		if j == nil {
			break
		}
		if !j.fr.under(f) {
			kept = append(kept, j) // older work: the region's jobs end here
			break
		}
		if j.helper && j.fr.parent.Load() == f {
			w.recycle(j)
			continue
		}
		kept = append(kept, j)
	}
	for i := len(kept) - 1; i >= 0; i-- {
		w.push(kept[i])
	}
}
