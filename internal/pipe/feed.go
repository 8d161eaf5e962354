package pipe

import (
	"context"
	"sync/atomic"
	"time"
)

// The feeder: how the sequence drivers overlap a seq with the work. A
// goroutine of the operation's own pulls the seq, one item at a time and
// never concurrently, and writes each item straight into the store's ring
// at its position, where the loop's participants fold it once they have
// taken it. Publishing an item is one atomic store: a participant that
// takes sees every item written so far, so a slow seq's items are taken up
// one by one as they come, and a fast one's in chunks of whatever has
// arrived, with nothing copied or allocated per chunk.
//
// Backpressure: the feeder runs ahead of the positions handed out by at
// most as many items as were handed out so far (at least least, at most
// most; seqBlocks says how far it handed out), so memory stays
// bounded however long the seq, and an operation decided early (a search
// that matches at item m) has had O(m) items pulled, not a bound's worth.
// Nor does it write into a slot of the ring whose item may still run: the
// takers tell it (release) the oldest position still in use, and it writes
// at most span past it: a ring, or less for a stream, whose positions stay
// in use until its consumer has taken their items.
//
// Waiting: a taker that finds no item sets waiting, looks again, and sleeps
// on wake; the feeder, after it publishes an item, wakes a taker that
// waits. Both sides use sequentially consistent atomics, so either the
// taker's second look sees the item or the feeder sees waiting: no wake-up
// is lost. A feeder that may not run further ahead sleeps on room, which
// every take and release signal.
//
// Stopping: the driver closes quit; the feeder's next yield returns false,
// and a feeder that waits for room returns; the driver then waits for it to
// end (ended is closed), so no goroutine is left behind. A panic or
// runtime.Goexit of the seq ends the feeder, which records it before it
// closes ended; the driver re-raises it on its goroutine once every item
// that came before has run.

// feed is the state that the feeder and the takers share.
type feed[T any] struct {
	w           *seqStore[T]
	span        int64  // the positions past low that may hold items: at most the ring's slots
	stream      bool   // seqRing.stream
	exact       bool   // seqRing.exact: the seq is asked for its next item before a stop, to learn its end
	arrive      func() // seqRing.arrive, or nil
	least, most int64

	quit  quitter       // closed by the driver: pull no more
	ended chan struct{} // closed by the feeder once it has returned

	published atomic.Int64  // the items written into the ring: positions [0, published)
	taken     atomic.Int64  // the positions handed out lie below taken
	low       atomic.Int64  // the oldest position still in use: the feeder writes below low+span
	waiting   atomic.Bool   // a taker waits for an item
	wake      chan struct{} // feeder to taker: an item came (capacity 1)
	room      chan struct{} // taker to feeder: taken or low moved (capacity 1)

	// The operation's statistics, if it collects them (seqRing.stats):
	// the feeder's own counts, added to stats as it ends.
	stats    *opStats
	ctx      context.Context // seqRing.ctx
	held     int64           // the most positions in use at once, from low to what was published
	heldBack time.Duration   // the feeder's waits for room

	// Written by the feeder before it closes ended.
	pulled int    // items the seq yielded
	done   bool   // the seq returned by itself, not after a false yield
	ending ending // a panic or runtime.Goexit of the seq
}

// startFeed starts a feeder that pulls the seq of w into its ring, opened
// as o says: ahead of the takes by as many items as were taken, at least
// o.least and at most half the ring (at least maxBatch), and at most o.span
// past the oldest position in use.
func startFeed[T any](w *seqStore[T], o seqRing) *feed[T] {
	f := &feed[T]{
		w: w, span: int64(min(max(o.span, 1), o.slots)), stream: o.stream, exact: o.exact, arrive: o.arrive,
		least: int64(max(o.least, 1)), most: int64(max(maxBatch, o.slots/2)),
		stats: o.stats, ctx: o.ctx,
		ended: make(chan struct{}),
		wake:  make(chan struct{}, 1),
		room:  make(chan struct{}, 1),
	}
	f.quit.open()
	go f.run()
	return f
}

// full reports whether the feeder may not write position p yet: it is as
// far ahead of the takes as it may be, or the slot's item may still run.
func (f *feed[T]) full(p int64) bool {
	taken, low := f.taken.Load(), f.low.Load()
	if f.stream && p-low >= max(low, f.least) {
		return true // as far past what the stream's consumer took as it took
	}
	return p-taken >= min(max(taken, f.least), f.most) || p-low >= f.span
}

// hold waits, for a stream, until the feeder may write position p or must
// stop, before the seq makes the item (see seqRing.stream); false: stop.
func (f *feed[T]) hold(p int64) bool {
	if f.stream {
		f.await(p)
	}
	return !f.quit.isClosed()
}

// await waits until the feeder may write position p, or must stop.
func (f *feed[T]) await(p int64) {
	var t0 time.Time
	for !f.quit.isClosed() && f.full(p) {
		if f.stats != nil && t0.IsZero() {
			t0 = time.Now()
		}
		select {
		case <-f.room:
		case <-f.quit.done():
		}
	}
	if !t0.IsZero() {
		f.heldBack += time.Since(t0)
	}
}

// run is the feeder's goroutine: it pulls the seq, records how the pull
// ended, and closes ended.
func (f *feed[T]) run() {
	defer func() {
		f.stats.source(int(f.held), f.w.itemSize(), f.heldBack)
		close(f.ended)
	}()
	f.ending.run(f.pull)
}

// pull pulls the seq into the ring until it ends or the feeder must stop.
func (f *feed[T]) pull() {
	var cut bool // a channel's seq returned at quit, perhaps before its end
	w := f.w
	stopped := false
	w.source(f.ctx, f.quit.done(), &cut, nil)(func(v T) bool {
		if stopped {
			panic("gopar: par.FromSeq: the sequence called yield again after yield returned false")
		}
		p := int64(f.pulled)
		// May the item go into the ring? If not, wait for the takers.
		f.await(p)
		if f.quit.isClosed() {
			stopped = true
			return false
		}
		w.put(int(p), v)
		f.pulled++
		f.published.Store(p + 1)
		if f.stats != nil {
			f.held = max(f.held, p+1-f.low.Load())
		}
		// Does a taker wait for it? (After the store: see "Waiting".)
		// If none does, arrive may offer one (seqRing.arrive).
		if f.waiting.Load() {
			signal(f.wake)
		} else if f.arrive != nil {
			f.arrive()
		}
		// A stop that comes now ends the seq at once, unless the loop
		// must know whether the seq had more (exact): then the seq is
		// asked for its next item first, and a seq that has none ends by
		// itself, as the stop found it.
		if !f.hold(p+1) && !f.exact {
			stopped = true
			return false
		}
		return true
	})
	f.done = !stopped && !cut
}

// wait returns once more than n items have been published, the feeder
// has ended, or done is closed. One caller at a time.
func (f *feed[T]) wait(n int64, done <-chan struct{}) {
	for f.published.Load() <= n {
		select {
		case <-f.ended:
			return
		default:
		}
		// Nothing yet: say so, look once more, then sleep.
		f.waiting.Store(true)
		if f.published.Load() > n {
			f.waiting.Store(false)
			return
		}
		select {
		case <-f.wake:
		case <-f.ended:
		case <-done:
		}
		f.waiting.Store(false)
		if isClosed(done) {
			return
		}
	}
}

// over reports whether the feeder has ended with n items published.
func (f *feed[T]) over(n int64) bool {
	select {
	case <-f.ended:
		return f.published.Load() <= n
	default:
		return false
	}
}

// handed says that the positions below hi were handed out: the feeder may
// run further ahead. Its callers serialize it.
func (f *feed[T]) handed(hi int64) {
	if hi > f.taken.Load() {
		f.taken.Store(hi)
		signal(f.room) // wakes the feeder if it waits for room
	}
}

// release tells the feeder that no position below low is in use any more:
// it may write the positions up to low+span.
func (f *feed[T]) release(low int) {
	if int64(low) > f.low.Load() {
		f.low.Store(int64(low))
		signal(f.room) // wakes the feeder if it waits for room
	}
}

// stop ends the feeder, if it still runs, and waits until it has. It is
// idempotent.
func (f *feed[T]) stop() {
	f.quit.close()
	<-f.ended
}
