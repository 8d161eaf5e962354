package pipe

import (
	"context"
	stditer "iter"
	goruntime "runtime"
	"runtime/trace"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gopar-dev/gopar/internal/sched"
	"github.com/gopar-dev/gopar/runtime"
)

// Streaming results. Stream hands the items of a pipeline, in order, to a
// range loop on the caller's goroutine (the consumer) while later items are
// computed. A producer goroutine runs the loop with Run on a Config whose
// stream is set, so the observers start as for any loop, and the items
// reach the consumer in parts, through a queue that never blocks the
// producer's side:
//
//   - Over a seq, the loop is the sequence driver's one loop for the whole
//     seq (seqpool.go, blockseq.go), with every chunk a run of its own: a
//     run goes to the consumer as soon as the runs before it have
//     (prefixRuns with an emit), so no participant waits for the consumer
//     or for another participant's chunk.
//   - Over a range, the stream driver (runStream) cuts the loop into
//     batches, sized by the clock, each an indexed loop on the pool or the
//     blocking driver, and each batch's items are a part.
//
// The window. At any time the source items pulled or started and not yet
// handed to the loop body number at most the limit (streamLimit), so that a loop body that stops after k items has had at
// most k + limit source items pulled (par's TestValuesWindow). Over a seq,
// the positions of a part stay in use until the consumer has handed out its
// items (seqBlocks.consumed), and the feeder pulls at most the limit past
// the oldest position in use. Over a range, a batch starts only once its
// size is reserved: while at most streamBatches-1 others are held and the
// reservations, its own included, stay within the limit; the consumer gives
// the reservation back once it has handed out the batch's items.
//
// Stopping. When the loop body breaks, returns or panics (or calls
// runtime.Goexit), the consumer closes quit and cancels the producer's
// context: the loop stops handing out work, no batch starts, a seq is not
// pulled again, and what was computed is dropped. The consumer then
// waits until the producer has returned, so no goroutine is left behind.
// A panic in the pipeline ends the producer; the consumer hands over the
// parts that came before it, then re-raises it. It re-raises it also
// after the loop body broke or returned, since the callback that panicked
// did run (a seq that yields again after yield returned false panics
// likewise); a panic of the loop body itself goes on as it is. A runtime.Goexit on
// the producer's goroutine (a callback that calls t.Fatal while the
// producer runs it) ends the consumer's goroutine the same way.

// Stream windows. Unless Config.Buffer says otherwise, the limit is what
// defaultBufferBytes holds of a source position's items (the source item
// in the ring, if the source is a seq, and the item computed from it, by
// their unsafe.Sizeof: see bufferLimit), at most defaultBuffer and at least
// one per worker. streamBatches is the batches held over a range. Batches
// and chunks are sized by time, so the default holds a few milliseconds of
// work for small items: enough to keep the workers busy while the loop
// body takes its items, whatever an item costs.
const (
	defaultBuffer      = 1 << 16
	defaultBufferBytes = 4 << 20
	streamBatches      = 4
)

// bufferLimit returns a stream's limit under cfg, in source items:
// cfg.Buffer, if positive; else as many as defaultBufferBytes (or the
// memory budget, if less: windowBytes) holds at size bytes each, within
// [leastBuffer, defaultBuffer].
func bufferLimit(cfg Config, size uintptr) int {
	if cfg.Buffer > 0 {
		return cfg.Buffer
	}
	return max(leastBuffer(cfg), min(defaultBuffer, cfg.windowBytes(defaultBufferBytes)/int(max(size, 1))))
}

// streamLimit is the limit of a stream of s's items: a source position
// holds an item of T and, over a seq, the seq's item in the ring. Its
// least is leastBuffer, so that every participant has an item to run.
func streamLimit[T any](s *Spec[T]) int {
	return bufferLimit(s.Config, streamItemSize(s))
}

// streamItemSize is what a source position of a stream of s's items
// takes while it is held: its item of T and, over a seq, the seq's item
// in the ring.
func streamItemSize[T any](s *Spec[T]) uintptr {
	size := unsafe.Sizeof(*new(T))
	if s.seq != nil {
		size += s.seq.itemSize()
	}
	return size
}

// streamStats starts the statistics of a stream of s's items, on its
// consumer's goroutine, if s asks for them: from the start of the range
// to its end, with its held positions at streamItemSize each. It returns
// the record, or nil, and the function that writes it out.
func streamStats[T any](s *Spec[T], cfg *Config) (*opStats, func()) {
	if cfg.stats != nil || cfg.Stats == nil {
		return cfg.stats, func() {}
	}
	op := newOpStats()
	op.itemBytes = streamItemSize(s)
	cfg.stats = op
	return op, func() { op.finish(s.Stats) }
}

// leastBuffer is the least default limit of a loop with the settings cfg:
// its pool's workers, or its calls at once with Blocking.
func leastBuffer(cfg Config) int {
	if cfg.Blocking > 0 {
		return cfg.Blocking
	}
	pool := cfg.Pool
	if pool == nil {
		pool = runtime.Default()
	}
	return pool.Workers()
}

// Stream returns the items of s in source order, a part at a time,
// computed on the pool (or the blocking driver) ahead of the loop that
// ranges over the result; see the comment above. Each range over the
// result runs the pipeline once. On a closed pool it panics with
// runtime.ErrClosed when the range starts.
func Stream[T any](s Spec[T]) stditer.Seq[[]T] { return StreamCut(s, nil) }

// StreamCut is Stream that, once a range over the result has ended by
// itself (the loop body did not break), sets *cut, if cut is not nil, to
// whether a done context stopped the loop before every source position ran
// (the items given are then a prefix).
func StreamCut[T any](s Spec[T], cut *bool) stditer.Seq[[]T] {
	return func(yield func([]T) bool) {
		if p := s.Pool; p != nil && p.Closed() {
			panic(runtime.ErrClosed)
		}
		parent := s.Context
		if parent == nil {
			parent = context.Background()
		}
		ctx, cancel := context.WithCancel(parent)
		st := newStream(streamLimit(&s), s.Pool)
		cfg := s.Config
		cfg.Context, cfg.stream = ctx, st
		if cfg.task == nil && trace.IsEnabled() {
			// Named here, on the consumer's goroutine, where the
			// operation was called.
			cfg.task = startOp(s.Context)
			defer cfg.task.end()
		}
		var finish func()
		st.stats, finish = streamStats(&s, &cfg)
		defer finish() // after the producer has ended (stop)
		disarm, returned := streamSlow(&cfg), false
		defer func() { disarm(returned) }()
		collect, short := counted(collector(&s), &s, cut != nil)
		st.wait.Add(1)
		go st.produce(func() {
			Run(cfg, s.Lo, s.Hi, collect)
			st.cut = short()
		})
		defer st.stop(cancel) // the loop body panicked: its panic goes on
		for {
			part, ok := st.next()
			if !ok {
				break
			}
			if items := unbox[[]T](part.items); len(items) > 0 && !yield(items) {
				// The loop body broke or returned: the work stops, and
				// a panic or Goexit of a callback that ran meanwhile is
				// still passed on, never dropped.
				st.stop(cancel)
				st.end()
				returned = true
				return
			}
			st.release(part)
		}
		st.end()
		returned = true
		if cut != nil {
			*cut = st.cut // written before the producer ended
		}
	}
}

// counted returns r with its Fold counting the source positions that it
// covers, if watch is set, and a function to call once the loop has
// returned that reports whether some position of s did not run (over a
// seq, also one past those it pulled: unless the seq ended by itself).
func counted[A, T any](r Reducer[A], s *Spec[T], watch bool) (Reducer[A], func() bool) {
	if !watch {
		return r, func() bool { return false }
	}
	var folded atomic.Int64
	total := int64(span(s.Lo, s.Hi))
	if s.seq != nil {
		total = -1 // until SeqLen, which Run calls on the goroutine that called it
	}
	fold := r.Fold
	r.Fold = func(acc A, lo, hi int) A {
		folded.Add(int64(hi - lo))
		return fold(acc, lo, hi)
	}
	r.SeqLen = func(n int) { total = int64(n) }
	return r, func() bool { return total < 0 || folded.Load() < total }
}

// collector is the Reducer that collects the items of a part in order.
func collector[T any](s *Spec[T]) Reducer[[]T] {
	return Reducer[[]T]{
		Identity: func() []T { return nil },
		Fold: func(acc []T, lo, hi int) []T {
			if Filtered(s) {
				s.Each(lo, hi, func(v T) { acc = append(acc, v) })
				return acc
			}
			n := len(acc)
			acc = slices.Grow(acc, hi-lo)[:n+hi-lo]
			at := *s
			at.Lo = lo - n // Fill writes item i at dst[i-Lo]
			Fill(&at, acc, lo, hi)
			return acc
		},
		Combine: func(a, b []T) []T { return append(a, b...) },
	}
}

// stream is the state a producer and its consumer share.
type stream struct {
	limit int           // most source items held ahead of the loop body
	pool  *runtime.Pool // the consumer's waits lend a slot of it (sched.Block)
	quit  chan struct{} // closed by the consumer: produce no more
	once  sync.Once     // closes quit
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
	fail any  // what it panicked with
	exit bool // its goroutine called runtime.Goexit
	cut  bool // a done context stopped the loop early (StreamCut)
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
	return &stream{
		limit: limit,
		pool:  pool,
		quit:  make(chan struct{}),
		ready: make(chan struct{}, 1),
		room:  make(chan struct{}, 1),
	}
}

// produce runs the loop (run) on the producer's goroutine and records how
// it ended before it tells the consumer.
func (st *stream) produce(run func()) {
	normal := false
	defer func() {
		fail, exit := any(nil), false
		if !normal {
			if v := recover(); v != nil {
				fail = v
			} else {
				exit = true // only runtime.Goexit ends a function without a panic or a return
			}
		}
		st.mu.Lock()
		st.fail, st.exit, st.ended = fail, exit, true
		st.mu.Unlock()
		signal(st.ready)
		st.wait.Done()
	}()
	run()
	normal = true
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
	if isClosed(st.quit) {
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
		sched.Block(st.pool, func() { <-st.ready })
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
		case <-st.quit:
			return false
		}
	}
}

// stop ends the stream from the consumer's side, however the consumer's
// loop ended: no more parts, the loop cancelled, and the producer awaited;
// what was not taken is dropped. It is idempotent.
func (st *stream) stop(cancel context.CancelFunc) {
	st.once.Do(func() { close(st.quit) })
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
	switch {
	case st.fail != nil:
		panic(st.fail)
	case st.exit:
		goruntime.Goexit()
	}
}

// runStream is the stream driver over a range (cfg.stream != nil, no seq):
// the loop in batches, each on the pool's or the blocking driver (driveRange),
// and each batch's result handed to the consumer in order rather than
// combined. It returns r.identity().
func runStream(cfg Config, lo, hi int, r Reducer[any]) any {
	st := cfg.stream
	cfg.stream = nil
	defer func() { st.stats.source(st.mostHeld, 0, st.heldBack) }()
	done := cfg.done()
	b := newBatching(cfg, max(1, st.limit/streamBatches))
	b.reserve = st.reserve
	if !b.ready() {
		return r.identity()
	}
	for i := lo; i < hi; {
		n := min(b.size, span(i, hi))
		// Cancelled, the batch's part holds its prefix that ran (see
		// prefixRuns), the end of what the loop body gets.
		part := driveRange(cfg, i, i+n, r)
		if !st.emit(streamPart{items: part, reserved: b.size}) || isClosed(done) {
			break
		}
		i += n
		b.adapt()
		if i < hi && !b.ready() {
			break
		}
	}
	return r.identity()
}

// StreamUnordered is Stream for a loop in blocking mode whose consumer does
// not need source order (Config.Unordered): each block's items (one item,
// unless MinBlock says more) go to the loop body as soon as the block's
// calls have returned, with their source positions (see EachIndex). The
// loop runs on a producer goroutine as for Stream, on the blocking driver,
// whose goroutines wait to hand their items over while the body is busy:
// at most the limit's calls run, and as many blocks wait, ahead of the
// body. Stopping, panics and runtime.Goexit are as for Stream, and cut is
// as for StreamCut.
func StreamUnordered[T any](s Spec[T], cut *bool) stditer.Seq2[[]int, []T] {
	return func(yield func([]int, []T) bool) {
		if p := s.Pool; p != nil && p.Closed() {
			panic(runtime.ErrClosed)
		}
		parent := s.Context
		if parent == nil {
			parent = context.Background()
		}
		ctx, cancel := context.WithCancel(parent)
		st := newStream(streamLimit(&s), s.Pool)
		parts := make(chan unorderedPart[T], max(s.Blocking, 1))
		cfg := s.Config
		cfg.Context = ctx
		if cfg.task == nil && trace.IsEnabled() {
			cfg.task = startOp(s.Context) // as in Stream
			defer cfg.task.end()
		}
		var finish func()
		st.stats, finish = streamStats(&s, &cfg)
		defer finish() // after the producer has ended (stop)
		disarm, returned := streamSlow(&cfg), false
		defer func() { disarm(returned) }()
		// With statistics, held counts the items computed and not yet
		// handed to the loop body, and most the most of them at once.
		var held, most atomic.Int64
		emit := Reducer[struct{}]{
			Fold: func(acc struct{}, lo, hi int) struct{} {
				var part unorderedPart[T]
				s.EachIndex(lo, hi, func(i int, v T) {
					part.pos = append(part.pos, i)
					part.items = append(part.items, v)
				})
				if len(part.items) > 0 {
					if st.stats != nil {
						atomicMax(&most, held.Add(int64(len(part.items))))
					}
					select {
					case parts <- part: // waits while the loop body is busy
					case <-st.quit:
					}
				}
				return acc
			},
		}
		emit, short := counted(emit, &s, cut != nil)
		st.wait.Add(1)
		go st.produce(func() {
			defer close(parts)
			defer func() { st.stats.source(int(most.Load()), 0, 0) }()
			Run(cfg, s.Lo, s.Hi, emit)
			st.cut = short()
		})
		defer st.stop(cancel) // the loop body panicked: its panic goes on
		for {
			var part unorderedPart[T]
			ok := false
			t := st.stats.waiting()
			sched.Block(s.Pool, func() { part, ok = <-parts })
			st.stats.consumer(t)
			if !ok {
				break
			}
			if st.stats != nil {
				held.Add(-int64(len(part.items)))
			}
			if !yield(part.pos, part.items) {
				st.stop(cancel)
				st.end()
				returned = true
				return
			}
		}
		st.end()
		returned = true
		if cut != nil {
			*cut = st.cut // written before parts was closed
		}
	}
}

// atomicMax raises m to v if v is larger.
func atomicMax(m *atomic.Int64, v int64) {
	for {
		old := m.Load()
		if v <= old || m.CompareAndSwap(old, v) {
			return
		}
	}
}

// unorderedPart is one block's items and their source positions.
type unorderedPart[T any] struct {
	pos   []int
	items []T
}
