package runtime

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/cpu"
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

// funcval is the opaque target of a func value: a func() is one pointer to
// it. The board stores that pointer, so that publishing a func costs one CAS
// and no allocation.
type funcval struct{ _ uintptr }

func funcPtr(f func()) *funcval { return *(**funcval)(unsafe.Pointer(&f)) }

func funcOf(p *funcval) (f func()) {
	*(**funcval)(unsafe.Pointer(&f)) = p
	return f
}

// taken marks a slot whose func a worker took: the owner waits for done.
var taken funcval

// boardSlot holds one published func.
//
// Ownership: a goroutine owns the slot from its CAS of entry from nil to
// its func (Pool.promote) until it stores nil again (Promotion.Reclaim
// succeeding, or Promotion.Wait). In between, a worker may CAS entry from
// the func to &taken, once; it then writes panicked and sends on done, and
// touches the slot no more.
type boardSlot struct {
	entry atomic.Pointer[funcval]
	// seq counts the publications in the slot: a func published again
	// (a cached one, or the same top-level func) is a new entry.
	seq atomic.Uint32
	// ripe and ripeSeq are the entry the heartbeat saw at two consecutive
	// ticks. A worker takes an entry only while it is the ripe one.
	ripe     atomic.Pointer[funcval]
	ripeSeq  atomic.Uint32
	panicked *Panic
	done     chan struct{} // capacity 1: the taker's one token per take
	_        cpu.CacheLinePad
}

// The heartbeat's states.
const (
	hbAsleep  = iota // no tick armed
	hbRunning        // a tick is armed or running
	hbClosed         // the pool is closed: never again
)

type board struct {
	slots []boardSlot
	shift uint // 64 - log2(len(slots)), for the slot hash
	// ripeN is the number of ripe entries at the last tick: workers scan the
	// slots only while it is not zero.
	ripeN atomic.Int32
	state atomic.Int32
	timer *time.Timer // runs beat; armed only by whoever set hbRunning
	// mu orders the ticks' (and a poker's) use of what the heartbeat
	// remembers between ticks, since each tick runs on a goroutine of its
	// own; ticks never overlap.
	mu       sync.Mutex
	prev     []seen // the entries at the last tick
	lastSeen time.Time
}

func (b *board) init(p *Pool, workers int) {
	n := 8
	for n < 2*workers && n < maxBoardSlots {
		n *= 2
	}
	b.slots = make([]boardSlot, n)
	for i := range b.slots {
		b.slots[i].done = make(chan struct{}, 1)
	}
	b.shift = 64
	for m := n; m > 1; m >>= 1 {
		b.shift--
	}
	b.prev = make([]seen, n)
	b.timer = time.AfterFunc(time.Hour, p.beat)
	b.timer.Stop()
}

// slotFor hashes a func's address to a slot. The address is taken in 8 KiB
// units, the size of an allocator span: closures allocated one after
// another by one goroutine share a slot, so in a recursion the outermost
// pending call holds it and the calls inside it find it taken and skip the
// board with one load of a line their own core wrote.
func (b *board) slotFor(f *funcval) *boardSlot {
	h := (uint64(uintptr(unsafe.Pointer(f))) >> 13) * 0x9E3779B97F4A7C15
	return &b.slots[h>>b.shift]
}

// Promotion is a func published with Pool.Promote. The zero Promotion was
// not published.
type Promotion struct {
	s *boardSlot
	f *funcval
}

// Promote publishes f for the pool's idle workers: one that is idle once f
// has waited a heartbeat tick may take it and run it. The caller then either
// takes f back with Reclaim (f has not started, and will not) or, if a
// worker took it, waits for it with Wait. Promote returns the zero
// Promotion, and publishes nothing, if f's slot of the board is in use or
// the pool has a single worker.
//
// A worker runs a promoted f from its main loop, as a task of the pool (f
// descends from no frame: it is a root, as the injector's tasks are).
func (p *Pool) Promote(f func()) Promotion {
	if p.nWorkers < 2 {
		return Promotion{}
	}
	fv := funcPtr(f)
	s := p.board.slotFor(fv)
	// A load first: a slot in use is the common case in a recursion, and
	// a failed CAS would take the line from the core that owns it.
	if s.entry.Load() != nil || !s.entry.CompareAndSwap(nil, fv) {
		return Promotion{}
	}
	s.seq.Add(1)
	// Parked workers cannot watch the board: make sure the heartbeat does
	// (see PROMOTION.md, "No lost promotion"). While workers are busy or
	// spinning, this is one load.
	if p.sleepers.Load() != 0 {
		p.pokeHeartbeat()
	}
	return Promotion{s, fv}
}

// Published reports whether Promote published the func.
func (pr Promotion) Published() bool { return pr.s != nil }

// Reclaim takes the func back: true if it was not published or nobody took
// it (it has not run, and the caller may run it), false if a worker took
// it (call Wait).
func (pr Promotion) Reclaim() bool {
	return pr.s == nil || pr.s.entry.CompareAndSwap(pr.f, nil)
}

// Wait returns once the func a worker took has run, and frees its slot. It
// returns how the func ended: nil if it returned, or its panic or Goexit
// (see Raise). Call it once, after Reclaim returned false. The calling
// goroutine blocks meanwhile: it runs no other work (see WAITING.md).
func (pr Promotion) Wait() *Panic {
	s := pr.s
	<-s.done
	p := s.panicked
	s.panicked = nil
	s.entry.Store(nil)
	return p
}

// takePromoted takes a ripe entry from the board, if there is one, as a job
// that w runs from its main loop.
func (w *Worker) takePromoted() *job {
	b := &w.pool.board
	if b.ripeN.Load() == 0 {
		return nil
	}
	for i := range b.slots {
		s := &b.slots[i]
		e := s.entry.Load()
		if e == nil || e == &taken || s.ripe.Load() != e || s.ripeSeq.Load() != s.seq.Load() {
			continue
		}
		if s.entry.CompareAndSwap(e, &taken) {
			w.stats.promoted.Add(1)
			j := w.newJob(func(*Worker) { s.run(funcOf(e)) })
			j.fr.detached = true
			return j
		}
	}
	return nil
}

// run runs a taken func and hands its owner how it ended. A panic or Goexit
// is recorded for the owner, and then the Goexit goes on, ending the worker's
// goroutine, which run replaces (see goexit.go).
func (s *boardSlot) run(f func()) {
	returned := false
	defer func() {
		if !returned {
			s.panicked = Unwinding(recover())
		}
		s.done <- struct{}{}
	}()
	f()
	returned = true
}

// occupied reports whether any func is published and not taken.
func (b *board) occupied() bool {
	for i := range b.slots {
		if e := b.slots[i].entry.Load(); e != nil && e != &taken {
			return true
		}
	}
	return false
}

// watch is what a hunting worker does for the board: if something is
// published, it makes sure the heartbeat runs, so that it ripens.
func (p *Pool) watchBoard() bool {
	if !p.board.occupied() {
		return false
	}
	if p.board.state.Load() != hbRunning {
		p.pokeHeartbeat()
	}
	return true
}

// pokeHeartbeat makes sure the heartbeat is ticking: it arms its timer if
// it is asleep.
func (p *Pool) pokeHeartbeat() {
	b := &p.board
	if b.state.Load() == hbAsleep && b.state.CompareAndSwap(hbAsleep, hbRunning) {
		b.mu.Lock()
		clear(b.prev)
		b.lastSeen = time.Now()
		b.mu.Unlock()
		b.timer.Reset(heartbeatTick)
	}
}

// beat is one tick of the heartbeat, which ripens the board's entries while
// some worker hunts for work (PROMOTION.md). It runs on the goroutine of a
// timer (time.AfterFunc), so that no goroutine of the pool's lives while it
// sleeps. It arms the timer for the next tick while the board has had an
// entry within heartbeatLinger and some main-loop participant is idle;
// otherwise it sleeps until poked. One tick at most is armed at a time: the
// one that set hbRunning arms it, and each tick arms the next or sets
// hbAsleep.
func (p *Pool) beat() {
	b := &p.board
	if b.state.Load() != hbRunning {
		return // closed
	}
	b.mu.Lock()
	now := time.Now()
	if b.tick(p, b.prev) {
		b.lastSeen = now
	}
	keep := now.Sub(b.lastSeen) < heartbeatLinger
	b.mu.Unlock()
	if keep && p.hunting.Load() > 0 {
		b.timer.Reset(heartbeatTick)
		return
	}
	// Sleep, unless something came meanwhile: a poker that saw us
	// running did not arm the timer (see PROMOTION.md).
	if !b.state.CompareAndSwap(hbRunning, hbAsleep) {
		return // closed
	}
	if b.occupied() && p.hunting.Load() > 0 {
		p.pokeHeartbeat()
	}
}

// seen is an entry as the heartbeat saw it at a tick.
type seen struct {
	e   *funcval
	seq uint32
}

// tick marks the entries that were on the board at the last tick too as
// ripe, wakes a parked worker for each newly ripe one, and reports whether
// the board holds any entry.
func (b *board) tick(p *Pool, prev []seen) bool {
	occupied := false
	ripe, fresh := 0, 0
	for i := range b.slots {
		s := &b.slots[i]
		e := s.entry.Load()
		if e == nil || e == &taken {
			prev[i] = seen{}
			continue
		}
		occupied = true
		// The sequence number after the entry: if it still matches at
		// the next tick, so did the entry in between.
		now := seen{e, s.seq.Load()}
		if now == prev[i] {
			ripe++
			if s.ripe.Load() != e || s.ripeSeq.Load() != now.seq {
				s.ripeSeq.Store(now.seq)
				s.ripe.Store(e)
				fresh++
			}
		}
		prev[i] = now
	}
	b.ripeN.Store(int32(ripe))
	for ; fresh > 0 && p.sleepers.Load() != 0; fresh-- {
		p.wakeOne()
	}
	return occupied
}

// closeBoard stops the heartbeat: a tick that runs now arms no other.
func (p *Pool) closeBoard() {
	b := &p.board
	b.state.Store(hbClosed)
	b.timer.Stop()
}
