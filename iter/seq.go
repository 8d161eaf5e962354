package iter

import (
	"iter"
	"math"
	"sync/atomic"
	"time"
)

// A pipeline over an iter.Seq (FromSeq) has no items to address until the
// seq produces them. Its Spec addresses items by their position in the seq,
// over [0, math.MaxInt), through a window onto the current batch, and its
// Config carries the window as a batchSource. Run, given such a Config,
// picks the sequence driver, runSeq: a feeder goroutine pulls the seq
// (feed.go) while the caller takes what it pulled as a batch into the
// window, runs an ordinary parallel loop over the batch's positions,
// combines the result into what came before, and takes the next batch,
// until the seq ends or the Reducer says the result is decided. The seq is
// therefore called on one goroutine, one item at a time, and the adapters
// built on the Spec (Map, Filter) and every terminal operation need no
// change. (The stream driver, whose producer goroutine already runs beside
// the loop that takes its items, pulls the seq itself: window.batches.)

// batchSource drives a seq in batches: body runs the batch at positions
// [lo, hi) and says whether to go on.
type batchSource interface {
	// batches pulls on the calling goroutine; done ends the wait of a
	// channel's seq.
	batches(b *batching, done <-chan struct{}, body func(lo, hi int) bool)
	// fed is batches with the seq pulled by a feeder (feed.go) while body
	// runs, each batch all the items that wait (at least least, but the
	// last, and up to about most). It returns the number of items the seq
	// yielded and whether it ended by itself. Unless exact, a context done
	// from the start keeps the seq from being pulled at all; with exact,
	// the seq is pulled, so that n and ended tell whether the context left
	// an item out.
	fed(least, most int, exact bool, done <-chan struct{}, body func(lo, hi int) bool) (n int, ended bool)
	// open starts a feeder for the blocking sequence driver, whose
	// goroutines take the items a block at a time into a ring of ring
	// slots (a power of two). Nil: the seq is nil, or done is closed and
	// not exact (the seq is not pulled at all).
	// The feeder runs ahead as in fed, by at least least items.
	open(ring, least int, exact bool, done <-chan struct{}) seqTaker
}

// seqTaker hands the items of a seq, in order, to the goroutines of the
// blocking sequence driver (runBlockingSeq). Its caller serializes take,
// and never takes an item into a slot whose item may still run.
type seqTaker interface {
	// take moves the next items, at most k, into the window, at positions
	// [lo, hi), waiting for the feeder if none waits. False: the seq has
	// ended and every item was taken, or done was closed.
	take(k int, done <-chan struct{}) (lo, hi int, ok bool)
	// stop ends the feeder, if it still runs, and waits until it has:
	// n items were pulled, and ended tells whether the seq returned by
	// itself. The iterator may then run another operation.
	stop() (n int, ended bool)
	// raise passes on a panic or runtime.Goexit of the seq, after stop.
	raise()
}

// Batch sizes adapt to the item cost: a batch should take about
// batchTarget (pulled and run), long enough that waking the pool (see
// goParallelAfter) and the pause between batches stay small.
const (
	batchTarget = time.Millisecond
	maxBatch    = 1 << 16
	// blockingBatches: in blocking mode, a batch holds at least this many
	// times the limit (see runSeq).
	blockingBatches = 4
)

// batching sizes the batches of the sequence and stream drivers: a batch
// holds at least least items (but the last) and at most most, and grows
// while batches take under batchTarget/2, shrinks when they take over
// twice it.
type batching struct {
	least, most int
	size        int // items in the next batch
	// reserve, if not nil, is called before a batch of up to size items is
	// pulled or started: the stream driver waits there for room in its
	// window. False stops the loop.
	reserve func(size int) bool
	start   time.Time // when the current batch started
}

// newBatching returns the batching of the sequence and stream drivers for
// cfg: in blocking mode a batch holds at least blockingBatches times the
// limit, so that the limit is reached (a batch sized by time alone would
// hold one item that waits a millisecond, and run it alone). A positive
// bound bounds every batch, least included; 0 lets batches grow to
// maxBatch, or least if that is more.
func newBatching(cfg Config, bound int) *batching {
	least := 1
	if cfg.Blocking > 0 {
		least = blockingBatches * cfg.Blocking
	}
	most := max(maxBatch, least)
	if bound > 0 {
		least, most = min(least, bound), bound
	}
	return &batching{least: least, most: most, size: least}
}

// ready waits, if it must, until the next batch may start, and starts its
// clock; false stops the loop.
func (b *batching) ready() bool {
	if b.reserve != nil && !b.reserve(b.size) {
		return false
	}
	b.start = time.Now()
	return true
}

// adapt sizes the next batch after one has ended.
func (b *batching) adapt() {
	took := time.Since(b.start)
	switch {
	case took < batchTarget/2 && b.size < b.most:
		b.size = min(2*b.size, b.most)
	case took > 2*batchTarget && b.size > b.least:
		b.size = max(b.size/2, b.least)
	}
}

// FromSeq is the Spec of the items of seq, in order. See the package par
// for the guarantees.
func FromSeq[T any](seq iter.Seq[T]) Spec[T] {
	w := &window[T]{seq: seq}
	return Spec[T]{
		Lo: 0, Hi: math.MaxInt,
		Config: Config{seq: w},
		kind:   formGen,
		gen:    func(i int) (T, bool) { return w.items[(i-w.base)&w.mask], true },
	}
}

// FromChan is the Spec of the values received from ch until it is closed.
// It is FromSeq of a range over ch, except that a driver that stops
// pulling also stops waiting on ch.
func FromChan[T any](ch <-chan T) Spec[T] {
	s := FromSeq[T](nil)
	s.seq.(*window[T]).recv = ch
	return s
}

// empty reports whether w has no seq at all (FromSeq(nil)).
func (w *window[T]) empty() bool { return w.seq == nil && w.recv == nil }

// source returns the seq to pull. A channel's returns when quit is closed
// while it waits, setting *cut unless the channel was closed and empty (so
// that the driver does not take it for the end of the items). Before it
// waits on an empty channel it calls idle, if not nil, which may hand on
// the items pulled so far; false stops the seq.
func (w *window[T]) source(quit <-chan struct{}, cut *bool, idle func() bool) iter.Seq[T] {
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
func (s *Spec[T]) IsSeq() bool { return s.seq != nil }

// window is the current batch of a seq: the item at position i is
// items[(i-base)&mask]. The batch drivers set mask to -1 (all ones), so
// that the items at [base, base+len(items)) are the batch; the blocking
// driver (open) makes items a ring of a power of two slots, base 0.
type window[T any] struct {
	seq   iter.Seq[T]
	recv  <-chan T // FromChan's channel, instead of seq
	busy  atomic.Bool
	base  int
	mask  int
	items []T
}

// batches pulls the seq into batches of b's sizes on the calling goroutine
// and runs body on each (the stream driver's way through a seq: its
// producer goroutine already runs beside the loop that takes the items).
func (w *window[T]) batches(b *batching, done <-chan struct{}, body func(lo, hi int) bool) {
	// A second operation on the same iterator is refused first, whatever
	// the state of its context.
	if !w.busy.CompareAndSwap(false, true) {
		panic("gopar: an iterator from par.FromSeq runs one terminal operation at a time")
	}
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
		w.base, w.items = w.base+len(w.items), buf
		more = body(w.base, w.base+len(buf))
		b.adapt()
		buf = buf[:0]
		// The next item is pulled once the next batch may start.
		return more && b.ready()
	}
	w.base, w.items, w.mask = 0, nil, -1
	if !b.ready() {
		return
	}
	idle := func() bool {
		if len(buf) > 0 && !flush() {
			stopped = true
		}
		return !stopped
	}
	w.source(done, &cut, idle)(func(v T) bool {
		if stopped {
			if caught != nil {
				// yield returned false because a callback panicked:
				// that panic, with its stack, is the one to report.
				panic(caught)
			}
			panic("gopar: par.FromSeq: the sequence called yield again after yield returned false")
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
	w.items = nil
	if caught != nil {
		panic(caught)
	}
}

func (w *window[T]) fed(least, most int, exact bool, done <-chan struct{}, body func(lo, hi int) bool) (n int, ended bool) {
	if !w.busy.CompareAndSwap(false, true) {
		panic("gopar: an iterator from par.FromSeq runs one terminal operation at a time")
	}
	defer w.busy.Store(false)
	if w.empty() {
		return 0, true
	}
	if isClosed(done) && !exact {
		return 0, false // not pulled at all
	}
	f := startFeed(w, least, most)
	normal := false
	defer func() {
		if !normal {
			f.stop() // body panicked: its panic goes on, the seq's is dropped
		}
	}()
	w.runBatches(func(batch []T) ([]T, bool) { return f.take(batch, least, most, done) }, body)
	f.stop()
	normal = true
	f.raise()
	return f.pulled, f.ended
}

// runBatches runs body over the batches that next appends to an empty batch,
// each in turn the window's items, at the positions after the last
// batch's, until next gives none or body returns false. It returns the
// number of items handed to body.
func (w *window[T]) runBatches(next func(batch []T) ([]T, bool), body func(lo, hi int) bool) (taken int) {
	w.base, w.items, w.mask = 0, nil, -1
	var batch []T
	for {
		var ok bool
		if batch, ok = next(batch[:0]); !ok {
			break
		}
		w.base, w.items = taken, batch
		taken += len(batch)
		if !body(w.base, taken) {
			break
		}
	}
	w.items = nil
	return taken
}

func (w *window[T]) open(ring, least int, exact bool, done <-chan struct{}) seqTaker {
	if !w.busy.CompareAndSwap(false, true) {
		panic("gopar: an iterator from par.FromSeq runs one terminal operation at a time")
	}
	if w.empty() || isClosed(done) && !exact {
		w.busy.Store(false)
		return nil
	}
	w.base, w.items, w.mask = 0, make([]T, ring), ring-1
	return &ringTaker[T]{w: w, f: startFeed(w, least, maxBatch)}
}

// ringTaker is the seqTaker of a window.
type ringTaker[T any] struct {
	w       *window[T]
	f       *feed[T]
	pending []T // taken from the feeder, not yet into the ring: pending[at:]
	at      int
	next    int // the position of pending[at]
	over    bool
	stopped bool
}

func (t *ringTaker[T]) take(k int, done <-chan struct{}) (lo, hi int, ok bool) {
	if t.at == len(t.pending) {
		if t.over {
			return 0, 0, false
		}
		t.pending, ok = t.f.take(t.pending[:0], 1, feedChunk, done)
		t.at = 0
		if !ok {
			t.over = !isClosed(done) // the feeder ended
			return 0, 0, false
		}
	}
	n := min(k, len(t.pending)-t.at)
	lo, hi = t.next, t.next+n
	for i, v := range t.pending[t.at : t.at+n] {
		t.w.items[(lo+i)&t.w.mask] = v
	}
	t.at += n
	t.next = hi
	return lo, hi, true
}

func (t *ringTaker[T]) stop() (n int, ended bool) {
	if !t.stopped {
		t.stopped = true
		t.f.stop()
		t.w.items = nil
		t.w.busy.Store(false)
	}
	return t.f.pulled, t.f.ended
}

func (t *ringTaker[T]) raise() { t.f.raise() }

// runSeq is the sequence driver, for a pipeline over a seq (cfg.seq !=
// nil): one loop per batch, on the pool or blocking driver (drive),
// combined in order. The observers were started once, by Run, for all the
// batches.
func runSeq[A any](cfg Config, r Reducer[A]) A {
	src := cfg.seq
	cfg.seq = nil
	if cfg.Blocking != 0 {
		return runBlockingSeq(cfg, src, r)
	}
	done := cfg.done()
	var acc A // the first batch's result, then the batches' so far
	have := false
	b := newBatching(cfg, 0)
	n, ended := src.fed(b.least, b.most, r.SeqLen != nil, done, func(lo, hi int) bool {
		part := drive(cfg, lo, hi, r) // nothing runs once done is closed
		switch {
		case !have:
			acc, have = part, true
		case r.Combine != nil:
			acc = r.Combine(acc, part)
		}
		return !r.decided(acc, hi, done)
	})
	if ended && r.SeqLen != nil {
		r.SeqLen(n)
	}
	if !have {
		acc = r.identity()
	}
	return acc
}
