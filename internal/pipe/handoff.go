package pipe

import (
	"context"
	"sync"
	"time"

	"github.com/gopar-dev/gopar/internal/plumb"
	"github.com/gopar-dev/gopar/runtime"
)

// stream is the state a producer and its consumer share.
type stream struct {
	limit int           // most source items held ahead of the loop body
	pool  *runtime.Pool // the consumer's waits lend a slot of it (plumb.Block)
	quit  quitter       // closed by the consumer: produce no more
	wait  sync.WaitGroup

	// The parts, in order, from the producer's side to the consumer.
	mu     sync.Mutex    // guards what follows
	queue  []streamPart  // handed over, not yet taken
	ended  bool          // the producer has ended: no part comes after queue
	blocks *seqBlocks    // over a seq: the loop's takes, told what is consumed
	held   int           // over a range: source items reserved and not released
	count  int           // over a range: batches reserved and not released
	ready  chan struct{} // producer to consumer: a part came, or the end (capacity 1)
	room   chan struct{} // consumer to producer: a release happened (capacity 1)

	// The operation's statistics, if it collects them; over a range, the
	// producer's counts, which it adds as it ends (runStream).
	stats    *opStats
	mostHeld int           // the most source items reserved at once
	heldBack time.Duration // the producer's waits for room

	// How the producer ended, written before ended is set.
	ending ending // a panic or runtime.Goexit of the loop
	cut    bool   // a done context stopped the loop early (StreamCut)
}

// streamPart is the items of a part; over a seq, hi is the position its
// source items end at, and over a range, reserved is the source items
// reserved for its batch.
type streamPart struct {
	items    any // a []T, boxed (see boxed)
	hi       int
	reserved int
}

// newStream returns a stream whose limit is limit source items (see
// streamLimit), whose consumer lends its slot of pool (nil: the default
// pool) while it waits, if it is a worker of it.
func newStream(limit int, pool *runtime.Pool) *stream {
	st := &stream{
		limit: limit,
		pool:  pool,
		ready: make(chan struct{}, 1),
		room:  make(chan struct{}, 1),
	}
	st.quit.open()
	return st
}

// produce runs the loop (run) on the producer's goroutine and records how
// it ended before it tells the consumer.
func (st *stream) produce(run func()) {
	var e ending
	defer func() {
		st.mu.Lock()
		st.ending, st.ended = e, true
		st.mu.Unlock()
		signal(st.ready)
		st.wait.Done()
	}()
	e.run(run)
}

// signal sends on c, of capacity 1, unless a wake-up is already pending.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// emit hands a part to the consumer; false if the consumer has stopped.
// It never waits.
func (st *stream) emit(p streamPart) bool {
	if st.quit.isClosed() {
		return false
	}
	st.mu.Lock()
	st.queue = append(st.queue, p)
	st.mu.Unlock()
	signal(st.ready)
	return true
}

// next waits for the next part; false once the producer has ended and
// every part was taken.
func (st *stream) next() (streamPart, bool) {
	for {
		st.mu.Lock()
		if len(st.queue) > 0 {
			p := st.queue[0]
			st.queue[0] = streamPart{}
			st.queue = st.queue[1:]
			st.mu.Unlock()
			return p, true
		}
		ended := st.ended
		st.mu.Unlock()
		if ended {
			return streamPart{}, false
		}
		t := st.stats.waiting()
		plumb.Block(st.pool, func() { <-st.ready })
		st.stats.consumer(t)
	}
}

// attach makes the loop over a seq, whose takes are b, the one that the
// consumer's releases go to. The producer calls it before it emits a part.
func (st *stream) attach(b *seqBlocks) {
	st.mu.Lock()
	st.blocks = b
	st.mu.Unlock()
}

// release says that the consumer has handed out the items of p: over a
// seq, the feeder may pull past its positions; over a range, its
// reservation goes back.
func (st *stream) release(p streamPart) {
	st.mu.Lock()
	b := st.blocks
	if b == nil {
		st.held -= p.reserved
		st.count--
	}
	st.mu.Unlock()
	if b != nil {
		b.consumed(p.hi)
		return
	}
	signal(st.room)
}

// reserve waits until a batch of size source items fits in the window, and
// reserves it; false if the consumer has stopped.
// It runs on the producer's goroutine.
func (st *stream) reserve(size int) bool {
	var t0 time.Time
	for {
		st.mu.Lock()
		if st.count < streamBatches && (st.count == 0 || st.held+size <= st.limit) {
			st.held += size
			st.count++
			st.mostHeld = max(st.mostHeld, st.held)
			st.mu.Unlock()
			if !t0.IsZero() {
				st.heldBack += time.Since(t0)
			}
			return true
		}
		st.mu.Unlock()
		if st.stats != nil && t0.IsZero() {
			t0 = time.Now()
		}
		select {
		case <-st.room:
		case <-st.quit.done():
			return false
		}
	}
}

// stop ends the stream from the consumer's side, however the consumer's
// loop ended: no more parts, the loop cancelled, and the producer awaited;
// what was not taken is dropped. It is idempotent.
func (st *stream) stop(cancel context.CancelFunc) {
	st.quit.close()
	cancel()
	st.wait.Wait()
	st.mu.Lock()
	st.queue = nil
	st.mu.Unlock()
}

// end passes on, in the consumer's goroutine, how the producer ended, once
// every part has been handed out.
func (st *stream) end() {
	st.wait.Wait()
	st.ending.raise()
}
