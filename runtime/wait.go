package runtime

import "github.com/gopar-dev/gopar/internal/latch"

// waitLatch returns once l is set. Meanwhile w runs work forked under the task
// or region that calls waitLatch (the job it runs, the Scope's body, the Pool.Do
// function, or a loop's region): its own deque first, then work at the top
// of others' deques. It never runs other work of the pool, which might
// block on a lock the caller holds (see Join's section on locks). When it
// finds none, it spins briefly and then parks until l is set.
//
// Called inside the a of a Join or JoinFunc, waitLatch does not run that call's
// b, nor anything b forked: b runs after a when the program runs
// sequentially, so a lock a holds across waitLatch, which b takes, must not
// deadlock it. It still runs what a offered or spawned, and what was
// offered before the Join.
func waitLatch(w *Worker, l *latch.Latch) {
	if w == nil {
		refuse("Wait", "was called on a nil Worker, where it would block for ever; wait on the latch from inside Pool.Do")
	}
	if l == nil {
		refuse("Wait", "was given a nil *latch.Latch; pass the latch to wait for")
	}
	f := w.at
	if f == nil {
		// Outside any frame (no task runs so): every job is under the
		// root.
		w.waitUnder(l, nil)
		return
	}
	w.waitFor(l, func(j *job) bool { return j.fr.notPendingUnder(f) }, true)
}
