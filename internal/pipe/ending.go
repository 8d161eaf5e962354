package pipe

import goruntime "runtime"

// ending is how the function of a goroutine that an operation owns ended
// (a feeder, a pump's producer, a stream's producer), kept for the
// goroutine that waits for it, which passes it on as its own (raise).
type ending struct {
	fail any  // what the function panicked with
	exit bool // the function called runtime.Goexit
}

// run calls f and records how it ended. It recovers a panic, so run
// returns; a runtime.Goexit goes on once run has recorded it, so the code
// after run in its caller does not execute, while the caller's deferred
// calls do, after run's own. What must happen however f ends (a signal, a
// close, a Done) goes in a deferred call of the caller.
func (e *ending) run(f func()) {
	normal := false
	defer func() {
		if !normal {
			if v := recover(); v != nil {
				e.fail = v
			} else {
				e.exit = true // only runtime.Goexit ends a function without a panic or a return
			}
		}
	}()
	f()
	normal = true
}

// raise passes on, in the calling goroutine, how the function ended: it
// panics with the same value, or calls runtime.Goexit, or, if the function
// returned, returns.
func (e *ending) raise() {
	switch {
	case e.fail != nil:
		panic(e.fail)
	case e.exit:
		goruntime.Goexit()
	}
}
