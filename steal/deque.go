package steal

// The Chase-Lev work-stealing deque.
//
// # The algorithm in a few words
//
// Items live in a power-of-two ring indexed by two ever-growing counters:
// top (the thieves' end, oldest item) and bottom (the owner's end, one past
// the newest item). The live items are the indices [top, bottom), each stored
// in slot index&mask. The owner pushes and pops at bottom without any
// read-modify-write; thieves take from top with one CAS. Only when a single
// item is left do the owner and thieves contend, and the CAS on top decides
// who gets it.
//
//	Push(x):  ring[b] = x; bottom = b+1
//	Pop():    bottom = b-1; t = top
//	          t <  b-1: take ring[b-1]               (no thief can reach it)
//	          t == b-1: CAS top t -> t+1, bottom = b (the last item: race for it)
//	          t >  b-1: bottom = b, empty            (a thief took the last one)
//	Steal():  t = top; b = bottom; if t >= b: Empty
//	          x = ring[t]; CAS top t -> t+1, else Retry
//
// # Invariants
//
//  1. top never decreases. It is written only by CAS (thieves, and the owner
//     racing for the last item), always from t to t+1.
//  2. bottom is written only by the owner. Outside of Pop, top <= bottom; Pop
//     may briefly make bottom = top-1 and restores it before returning.
//  3. bottom-top <= len(ring): the owner grows the ring before a Push would
//     overwrite a live slot.
//  4. Slot i&mask of the current ring holds item i for every live index i in
//     [top, bottom). Slots are written only by the owner (Push, Pop, grow and
//     the lazy clearing below); thieves only read them.
//  5. A thief succeeds on index t only while top == t (its CAS is from t).
//     Hence once top > i, no thief can ever take index i again.
//  6. A ring, once replaced by grow, is never written again. Thieves that
//     loaded it before the replacement still read correct items from it: grow
//     copies, it does not move. The garbage collector frees it when the last
//     such thief drops it, so no epochs or hazard pointers are needed and the
//     ABA problem cannot arise (a ring's address is never reused while held).
//
// # Not keeping items alive
//
// A deque must not pin items that the program has finished with, or a worker
// that once ran a big task would keep its closure's captures reachable.
//
//   - Pop takes its item with Swap(nil), so popped slots are cleared at once.
//   - A thief must NOT clear its slot after a successful CAS: by then top has
//     moved past the index, the owner may have wrapped around and written a
//     new item into the very same slot, and the thief would erase it.
//   - Instead the owner clears the slots of stolen items lazily: it remembers
//     in cleared how far it has swept, and on Push (and whenever Pop finds the
//     deque empty or races for the last item) it nils the slots of the
//     indices [cleared, top). This is safe because such an index i is below
//     top, so by invariant 5 no thief can succeed on it any more; a slow thief that still reads slot i sees
//     nil (or a newer item) and then fails its CAS. Nor can slot i&mask hold a
//     live item: the sweep runs before every Push, so cleared >= bottom-len,
//     which puts every live index within one ring length above i.
//
// # Memory ordering
//
// Go's sync/atomic operations are sequentially consistent: all of them appear
// in one total order that agrees with each goroutine's program order, and an
// atomic load that observes a store also observes everything written before
// that store. The argument needs exactly these edges:
//
//   - Push writes the slot, then stores bottom. A thief loads bottom, then the
//     ring, then the slot: if it sees the new bottom it sees the item (and, if
//     the Push grew the ring, the new ring, which grow published before
//     bottom).
//   - Pop stores bottom-1, then loads top. Steal loads top, then bottom. In
//     the total order, either the thief's bottom load comes after the owner's
//     store (and the thief sees one item fewer), or the owner's top load comes
//     after the thief's top load, which precedes its CAS. In the contested
//     case (one item left) both then CAS top from the same t, so exactly one
//     wins. This store-then-load is the classic Dekker pattern and is the
//     reason Pop needs a sequentially consistent store to bottom.
//   - Steal loads top before bottom: if it loaded bottom first, an old, large
//     bottom combined with a newer top could make it read past the live range.
//   - Steal loads the ring after bottom, so a ring grown for an item it sees
//     is visible to it; an older ring it may hold still has every item it can
//     successfully CAS for (invariant 6).

import (
	"sync/atomic"

	"golang.org/x/sys/cpu"

	"github.com/gopar-dev/gopar/internal/invariant"
)

// ring is a circular buffer of item slots. Its length is a power of two.
type ring[T any] struct {
	mask  int64 // len(slots)-1
	slots []atomic.Pointer[T]
}

func newRing[T any](size int) *ring[T] {
	return &ring[T]{mask: int64(size - 1), slots: make([]atomic.Pointer[T], size)}
}

// at returns the slot of index i.
func (r *ring[T]) at(i int64) *atomic.Pointer[T] {
	return &r.slots[i&r.mask]
}

// Deque is a Chase-Lev work-stealing deque of *T.
//
// The owner pushes and pops items at the bottom, last in first out, which keeps
// its recent work hot in cache; other goroutines steal from the top, first in
// first out, which hands them the oldest items (in divide-and-conquer work, the
// biggest ones). Push and Pop never compare-and-swap, and so never retry,
// except when the owner and a thief race for the last item.
//
// Its fields are padded onto separate cache lines (cpu.CacheLinePad), so
// that thieves updating top do not slow the owner updating bottom.
//
// The zero value is an empty deque ready to use; its ring is allocated on the
// first Push and grows as needed. Exactly one goroutine, the owner, may call
// Push and Pop; any goroutine may call Steal and Len. A Deque must not be
// copied after first use.
type Deque[T any] struct {
	_ cpu.CacheLinePad // keep top off whatever precedes the deque in memory

	// top is the index of the oldest item: the thieves' end. Changed only by
	// CAS from t to t+1, by thieves and by the owner racing for the last item.
	top atomic.Int64
	_   cpu.CacheLinePad

	// bottom is one past the index of the newest item: the owner's end.
	// Written only by the owner; read by thieves.
	bottom atomic.Int64
	// buf is the current ring. Written only by the owner (grow); read by
	// thieves. It shares bottom's line: a thief reads both, the owner writes
	// it rarely.
	buf atomic.Pointer[ring[T]]
	// cleared is owner-only: the slots of all indices below it, in the current
	// ring, have been nilled (or reused by newer items).
	cleared int64
	// owners counts goroutines inside Push or Pop, under the gopar_debug
	// build tag only: more than one breaks the owner-only rule.
	owners atomic.Int32
	_      cpu.CacheLinePad // keep whatever follows the deque off bottom
}

// Push adds x at the bottom of the deque. Only the owner may call it.
// It panics if x is nil, because Pop reports an empty deque with nil.
func (d *Deque[T]) Push(x *T) {
	if x == nil {
		panic("steal: Deque.Push(nil)")
	}
	if invariant.Enabled {
		d.enterOwner("Push")
		d.push(x)
		d.checkBounds("Push")
		d.owners.Add(-1)
		return
	}
	d.push(x)
}

func (d *Deque[T]) push(x *T) {
	// Only we write bottom, so this load is just a read of our own value.
	b := d.bottom.Load()
	// Thieves may move top at any time; we may see it late, which only
	// underestimates the free room.
	t := d.top.Load()
	r := d.buf.Load()

	// Is the ring full (or not yet allocated)?
	if r == nil || b-t > r.mask {
		// Yes. Grow it (slow path, out of line).
		r = d.grow(r, t, b)
	} else if d.cleared < t {
		// Some items were stolen since we last looked: drop their slots.
		d.clearStolen(r, t)
	}

	// Write the item; no thief reads this slot until it sees the new bottom.
	r.at(b).Store(x)
	// Publish it: a thief that loads this bottom will see the slot.
	d.bottom.Store(b + 1)
}

// Pop removes and returns the item at the bottom of the deque, the most
// recently pushed one, or nil if the deque is empty. Only the owner may call
// it.
func (d *Deque[T]) Pop() *T {
	if invariant.Enabled {
		d.enterOwner("Pop")
		b := d.bottom.Load()
		x := d.pop()
		d.checkBounds("Pop")
		// Invariant 4: an item popped while the deque was not empty is
		// never nil; an empty Pop leaves bottom where it was.
		if x == nil && d.bottom.Load() != b {
			invariant.Failf("Pop returned nil but moved bottom from %d to %d", b, d.bottom.Load())
		}
		d.owners.Add(-1)
		return x
	}
	return d.pop()
}

func (d *Deque[T]) pop() *T {
	b := d.bottom.Load()
	// Is the deque empty? Only we can make it non-empty again, so a stale top
	// cannot make this answer wrong, and we skip the costly store below.
	if t := d.top.Load(); b <= t {
		d.clearStolenIfAny(t)
		return nil
	}

	// Claim the bottom item: thieves that load bottom from now on see b and
	// stay below it.
	b--
	d.bottom.Store(b)
	// Which thieves did we beat to it? (Sequentially consistent: this load
	// cannot move before the store above.)
	t := d.top.Load()
	r := d.buf.Load()

	// Are there other items between us and the thieves?
	if t < b {
		// Yes: no thief can reach index b, it is ours. Take it and clear the
		// slot so it does not keep the item alive.
		return r.at(b).Swap(nil)
	}

	// Was the last item already stolen before we claimed it?
	if t > b {
		// Yes. Put bottom back: the deque is empty, top == bottom.
		d.bottom.Store(b + 1)
		d.clearStolenIfAny(t)
		return nil
	}

	// t == b: one item left, and a thief may be after it too. Race for it
	// with the same CAS a thief uses.
	won := d.top.CompareAndSwap(t, t+1)
	// Either way the deque is now empty: top == bottom == b+1.
	d.bottom.Store(b + 1)
	if !won {
		// A thief got it. Top is past b either way, so no thief can succeed
		// on b or below any more: sweep now, or a deque drained this way
		// would keep the stolen items alive until its next Push.
		d.clearStolen(r, t+1)
		return nil
	}
	// Ours. No thief can succeed on index b any more (top is past it), so
	// the sweep may clear its slot along with any stolen ones below it.
	x := r.at(b).Load()
	d.clearStolen(r, t+1)
	return x
}

// Steal removes and returns the item at the top of the deque, the oldest one.
// Any goroutine may call it. It returns Empty if there was nothing to steal and
// Retry if it lost a race for the item with another thief or with the owner.
func (d *Deque[T]) Steal() (*T, Status) {
	// Load top first: the oldest index we may try to take.
	t := d.top.Load()
	// Then bottom: is there anything at or above t? Loading in this order
	// means a bottom lowered by a concurrent Pop is seen here.
	b := d.bottom.Load()
	if t >= b {
		return nil, Empty
	}
	// The ring loaded after bottom holds item t: Push (and grow) wrote it
	// before publishing this bottom.
	r := d.buf.Load()
	x := r.at(t).Load()
	// Claim index t. If top moved, another thief or the owner took it first,
	// and x may be stale (nil, or an item from a later wrap-around): drop it.
	if !d.top.CompareAndSwap(t, t+1) {
		return nil, Retry
	}
	// Ours. Do not clear the slot: the owner may already have reused it after
	// a wrap-around. The owner sweeps it later (see clearStolen).
	if invariant.Enabled {
		// Invariants 4 and 5: the slot of index t held item t until top
		// moved past t, which our CAS just did.
		if x == nil {
			invariant.Failf("Steal won index %d but read a nil slot", t)
		}
	}
	return x, Success
}

// StealIf is Steal for a thief that may only take some items: it takes the
// item at the top only if ok accepts it, and otherwise returns Empty, as if
// there were nothing to steal: the items under the top are out of a thief's
// reach anyway. ok may be called on an item that another thief or the owner
// takes at the same moment (the CAS then fails and StealIf returns Retry),
// so it must read the item's fields atomically or only fields that do not
// change while the item is in a deque.
func (d *Deque[T]) StealIf(ok func(*T) bool) (*T, Status) {
	t := d.top.Load()
	b := d.bottom.Load()
	if t >= b {
		return nil, Empty
	}
	r := d.buf.Load()
	x := r.at(t).Load()
	// A nil slot was cleared after a steal: top has moved, and so would
	// the CAS below have failed.
	if x == nil {
		return nil, Retry
	}
	// Ours to take? If not, leave it for thieves that may.
	if !ok(x) {
		return nil, Empty
	}
	if !d.top.CompareAndSwap(t, t+1) {
		return nil, Retry
	}
	return x, Success
}

// PopIf is Pop for an owner that may only take some items: it pops the item
// at the bottom if ok accepts it, and otherwise leaves the deque as it is and
// returns nil. Only the owner may call it.
func (d *Deque[T]) PopIf(ok func(*T) bool) *T {
	b := d.bottom.Load()
	t := d.top.Load()
	if b <= t {
		return nil
	}
	// Only we write slots and bottom, so slot b-1 holds the item Pop would
	// take, or one a thief is taking right now (then Pop returns nil: a
	// thief takes the oldest item first, so it took the last one).
	x := d.buf.Load().at(b - 1).Load()
	if x == nil || !ok(x) {
		return nil
	}
	return d.Pop()
}

// Len returns the number of items in the deque. Called by anyone but the
// owner, it is a racy snapshot, good for heuristics only. It is never negative.
func (d *Deque[T]) Len() int {
	t := d.top.Load()
	b := d.bottom.Load()
	if b <= t {
		return 0
	}
	return int(b - t)
}

// grow replaces the ring r, which is full or nil, with one twice as big
// holding the live items [t, b), and publishes it. Owner only; slow path.
//
//go:noinline
func (d *Deque[T]) grow(r *ring[T], t, b int64) *ring[T] {
	if r == nil {
		// First Push: allocate lazily so that the zero Deque is ready to use.
		nr := newRing[T](initialRingSize)
		d.buf.Store(nr)
		d.cleared = t
		return nr
	}
	nr := newRing[T](2 * len(r.slots))
	// Copy the live items to the same indices in the new ring. Thieves may be
	// taking some of them from the old ring meanwhile: if one succeeds on
	// index i, top passes i and the copy at i is simply never read.
	for i := t; i < b; i++ {
		nr.at(i).Store(r.at(i).Load())
	}
	// Publish the new ring before the bottom that may refer to it (Push
	// stores bottom after we return). The old ring is left untouched: thieves
	// that loaded it still read valid items from it, and the garbage collector
	// frees it when the last one lets go.
	d.buf.Store(nr)
	// Nothing below t was copied, so nothing below t needs clearing.
	d.cleared = t
	return nr
}

// clearStolenIfAny is clearStolen for the current ring, if items were stolen
// since the last sweep.
func (d *Deque[T]) clearStolenIfAny(t int64) {
	if d.cleared < t {
		d.clearStolen(d.buf.Load(), t)
	}
}

// clearStolen nils the slots of the stolen indices [d.cleared, t) in ring r.
// Owner only; t must be a value of top loaded by the owner.
//
// Safe because every such index is below top: no thief can succeed on it again
// (a thief's CAS is from the index it read), and no live item shares its slot
// (the live indices lie in [top, bottom), less than one ring length above
// d.cleared, since every Push sweeps first).
//
//go:noinline
func (d *Deque[T]) clearStolen(r *ring[T], t int64) {
	i := d.cleared
	if invariant.Enabled {
		if t > d.top.Load() {
			invariant.Failf("sweeping up to %d, above top %d: a live item would be lost", t, d.top.Load())
		}
	}
	// At most a ring's worth can be pending (see above); this only guards it.
	if n := int64(len(r.slots)); t-i > n {
		i = t - n
	}
	for ; i < t; i++ {
		r.at(i).Store(nil)
	}
	d.cleared = t
}

// enterOwner records that the calling goroutine acts as the owner, and
// fails if another one already does (gopar_debug only).
func (d *Deque[T]) enterOwner(op string) {
	n := d.owners.Add(1)
	if n != 1 {
		invariant.Failf("Deque.%s while another goroutine is in Push or Pop: the owner-only operations were called concurrently", op)
	}
}

// checkBounds checks invariants 2 and 3 after an owner operation
// (gopar_debug only). Thieves only raise top, so a stale top can only make
// bottom-top look larger, never break top <= bottom.
func (d *Deque[T]) checkBounds(op string) {
	b := d.bottom.Load()
	t := d.top.Load()
	if t > b {
		invariant.Failf("after %s: top %d > bottom %d", op, t, b)
	}
	if r := d.buf.Load(); r != nil {
		if b-t > int64(len(r.slots)) {
			invariant.Failf("after %s: %d items in a ring of %d", op, b-t, len(r.slots))
		}
	}
}
