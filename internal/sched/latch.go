package sched

import "sync/atomic"

// Latch is a one-shot signal: it starts unset, and Set sets it for good. A
// worker waits for it with Wait, running other work in the meantime.
// The zero value is an unset latch.
//
// # Memory ordering
//
// Everything the setting goroutine did before Set happens before Wait (or an
// IsSet that returns true) returns in the waiting goroutine.
type Latch struct {
	set atomic.Bool
	// waiter is the worker parked (or about to park) on the latch; Set wakes
	// it. See sleep.go for why a wake-up cannot be lost.
	waiter atomic.Pointer[Worker]
}

// Set sets the latch and wakes its waiter, if one is parked.
func (l *Latch) Set() {
	if l == nil {
		refuse("Latch.Set", nilLatch)
	}
	l.set.Store(true)
	// Anyone parked on the latch? The load comes after the store: a waiter
	// that registered too late to be seen here sees set instead.
	if w := l.waiter.Load(); w != nil {
		w.wakeup()
	}
}

// IsSet reports whether Set has been called.
func (l *Latch) IsSet() bool {
	if l == nil {
		refuse("Latch.IsSet", nilLatch)
	}
	return l.set.Load()
}

// nilLatch is what a method called on a nil *Latch says.
const nilLatch = "was called on a nil *Latch; declare a Latch value (the zero value is unset) and pass its address"

func (l *Latch) reset() {
	l.set.Store(false)
	l.waiter.Store(nil)
}

// Wait returns once l is set. Meanwhile w runs work forked under the task
// or region that calls Wait (the job it runs, the Scope's body, the Pool.Do
// function, or a Spread region): its own deque first, then work at the top
// of others' deques. It never runs other work of the pool, which might
// block on a lock the caller holds (see Join's section on locks). When it
// finds none, it spins briefly and then parks until l is set.
//
// Called inside the a of a Join or JoinFunc, Wait does not run that call's
// b, nor anything b forked: b runs after a when the program runs
// sequentially, so a lock a holds across Wait, which b takes, must not
// deadlock it. It still runs what a offered or spawned, and what was
// offered before the Join.
func Wait(w *Worker, l *Latch) {
	if w == nil {
		refuse("Wait", "was called on a nil Worker, where it would block for ever; wait on the latch from inside Pool.Do")
	}
	if l == nil {
		refuse("Wait", "was given a nil *Latch; pass the latch to wait for")
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
