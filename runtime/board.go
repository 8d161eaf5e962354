package runtime

import (
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/cpu"

	"github.com/gopar-dev/gopar/internal/labels"
)

// Lazy promotion: work that a goroutine runs inline, offered to the pool's
// idle workers while it runs, and taken only once it has waited longer than
// a wake-up costs. PROMOTION.md beside this file is its one description
// (what is published, who takes it, the heartbeat, why no wake-up is lost,
// what it costs). This file is the board itself: its slots and the state
// word of each. promote.go publishes a func, takes it back or waits for it,
// and runs what a waiter may help with; heartbeat.go ripens the entries.

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
	// participant hunts (idleState.anyIdleMainLoop).
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

// occupied reports whether any func is published and not taken.
func (b *board) occupied() bool {
	for i := range b.slots {
		if b.slots[i].state.Load()&kindBits == kindPub {
			return true
		}
	}
	return false
}
