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
	batches(b *batching, body func(lo, hi int) bool)
	// fed is batches with the seq pulled by a feeder (feed.go) while body
	// runs, each batch all the items that wait (at least least, but the
	// last, and up to about most). It returns the number of items the seq
	// yielded and whether it ended by itself. Unless exact, a context done
	// from the start keeps the seq from being pulled at all; with exact,
	// the seq is pulled, so that n and ended tell whether the context left
	// an item out.
	fed(least, most int, exact bool, done <-chan struct{}, body func(lo, hi int) bool) (n int, ended bool)
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
		gen:    func(i int) (T, bool) { return w.items[i-w.base], true },
	}
}

// IsSeq reports whether s is a pipeline over an iter.Seq, whose length is
// unknown until it has run.
func (s *Spec[T]) IsSeq() bool { return s.seq != nil }

// window is the current batch of a seq: items are at positions
// [base, base+len(items)).
type window[T any] struct {
	seq   iter.Seq[T]
	busy  atomic.Bool
	base  int
	items []T
}

// batches pulls the seq into batches of b's sizes on the calling goroutine
// and runs body on each (the stream driver's way through a seq: its
// producer goroutine already runs beside the loop that takes the items).
func (w *window[T]) batches(b *batching, body func(lo, hi int) bool) {
	// A second operation on the same iterator is refused first, whatever
	// the state of its context.
	if !w.busy.CompareAndSwap(false, true) {
		panic("gopar: an iterator from par.FromSeq runs one terminal operation at a time")
	}
	defer w.busy.Store(false)
	if w.seq == nil {
		return
	}
	var (
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
	w.base, w.items = 0, nil
	if !b.ready() {
		return
	}
	w.seq(func(v T) bool {
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
	if w.seq == nil {
		return 0, true
	}
	if isClosed(done) && !exact {
		return 0, false // not pulled at all
	}
	f := startFeed(w.seq, least, most)
	normal := false
	defer func() {
		if !normal {
			f.stop() // body panicked: its panic goes on, the seq's is dropped
		}
	}()
	w.base, w.items = 0, nil
	var batch []T
	taken := 0
	for {
		var more bool
		if batch, more = f.take(batch[:0], least, most); !more {
			break
		}
		w.base, w.items = taken, batch
		taken += len(batch)
		if !body(w.base, taken) {
			break
		}
	}
	w.items = nil
	f.stop()
	normal = true
	f.raise()
	return f.pulled, f.ended
}

// runSeq is the sequence driver, for a pipeline over a seq (cfg.seq !=
// nil): one loop per batch, on the pool or blocking driver (drive),
// combined in order. The observers were started once, by Run, for all the
// batches.
func runSeq[A any](cfg Config, r Reducer[A]) A {
	src := cfg.seq
	cfg.seq = nil
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
