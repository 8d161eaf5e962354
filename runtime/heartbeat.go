package runtime

import (
	"time"

	"github.com/gopar-dev/gopar/internal/labels"
)

// The heartbeat's states.
const (
	hbAsleep  = iota // no tick armed
	hbRunning        // a tick is armed or running
	hbClosed         // the pool is closed: never again
)

// now is the time on the heartbeat's clock.
func (b *board) now() int64 { return int64(time.Since(b.epoch)) }

// watchBoard is what a hunting worker does for the board: if something is
// published, it makes sure the heartbeat runs, so that it ripens, and runs
// a tick itself if the heartbeat's is overdue (PROMOTION.md, "The
// heartbeat": its timer may sit on a P whose goroutine does not yield).
func (p *Pool) watchBoard() bool {
	b := &p.board
	if !b.occupied() {
		return false
	}
	if b.state.Load() != hbRunning {
		p.pokeHeartbeat()
	} else if b.now()-b.lastTick.Load() > int64(2*heartbeatTick) && b.mu.TryLock() {
		// Again under mu: a tick may have run since the load.
		if now := b.now(); now-b.lastTick.Load() > int64(2*heartbeatTick) {
			b.tickAt(p, now)
		}
		b.mu.Unlock()
	}
	return true
}

// tickAt runs one tick at now, on the heartbeat's clock, with b.mu held:
// the timer's (beat) or an overdue one on a hunting worker (watchBoard).
func (b *board) tickAt(p *Pool, now int64) {
	if b.tick(p) {
		b.lastSeen = now
	}
	b.lastTick.Store(now)
}

// pokeHeartbeat makes sure the heartbeat is ticking: if it is asleep, it
// runs a tick itself, unless the last one is under a tick old, and arms the
// timer for the next (PROMOTION.md, "The heartbeat": on an idle pool the
// timer's first tick comes about a millisecond late, and without the poke's
// tick an entry ripened only at its second).
//
// A goroutine of a testing/synctest bubble does not wake the heartbeat: the
// timer would be armed, and the tick timed, by the bubble's fake clock
// (bubble.go).
func (p *Pool) pokeHeartbeat() {
	b := &p.board
	if b.state.Load() == hbAsleep && !inBubble() && b.state.CompareAndSwap(hbAsleep, hbRunning) {
		b.mu.Lock()
		now := b.now()
		if now-b.lastTick.Load() >= int64(heartbeatTick) {
			b.tickAt(p, now)
		}
		b.lastSeen = now
		b.mu.Unlock()
		b.timer.Reset(heartbeatTick)
		go p.heartbeat()
	}
}

// heartbeat is the heartbeat's goroutine, started by the poke that wakes
// it: it beats at every tick of the timer, and ends when a beat puts the
// heartbeat to sleep, so that no goroutine of the pool's lives while it
// sleeps, and a stretch of ticks costs one goroutine.
func (p *Pool) heartbeat() {
	labels.Clear() // the poker's labels are not the heartbeat's
	for {
		<-p.board.timer.C
		if !p.beat() {
			return
		}
	}
}

// beat is one tick of the heartbeat's goroutine, which ripens the board's
// entries while some worker hunts for work (PROMOTION.md). It skips the
// tick if one ran within a tick (a hunting worker's), so that ticks stay a
// tick apart. It arms the timer for the next tick, and reports true, while
// the board has had an entry within heartbeatLinger and some main-loop
// participant is idle; otherwise it sleeps until poked, and reports false:
// the goroutine ends. One tick at most is armed at a time, and one
// heartbeat goroutine runs: the poke that set hbRunning arms the first and
// starts the goroutine, and each beat arms the next or sets hbAsleep.
func (p *Pool) beat() (ticking bool) {
	b := &p.board
	if p.testHookBeat != nil {
		p.testHookBeat()
	}
	if b.state.Load() != hbRunning {
		return false // closed
	}
	b.mu.Lock()
	now := b.now()
	if now-b.lastTick.Load() >= int64(heartbeatTick) {
		b.tickAt(p, now)
	}
	keep := now-b.lastSeen < int64(heartbeatLinger)
	b.mu.Unlock()
	if keep && (p.idle.anyIdleMainLoop() || b.helpers.Load() > 0) {
		b.timer.Reset(heartbeatTick)
		return true
	}
	// Sleep, unless something came meanwhile: a poker that saw us
	// running did not arm the timer (see PROMOTION.md).
	if !b.state.CompareAndSwap(hbRunning, hbAsleep) {
		return false // closed
	}
	if b.occupied() && (p.idle.anyIdleMainLoop() || b.helpers.Load() > 0) {
		p.pokeHeartbeat()
	}
	return false
}

// tick marks the entries on the board: one that the last tick saw too
// becomes ripe. It wakes a parked worker for each newly ripe one, and
// reports whether the board holds any entry. A mark is a CAS from the word
// the tick loaded: if the owner took the entry back meanwhile, or published
// again (a new generation), the CAS fails, and the new publication stays
// unmarked.
func (b *board) tick(p *Pool) bool {
	occupied := false
	ripe, fresh := 0, 0
	for i := range b.slots {
		s := &b.slots[i]
		e := s.state.Load()
		if e&kindBits != kindPub {
			continue
		}
		occupied = true
		if b.testHookTickLoaded != nil {
			b.testHookTickLoaded(s)
		}
		switch e & markBits {
		case 0:
			s.state.CompareAndSwap(e, e|seenMark)
		case seenMark:
			if s.state.CompareAndSwap(e, e|ripeMark) {
				ripe++
				fresh++
			}
		default:
			ripe++
		}
	}
	b.ripeN.Store(int32(ripe))
	if fresh > 0 && b.helpers.Load() != 0 {
		// Waiters may run some of it: each looks for its own.
		for i := range b.slots {
			if s := &b.slots[i]; s.waiting.Load() {
				select {
				case s.help <- struct{}{}:
				default:
				}
			}
		}
	}
	for ; fresh > 0 && p.idle.anyToWake(); fresh-- {
		p.wakeOne()
	}
	return occupied
}

// closeBoard stops the heartbeat: a tick that runs now arms no other, and
// the timer fires at once, so that a heartbeat goroutine waiting for it
// finds the pool closed and ends.
func (p *Pool) closeBoard() {
	b := &p.board
	b.state.Store(hbClosed)
	b.timer.Reset(0)
}
