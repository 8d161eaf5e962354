// This file holds no code: it tours the engine of package runtime, for a
// reader of the code (doc.go says what the pool promises its users). The
// engine is a fixed set of worker goroutines, each owning a Chase-Lev
// deque, plus a global injector, with fork-join (Worker.Join) on top.
//
// Besides its public API, the package holds the plumbing that only the
// layers above it, internal/pipe and par, use: the calls of a parallel
// loop's driver (Enter, Open, Close, Abandon, Leave, Offer, Inject, Wait,
// Block, and internal/latch's Latch), lazy promotion (Promote, Promotion, Hungry), and the
// carrying of a panic or Goexit across goroutines (Catch, Unwinding,
// Record, Raise, Stronger, NewPanic, CallAfter). They are unexported here
// (enter, open, offer, ..., and waitLatch for Wait): link.go hands them to
// internal/link, and internal/plumb gives them to those layers, each
// asserted once into a variable of its type. The comments of the package,
// and the messages with which they refuse bad input, name them as their
// callers do, plumb.Open as Open.
//
// # The algorithm in a few words
//
//	worker loop:
//	    pop own deque (newest first: hot in cache)
//	    else take from the injector (work submitted from outside)
//	    else steal from a random victim's deque (oldest first: the biggest pieces)
//	    else spin a little, yield, then park until new work is published
//
// # The parts
//
// Each file below is one part with one job, and owns its state; the others
// use it through its functions. Read them in this order:
//
//	worker.go   a participant (pool worker, guest or spare): its record,
//	            its deque, Offer
//	loop.go     a participant's main loop (pop, injector, steal, then idle)
//	            and a wait's loop (waitUnder)
//	job.go      a job: made, run, recycled
//	pool.go     the pool: its members, New, Go, Inject, Close
//	enter.go    Do: a goroutine enters the pool on a guest slot, or forks on
//	            the member it already acts as (self)
//	default.go  the default pool, which follows GOMAXPROCS
//	join.go     Join: push b, run a, take b back or wait for its thief
//	joinfunc.go JoinFunc: b stays private to the worker, shared only while
//	            someone looks for work (idleState.anyIdle)
//	frame.go    the waiting rule (a wait runs only work under its frame), and
//	            a loop's region (open, close), with its offers of help
//	board.go    lazy promotion's board: its slots and their state words
//	promote.go  Promote publishes a func that an idle worker takes once a
//	            heartbeat tick finds it still there; its owner takes it back,
//	            or waits for it, helping; JoinLazy and a loop's first block
//	            use it
//	heartbeat.go  the heartbeat, whose ticks ripen the board's entries
//	joinlazy.go JoinLazy: a join for code that holds no *Worker, over the
//	            board while nobody is Hungry, or forked on a guest slot
//	sleep.go    idleness: idleState (who looks for work, who is parked), park,
//	            wake-ups, retiring after idleRetire
//	spare.go    a worker that parks in a wait lends its slot to a spare
//	wait.go     Wait, a wait for a latch (internal/latch: the one-shot
//	            signal every wait waits on)
//	scope.go    Scope: spawn any number of tasks, wait for all; the value
//	            (par's *Group) bound to a worker in a scope
//	panic.go, goexit.go   how a panic or Goexit crosses from the goroutine
//	            that ran a task to the one that waits for it
//	bubble.go   testing/synctest; curg*.go  goroutine identity (below)
//	tuning.go   the tuning constants (spin, retire period, heartbeat, board
//	            and guest bounds, free list, GOMAXPROCS look), each with
//	            its reason
//
// The protocols are described beside the code, each with a Promela model
// that spin checks: SLEEP.md (sleep.pml: no lost wake-up), WAITING.md
// (waiting.pml, leapfrog.pml, spare.pml: a wait never deadlocks and never
// runs foreign work), PROMOTION.md (promotion.pml: a promoted func runs
// exactly once). The deque itself is package steal.
//
// # How a loop flows through them
//
// par.Range(0, n).Map(f).Sum() reaches pipe.Run (internal/pipe, the layer above). The
// caller runs the loop alone at first, in blocks that grow while they are
// quick. While its first block runs, the rest of the range sits on the
// board (Promote): a worker idle for a heartbeat tick takes it and
// runs it as a loop of its own; if none does, the caller takes it back
// (Promotion.Reclaim) and goes on, so a short loop never wakes a worker.
// A loop still running after a few microseconds goes parallel: the caller
// enters the pool (participant, Pool.Do's way in) and opens a region of
// the fork tree (open), which offers one helper job per other worker (Offer pushes it on the caller's
// deque and, if idleState.anyToWake, wakes a parked worker), and runs the
// loop itself as one participant, as a plain call of its own. Every participant takes blocks from
// package partition's splitter (the owner takes from the bottom of its
// partition, thieves steal the top quarter of another's), and the last to
// finish sets the loop's latch. The caller's wait (the region's
// close) runs only the loop's own jobs, and returns when the latch
// is set.
//
// # How a join flows through them
//
// par.Join(a, b) calls JoinLazy on the default pool. While nobody
// looks for work (Hungry is false), it publishes b on the board and
// runs a, then reclaims b and runs it too, unless a worker that went idle
// meanwhile took it: then the caller waits for it, helping. While someone
// is hungry, it takes a guest slot, as Do does, and forks: it pushes b on
// the caller's deque, wakes a sleeper, runs a, and pops b back, or, if a
// thief stole it, waits for the thief's latch, running work under the
// join's frame meanwhile. A task that already holds a *Worker calls
// Worker.Join or JoinFunc directly, with no board and no Do.
//
// # Who is a worker
//
// Go has no goroutine-local storage, so code cannot ask "which worker am
// I?". gopar hands the answer around instead: every task receives the
// *[Worker] that runs it, and a task that forks more work calls
// [Worker.Join] on it, pushing to and popping from its own deque with no
// lock. [JoinFunc] is the cheaper form for recursion that forks down to
// small leaves: it keeps the second call private to the worker and shares
// it only while another participant is idle.
//
// A goroutine that is not a worker (main, an HTTP handler, or user code
// that a task called without passing the worker on) enters the pool with
// [Pool.Do]: it leases a guest slot, a worker record with a deque of its own
// that the pool's workers can steal from, and runs as a worker until its
// function returns. It therefore participates: while it waits for work it
// forked, it runs that work and what it forks, and nothing else (see
// WAITING.md beside this file). A pool worker that finds none of it parks
// and lends its slot to a spare goroutine until its wait ends, so the pool
// keeps its parallelism (WAITING.md, "Spares"); [block] lends it the same
// way for a wait that no job can end. Nested parallelism never
// deadlocks, even with a one-worker pool, and a lock held across a wait is
// never taken by work the wait runs unless the sequential program would
// take it there too.
//
// # Waiting and sleeping
//
// A worker that finds nothing spins for a few rounds (yielding the
// processor), then announces that it is sleepy, searches once more, and
// parks on its own channel. Whoever publishes work (a push to a deque or to
// the injector) checks, after publishing, whether anyone is sleepy and if
// so wakes one worker. Because the sleepy announcement and the publication
// are both sequentially consistent atomic operations, either the publisher
// sees the sleeper or the sleeper's last search sees the work: a wake-up
// cannot be lost. A parked pool uses no CPU, and a worker parked for a
// tenth of a second retires: its goroutine ends, and the next work starts
// a new one, so an idle program has no goroutine of the pool's (SLEEP.md,
// "Retiring").
//
// # testing/synctest, panics, bad input, Goexit
//
// What the pool promises there is in package runtime's doc. Here: an
// operation called from a goroutine of a synctest bubble runs on an inline
// pool or a nil *Worker, and nothing of the pool's is made in a bubble
// (bubble.go says how, and what it leaves out). Bad input at an entry point
// of this package, a nil *Latch or a Wait with nothing to wait for among
// them, panics at the call through refuse (pool.go), with a message that
// names the entry point. A task that panics or calls runtime.Goexit is
// recovered on the goroutine that ran it and re-raised on the one that
// waits for it; the protocol, and how a new driver uses it ([unwinding],
// [record], [raise], [callAfter]), is described once, in goexit.go.

package runtime
