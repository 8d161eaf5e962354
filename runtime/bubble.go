package runtime

import "time"

// testing/synctest bubbles. A goroutine started inside a bubble belongs to
// it, and so does every channel and timer made there: the bubble ends only
// once all its goroutines have, a goroutine outside may not use its
// channels and timers, and a timer outside that a goroutine of the bubble
// arms is set by the bubble's fake clock. A pool outlives any one test, so
// the pool's goroutines, channels and timers are never made or armed by a
// goroutine of a bubble, and such a goroutine never hands work to the
// pool's workers, which run outside, where the callbacks could neither use
// the bubble's channels nor read its fake clock:
//
//   - Do, Scope, Join, Go and JoinLazy's shared path, called inside a
//     bubble, run everything on the calling goroutine (f gets a nil
//     *Worker), or on a new goroutine of the bubble (Go). The pool's
//     workers are not involved, and the bubble's goroutines never spin:
//     fake time advances only while all of them are blocked.
//   - New, called inside a bubble, makes an inline pool (inlinePool): no
//     workers, no channels, no timers, and every operation runs so, inside
//     the bubble or outside. Default, until the default pool has been made
//     outside any bubble, returns one too.
//   - The heartbeat (heartbeat.go) is not woken from inside a bubble, and a
//     waker inside a bubble starts no goroutine for a retired worker.
//
// JoinLazy's and Promote's board paths do not look: they take a few
// nanoseconds, and the look costs a clock read. A bubble's func on the
// board runs on a worker outside the bubble only if a goroutine outside
// keeps the heartbeat running and a worker outside is idle a tick (of real
// time) after it was published, while its owner still runs; an idle pool is
// Hungry, and then JoinLazy looks.

// inBubble reports whether the calling goroutine belongs to a
// testing/synctest bubble. Inside a bubble, time.Now reads the bubble's fake
// clock and carries no monotonic reading (Round(0) strips it, and changes
// nothing there); outside, it always carries one. TestInBubble checks both
// sides. It costs a clock read: call it on slow paths only.
func inBubble() bool {
	t := time.Now()
	return t == t.Round(0)
}

// inlinePool is the pool that New makes inside a bubble: every operation
// runs on the calling goroutine (Do hands f a nil *Worker, Go starts a
// goroutine of its own), nothing is published, and nothing is woken. It
// has no member, so no channel, and a board of one slot that is off.
func inlinePool(workers int) *Pool {
	p := &Pool{nWorkers: workers, inline: true}
	p.board.slots = make([]boardSlot, 1)
	p.board.shift = 64 // every func to slot 0
	p.board.off = true
	return p
}
