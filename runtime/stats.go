package runtime

import "sync/atomic"

// counters are one worker's statistics, updated atomically so that Stats can
// read them at any time. The worker writes them, except wakeups, which the
// publisher that woke it increments.
type counters struct {
	executed     atomic.Uint64
	steals       atomic.Uint64
	stealRetries atomic.Uint64
	stealEmpties atomic.Uint64
	injected     atomic.Uint64
	parks        atomic.Uint64
	wakeups      atomic.Uint64
	shared       atomic.Uint64
	replaced     atomic.Uint64
	spares       atomic.Uint64
	promoted     atomic.Uint64
	retired      atomic.Uint64
}

// Stats are counters summed over a pool's workers and guest slots since the
// pool started (Pool.Stats). Each field is read atomically, but the fields
// are not read at one instant: treat a snapshot taken while the pool is busy
// as approximate.
type Stats struct {
	Executed      uint64 // jobs run that came from a deque or the injector (Join's inline runs are not counted)
	Steals        uint64 // successful steals from another participant's deque
	StealRetries  uint64 // steal attempts that lost a race
	EmptyScans    uint64 // full scans of all victims that found nothing
	InjectorTakes uint64 // jobs taken from the injector
	Parks         uint64 // times a participant blocked waiting for work or a latch
	Wakeups       uint64 // sleeping workers woken because work was published
	Shared        uint64 // JoinFunc frames made stealable because a participant was idle
	Replaced      uint64 // worker goroutines started in place of one that a task ended with runtime.Goexit
	Spares        uint64 // spare goroutines started to take the slot of a worker parked in a wait (WAITING.md, "Spares")
	Promoted      uint64 // funcs taken from the promotion board (Promote), which had waited a heartbeat tick
	Helped        uint64 // funcs taken from the board by a goroutine waiting for a promoted func they were published under (PROMOTION.md, "Waiting")
	Retired       uint64 // worker goroutines that ended after idleRetire without work (SLEEP.md, "Retiring"); the next work starts a new one
}

// Stats returns the pool's counters.
func (p *Pool) Stats() Stats {
	if p == nil {
		refuse("Pool.Stats", nilPool)
	}
	var s Stats
	for _, w := range p.members {
		c := &w.stats
		s.Executed += c.executed.Load()
		s.Steals += c.steals.Load()
		s.StealRetries += c.stealRetries.Load()
		s.EmptyScans += c.stealEmpties.Load()
		s.InjectorTakes += c.injected.Load()
		s.Parks += c.parks.Load()
		s.Wakeups += c.wakeups.Load()
		s.Shared += c.shared.Load()
		s.Replaced += c.replaced.Load()
		s.Spares += c.spares.Load()
		s.Promoted += c.promoted.Load()
		s.Retired += c.retired.Load()
	}
	s.Helped = p.board.helped.Load()
	return s
}
