package pipe

// The slow-operation hook (Config.Slow): a call of the user's when an
// operation has run for longer than they said, made while it still runs,
// so that what the program did until then can be kept (a
// runtime/trace.FlightRecorder's snapshot, a goroutine dump).

import (
	"time"

	"github.com/gopar-dev/gopar/internal/labels"
	"github.com/gopar-dev/gopar/internal/plumb"
	"github.com/gopar-dev/gopar/runtime"
)

// Slow is a hook for an operation that runs long: Call is called once,
// on a goroutine of its own, under the operation's caller's pprof labels,
// when the operation has run for After, if it still runs. The operation
// returns once Call has returned, and passes on a panic or
// runtime.Goexit of Call as its own, after its own.
type Slow struct {
	After time.Duration
	Call  func()
}

// slowWatch is a Slow hook armed for one operation.
type slowWatch struct {
	timer *time.Timer
	pool  *runtime.Pool  // the caller's wait for Call lends its slot of it
	ended chan struct{}  // closed once Call has returned or unwound
	fail  *runtime.Panic // how Call unwound; written before ended is closed
}

// watchSlow arms h for an operation that starts now on the calling
// goroutine, on pool.
func watchSlow(h *Slow, pool *runtime.Pool) *slowWatch {
	w := &slowWatch{pool: pool, ended: make(chan struct{})}
	set := labels.Current()
	w.timer = time.AfterFunc(h.After, func() {
		returned := false
		defer func() {
			if !returned {
				w.fail = plumb.Unwinding(recover())
			}
			close(w.ended)
		}()
		labels.Apply(set)
		h.Call()
		returned = true
	})
	return w
}

// stop disarms w as its operation ends: if Call was started, it waits
// for it to return, then, if the operation returned (raise), passes on a
// panic or runtime.Goexit of Call. An operation that panicked goes on
// with its own panic.
func (w *slowWatch) stop(raise bool) {
	if w.timer.Stop() {
		return // Call never started
	}
	plumb.Block(w.pool, func() { <-w.ended })
	if raise {
		plumb.Raise(w.fail)
	}
}

// runSlow is Run with the hook cfg.Slow armed from now until the loop
// has returned.
func runSlow(cfg Config, lo, hi int, r Reducer[any]) any {
	w := watchSlow(cfg.Slow, cfg.Pool)
	cfg.Slow = nil // armed: the loops of the operation do not arm it again
	returned := false
	defer func() { w.stop(returned) }()
	acc := observe(cfg, lo, hi, r)
	returned = true
	return acc
}

// streamSlow arms the hook of a stream, if it has one, on its consumer's
// goroutine, from the start of its range to the end, and returns the
// function that disarms it, given whether the range ended normally.
func streamSlow(cfg *Config) func(returned bool) {
	if cfg.Slow == nil {
		return func(bool) {}
	}
	w := watchSlow(cfg.Slow, cfg.Pool)
	cfg.Slow = nil
	return w.stop
}
