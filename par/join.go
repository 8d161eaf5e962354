package par

import (
	"github.com/gopar-dev/gopar/internal/plumb"
	"github.com/gopar-dev/gopar/runtime"
)

// Join runs a and b, possibly in parallel, on the default pool, and returns
// when both have returned.
//
// The calling goroutine runs a. b goes to another worker as soon as one is
// idle: at the call, or, while a still runs, once b has waited longer than a
// wake-up costs (docs/design.md, "When a Join goes parallel"):
//
//   - While some participant of the pool is idle, Join offers b for
//     stealing at once. A parked worker counts as idle, and so do the
//     workers of a new pool before they first run, so the first Join of a
//     program goes parallel; a worker that the offer wakes starts b within
//     a wake-up (microseconds), since the caller lets it run first. If
//     nobody took b by the time a returns, the caller runs b too; while it
//     waits for a b that was taken, it runs the pool work that b forks.
//   - While every participant is busy, Join publishes b on the pool's
//     promotion board, where a worker that frees up takes it once it has
//     waited a heartbeat tick (50 microseconds). After a, the caller takes b
//     back and runs it, or waits for the worker that took it. A Join whose a
//     is short never reaches a worker; it still allocates its two closures
//     and costs tens of nanoseconds over the two calls (docs/benchmarks.md,
//     "Other figures"). JoinFunc costs about the two calls.
//
// On a one-worker pool b runs on the caller unless the worker is idle at the
// call. Join may be nested freely (inside a, inside b, inside ForEach)
// without deadlock, even with a single worker.
//
// When Join offers work, it offers the b of the call that noticed the idle
// participant, which in a recursion may be a small piece. JoinFunc avoids the
// closures (and their allocations) of Join; runtime.JoinFunc, which needs the
// worker passed down, shares the largest pending piece instead. The guide's
// fork-join section says which to use when, with what each costs.
//
// If a or b panics, Join waits for the other and then re-panics with a
// *Panic that holds the original value and stack (a's, if both
// panicked). A runtime.Goexit in a or b (t.Fatal in a test) is handled as
// a panic, except that Join then calls runtime.Goexit in the calling
// goroutine instead of panicking, unless the other call panicked. A nil a
// or b panics at once.
func Join(a, b func()) {
	if a == nil || b == nil {
		panic("gopar: par.Join was given a nil function")
	}
	runtime.Default().JoinLazy(a, b)
}

// JoinFunc returns f(a) and f(b), computed possibly in parallel on the default
// pool. It is Join for the common shape of recursive divide and conquer:
//
//	func fib(n int) int {
//		if n < 2 {
//			return n
//		}
//		x, y := par.JoinFunc(fib, n-1, n-2)
//		return x + y
//	}
//
// Where Join takes two closures, which escape to the heap, JoinFunc takes a
// function and its two arguments: while every participant of the pool is busy
// it is two plain calls and allocates nothing. When some participant is idle,
// it offers the call for b as Join does. Pass a function that is not a closure
// (or one created once, outside the recursion), and keep A small: it is copied.
// Over pieces of a few nanoseconds (a tree's nodes), fork only above a depth
// or a size and call the plain recursion below it: the forks would cost more
// than a second core gives back.
//
// Panics behave as in Join: a panic in f(a) does not skip f(b); JoinFunc
// re-panics with a *Panic once both are done, a's if both panicked. A
// nil f panics at once.
func JoinFunc[A, R any](f func(A) R, a, b A) (ra, rb R) {
	if f == nil {
		panic("gopar: par.JoinFunc was given a nil function")
	}
	if p := runtime.Default(); plumb.Hungry(p) {
		return joinFuncShared(p, f, a, b)
	}
	// Inline: one deferred function covers both calls, and does nothing
	// unless one of them panics.
	phase := inA
	defer func() {
		if phase == finished {
			return
		}
		// A panic, or runtime.Goexit (recover gives nil): b still runs,
		// then a panic goes on, a's if both panicked, and a Goexit goes on
		// unless b panicked.
		p := plumb.Unwinding(recover())
		if phase == inA {
			p = plumb.CallAfter(p, func() { f(b) })
		}
		if !p.IsGoexit() {
			panic(p)
		}
	}()
	ra = f(a)
	phase = inB
	rb = f(b)
	phase = finished
	return ra, rb
}

// joinFuncShared is JoinFunc's path when a participant is idle. It is a
// function of its own so that the results, which its closures capture, move
// to the heap only on this path.
func joinFuncShared[A, R any](p *runtime.Pool, f func(A) R, a, b A) (ra, rb R) {
	p.JoinLazy(func() { ra = f(a) }, func() { rb = f(b) })
	return ra, rb
}

// The phases of an inline JoinFunc, for its deferred function.
const (
	inA = iota
	inB
	finished
)
