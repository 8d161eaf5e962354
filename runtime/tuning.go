package runtime

// This file holds the package's tuning constants, each with what it bounds,
// why it has its value, and the measurement behind it, or, where there is
// none, what the value trades. The protocols' own constants (a board slot's
// state encoding, the heartbeat's states) are beside the code they encode.

import "time"

// How an idle participant spins before it parks (SLEEP.md, "The protocol").
const (
	// spinRounds is the spin's first phase: that many searches, with a
	// yield between them and no read of the clock; spinFor counts from
	// their end. No measurement sets 32: more rounds lengthen every spin
	// by that many yields, each of which lets other goroutines run first
	// on a loaded machine; fewer start the clock sooner. Where a yield
	// returns promptly, spinFor decides when a participant parks.
	spinRounds = 32

	// spinFor is the spin's second phase, searched for after the rounds:
	// the slow end of a wake-up, so that a gap between jobs shorter than
	// it costs no park/wake round trip, while an idle pool still parks
	// within a fraction of a millisecond. The wake-up figures it is sized
	// to are in SLEEP.md, "What a wake-up costs".
	spinFor = 200 * time.Microsecond
)

// idleRetire is how long a pool worker stays parked in its main loop before
// its goroutine ends (it retires), so that an idle program has no goroutine
// of the pool's a little after its last operation and a goroutine-leak
// check passes with no ignore rule. It is short beside such a check's
// retries, and long beside the gaps of a workload that runs an operation
// more often than ten times a second, which stays on workers that only
// park; work that comes after it starts a goroutine for each worker it
// wakes instead of sending a token. The figures, and the benchmarks that
// move with it, are in SLEEP.md, "Retiring".
const idleRetire = 100 * time.Millisecond

// heartbeatTick is the heartbeat's period: an entry on the board that two
// consecutive ticks saw has waited at least a tick, and is ripe, so that
// idle workers may take it (PROMOTION.md, "Ripe: waited longer than a
// wake-up"). A tick is of the order of a wake-up's slow end (SLEEP.md,
// "What a wake-up costs"), so that promotion goes to work that has already
// run longer than the wake-up it costs: a shorter tick hands workers work
// that would have ended before they start, a longer one leaves them idle
// beside it for longer. While every P is idle, Go's timers fire about a
// millisecond apart whatever the tick (PROMOTION.md, "The heartbeat").
const heartbeatTick = 50 * time.Microsecond

// heartbeatLinger is how long the heartbeat keeps ticking after a tick last
// saw an entry on the board: back-to-back short operations, each publishing
// an entry for nanoseconds, keep it awake instead of waking it at every
// call. Past it, the heartbeat sleeps, and an idle pool uses no CPU. No
// measurement sets 2 ms (40 ticks): a longer linger keeps an otherwise idle
// pool ticking, a scan of the board per tick, for longer after its last
// operation; a shorter one wakes the heartbeat again (a goroutine started,
// a timer armed) at more of the calls of a sporadic run.
const heartbeatLinger = 2 * time.Millisecond

// maxBoardSlots bounds the promotion board, which has twice the pool's
// workers in slots, rounded up to a power of two, 8 at least and
// maxBoardSlots at most (board.init): a goroutine publishes in one of its
// two slots, and runs inline if both are in use. Every idle main loop scans
// every slot at each of its spin rounds (board.occupied), and so does every
// tick, each slot on a cache line of its own. No measurement sets 64: past
// 32 workers a pool has fewer than two slots per worker, so more
// publications find both of theirs in use, and a larger bound would
// lengthen every idle worker's scan.
const maxBoardSlots = 64

// minGuests is the least number of guest slots a pool has (it has four per
// worker beyond 16 workers). A goroutine that enters the pool with Do
// leases one while it runs there, and a spare runs on one: 64 covers a few
// dozen concurrent callers beside the spares, at most one per worker; where
// curG is not in use, a nested Do leases one too. A caller that finds every
// slot taken runs its work sequentially, which is correct, only slower. No
// measurement sets it: each slot is a Worker record with its own deque,
// allocated with the pool, while thieves and Pool.self look only at the
// slots ever leased (guestsInUse).
const minGuests = 64

// maxFree bounds a member's free list of finished jobs, which its forks
// take from before they allocate. A recursion holds a job per pending fork
// and gives each back as its fork ends, so the list covers a recursion
// whose pending forks on one member are at most maxFree (a balanced split
// of any slice nests under 64 deep); deeper recursion, or a Scope with more
// tasks pending at once, allocates the rest. No measurement sets 256: every
// member, worker or guest slot, may keep a full list for the pool's life,
// so a larger bound keeps more memory alive.
const maxFree = 256

// lookEvery is how many jobs a pool worker's main loop runs between its
// looks at GOMAXPROCS while it finds work every time (a pool kept busy by
// many callers), so that a default pool follows GOMAXPROCS even while its
// workers never run out of work (docs/design.md, "The pool: workers and
// guest slots"). A look takes the Go scheduler's lock: GOMAXPROCS(0)
// takes 16 ns alone and 29 ns with both cores of a 2-core VM calling it.
// At every 64th job that is under half a nanosecond a job, and a busy
// worker sees a change within 64 jobs.
const lookEvery = 64
