package pipe

import (
	"context"
	"sync"
)

// chunks is the batchSource of a restream: its items come from produce,
// run by a pump for each operation.
type chunks[T any] struct {
	w       *seqStore[T] // the store the Spec's item function reads
	produce producer[T]
	cfg     Config // the operation's settings (withConfig)
	ended   bool   // the last batches handed out every item (cutBy)
}

func (c *chunks[T]) withConfig(cfg Config) batchSource {
	d := *c
	d.cfg = cfg
	return &d
}

func (c *chunks[T]) cutBy(done <-chan struct{}) bool { return !c.ended }

func (c *chunks[T]) itemSize() uintptr { return c.w.itemSize() }

// acquire refuses a second operation while one runs: the store holds
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
	p := &pump[T]{chunks: make(chan []T, pumpChunks), cancel: cancel}
	p.quit.open()
	p.credit = &credit{limit: bufferLimit(c.cfg, c.w.itemSize()), quit: p.quit.done(), room: make(chan struct{}, 1)}
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
	p.ending.raise()
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
	w    *seqStore[T]
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

func (t *chunkTaker[T]) raise() { t.p.ending.raise() }
