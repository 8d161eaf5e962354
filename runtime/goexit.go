package runtime

import (
	goruntime "runtime"
	"sync/atomic"
)

// # Goexit in a task
//
// runtime.Goexit (and so t.Fatal, t.FailNow, t.SkipNow) ends the goroutine
// that calls it, running its deferred calls on the way; nothing can stop it.
// A task that calls it on a worker, a guest or a goroutine of a driver
// therefore takes that goroutine's frames with it, and each frame below the
// task that holds an obligation (a Join waiting for its b, a loop
// participant that must leave, a worker loop that the pool counts on) keeps
// it in a deferred function of its own. gopar treats a Goexit as it treats a
// panic, with one difference at the end:
//
//   - The frame that ran the call records it, as it would a panic, with the
//     Goexit record (a *Panic for which IsGoexit is true; Unwinding gives
//     it). It never reaches user code as a panic value.
//   - Everything a panic would do still happens: a loop hands out no more
//     items, a Join still runs or waits for its b, a Scope waits for its
//     tasks, and every frame waits for the work that is already running.
//   - Where the panic would be re-raised in the waiting goroutine, Raise
//     calls runtime.Goexit there instead: the caller's goroutine ends as if
//     it had called Goexit itself, as the author of a t.Fatal meant.
//   - A panic in the same operation wins over a Goexit (Stronger, Record),
//     as in Go a panic in a deferred call replaces a Goexit.
//   - A pool worker goroutine that a task ended is replaced by a new
//     goroutine for the same worker record (Stats.Replaced counts them), so
//     the pool keeps its size.
//
// How a frame keeps its obligation under Goexit: a deferred function that
// runs when the frame did not get to its normal end (a flag set after the
// last call, or a phase variable), recovers (nil under Goexit), does what
// the frame owes (waits, leaves, releases), and then either panics with a
// real panic that beats the Goexit, or returns and lets the Goexit go on.
// A deferred function may block and run more work: Go runs deferred calls
// of a goroutine that is exiting as ordinary calls.
//
// A new driver (a loop that runs callbacks on goroutines of its own) gets
// this for free if it runs its items through pipe.Run's participants; one
// that starts its own goroutines records Unwinding(recover()) in their
// deferred function when the callback did not return, with Record, and has
// its caller Raise what was recorded once every goroutine has finished.

// goexitValue is the Value of the Goexit record.
type goexitValue struct{}

func (goexitValue) String() string { return "runtime.Goexit called by a task" }

// goexitRecord is the one Goexit record: a task that called runtime.Goexit.
var goexitRecord = &Panic{Value: goexitValue{}}

// unwinding returns the record of a call that did not return normally,
// given what the deferred function that saw it recovered: the panic v (as
// NewPanic gives it), or, when v is nil, a runtime.Goexit that is ending the
// goroutine. A nil v is also what a panic(nil) recovers as under
// GODEBUG=panicnil=1 (otherwise it recovers as a *runtime.PanicNilError):
// then the record is a *Panic whose Value is nil. Call it only from a
// deferred function that knows the call did not complete (a flag set after
// the call), directly or through calls of its own.
func unwinding(v any) *Panic {
	if v == nil && !nilPanicking() {
		return goexitRecord
	}
	return newPanic(v)
}

// nilPanicking tells, for a deferred function whose recover returned nil
// and whose call did not complete, a panic(nil) under GODEBUG=panicnil=1
// from a runtime.Goexit: Go runs the deferred function from its panic
// (runtime.gopanic) in the first case, from runtime.Goexit in the second,
// and the nearer of the two on the stack is the one that runs it. It reads
// the stack: only on this failure path.
func nilPanicking() bool {
	var pcs [32]uintptr
	frames := goruntime.CallersFrames(pcs[:goruntime.Callers(2, pcs[:])])
	for {
		f, more := frames.Next()
		switch f.Function {
		case "runtime.gopanic":
			return true
		case "runtime.Goexit":
			return false
		}
		if !more {
			return false
		}
	}
}

// IsGoexit reports whether p records a task that called runtime.Goexit
// rather than one that panicked.
func (p *Panic) IsGoexit() bool { return p == goexitRecord }

// raise passes a recorded failure on in the calling goroutine: it panics
// with p, or, if p is the Goexit record, calls runtime.Goexit. A nil p does
// nothing.
func raise(p *Panic) {
	switch {
	case p == nil:
	case p.IsGoexit():
		goruntime.Goexit()
	default:
		panic(p)
	}
}

// stronger returns the failure to pass on of two, a from the earlier call:
// a, unless a is nil, or a is a Goexit and b a panic (a panic wins).
func stronger(a, b *Panic) *Panic {
	if a == nil || (a.IsGoexit() && b != nil) {
		return b
	}
	return a
}

// callAfter calls f, a call that is still owed after an earlier one failed
// with p (nil if none did), and returns the failure to pass on: p if f
// returns. If f panics or calls runtime.Goexit, callAfter does not return:
// it panics with the stronger of the two failures (Stronger), or, if both
// are Goexits, lets f's Goexit go on. So a Goexit in f cannot swallow the
// panic p, which would otherwise be lost with the goroutine.
// Do not wrap it in a recover (Catch): in Go, recovering a panic raised
// during a Goexit lets the Goexit go on.
func callAfter(p *Panic, f func()) *Panic {
	if f == nil {
		refuse("CallAfter", nilFunc)
	}
	returned := false
	defer func() {
		if !returned {
			if q := stronger(p, unwinding(recover())); isPanic(q) {
				panic(q)
			}
		}
	}()
	f()
	returned = true
	return p
}

// isPanic reports whether p records a panic (not nil, not a Goexit).
func isPanic(p *Panic) bool { return p != nil && !p.IsGoexit() }

// record stores p in slot, where a loop keeps its first failure: the first
// panic is kept, and a Goexit only until a panic comes.
func record(slot *atomic.Pointer[Panic], p *Panic) {
	if slot == nil {
		refuse("Record", "was given a nil slot; pass the address of the atomic.Pointer that keeps the failure")
	}
	for {
		old := slot.Load()
		if stronger(old, p) == old || slot.CompareAndSwap(old, p) {
			return
		}
	}
}
