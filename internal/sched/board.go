package sched

import (
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/cpu"

	"github.com/gopar-dev/gopar/internal/invariant"
	"github.com/gopar-dev/gopar/internal/labels"
)

// Lazy promotion: work that a goroutine runs inline, offered to the pool's
// idle workers while it runs, and taken only once it has waited longer than
// a wake-up costs. PROMOTION.md beside this file is its one description
// (what is published, who takes it, the heartbeat, why no wake-up is lost,
// what it costs).

// heartbeatTick is the heartbeat's period. An entry present at two
// consecutive ticks has waited at least one tick, and is ripe: idle workers
// may take it. A tick is of the order of a wake-up's slow end (SLEEP.md,
// "What a wake-up costs"), so that promotion goes to work that has already
// run longer than the wake-up it costs.
const heartbeatTick = 50 * time.Microsecond

// heartbeatLinger is how long the heartbeat keeps ticking after it last saw
// an entry on the board: back-to-back short operations (each publishing an
// entry for a few nanoseconds) keep it awake instead of waking it at every
// call. Past it, the heartbeat blocks, and an idle pool uses no CPU.
const heartbeatLinger = 2 * time.Millisecond

// maxBoardSlots bounds the board: idle workers scan every slot.
const maxBoardSlots = 64

// A slot's state is one word, a plain integer: its kind (free, held by
// its owner, published, taken), the heartbeat's marks of a published
// entry, and the slot's generation, which every publication bumps. The
// generation makes each publication's words its own: a func published
// again, or another func published in the slot, starts unmarked under a new
// generation, so that a tick's or a taker's CAS from an old publication's
// word fails against it (PROMOTION.md, "Ripe"), and an owner's Reclaim or
// Wait recognises its own publication.
//
// The func itself is in a typed field (boardSlot.fn), which the garbage
// collector sees. The owner writes it while the slot is held, before the
// store that publishes it; a taker reads it only after its CAS from a
// published word succeeded, which the publishing store is synchronised
// before.
const (
	seenMark = 1 // a tick saw the entry
	ripeMark = 2 // the next tick saw it too: it is ripe
	markBits = seenMark | ripeMark

	kindFree  = 0 << 2 // nobody's: a publisher may claim it
	kindHeld  = 1 << 2 // its publisher writes fn
	kindPub   = 2 << 2 // published: the marks count the ticks that saw it
	kindTaken = 3 << 2 // a taker runs fn (or hands it back); the owner waits
	kindBits  = 3 << 2

	genOne  = 1 << 4 // the generation's unit
	genBits = ^uint64(kindBits | markBits)
)

// genOf returns the generation of the state word e.
func genOf(e uint64) uint64 { return e & genBits }

// isRipe reports whether the state word e is a published entry that is ripe.
func isRipe(e uint64) bool { return e&(kindBits|ripeMark) == kindPub|ripeMark }

// boardSlot holds one published func.
//
// Ownership: a goroutine owns the slot from its CAS of state from free to
// held (Promote) until it frees it again (Promotion.Reclaim's or
// Promotion.Wait's store of the free word). It writes fn while the slot is held, then
// publishes it with a store of the next generation's published word. In
// between, the heartbeat's ticks mark the word, and a worker, or a
// goroutine waiting for a func this one descends from, may CAS it from the
// ripe word to the generation's taken word, once; it then reads fn, writes
// runner, panicked (or handback) and sends on done, and touches the slot no
// more.
type boardSlot struct {
	// state is the slot's word (above): a worker takes an entry only
	// while it is published with ripeMark.
	state atomic.Uint64
	// fn is the published func: written by the owner while it holds the
	// slot, read by a taker after its take. The owner clears it before it
	// frees the slot (Reclaim takes the slot back as held first, Wait
	// holds it while it waits), so that the board keeps no func alive past
	// its operation, and none of the data the func reaches.
	fn func()
	// labels are the publisher's pprof labels, which the taker wears
	// while fn runs; written and cleared with fn.
	labels   labels.Set
	panicked *Panic
	done     chan struct{} // capacity 1: the taker's one token per take
	// pub is the member of the pool that published the entry (Pool.self),
	// as one of its two board identities (boardID): written by the owner
	// after its CAS and cleared before it gives the entry up, so that it
	// is nil or the current entry's publisher. It stays nil where no taken
	// func ran at the publication (board.running), or the publisher is no
	// member: no waiter may run such an entry. The member switches it to
	// its below identity once it starts running a taken func: the entry
	// is then not under that func (PROMOTION.md, "Waiting").
	pub atomic.Pointer[boardID]
	// runner is the member running the taken func, from its take until
	// it has run (nil otherwise, and where the goroutine running it is no
	// member of the pool, or curG is not implemented).
	runner atomic.Pointer[Worker]
	// handback: a waiter took the entry and found, after its CAS, that it
	// may not run it; the owner runs it (written before the token on done).
	handback bool
	// waiting is set while the owner waits for the taken func; help
	// carries the heartbeat's wake-up to it when an entry ripens.
	waiting atomic.Bool
	help    chan struct{}
	_       cpu.CacheLinePad
}

// boardID is a member's identity as a publisher on the board
// (boardSlot.pub): each Worker has two, at (its entries) and below (its
// entries published before it started running a taken func, which are not
// under it). A typed pointer, so that the word is one the garbage
// collector sees, and one word, so that a publication's publisher and
// whether it is below change together.
type boardID struct{ w *Worker }

// The heartbeat's states.
const (
	hbAsleep  = iota // no tick armed
	hbRunning        // a tick is armed or running
	hbClosed         // the pool is closed: never again
)

type board struct {
	// off: nothing is published (a one-worker pool, an inline pool).
	off   bool
	slots []boardSlot
	// shift is 64 - log2(len(slots)): a publisher's hash's top bits pick
	// its first slot, the bits below them (altShift) its second.
	shift, altShift uint
	// seq stands in for the publisher's identity where curG is not
	// implemented (publisherID).
	seq atomic.Uint64
	// salt is mixed into every publisher's hash: tests set it to place
	// the publishers they know in the slots they need.
	salt atomic.Uint64
	// ripeN is the number of ripe entries at the last tick: workers scan the
	// slots only while it is not zero.
	ripeN atomic.Int32
	state atomic.Int32
	// timer times the heartbeat goroutine's ticks; armed only by
	// whoever set hbRunning, and by that goroutine.
	timer *time.Timer
	// mu orders the ticks' (and a poker's) use of what the heartbeat
	// remembers between ticks: a tick runs on the heartbeat's goroutine, or on
	// a hunting worker's when it is overdue (watchBoard); ticks never
	// overlap.
	mu sync.Mutex
	// The heartbeat's clock: nanoseconds since epoch (monotonic), read by
	// now. lastSeen is when a tick last saw an entry (or the heartbeat
	// was armed); lastTick when the last tick ran (or the heartbeat was
	// armed), written under mu and loaded without it by hunting workers,
	// which tick if it is overdue.
	epoch    time.Time
	lastSeen int64
	lastTick atomic.Int64

	// helpers counts the goroutines waiting for a promoted func that a
	// worker took (Promotion.Wait), which run what it publishes as it
	// ripens: the heartbeat ticks while it is not zero, as it does while a
	// participant hunts (idleState.anyHunting).
	helpers atomic.Int32
	// helped counts the funcs they took (Stats.Helped).
	helped atomic.Uint64
	// testHookTickLoaded, set by tests only, runs in a tick between its
	// load of a published slot's word and its CAS.
	testHookTickLoaded func(s *boardSlot)
	// running counts the taken funcs running (runTaken): while it is 0,
	// Promote records no publisher (boardSlot.pub), which only a waiter
	// for a running func reads.
	running atomic.Int32
}

func (b *board) init(p *Pool, workers int) {
	n := 8
	for n < 2*workers && n < maxBoardSlots {
		n *= 2
	}
	b.slots = make([]boardSlot, n)
	for i := range b.slots {
		b.slots[i].done = make(chan struct{}, 1)
		b.slots[i].help = make(chan struct{}, 1)
	}
	b.shift = 64
	for m := n; m > 1; m >>= 1 {
		b.shift--
	}
	b.altShift = b.shift - (64 - b.shift)
	b.off = workers < 2
	b.epoch = time.Now()
	b.timer = time.NewTimer(time.Hour)
	b.timer.Stop()
}

// publisherID is the calling publisher's identity: its goroutine's
// (curG), where that is implemented, or else the next of a sequence.
func (b *board) publisherID() uint64 {
	if haveCurG {
		return uint64(curG())
	}
	return b.seq.Add(1)
}

// hashOf is the hash of the publisher whose identity is id, mixed with the
// board's salt.
func (b *board) hashOf(id uint64) uint64 { return (id ^ b.salt.Load()) * 0x9E3779B97F4A7C15 }

// slotsFor returns the two slots that a publisher whose hash is h tries,
// first and second: the second differs from the first by an odd distance
// in its index bits, from lower bits of h, so that they are distinct on a
// board of more than one slot (an inline pool's has one, bubble.go).
func (b *board) slotsFor(h uint64) (first, second int) {
	i := h >> b.shift
	return int(i), int(i ^ ((h>>b.altShift | 1) & uint64(len(b.slots)-1)))
}

// Promotion is a func published with Promote. The zero Promotion was
// not published.
type Promotion struct {
	p   *Pool
	s   *boardSlot
	gen uint64 // the publication's generation: its words are gen|kind|marks
}

// Promote publishes f for the pool's idle workers: one that is idle once f
// has waited a heartbeat tick may take it and run it. The caller then either
// takes f back with Reclaim (f has not started, and will not) or, if a
// worker took it, waits for it with Wait. Promote returns the zero
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
func Promote(p *Pool, f func()) Promotion {
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
	return Promotion{}
}

// publish is Promote once slot s looked free, with the word e loaded there:
// it claims the slot (free to held), writes f, and publishes it under the
// next generation.
func (p *Pool) publish(s *boardSlot, e uint64, f func()) Promotion {
	if p.board.off || !s.state.CompareAndSwap(e, e|kindHeld) {
		return Promotion{}
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
	if p.idle.anySleepy() || p.board.helpers.Load() != 0 {
		p.pokeHeartbeat()
	}
	return Promotion{p, s, gen}
}

// Published reports whether Promote published the func.
func (pr Promotion) Published() bool { return pr.s != nil }

// Pending reports whether pr still holds its slot: it was published, and
// has not been ended (taken back by Reclaim, or waited for by Wait).
func (pr Promotion) Pending() bool {
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
func (pr Promotion) CheckEnded(caller string) {
	if pr.Pending() {
		invariant.Failf("%s returned with its promotion (generation %#x) still holding its board slot", caller, pr.gen)
	}
}

// Reclaim takes the func back: true if it was not published or nobody took
// it (it has not run, and the caller may run it), false if a worker took
// it (call Wait).
func (pr Promotion) Reclaim() bool {
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
func (pr Promotion) reclaimMarked() bool {
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
func (pr Promotion) free() {
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
func (pr Promotion) Wait() *Panic {
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
func (pr Promotion) help() {
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
		if received {
			return
		}
		// A func run here ended this goroutine with Goexit (panics go to
		// the funcs' owners). The func waited for descends from no frame
		// of this goroutine's below: wait for it before they unwind.
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

// helpOnce takes and runs one ripe entry that the runner of the func waited
// for published while running it, and reports whether it took one.
//
// Why such an entry is under that func: the runner r marks its entries
// published before (markBelow) before it stores runner; an entry found
// after the take with pub == r, unmarked, was published by r after that,
// and r still runs the func when runner is read last, so r published it
// inside it, where it is still pending. A take that fails this check hands
// the entry back to its owner, which runs it itself.
func (pr Promotion) helpOnce() bool {
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
			p = Unwinding(recover())
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
			s.panicked = Unwinding(recover())
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

// occupied reports whether any func is published and not taken.
func (b *board) occupied() bool {
	for i := range b.slots {
		if b.slots[i].state.Load()&kindBits == kindPub {
			return true
		}
	}
	return false
}

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
	if keep && (p.idle.anyHunting() || b.helpers.Load() > 0) {
		b.timer.Reset(heartbeatTick)
		return true
	}
	// Sleep, unless something came meanwhile: a poker that saw us
	// running did not arm the timer (see PROMOTION.md).
	if !b.state.CompareAndSwap(hbRunning, hbAsleep) {
		return false // closed
	}
	if b.occupied() && (p.idle.anyHunting() || b.helpers.Load() > 0) {
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
	for ; fresh > 0 && p.idle.anySleepy(); fresh-- {
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
