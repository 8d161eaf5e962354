package runtime

import (
	"sync/atomic"
	"time"

	"golang.org/x/sys/cpu"

	"github.com/gopar-dev/gopar/internal/latch"
)

// A participant's sleep state (Worker.sleep): a main loop's. Only a pool
// worker retires; a spare is awake or sleepy; a wait (parkOn) stays awake.
const (
	awake   = iota // searching or running: not counted in Pool.sleepers
	sleepy         // announced: parked, or about to park; counted
	retired        // announced, and its goroutine has ended (see park); counted
)

// idleState is the pool's record of its idle participants, and this file is
// its one home: other parts learn of idleness only through the events and
// questions below. The events follow a participant through an idle stretch
// (the sleep protocol, SLEEP.md):
//
//	startLooking   finds no job, and searches (spins), then may park
//	announce       is about to park: publishers must wake someone now
//	unannounce     takes the announcement back, or a waker claimed it
//	stopLooking    found a job, or its latch was set
//	offer          JoinLazy shared a job (offerTaken: the job started)
//
// Publishers ask anyToWake after publishing (and wake one if so), JoinFunc
// asks anyIdle before sharing, JoinLazy asks unfed, and the heartbeat
// asks anyIdleMainLoop. Each answer is a load or two, a snapshot: what keeps a
// wake-up from being lost is the order of publish-then-ask against
// announce-then-look (SLEEP.md, "No lost wake-up").
type idleState struct {
	// Every participant writes these as it goes idle or busy, and every
	// publisher reads them: the padding keeps those writes off the lines of
	// the pool's read-mostly fields.
	_ cpu.CacheLinePad
	// sleepers counts the participants that have announced they park (a
	// sleepy one, or a retired pool worker).
	sleepers atomic.Int32
	// looking counts the participants looking for work: spinning, or
	// parked waiting for work or for a latch.
	looking atomic.Int32
	// hunting counts those of looking in a main loop (Worker.loop), which
	// may run any job and take promoted work.
	hunting atomic.Int32
	// offered counts jobs that JoinLazy has shared and nobody has started
	// yet. unfed weighs it against looking, so that one idle participant
	// draws one share, not one from every fork made before it finds it.
	offered atomic.Int32
	// nextWake spreads wake-ups over the members.
	nextWake atomic.Uint32
	_        cpu.CacheLinePad
}

// startRetired makes a new pool's workers retired: announced, looking and
// hunting, with no goroutine, so that the first publication starts one
// (wakeOne), and the first Join of a program offers b rather than finding
// nobody idle.
func (p *Pool) startRetired() {
	for _, w := range p.members[:p.nWorkers] {
		w.sleep.Store(retired)
	}
	s := &p.idle
	s.sleepers.Store(int32(p.nWorkers))
	s.looking.Store(int32(p.nWorkers))
	s.hunting.Store(int32(p.nWorkers))
}

// startLooking: a participant finds no work and starts looking; a root
// (a main loop, which may run any job) hunts too.
func (s *idleState) startLooking(root bool) {
	s.looking.Add(1)
	if root {
		s.hunting.Add(1)
	}
}

// stopLooking: a participant that was looking found work, or its latch was
// set, or (a retired worker of a closed pool) will never look again.
func (s *idleState) stopLooking(root bool) {
	s.looking.Add(-1)
	if root {
		s.hunting.Add(-1)
	}
}

// announce: a participant is about to park and will look once more.
func (s *idleState) announce() { s.sleepers.Add(1) }

// unannounce: a participant took its announcement back, or a waker claimed
// it (the participant's own sleep state says which, by CAS: see park and
// wakeOne).
func (s *idleState) unannounce() { s.sleepers.Add(-1) }

// offer: JoinLazy shared a job that nobody has started.
func (s *idleState) offer() { s.offered.Add(1) }

// offerTaken: a job that JoinLazy shared has started.
func (s *idleState) offerTaken() { s.offered.Add(-1) }

// anyToWake reports whether some participant has announced that it parks:
// a publisher that sees it must wake one (Pool.wakeOne).
func (s *idleState) anyToWake() bool { return s.sleepers.Load() != 0 }

// anyIdle reports whether some participant, a main loop or one that
// waits (and may run only the jobs under what it waits for), is looking
// for work.
func (s *idleState) anyIdle() bool { return s.looking.Load() != 0 }

// anyIdleMainLoop reports whether some main loop, which may run any job,
// is looking for work: the heartbeat keeps ticking for it.
func (s *idleState) anyIdleMainLoop() bool { return s.hunting.Load() > 0 }

// unfed reports whether more participants look for work than JoinLazy's
// shared jobs will feed (Hungry).
func (s *idleState) unfed() bool { return s.looking.Load() > s.offered.Load() }

// The sleep protocol: how an idle participant parks and how a publisher
// wakes it, without a lost wake-up. SLEEP.md beside this file is its one
// description (steps, argument, costs); sleep.pml is its model.

// spinner tracks one idle stretch of a participant: spinRounds searches,
// then more for spinFor, yielding between them, before it parks
// (tuning.go).
type spinner struct {
	rounds int
	since  time.Time
	// idle records that the participant is counted looking (and, if
	// root, hunting) in the pool's idleState.
	idle bool
	// root: a main loop (Worker.loop), which may take any job.
	root bool
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

// setIdle records in the pool's idleState that w starts or stops looking
// for work, once per idle stretch.
func (w *Worker) setIdle(s *spinner, idle bool) {
	if s.idle == idle {
		return
	}
	s.idle = idle
	if idle {
		w.pool.idle.startLooking(s.root)
	} else {
		w.pool.idle.stopLooking(s.root)
	}
}

// park is a main loop's (loop): it blocks w until it may have something to
// do: new work was published, or the pool closed. A wait parks on its latch
// instead, announcing nothing (parkOn).
//
// A pool worker retires after idleRetire: park reports true, and the
// goroutine ends, with w still announced (see block). A spare parks until
// a token comes.
func (w *Worker) park() (retire bool) {
	p := w.pool
	w.bound = scopeBinding{} // let the last scope's record go
	w.sleep.Store(sleepy)
	p.idle.announce()
	// Last look, now that publishers can see the announcement.
	if !w.shouldStayAwake() {
		w.stats.parks.Add(1)
		if w.isPool {
			if w.block() {
				return true
			}
		} else {
			<-w.wake
		}
	}
	// Take the announcement back, unless a waker already did (and counted).
	if w.sleep.CompareAndSwap(sleepy, awake) {
		p.idle.unannounce()
	}
	return false
}

// block is a pool worker's park in its main loop: it returns false when a
// token comes, and true when w has retired: no token came for the pool's
// retire period, and w changed its announcement from sleepy to retired
// before a waker claimed it. A waker that claims it later starts a new
// goroutine for it (wakeOne). If a waker claimed it first, its token is on
// the way, and w searches again at once (the token is a spare one then).
func (w *Worker) block() (retire bool) {
	t := w.idle
	if t == nil {
		t = time.NewTimer(w.pool.retireAfter)
		w.idle = t
	} else {
		t.Reset(w.pool.retireAfter)
	}
	select {
	case <-w.wake:
		if !t.Stop() {
			// Fired meanwhile: drain it, where timer channels are
			// buffered (GODEBUG asynctimerchan=1, the default of
			// modules older than Go 1.23).
			select {
			case <-t.C:
			default:
			}
		}
		return false
	case <-t.C:
		return w.sleep.CompareAndSwap(sleepy, retired)
	}
}

// parkOn blocks a waiter until l is set. Unlike park, it announces nothing
// to publishers: the waiter may run only work under its frame, so a wake-up
// for new work belongs to a participant that may run any (see frame.go).
// It registers as l's waiter, looks at l once more, and blocks (SLEEP.md,
// "Latches").
func (w *Worker) parkOn(l *latch.Latch) {
	l.Watch(&w.wake)
	if !l.IsSet() {
		w.stats.parks.Add(1)
		<-w.wake
	}
	l.Unwatch()
}

// shouldStayAwake is park's last look: is there a reason not to block?
func (w *Worker) shouldStayAwake() bool {
	p := w.pool
	if p.closed.Load() || w.retiring() {
		return true
	}
	return p.workVisible()
}

// workVisible reports whether the injector or any participant's deque holds
// a job.
func (p *Pool) workVisible() bool {
	if !p.injector.IsEmpty() {
		return true
	}
	// Promoted work (heartbeat.go): stay up to take it once it ripens.
	if p.watchBoard() {
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
	if !p.idle.anyToWake() {
		return
	}
	p.wakeOne()
}

// wakeOne wakes one sleepy participant (a pool worker, or a spare), if
// there still is one: it sends a parked one a token, and
// starts a new goroutine for a retired one. It claims the announcement with
// a CAS, so two publishers never spend their wake-ups on the same sleeper.
func (p *Pool) wakeOne() {
	members := p.victims()
	n := len(members)
	start := int(p.idle.nextWake.Add(1) % uint32(n))
	for i := 0; i < n; i++ {
		w := members[(start+i)%n]
		s := w.sleep.Load()
		if s == retired && inBubble() {
			continue // its goroutine would belong to the bubble (bubble.go)
		}
		if s != awake && w.sleep.CompareAndSwap(s, awake) {
			p.idle.unannounce()
			w.stats.wakeups.Add(1)
			if s == retired {
				p.start(w)
				return
			}
			w.wakeup()
			return
		}
	}
}

// start starts a goroutine for w, a retired pool worker that a waker has
// claimed: it runs w's main loop, counted looking and hunting as the retired
// worker was. It counts the goroutine live before it looks at closed, so
// that Close either waits for it or finds that it did not start.
func (p *Pool) start(w *Worker) {
	p.enter()
	if p.closed.Load() {
		p.forget()
		p.exit()
		return
	}
	go w.run()
}

// forget takes a worker that will never run again out of the counts of
// looking and hunting participants: a retired worker of a closed pool.
func (p *Pool) forget() { p.idle.stopLooking(true) }

// forgetRetired is Close's: the retired workers will not run again, so a
// closed pool has nobody idle (JoinLazy runs inline there). A waker that
// claimed one first forgets it itself (Pool.start).
func (p *Pool) forgetRetired() {
	for _, w := range p.members[:p.nWorkers] {
		if w.sleep.CompareAndSwap(retired, awake) {
			p.idle.unannounce()
			p.forget()
		}
	}
}

// enter counts a goroutine of the pool's (a worker or a spare) about to
// start: Close waits for it (waitExited).
func (p *Pool) enter() { p.live.Add(1) }

// exit counts a goroutine of the pool's (a worker or a spare) that has
// ended, and signals waitExited when none is left.
func (p *Pool) exit() {
	if p.live.Add(-1) == 0 {
		select {
		case p.allExited <- struct{}{}:
		default:
		}
	}
}

// waitExited returns once the pool has no goroutine left. A token in
// allExited may be stale (the count rose again since): it looks again.
func (p *Pool) waitExited() {
	for p.live.Load() != 0 {
		<-p.allExited
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
