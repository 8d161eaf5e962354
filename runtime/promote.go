package runtime

import (
	"github.com/gopar-dev/gopar/internal/invariant"
	"github.com/gopar-dev/gopar/internal/labels"
)

// promotion is a func published with Promote. The zero promotion was
// not published.
type promotion struct {
	p   *Pool
	s   *boardSlot
	gen uint64 // the publication's generation: its words are gen|kind|marks
}

// promote publishes f for the pool's idle workers: one that is idle once f
// has waited a heartbeat tick may take it and run it. The caller then either
// takes f back with Reclaim (f has not started, and will not) or, if a
// worker took it, waits for it with Wait. promote returns the zero
// Promotion, and publishes nothing, if both of the calling goroutine's
// slots of the board are in use or the pool has a single worker.
//
// A published Promotion holds its slot until it is ended: Reclaim, and
// Wait once Reclaim returned false, on every path, panics and Goexit
// included. One never ended keeps its slot for the pool's life (Pending
// tells whether one still holds it; gopar's own callers check it in
// gopar_debug builds).
//
// A worker runs a promoted f from its main loop, as a task of the pool (f
// descends from no frame: it is a root, as the injector's tasks are). A nil
// f panics.
func promote(p *Pool, f func()) promotion {
	if p == nil || f == nil {
		p.refuseDo("Promote", f == nil)
	}
	// The first look of every publication: one of the calling publisher's
	// two slots that looks free, and the free word loaded there. In a
	// recursion the two outermost pending calls of a goroutine hold its
	// slots, and the calls inside them find both in use, so that answer
	// costs curG and two loads of lines the goroutine's core wrote, and no
	// failed CAS to take a line from the core that owns it. The second
	// slot is for a goroutine whose first one another goroutine holds.
	b := &p.board
	i, j := b.slotsFor(b.hashOf(b.publisherID()))
	s := &b.slots[i]
	if e := s.state.Load(); e&kindBits == kindFree {
		return p.publish(s, e, f)
	}
	s = &b.slots[j]
	if e := s.state.Load(); e&kindBits == kindFree {
		return p.publish(s, e, f)
	}
	return promotion{}
}

// publish is Promote once slot s looked free, with the word e loaded there:
// it claims the slot (free to held), writes f, and publishes it under the
// next generation.
func (p *Pool) publish(s *boardSlot, e uint64, f func()) promotion {
	if p.board.off || !s.state.CompareAndSwap(e, e|kindHeld) {
		return promotion{}
	}
	s.fn, s.labels = f, labels.Current()
	gen := genOf(e) + genOne
	s.state.Store(gen | kindPub)
	// pub matters only to a waiter whose func this goroutine runs: an
	// entry published while no taken func runs is under none (a taken func
	// that this goroutine starts later marks its older entries anyway), and
	// leaving pub 0 saves two locked stores, here and in Reclaim.
	if p.board.running.Load() != 0 {
		if me := p.self(); me != nil {
			s.pub.Store(&me.boardAt)
		}
	}
	// Parked workers, and waiters that help, cannot watch the board: make
	// sure the heartbeat does (see PROMOTION.md, "No lost promotion").
	// While workers are busy or spinning, this is two loads of one line.
	if p.idle.anyToWake() || p.board.helpers.Load() != 0 {
		p.pokeHeartbeat()
	}
	return promotion{p, s, gen}
}

// Published reports whether Promote published the func.
func (pr promotion) Published() bool { return pr.s != nil }

// Pending reports whether pr still holds its slot: it was published, and
// has not been ended (taken back by Reclaim, or waited for by Wait).
func (pr promotion) Pending() bool {
	if pr.s == nil {
		return false
	}
	// Its generation published or taken: the held word of the same
	// generation is the next publisher's claim.
	e := pr.s.state.Load()
	return genOf(e) == pr.gen && (e&kindBits == kindPub || e&kindBits == kindTaken)
}

// CheckEnded is the gopar_debug check that caller, one of gopar's own
// users of the board, ended pr on its way out (Promote): one left
// pending would hold its slot for the pool's life. Defer it under
// invariant.Enabled.
func (pr promotion) CheckEnded(caller string) {
	if pr.Pending() {
		invariant.Failf("%s returned with its promotion (generation %#x) still holding its board slot", caller, pr.gen)
	}
}

// Reclaim takes the func back: true if it was not published or nobody took
// it (it has not run, and the caller may run it), false if a worker took
// it (call Wait).
func (pr promotion) Reclaim() bool {
	if pr.s == nil {
		return true
	}
	if pr.s.pub.Load() != nil {
		// Before the entry is given up: pub is the current entry's
		// publisher, or 0. Only the owner writes pub while it holds the
		// entry, so the load is exact.
		pr.s.pub.Store(nil)
	}
	if !pr.s.state.CompareAndSwap(pr.gen|kindPub, pr.gen|kindHeld) {
		return pr.reclaimMarked()
	}
	pr.free()
	return true
}

// reclaimMarked is Reclaim once its CAS of the unmarked word failed: a tick
// marked the entry (it is still the owner's, and it takes it back with
// the marks), or a worker took it. Marks only grow, so this loops at most
// three times.
func (pr promotion) reclaimMarked() bool {
	for {
		e := pr.s.state.Load()
		if invariant.Enabled && (genOf(e) != pr.gen || e&kindBits == kindFree || e&kindBits == kindHeld) {
			invariant.Failf("Reclaim of generation %#x found the slot's word %#x: the publication was already ended", pr.gen, e)
		}
		if e&kindBits == kindTaken {
			return false
		}
		if pr.s.state.CompareAndSwap(e, pr.gen|kindHeld) {
			pr.free()
			return true
		}
	}
}

// free ends the owner's hold on its slot, once Reclaim took the entry back
// (the held word) or in Wait (the taken word): it clears fn, so that the
// board keeps the func no longer alive, and stores the free word of its
// generation.
func (pr promotion) free() {
	pr.s.fn, pr.s.labels = nil, labels.Set{}
	pr.s.state.Store(pr.gen | kindFree)
}

// Wait returns once the func a worker took has run, and frees its slot. It
// returns how the func ended: nil if it returned, or its panic or Goexit
// (see Raise). Call it once, after Reclaim returned false.
//
// Meanwhile the calling goroutine runs only funcs published under the one
// it waits for: ripe entries that the goroutine running it published while
// it ran it (PROMOTION.md, "Waiting"), so the waiting rule (WAITING.md)
// holds. A panic in one of them goes to its owner; a Goexit ends this
// goroutine too, once the func waited for has run. Rarely, Wait runs the
// func itself, when a waiter took it that may not run it.
//
// Wait on a Promotion that no worker took (the zero Promotion, one not yet
// taken back, one that Reclaim took back, or one already waited for)
// panics: there is nothing to wait for.
func (pr promotion) Wait() *Panic {
	s := pr.s
	if s == nil || s.state.Load() != pr.gen|kindTaken {
		refuse("Promotion.Wait", "was called on a func that no worker took; call it once, and only after Reclaim returned false")
	}
	if useCurG.Load() {
		pr.help()
	} else {
		<-s.done
	}
	if s.handback {
		s.handback = false
		f := s.fn
		pr.free()
		return callRecord(f)
	}
	p := s.panicked
	s.panicked = nil
	pr.free()
	return p
}

// help is Wait's loop: it runs the funcs under the one waited for as they
// ripen, and returns once the token on done has been received. A goroutine
// that holds a slot of the pool's parallelism (a pool worker running a
// task, or a spare) lends it to a spare before it first blocks, as a
// waiter in a deque wait does (WAITING.md, "Spares"), and recalls it once
// the wait is over.
func (pr promotion) help() {
	p, s := pr.p, pr.s
	var lent *spare
	defer func() {
		if lent != nil {
			lent.recall()
		}
	}()
	lendTried := false
	received := false
	defer func() {
		s.waiting.Store(false)
		p.board.helpers.Add(-1)
		select {
		case <-s.help: // a spare token, not for the slot's next owner
		default:
		}
		if !received {
			pr.waitOnGoexit()
		}
	}()
	p.board.helpers.Add(1)
	s.waiting.Store(true)
	p.pokeHeartbeat()
	for {
		select {
		case <-s.done:
			received = true
			return
		default:
		}
		if pr.helpOnce() {
			continue
		}
		if !lendTried {
			lendTried = true
			if w := p.slotHolder(); w != nil {
				lent = w.lend()
			}
		}
		select {
		case <-s.done:
			received = true
			return
		case <-s.help:
		}
	}
}

// waitOnGoexit is help's way out when a func run there ended this goroutine
// with Goexit (panics go to the funcs' owners). The func waited for
// descends from no frame of this goroutine's below: it waits for it before
// they unwind, frees the slot, and raises the func's panic, if any.
func (pr promotion) waitOnGoexit() {
	s := pr.s
	<-s.done
	pn := s.panicked
	s.panicked = nil
	if s.handback {
		s.handback = false
		pn = nil // never ran: it is not this goroutine's to run any more
	}
	pr.free()
	if isPanic(pn) {
		panic(pn) // a panic beats the Goexit, as in Join
	}
}

// helpOnce takes and runs one ripe entry that the runner of the func waited
// for published while running it, and reports whether it took one.
//
// Why such an entry is under that func: the runner r marks its entries
// published before (markBelow) before it stores runner; an entry found
// after the take with pub == r, unmarked, was published by r after that,
// and r still runs the func when runner is read last, so r published it
// inside it, where it is still pending. A take that fails this check hands
// the entry back to its owner, which runs it itself.
func (pr promotion) helpOnce() bool {
	r := pr.s.runner.Load()
	b := &pr.p.board
	if r == nil || b.ripeN.Load() == 0 {
		return false
	}
	id := &r.boardAt
	for i := range b.slots {
		s := &b.slots[i]
		e := s.state.Load()
		if !isRipe(e) || s.pub.Load() != id {
			continue
		}
		if !s.state.CompareAndSwap(e, genOf(e)|kindTaken) {
			continue
		}
		if s.pub.Load() != id || pr.s.runner.Load() != r {
			s.handback = true
			s.done <- struct{}{}
			return true
		}
		pr.p.board.helped.Add(1)
		pr.p.runTaken(s, s.fn)
		return true
	}
	return false
}

// callRecord calls f and returns how it ended: nil if it returned, or its
// panic; a Goexit goes on.
func callRecord(f func()) (p *Panic) {
	returned := false
	defer func() {
		if !returned {
			p = unwinding(recover())
		}
	}()
	f()
	returned = true
	return nil
}

// takePromoted takes a ripe entry from the board, if there is one, as a job
// that w runs from its main loop.
func (w *Worker) takePromoted() *job {
	s, f := w.pool.board.takeRipe()
	if s == nil {
		return nil
	}
	w.stats.promoted.Add(1)
	j := w.newJob(func(*Worker) { w.pool.runTaken(s, f) })
	j.fr.detached = true
	return j
}

// takeRipe takes a ripe entry, if there is one: its slot, and its func.
func (b *board) takeRipe() (*boardSlot, func()) {
	if b.ripeN.Load() == 0 {
		return nil, nil
	}
	for i := range b.slots {
		s := &b.slots[i]
		if e := s.state.Load(); isRipe(e) && s.state.CompareAndSwap(e, genOf(e)|kindTaken) {
			return s, s.fn
		}
	}
	return nil, nil
}

// runTaken runs the func taken from s and hands its owner how it ended. A
// panic or Goexit is recorded for the owner, and then the Goexit goes on,
// ending the calling goroutine: a worker's, which run replaces (see
// goexit.go), or a waiter's (Promotion.help).
//
// While it runs, the owner may run the entries that the member this
// goroutine acts as (Pool.self) publishes: its entries published before are
// marked first (markBelow), then runner is stored. A goroutine that is no
// member of the pool records nothing: the owner waits without help.
func (p *Pool) runTaken(s *boardSlot, f func()) {
	me := p.self()
	if me != nil {
		// Counted before anything runs: what this goroutine publishes from
		// now on records its publisher (Promote).
		p.board.running.Add(1)
		p.board.markBelow(me)
		s.runner.Store(me)
	}
	prev, changed := labels.Wear(s.labels)
	returned := false
	defer func() {
		if changed {
			labels.Apply(prev)
		}
		if !returned {
			s.panicked = unwinding(recover())
		}
		if me != nil {
			p.board.running.Add(-1)
			s.runner.Store(nil)
		}
		s.done <- struct{}{}
	}()
	f()
	returned = true
}

// markBelow marks w's published entries: the goroutine acting as w starts
// running a taken func, which they are not under.
func (b *board) markBelow(w *Worker) {
	for i := range b.slots {
		// Only the goroutine acting as w writes w's identity: the entry is
		// still its (or, published by an earlier goroutine that acted as
		// w, a stale one that this goroutine no waiter may take either).
		if s := &b.slots[i]; s.pub.Load() == &w.boardAt {
			s.pub.Store(&w.boardBelow)
		}
	}
}
