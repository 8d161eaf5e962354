// Package plumb is package runtime's plumbing, for internal/pipe and par:
// the calls a parallel loop's driver makes into the pool, lazy promotion,
// and the carrying of a panic or Goexit across goroutines. runtime keeps
// these unexported, so that its users see only the pool's API, and hands
// them over through internal/link; this package asserts each one once into
// a variable of its type, so that a call costs one indirect call.
//
// Each variable is documented in full at the function of runtime that
// link.go hands over for it.
package plumb

import (
	"sync/atomic"

	"github.com/gopar-dev/gopar/internal/latch"
	"github.com/gopar-dev/gopar/internal/link"
	"github.com/gopar-dev/gopar/runtime"
)

// A parallel loop's calls into the pool.
var (
	// Block runs wait, a call that blocks on something no job of the pool
	// can end, lending the caller's slot to a spare meanwhile.
	Block = link.Block.(func(p *runtime.Pool, wait func()))
	// Hungry reports whether a participant of p looks for work.
	Hungry = link.Hungry.(func(p *runtime.Pool) bool)
	// Inject runs fn on a worker of p, as a root of the fork tree; false if
	// p is closed.
	Inject = link.Inject.(func(p *runtime.Pool, fn func(*runtime.Worker)) bool)
	// Offer pushes fn on w's deque, for any participant to take.
	Offer = link.Offer.(func(w *runtime.Worker, fn func(*runtime.Worker)))
	// Wait returns once l is set, running work under w's current frame.
	Wait = link.Wait.(func(w *runtime.Worker, l *latch.Latch))
	// SpawnTask is Scope.Spawn of a task that carries its own state.
	SpawnTask = link.SpawnTask.(func(s runtime.Scope, t interface{ Run(runtime.Scope) }))
	// Bound returns the value mk made for s's worker in s's scope, made
	// once while the worker's tasks stay in that scope.
	Bound = link.Bound.(func(s runtime.Scope, mk func(runtime.Scope) any) any)
)

// A parallel loop's caller: it enters the pool, opens a region with help
// offered, runs its own part of the loop, closes the region once the
// loop's latch is set, and leaves, each a plain call, so that its part runs
// on its own stack with no callback through runtime.
var (
	// Enter returns the member of p the calling goroutine runs as, and the
	// guest slot leased for it, which Leave releases (Pool.Do's way in).
	Enter = link.Enter.(func(p *runtime.Pool) (w, lease *runtime.Worker))
	// Leave releases the lease Enter returned.
	Leave = link.Leave.(func(p *runtime.Pool, lease *runtime.Worker))
	// Open opens a region of the fork tree on w, with n offers of help.
	Open = link.Open.(func(w *runtime.Worker, n int, help func(*runtime.Worker)) (region any))
	// Close returns once done is set, running only the region's work
	// meanwhile, and leaves the region.
	Close = link.Close.(func(w *runtime.Worker, region any, done *latch.Latch))
	// Abandon leaves the region without waiting: for a caller that
	// unwinds inside it, which then waits with Wait.
	Abandon = link.Abandon.(func(w *runtime.Worker, region any))
)

// The carrying of a panic or Goexit across goroutines (runtime/goexit.go).
var (
	// NewPanic wraps a recovered value with the current goroutine's stack.
	NewPanic = link.NewPanic.(func(v any) *runtime.Panic)
	// Catch calls f and returns how it ended: nil, or its panic or Goexit.
	Catch = link.Catch.(func(f func()) *runtime.Panic)
	// Unwinding is the record of what unwinds the goroutine, from the
	// value a deferred function recovered.
	Unwinding = link.Unwinding.(func(v any) *runtime.Panic)
	// Raise re-raises p on this goroutine: a panic, or a Goexit; nil does
	// nothing.
	Raise = link.Raise.(func(p *runtime.Panic))
	// Stronger returns the one of two endings that wins: a panic over a
	// Goexit, the first over the second.
	Stronger = link.Stronger.(func(a, b *runtime.Panic) *runtime.Panic)
	// CallAfter calls f once the goroutine unwinds past p, and returns the
	// stronger ending.
	CallAfter = link.CallAfter.(func(p *runtime.Panic, f func()) *runtime.Panic)
	// Record keeps p in slot unless a stronger ending is there.
	Record = link.Record.(func(slot *atomic.Pointer[runtime.Panic], p *runtime.Panic))
)

// Lazy promotion: a func published for the pool's idle workers.
var (
	promote      = link.Promote.(func(p *runtime.Pool, f func()) (slot any, gen uint64))
	reclaim      = link.Reclaim.(func(p *runtime.Pool, slot any, gen uint64) bool)
	waitPromoted = link.WaitPromoted.(func(p *runtime.Pool, slot any, gen uint64) *runtime.Panic)
	checkEnded   = link.CheckEnded.(func(p *runtime.Pool, slot any, gen uint64, caller string))
)

// Promotion is a func published with Promote. The zero Promotion was not
// published.
type Promotion struct {
	pool *runtime.Pool
	slot any // the board's slot, or nil: not published
	gen  uint64
}

// Promote publishes f for p's idle workers: one that is idle once f has
// waited a heartbeat tick may take it. The caller then ends it on every
// path: Reclaim, and Wait once Reclaim returned false.
func Promote(p *runtime.Pool, f func()) Promotion {
	slot, gen := promote(p, f)
	return Promotion{p, slot, gen}
}

// Published reports whether Promote published the func.
func (pr Promotion) Published() bool { return pr.slot != nil }

// Reclaim takes the func back: true if it was not published or nobody took
// it (it has not run), false if a worker took it (call Wait).
func (pr Promotion) Reclaim() bool {
	return pr.slot == nil || reclaim(pr.pool, pr.slot, pr.gen)
}

// Wait returns once the func a worker took has run, and how it ended.
func (pr Promotion) Wait() *runtime.Panic { return waitPromoted(pr.pool, pr.slot, pr.gen) }

// CheckEnded is the gopar_debug check that caller ended pr on its way out.
func (pr Promotion) CheckEnded(caller string) { checkEnded(pr.pool, pr.slot, pr.gen, caller) }
