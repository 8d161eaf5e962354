// Package runtime is gopar's worker pool: a fixed set of worker goroutines
// that run tasks, with fork-join (Worker.Join, [JoinFunc]) and scopes
// (Worker.Scope) on top. Package par runs its loops and joins on it; use
// runtime directly to write a recursive parallel algorithm that forks
// through the worker it runs on.
//
// The package is also the engine of the pool: engine.go tours its parts,
// for a reader of the code.
//
// # Workers, Join and JoinFunc
//
// Go has no goroutine-local storage, so code cannot ask "which worker am
// I?". gopar hands the answer around instead: every task receives the
// *[Worker] that runs it, and a task that forks more work calls
// Worker.Join on it, with no lock. [JoinFunc] is the cheaper form for
// recursion that forks down to small leaves: it keeps the second call
// private to the worker and shares it only while another participant is
// idle. Worker.Scope runs any number of spawned tasks and waits for all
// of them.
//
// A goroutine that is not a worker (main, an HTTP handler, or code that a
// task called without passing the worker on) enters the pool with
// Pool.Do, Pool.Join or Pool.Scope: it runs as a participant until its
// function returns, and while it waits for work it forked, it runs that
// work and what it forks, and nothing else. Nested parallelism never
// deadlocks, even with a one-worker pool, and a lock held across a wait is
// never taken by work the wait runs unless the sequential program would
// take it there too (docs/design.md, "Join").
//
// Code that forks plain functions, with no *Worker at hand, calls
// Pool.JoinLazy: while every participant is busy it runs both functions on
// the calling goroutine, and it enters the pool only when one is idle.
//
// # The default pool
//
// [Default] is the pool package par uses. It has GOMAXPROCS workers, and
// follows GOMAXPROCS when it changes, unless the GOPAR_WORKERS environment
// variable ([WorkersEnv]) pins its size. Its worker goroutines run while
// there is work and retire once idle, so an idle program has no goroutine
// of the pool's. It cannot be closed.
//
// # Closing
//
// A pool made by [New] is closed with Pool.Close, which waits for its
// workers to exit. A call on a closed pool panics with [ErrClosed].
//
// # Panics and Goexit
//
// A panic in a task is recovered on the worker that ran it and re-raised in
// the goroutine that waits for the task, as a *[Panic] that holds the
// original value and the stack of the goroutine where it happened. The pool
// stays usable. A task that calls runtime.Goexit (t.Fatal in a test) is
// handled as one that panicked, except that the waiting goroutine then
// calls runtime.Goexit instead of panicking, and a panic in the same
// operation wins. A pool worker goroutine that a task ended is replaced.
//
// # Profiler labels
//
// A task runs under the pprof labels of the goroutine that made it (the
// caller of Join, Scope's Spawn, Pool.Go, or a par operation), on
// whichever goroutine runs it, as a goroutine started with go inherits its
// creator's; the worker takes its own back when the task returns. A
// worker of the pool has none of its own, whoever started it. Go has no
// public way to read a goroutine's labels, so the pool copies them with
// the two functions runtime/pprof itself uses, which the Go runtime keeps
// for packages outside the standard library and never reads through the
// pointer it copies (internal/labels). The gopar_nolabels build tag turns
// this off: tasks on the pool's workers then run with no labels.
//
// While a runtime/trace is recorded, each task runs in a region named
// gopar.worker#i (a pool worker) or gopar.guest#i (a goroutine that
// entered with Pool.Do); par's operations add tasks and regions of their
// own, named after the operation (see par's package doc).
//
// # Bad input
//
// A nil function, a nil *Pool, or Close from inside the pool panics at the
// call, with a message that names the function and says what to do. None
// of them hangs, or fails later on another goroutine.
//
// # testing/synctest
//
// Code that uses gopar works inside a synctest bubble: an operation called
// from a goroutine of a bubble runs on that goroutine (and Blocking ones on
// goroutines it starts there), never on the pool's workers, which live
// outside any bubble, so callbacks use the bubble's fake clock and
// channels, fake time advances, and the bubble ends. No pool goroutine,
// channel or timer is made inside a bubble, even when the default pool is
// first used there.
package runtime
