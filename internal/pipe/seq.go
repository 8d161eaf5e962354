package pipe

import (
	"context"
	"iter"
	"math"
	"sync/atomic"
	"unsafe"
)

// A pipeline over an iter.Seq (FromSeq) has no items to address until the
// seq produces them. Its Spec addresses items by their position in the seq,
// over [0, math.MaxInt), through a store that holds the items pulled
// (seqStore), and its Config carries the store as a batchSource. Run, given such a Config,
// picks the sequence driver, runSeq: a feeder goroutine pulls the seq
// (feed.go) while the loop's participants take what it pulled, a chunk at
// a time, into the store's ring and fold each chunk's positions, until
// the seq ends or the Reducer says the result is decided (seqpool.go,
// seqloop.go). The seq is therefore called on one goroutine, one item at
// a time, and the adapters
// built on the Spec (Map, Filter) and every terminal operation need no
// change; a Stream's loop over a seq is this one loop too. (A restream's
// producer, whose goroutine already runs beside the loop that takes its
// items, pulls the seq itself: seqStore.batches.)

// batchSource drives a seq in batches: body runs the batch at positions
// [lo, hi) and says whether to go on.
type batchSource interface {
	// batches pulls on the calling goroutine; done ends the wait of a
	// channel's seq.
	batches(b *batching, done <-chan struct{}, body func(lo, hi int) bool)
	// open starts a feeder for the sequence drivers, whose participants
	// take the items a chunk at a time into a ring (see seqRing). Nil: the
	// seq is nil, or done is closed and not o.exact (the seq is not pulled
	// at all).
	open(o seqRing, done <-chan struct{}) seqTaker
	// itemSize is the size of an item in the ring, which the sequence
	// drivers size by it.
	itemSize() uintptr
}

// seqRing is how a sequence driver opens a seq (batchSource.open).
type seqRing struct {
	slots int // the ring's slots, a power of two
	span  int // at most this many positions past the oldest in use hold items (at most slots)
	least int // the feeder runs ahead of the takes by at least least items (see feed.go)
	// exact: the seq is pulled even if done is closed, so that the number
	// of items and the end that seqTaker.stop reports tell whether the
	// context left an item out.
	exact bool
	// stream: the loop's results go to a stream (stream.go), whose
	// consumer holds the positions it has not taken in use. The feeder
	// runs at most as far past the oldest position in use as that
	// position (at least least), as it runs ahead of the takes, so that a
	// loop body that stops after k items has had O(k) items pulled; and
	// the seq makes no item before the span has room for it.
	stream bool
	// arrive, if not nil, is called by the feeder after it publishes an
	// item while no taker waits for one (the pool's helpers, poolSeq).
	arrive func()
	// stats, if not nil, is the operation's record, to which the feeder
	// adds the most items it held and its waits for room (stats.go).
	stats *opStats
	// ctx, if not nil, is the operation's context: a seq that takes a
	// context (FromSeqContext) gets one made from it.
	ctx context.Context
}

// seqTaker holds the items of a seq, in order, for the participants of the
// sequence drivers (runPoolSeq, runBlockingSeq), which seqBlocks hands out:
// the items arrive in the store's ring, at their positions.
type seqTaker interface {
	// arrived returns how many items have arrived: positions [0, n), of
	// which those at or above the last release are in the ring.
	arrived() int
	// wait returns once more than n items have arrived, no more will
	// come, or done is closed. One caller at a time.
	wait(n int, done <-chan struct{})
	// over reports whether no item will arrive after the first n.
	over(n int) bool
	// handed says that the positions below hi were handed out: a feeder
	// runs ahead of them (see feed.go).
	handed(hi int)
	// release says that no position below low is in use any more: the
	// positions up to low+span may take new items.
	release(low int)
	// stop ends the feeder, if it still runs, and waits until it has:
	// n items were pulled, and ended tells whether the seq returned by
	// itself. The iterator may then run another operation.
	stop() (n int, ended bool)
	// raise passes on a panic or runtime.Goexit of the seq, after stop.
	raise()
}

// FromSeq is the Spec of the items of seq, in order. See the package par
// for the guarantees.
func FromSeq[T any](seq iter.Seq[T]) Spec[T] {
	w := &seqStore[T]{seq: seq}
	return Spec[T]{
		Lo: 0, Hi: math.MaxInt,
		Config: Config{seq: w},
		kind:   formGen,
		gen:    func(i int) (T, bool) { return w.at(i), true },
	}
}

// FromSeqContext is FromSeq of a seq that takes a context: the operation's
// context (Config.Context, or context.Background), cancelled with cause
// stopped once the driver stops pulling, so that a seq that waits on a
// request made with it stops waiting then. The context ends when seq
// returns.
func FromSeqContext[T any](seq func(ctx context.Context, yield func(T) bool), stopped error) Spec[T] {
	s := FromSeq[T](nil)
	w := s.seq.(*seqStore[T])
	w.seqCtx, w.stopped = seq, stopped
	return s
}

// FromChan is the Spec of the values received from ch until it is closed.
// It is FromSeq of a range over ch, except that a driver that stops
// pulling also stops waiting on ch.
func FromChan[T any](ch <-chan T) Spec[T] {
	s := FromSeq[T](nil)
	s.seq.(*seqStore[T]).recv = ch
	return s
}

// empty reports whether w has no seq at all (FromSeq(nil)).
func (w *seqStore[T]) empty() bool { return w.seq == nil && w.recv == nil && w.seqCtx == nil }

// source returns the seq to pull. A channel's returns when quit is closed
// while it waits, setting *cut unless the channel was closed and empty (so
// that the driver does not take it for the end of the items). Before it
// waits on an empty channel it calls idle, if not nil, which may hand on
// the items pulled so far; false stops the seq. A seq that takes a context
// gets one made from ctx (nil: context.Background), cancelled once quit is
// closed.
func (w *seqStore[T]) source(ctx context.Context, quit <-chan struct{}, cut *bool, idle func() bool) iter.Seq[T] {
	if w.seqCtx != nil {
		if ctx == nil {
			ctx = context.Background()
		}
		return func(yield func(T) bool) {
			sctx, cancel := context.WithCancelCause(ctx)
			returned := make(chan struct{})
			defer func() {
				close(returned)
				cancel(nil)
			}()
			if quit != nil {
				go func() {
					select {
					case <-quit:
						cancel(w.stopped)
					case <-returned:
					}
				}()
			}
			w.seqCtx(sctx, yield)
		}
	}
	if w.recv == nil {
		return w.seq
	}
	ch := w.recv
	return func(yield func(T) bool) {
		for {
			var v T
			ok := false
			select {
			case v, ok = <-ch:
				if !ok || !yield(v) {
					return
				}
				continue
			default:
			}
			if idle != nil && !idle() {
				*cut = true
				return
			}
			select {
			case v, ok = <-ch:
			case <-quit:
				select {
				case v, ok = <-ch: // an item that came with quit goes to yield, which stops
				default:
					*cut = true // open and empty: more items may come
					return
				}
			}
			if !ok || !yield(v) {
				return
			}
		}
	}
}

// IsSeq reports whether s is a pipeline over an iter.Seq, whose length is
// unknown until it has run.
func IsSeq[T any](s *Spec[T]) bool { return s.seq != nil }

// seqStore holds a seq's items: the seq (or the channel) they come from,
// and where they are written by position, which the Spec of the seq reads
// them from: the current batch of the batch drivers, the items at
// positions [base, base+len(batch)), or the ring of the sequence drivers
// (open), where position i lives in slot i&(slots-1). The ring's slots come in segments of seqSegment, each
// allocated when the feeder first writes into it, so that a short seq
// costs a segment, not a ring: a ring holds up to seqRingMost slots.
type seqStore[T any] struct {
	seq  iter.Seq[T]
	recv <-chan T // FromChan's channel, instead of seq
	// seqCtx is FromSeqContext's seq, instead of seq, and stopped the
	// cause of its context's cancelling.
	seqCtx  func(context.Context, func(T) bool)
	stopped error
	busy    atomic.Bool
	base    int
	batch   []T              // the batch, where ring is nil
	ring    []*[seqSegment]T // the ring's segments, nil until written
	slots   int              // the ring's slots: len(ring)*seqSegment
}

// at returns the item at position i.
func (w *seqStore[T]) at(i int) T {
	if w.ring == nil {
		return w.batch[i-w.base]
	}
	return w.ring[(i&(w.slots-1))>>seqSegmentShift][i&(seqSegment-1)]
}

// put writes v at position p of the ring, allocating its segment the first
// time. Only the feeder writes; a participant reads a position once it has
// been published, after its segment was stored.
func (w *seqStore[T]) put(p int, v T) {
	s := &w.ring[(p&(w.slots-1))>>seqSegmentShift]
	if *s == nil {
		*s = new([seqSegment]T)
	}
	(*s)[p&(seqSegment-1)] = v
}

// openRing makes w's ring, of at least slots slots (a power of two), and
// returns its size.
func (w *seqStore[T]) openRing(slots int) int {
	slots = max(slots, seqSegment)
	w.base, w.batch = 0, nil
	w.ring, w.slots = make([]*[seqSegment]T, slots/seqSegment), slots
	return slots
}

// itemSize is the size of an item in the ring.
func (w *seqStore[T]) itemSize() uintptr {
	var zero T
	return unsafe.Sizeof(zero)
}

// batches pulls the seq into batches of b's sizes on the calling goroutine
// and runs body on each (a restream's way through a seq: its producer
// goroutine already runs beside the loop that takes the items).
func (w *seqStore[T]) batches(b *batching, done <-chan struct{}, body func(lo, hi int) bool) {
	// A second operation on the same iterator is refused first, whatever
	// the state of its context.
	w.acquire()
	defer w.busy.Store(false)
	if w.empty() {
		return
	}
	var (
		cut     bool
		buf     []T
		stopped bool
		caught  any // a panic in body, re-raised once seq has returned
	)
	flush := func() (more bool) {
		defer func() {
			if v := recover(); v != nil {
				caught, more = v, false
			}
		}()
		w.base, w.batch = w.base+len(w.batch), buf
		more = body(w.base, w.base+len(buf))
		b.adapt()
		buf = buf[:0]
		// The next item is pulled once the next batch may start.
		return more && b.ready()
	}
	w.base, w.batch, w.ring = 0, nil, nil
	if !b.ready() {
		return
	}
	idle := func() bool {
		if len(buf) > 0 && !flush() {
			stopped = true
		}
		return !stopped
	}
	w.source(nil, done, &cut, idle)(func(v T) bool {
		if stopped {
			yieldAgain(caught)
		}
		buf = append(buf, v)
		if len(buf) >= b.size && !flush() {
			stopped = true
		}
		return !stopped
	})
	if !stopped && len(buf) > 0 {
		flush()
	}
	w.batch = nil
	if caught != nil {
		panic(caught)
	}
}

// yieldAgain panics for a seq that called yield again after yield
// returned false. If caught is not nil, yield returned false because a
// callback panicked with caught: that panic, with its stack, is the one to
// report.
func yieldAgain(caught any) {
	if caught != nil {
		panic(caught)
	}
	panic("gopar: par.FromSeq: the sequence called yield again after yield returned false")
}

// acquire refuses a second operation on w's iterator while one runs.
func (w *seqStore[T]) acquire() {
	if !w.busy.CompareAndSwap(false, true) {
		panic("gopar: an iterator from par.FromSeq runs one terminal operation at a time")
	}
}

func (w *seqStore[T]) open(o seqRing, done <-chan struct{}) seqTaker {
	w.acquire()
	if w.empty() || isClosed(done) && !o.exact {
		w.busy.Store(false)
		return nil
	}
	o.slots = w.openRing(o.slots)
	return &ringTaker[T]{w: w, f: startFeed(w, o)}
}

// ringTaker is the seqTaker of a seqStore: the feeder writes the items
// into the store's ring itself.
type ringTaker[T any] struct {
	w       *seqStore[T]
	f       *feed[T]
	stopped bool
}

func (t *ringTaker[T]) arrived() int                     { return int(t.f.published.Load()) }
func (t *ringTaker[T]) wait(n int, done <-chan struct{}) { t.f.wait(int64(n), done) }
func (t *ringTaker[T]) over(n int) bool                  { return t.f.over(int64(n)) }
func (t *ringTaker[T]) handed(hi int)                    { t.f.handed(int64(hi)) }
func (t *ringTaker[T]) release(low int)                  { t.f.release(low) }

func (t *ringTaker[T]) stop() (n int, ended bool) {
	if !t.stopped {
		t.stopped = true
		t.f.stop()
		t.w.ring = nil
		t.w.busy.Store(false)
	}
	return t.f.pulled, t.f.done
}

func (t *ringTaker[T]) raise() { t.f.ending.raise() }

// runSeq is the sequence driver, for a pipeline over a seq (cfg.seq !=
// nil): one loop over the whole seq, on the pool (runPoolSeq) or the
// blocking driver's goroutines (runBlockingSeq). The observers were started
// by Run.
func runSeq(cfg Config, r Reducer[any]) any {
	src := cfg.seq
	cfg.seq = nil
	if cfg.Blocking != 0 {
		return runBlockingSeq(cfg, src, r)
	}
	return runPoolSeq(cfg, src, r)
}
