package pipe

import (
	"context"
	stditer "iter"
	goruntime "runtime"
	"slices"
	"sync"
)

// Restreams: an index adapter (adapt.go) over a Spec whose positions are
// known only in order (a seq, a filter, a FlatMap) makes a Spec over the
// items of the Spec before it, as a stream: the steps after the adapter run
// on its items as on FromSeq's, with the same drivers, while the steps
// before it run ahead of them, in order, on the pool.
//
// For each operation, a producer goroutine (the pump) computes the items
// before the adapter in batches, each batch a parallel loop of its own
// (runBatches), and hands them over a batch at a time through a small
// channel; its credit bounds how far it runs ahead, in positions before the
// adapter, as the operation's buffer says (Config.Buffer, or the bytes of
// bufferLimit): a batch starts only once the batches whose items the
// driver may still use leave room for it. The operation's driver takes
// them into the window that the Spec's item function reads, as it takes a
// seq's. So the result is a seq like any other, except in three points
// that a seq cannot give:
//
//   - the steps before the adapter run with the operation's settings
//     (Run hands them over: configured), so that a setting anywhere in a
//     pipeline applies to all of it, as it does without an index adapter;
//   - the operation stops the pump at once, even while it waits (for a
//     FromChan's channel, or for the items before the adapter): the pump's
//     context is cancelled, and the batch or the seq driver under it
//     returns;
//   - the operation tells items cut short by a done context from a stream
//     that ended (the Try forms need it: see blockingLoop.overSeq), batch by batch:
//     a batch that ran whole is not cut, and the next one tells.

// producer computes the items before an adapter for one operation, with
// the settings up (up.Context is the pump's, cancelled when the operation
// stops it), and hands them to emit in order, a chunk at a time, until emit
// returns false; each batch it computes is reserved from the pump's
// credit first. It reports whether it handed out every item: false if emit
// or the context stopped it. The chunks handed to emit are not reused.
type producer[T any] func(up Config, c *credit, emit func([]T) bool) bool

// configured is a batchSource whose work before its items runs with the
// settings of the operation that pulls it: Run hands them over with
// withConfig before it reads the Config.
type configured interface {
	withConfig(cfg Config) batchSource
}

// restream returns the Spec over the items that produce gives, in order,
// with the settings cfg.
func restream[T any](cfg Config, produce producer[T]) Spec[T] {
	out := FromSeq[T](nil) // its item function reads the window
	w := out.seq.(*window[T])
	out.Config = cfg
	out.stream, out.rec = nil, nil
	out.seq = &chunks[T]{w: w, produce: produce}
	return out
}

// upstream returns s with the settings up, its own seq, if any, given them
// too.
func upstream[T any](s Spec[T], up Config) Spec[T] {
	src := s.seq
	if c, ok := src.(configured); ok {
		src = c.withConfig(up)
	}
	s.Config = up
	s.seq = src
	return s
}

// itemsOf is the producer of the items of s, in order.
func itemsOf[T any](s Spec[T]) producer[T] {
	return func(up Config, c *credit, emit func([]T) bool) bool { return runBatches(s, up, c, -1, emit) }
}

// prefixOf is the producer of the first n items of s.
func prefixOf[T any](s Spec[T], n int) producer[T] {
	return func(up Config, c *credit, emit func([]T) bool) bool { return n == 0 || runBatches(s, up, c, n, emit) }
}

// runBatches runs s with the settings up in batches, in order, each on the
// pool (or the blocking driver), and hands each batch's items to emit; with
// need >= 0, only the first need items, and it stops there. Each batch is
// reserved from c before it is pulled or run, and holds at most a
// creditBatches-th of its limit. Batches follow
// the clock as the sequence driver's do; over a seq with need >= 0, no
// batch is longer than the items still needed, so that a seq whose items
// each give at most one item (no FlatMap) is pulled for no item past the
// last one needed. Over a range, items past it may run, as those past a
// search's match do.
//
// It reports whether it handed out every item (or need of them): false if
// emit returned false, or a done context cut the items short. A batch
// that ran whole does not count as cut, even if the context is done by its
// end: the next batch tells, running nothing if it is (so that, as over a
// seq, a done context that left no item out is told from one that did).
func runBatches[T any](s Spec[T], up Config, c *credit, need int, emit func([]T) bool) bool {
	t := upstream(s, up)
	cfg := up
	cfg.seq = nil
	r := partCollector(&t)
	done := up.done()
	stopped, cut := false, false
	// A reservation refused means that the operation stopped the pump
	// while it waited for room: not every item was handed out.
	reserve := func(n int) bool {
		ok := c.reserve(n)
		stopped = stopped || !ok
		return ok
	}
	b := newBatching(cfg, max(1, c.limit/creditBatches))
	b.reserve = reserve
	body := func(lo, hi int) bool {
		part := Run(cfg, lo, hi, r)
		items := part.items
		if need >= 0 {
			items = items[:min(len(items), need)]
			need -= len(items)
		}
		if len(items) > 0 && !emit(items) {
			stopped = true
			return false
		}
		if part.n < span(lo, hi) {
			cut = true // the context stopped the batch
			return false
		}
		return need != 0
	}
	if src := t.seq; src != nil {
		if need >= 0 {
			b.reserve = func(int) bool {
				b.size = max(1, min(b.size, need))
				return need > 0 && reserve(b.size)
			}
		}
		src.batches(b, done, body)
		if !stopped && !cut && need != 0 {
			cut = src.(cutter).cutBy(done)
		}
	} else {
		for i := t.Lo; i < t.Hi && b.ready(); {
			k := min(b.size, span(i, t.Hi))
			if !body(i, i+k) {
				break
			}
			i += k
			b.adapt()
		}
	}
	return !stopped && !cut
}

// batchPart is a batch's items, and the number of its indexes, from its
// first, that ran without a hole: all of them unless a done context stopped
// the batch.
type batchPart[T any] struct {
	items []T
	n     int
}

// partCollector is the Reducer of runBatches: collector's, which also
// counts the indexes that ran.
func partCollector[T any](s *Spec[T]) Reducer[batchPart[T]] {
	return Reducer[batchPart[T]]{ // Identity: none yet
		Fold: func(acc batchPart[T], lo, hi int) batchPart[T] {
			if Filtered(s) {
				s.Each(lo, hi, func(v T) { acc.items = append(acc.items, v) })
			} else {
				n := len(acc.items)
				acc.items = slices.Grow(acc.items, hi-lo)[:n+hi-lo]
				at := *s
				at.Lo = lo - n // Fill writes item i at dst[i-Lo]
				Fill(&at, acc.items, lo, hi)
			}
			acc.n += hi - lo
			return acc
		},
		Combine: func(a, b batchPart[T]) batchPart[T] {
			a.items = append(a.items, b.items...)
			a.n += b.n
			return a
		},
	}
}

// cutter is a batchSource that tells, after batches returned by itself
// (not because body returned false), whether done cut its items short.
type cutter interface {
	cutBy(done <-chan struct{}) bool
}

// cutBy: a seq that returned ended, unless it is a channel's that done may
// have stopped while it waited (which cannot tell whether more values
// would have come: see par.FromChan).
func (w *window[T]) cutBy(done <-chan struct{}) bool { return w.recv != nil && isClosed(done) }

func (c *chunks[T]) cutBy(done <-chan struct{}) bool { return !c.ended }

func (c *chunks[T]) itemSize() uintptr { return c.w.itemSize() }

// pair is an item of a and the item of b at the same position.
type pair[T, U any] struct {
	x T
	y U
}

// zipOf is the producer of the pairs of the items of a and b, in order,
// until either runs out.
func zipOf[T, U any](a Spec[T], b Spec[U]) producer[pair[T, U]] {
	left, right := itemsOf(a), itemsOf(b)
	return func(up Config, c *credit, emit func([]pair[T, U]) bool) bool {
		var rightEnded bool
		next, stop := stditer.Pull(stditer.Seq[[]U](func(yield func([]U) bool) { rightEnded = right(up, c, yield) }))
		defer stop()
		// The second side first: over an empty one, the first need not run.
		ys, more := next()
		if !more {
			if rightEnded {
				return true
			}
			// Cut short: the pairs have ended anyway if the first side
			// has no item.
			some := false
			return left(up, c, func([]T) bool { some = true; return false }) && !some
		}
		// The next batch of the second side is taken as soon as the last
		// one is used up: once it has none, the pairs end with the item of
		// the first side that used it, and no more of that side runs.
		short, emitted := false, true
		all := left(up, c, func(xs []T) bool {
			out := make([]pair[T, U], 0, len(xs))
			for _, x := range xs {
				out = append(out, pair[T, U]{x, ys[0]})
				for ys = ys[1:]; len(ys) == 0 && more; {
					ys, more = next()
				}
				if !more {
					short = true
					emitted = emit(out)
					return false
				}
			}
			return emit(out)
		})
		if short {
			return emitted && rightEnded
		}
		return all
	}
}

// chunks is the batchSource of a restream: its items come from produce,
// run by a pump for each operation.
type chunks[T any] struct {
	w       *window[T] // the window the Spec's item function reads
	produce producer[T]
	cfg     Config // the operation's settings (withConfig)
	ended   bool   // the last batches handed out every item (cutBy)
}

func (c *chunks[T]) withConfig(cfg Config) batchSource {
	d := *c
	d.cfg = cfg
	return &d
}

// acquire refuses a second operation while one runs: the window holds
// one operation's items.
func (c *chunks[T]) acquire() {
	if !c.w.busy.CompareAndSwap(false, true) {
		panic("gopar: an iterator that Take, Skip, Enumerate, Chain or Zip makes from a stream or a filtered pipeline " +
			"runs one terminal operation at a time, as one from par.FromSeq does")
	}
}

// start starts the pump of an operation.
func (c *chunks[T]) start() *pump[T] {
	parent := c.cfg.Context
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancel(parent)
	up := Config{Pool: c.cfg.Pool, MinBlock: c.cfg.MinBlock, MaxBlock: c.cfg.MaxBlock, Context: ctx,
		Blocking: c.cfg.Blocking, Buffer: c.cfg.Buffer, Budget: c.cfg.Budget, task: c.cfg.task}
	p := &pump[T]{chunks: make(chan []T, pumpChunks), quit: make(chan struct{}), cancel: cancel}
	p.credit = &credit{limit: bufferLimit(c.cfg, c.w.itemSize()), quit: p.quit, room: make(chan struct{}, 1)}
	go p.run(func() bool { return c.produce(up, p.credit, p.emit) })
	return p
}

func (c *chunks[T]) batches(b *batching, done <-chan struct{}, body func(lo, hi int) bool) {
	c.acquire()
	w := c.w
	defer w.busy.Store(false)
	p := c.start()
	normal := false
	defer func() {
		if !normal {
			p.stop() // body panicked: its panic goes on, the pump's is dropped
		}
	}()
	w.base, w.batch, w.ring = 0, nil, nil
	var pending []T
	taken := 0
	for b.ready() {
		var ok bool
		for ok = true; ok && len(pending) == 0; {
			pending, ok = p.next(done)
		}
		if !ok {
			break
		}
		k := min(b.size, len(pending))
		w.base, w.batch = taken, pending[:k]
		pending = pending[k:]
		taken += k
		if !body(w.base, taken) {
			break
		}
		p.credit.release(taken)
		b.adapt()
	}
	w.batch = nil
	p.stop()
	normal = true
	p.raise()
	c.ended = p.ended && !p.dropped && len(pending) == 0
}

func (c *chunks[T]) open(o seqRing, done <-chan struct{}) seqTaker {
	c.acquire()
	if isClosed(done) && !o.exact {
		c.w.busy.Store(false)
		return nil
	}
	w := c.w
	slots := w.openRing(o.slots)
	return &chunkTaker[T]{w: w, span: min(max(o.span, 1), slots), p: c.start(), room: make(chan struct{}, 1)}
}

// chunkTaker is the seqTaker of a restream: it copies the pump's chunks
// into the ring as the room in it allows.
type chunkTaker[T any] struct {
	w    *window[T]
	span int // the positions past low that may hold items
	p    *pump[T]
	room chan struct{} // release to wait: low moved (capacity 1)

	mu      sync.Mutex // guards what follows: wait copies, arrived and release look
	pending []T        // taken from the pump, not yet into the ring
	next    int        // the position of pending[0]: the items arrived
	low     int        // the oldest position in use: the ring holds [low, low+span)
	pumped  bool       // the pump has ended
	stopped bool
}

// fill copies into the ring what of pending fits. t.mu is held.
func (t *chunkTaker[T]) fill() {
	n := min(len(t.pending), t.low+t.span-t.next)
	for i, v := range t.pending[:n] {
		t.w.put(t.next+i, v)
	}
	t.pending = t.pending[n:]
	t.next += n
}

func (t *chunkTaker[T]) arrived() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.next
}

func (t *chunkTaker[T]) wait(n int, done <-chan struct{}) {
	for {
		t.mu.Lock()
		t.fill()
		next, pending := t.next, len(t.pending)
		over := t.pumped && pending == 0
		t.mu.Unlock()
		switch {
		case next > n || over || isClosed(done):
			return
		case pending > 0: // no room: wait for a release
			select {
			case <-t.room:
			case <-done:
			}
		default:
			c, ok := t.p.next(done)
			t.mu.Lock()
			if ok {
				t.pending = c
			} else if !isClosed(done) {
				t.pumped = true
			}
			t.mu.Unlock()
		}
	}
}

func (t *chunkTaker[T]) over(n int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.pumped && len(t.pending) == 0 && t.next <= n
}

// handed does nothing: the pump's channel bounds how far it runs ahead.
func (t *chunkTaker[T]) handed(int) {}

func (t *chunkTaker[T]) release(low int) {
	t.mu.Lock()
	if low > t.low {
		t.low = low
		signal(t.room)
	}
	t.mu.Unlock()
	t.p.credit.release(low)
}

func (t *chunkTaker[T]) stop() (n int, ended bool) {
	if !t.stopped {
		t.stopped = true
		t.p.stop()
		t.w.ring = nil
		t.w.busy.Store(false)
	}
	return t.next, t.p.ended && !t.p.dropped && len(t.pending) == 0
}

func (t *chunkTaker[T]) raise() { t.p.raise() }

// pumpChunks is the number of chunks a pump may hand over ahead of the
// driver: enough that the driver rarely waits for the pump's next chunk,
// while its credit bounds the items computed ahead.
const pumpChunks = 2

// creditBatches: a pump's batch holds at most this fraction of its
// credit's limit, so that the next batches run while the driver takes the
// last ones.
const creditBatches = 4

// credit bounds what a restream's pump holds ahead of its driver: the
// positions of the batches it has pulled or run (over the Spec before the
// adapter) whose items the driver may still use, at most limit, the
// operation's buffer (Config.Buffer, or as many items as
// defaultBufferBytes holds: bufferLimit). A batch's positions are held
// from reserve until the driver has released the last item the pump
// handed over after the batch ran: a batch that gave no item stays held
// until the next one that does is released, or the driver has released
// every item handed over. A batch may always start when none is held.
type credit struct {
	limit int
	quit  <-chan struct{} // the pump's: stop waiting
	room  chan struct{}   // a release happened (capacity 1)

	mu       sync.Mutex // guards what follows
	held     int        // positions reserved and not given back
	loose    int        // of held, those of batches reserved since the last handing over
	out      int        // the items handed over to the driver
	released int        // the driver uses no item below released
	spans    []heldSpan // the held batches handed over, in order
}

// heldSpan is n positions held until the driver releases the items below
// end.
type heldSpan struct{ end, n int }

// reserve waits until a batch of n positions fits in the limit, and holds
// them; false if the pump is stopped.
func (c *credit) reserve(n int) bool {
	for {
		c.mu.Lock()
		c.settle()
		if c.held == 0 || c.held+n <= c.limit {
			c.held += n
			c.loose += n
			c.mu.Unlock()
			return true
		}
		c.mu.Unlock()
		select {
		case <-c.room:
		case <-c.quit:
			return false
		}
	}
}

// handed says that the pump hands the driver n more items: the batches
// reserved since the last handing over are held until the driver
// releases them.
func (c *credit) handed(n int) {
	c.mu.Lock()
	c.out += n
	if c.loose > 0 {
		c.spans = append(c.spans, heldSpan{end: c.out, n: c.loose})
		c.loose = 0
	}
	c.mu.Unlock()
}

// release says that the driver uses no item below low.
func (c *credit) release(low int) {
	c.mu.Lock()
	c.released = max(c.released, low)
	c.mu.Unlock()
	signal(c.room)
}

// settle gives back the positions whose items the driver has released.
// The batches run one at a time, so the loose positions at a reserve are
// those of batches that ran and gave no item. c.mu is held.
func (c *credit) settle() {
	k := 0
	for ; k < len(c.spans) && c.spans[k].end <= c.released; k++ {
		c.held -= c.spans[k].n
	}
	c.spans = append(c.spans[:0], c.spans[k:]...)
	if c.released >= c.out {
		c.held -= c.loose
		c.loose = 0
	}
}

// pump is the state that a restream's producer goroutine and the driver
// share.
type pump[T any] struct {
	chunks chan []T      // the items, in order; closed when the producer ends
	quit   chan struct{} // closed by the driver: hand over no more
	cancel context.CancelFunc
	once   sync.Once

	// Written by the producer before it closes chunks.
	ended bool // produce handed out every item
	fail  any  // what it panicked with
	exit  bool // its goroutine called runtime.Goexit

	dropped bool    // stop dropped items (the driver's)
	credit  *credit // bounds the batches ahead of the driver
}

// run is the producer's goroutine.
func (p *pump[T]) run(produce func() bool) {
	normal := false
	defer func() {
		if !normal {
			if v := recover(); v != nil {
				p.fail = v
			} else {
				p.exit = true // only runtime.Goexit ends a function without a panic or a return
			}
		}
		close(p.chunks)
	}()
	p.ended = produce()
	normal = true
}

// emit hands a chunk to the driver; false once the driver has stopped.
func (p *pump[T]) emit(c []T) bool {
	p.credit.handed(len(c))
	select {
	case p.chunks <- c:
		return true
	case <-p.quit:
		return false
	}
}

// next waits for the next chunk; false if the producer has ended and every
// chunk was taken, or done was closed.
func (p *pump[T]) next(done <-chan struct{}) ([]T, bool) {
	select {
	case c, ok := <-p.chunks:
		return c, ok
	case <-done:
		return nil, false
	}
}

// stop ends the producer, if it still runs, and waits until it has. It is
// idempotent.
func (p *pump[T]) stop() {
	p.once.Do(func() {
		close(p.quit)
		p.cancel()
	})
	for c := range p.chunks {
		if len(c) > 0 {
			p.dropped = true
		}
	}
}

// raise passes on, in the driver's goroutine, a panic or runtime.Goexit of
// the producer, which has ended.
func (p *pump[T]) raise() {
	switch {
	case p.fail != nil:
		panic(p.fail)
	case p.exit:
		goruntime.Goexit()
	}
}
