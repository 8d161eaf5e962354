package runtime

import "time"

// The sleep protocol. SLEEP.md beside this file states it in full, with the
// argument that a wake-up cannot be lost; sleep.pml is its model.
//
// A participant with nothing to do spins (search, yield) for spinRounds
// rounds and spinFor, then parks: park announces it (as sleepy for new
// work; as the latch's waiter, if it waits on a latch), searches once more,
// and only then blocks on its wake channel. A publisher publishes
// first (deque or injector push, or Latch.Set) and looks for an announced
// sleeper second. All of these are sequentially consistent atomics, so of a
// publisher and a sleeper at least one sees the other.

// spinRounds and spinFor bound how long a participant keeps searching,
// yielding the processor between searches, before it parks: at least
// spinRounds searches and spinFor of time. Waking a parked worker takes
// 100-250 us on this project's VMs (measured from offer to the helper's
// start), so a gap between jobs shorter than spinFor costs no park/wake
// round trip; an idle pool still parks within a fraction of a millisecond.
const (
	spinRounds = 32
	spinFor    = 200 * time.Microsecond
)

// spinner tracks one idle stretch of a participant.
type spinner struct {
	rounds int
	since  time.Time
	// idle records that the participant is counted in Pool.idle.
	idle bool
}

// spin yields and reports true while the participant should keep
// searching, and reports false once it is time to park.
func (s *spinner) spin() bool {
	if s.rounds < spinRounds {
		s.rounds++
		yield()
		return true
	}
	now := time.Now()
	if s.since.IsZero() {
		s.since = now
	}
	if now.Sub(s.since) < spinFor {
		yield()
		return true
	}
	return false
}

func (s *spinner) reset() { s.rounds, s.since = 0, time.Time{} }

// setIdle keeps Pool.idle, the number of participants looking for work,
// up to date as w starts and stops looking. JoinFunc shares work only while
// it is not zero.
func (w *Worker) setIdle(s *spinner, idle bool) {
	if s.idle == idle {
		return
	}
	s.idle = idle
	if idle {
		w.pool.idle.Add(1)
	} else {
		w.pool.idle.Add(-1)
	}
}

// park blocks w until it may have something to do: new work was published,
// l was set (if l is not nil), or the pool closed (pool workers' main loop,
// l == nil). Guests announce themselves as sleepy too: a guest is often a
// pool worker's goroutine inside a nested loop, and should help with new
// work rather than wait idle for its latch.
func (w *Worker) park(l *Latch) {
	p := w.pool
	if l != nil {
		l.waiter.Store(w)
	}
	w.sleepy.Store(true)
	p.sleepers.Add(1)
	// Last look, now that publishers can see the announcement.
	if !w.shouldStayAwake(l) {
		w.stats.parks.Add(1)
		<-w.wake
	}
	// Take the announcement back, unless a waker already did (and counted).
	if w.sleepy.CompareAndSwap(true, false) {
		p.sleepers.Add(-1)
	}
	if l != nil {
		l.waiter.Store(nil)
	}
}

// shouldStayAwake is park's last look: is there a reason not to block?
func (w *Worker) shouldStayAwake(l *Latch) bool {
	p := w.pool
	if l != nil {
		if l.IsSet() {
			return true
		}
	} else if p.closed.Load() {
		return true
	}
	if !p.injector.IsEmpty() {
		return true
	}
	for _, v := range p.victims() {
		if v.deque.Len() > 0 {
			return true
		}
	}
	return false
}

// notify is called by every publisher of work, after publishing. It costs
// one atomic load when nobody is sleepy.
func (p *Pool) notify() {
	if p.sleepers.Load() == 0 {
		return
	}
	p.wakeOne()
}

// wakeOne wakes one sleepy participant (a pool worker, or a guest waiting
// on a latch), if there still is one. It claims the announcement with a
// CAS, so two publishers never spend their wake-ups on the same sleeper.
func (p *Pool) wakeOne() {
	members := p.victims()
	n := len(members)
	start := int(p.nextWake.Add(1) % uint32(n))
	for i := 0; i < n; i++ {
		w := members[(start+i)%n]
		if w.sleepy.Load() && w.sleepy.CompareAndSwap(true, false) {
			p.sleepers.Add(-1)
			w.stats.wakeups.Add(1)
			w.wakeup()
			return
		}
	}
}

// wakeup leaves a token in w's wake channel. A token sent before w blocks
// is kept (the channel has room for one), so it cannot be lost; a spare
// token only makes a later park return early, and w then searches again.
func (w *Worker) wakeup() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}
