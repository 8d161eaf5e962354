package pipe

import (
	"context"
	stditer "iter"
	goruntime "runtime"
	"slices"
	"sync"

	"github.com/gopar-dev/gopar/runtime"
)

// Streaming results. Stream hands the items of a pipeline, in order, to a
// range loop on the caller's goroutine while later items are computed. A
// producer goroutine runs the loop with Run on a Config whose stream is set,
// so the observers start as for any loop, and drive picks the stream driver,
// runStream: it cuts the loop into batches as the sequence driver does (from
// the seq, or from the range), runs each batch on the pool's or the blocking
// driver with a Reducer that collects its items, and hands the batch's items
// to the consumer instead of combining them.
//
// The window. Before a batch is pulled (over a seq) or started, the producer
// reserves its size in source items; the consumer gives the reservation
// back once it has handed every item of the batch to the loop body. A batch
// starts only while at most streamBatches-1 others are held and the
// reservations, its own included, stay within the limit (Config.Buffer, or
// defaultBuffer). So at any time the source items pulled or started and not
// yet handed to the loop body number at most the limit, and a loop body
// that stops after k items has had at most k + limit source items pulled
// (TestStreamBreakBound).
//
// Stopping. When the loop body breaks, returns or panics (or calls
// runtime.Goexit), the consumer closes quit and cancels the producer's
// context: a batch in flight stops handing out blocks, no batch starts, a seq
// is not pulled again, and what was computed is dropped. The consumer then
// waits until the producer has returned, so no goroutine is left behind.
// A panic in the pipeline ends the producer; the consumer hands over the
// items of the batches before it, then re-raises it. It re-raises it also
// after the loop body broke or returned, since the callback that panicked
// did run (a seq that yields again after yield returned false panics
// likewise); a panic of the loop body itself goes on as it is. A runtime.Goexit on
// the producer's goroutine (a callback that calls t.Fatal while the
// producer runs it) ends the consumer's goroutine the same way.

// Stream windows: defaultBuffer bounds the source items held ahead of the
// loop body unless Config.Buffer says otherwise, streamBatches the batches.
// Batches are sized by time (batching, about a millisecond each), so the
// default holds a few milliseconds of work: enough to keep the workers busy
// while the loop body takes its items, whatever an item costs, with a bound
// on the count for items that cost nanoseconds.
const (
	defaultBuffer = 1 << 16
	streamBatches = 4
)

// Stream returns the items of s in source order, a batch at a time, computed
// on the pool (or the blocking driver) ahead of the loop that ranges over
// the result; see the comment above. Each range over the result runs the
// pipeline once. On a closed pool it panics with runtime.ErrClosed when the
// range starts.
func Stream[T any](s Spec[T]) stditer.Seq[[]T] {
	return func(yield func([]T) bool) {
		if p := s.Pool; p != nil && p.Closed() {
			panic(runtime.ErrClosed)
		}
		parent := s.Context
		if parent == nil {
			parent = context.Background()
		}
		ctx, cancel := context.WithCancel(parent)
		st := newStream(s.Buffer)
		cfg := s.Config
		cfg.Context, cfg.stream = ctx, st
		collect := collector(&s)
		st.wait.Add(1)
		go st.produce(func() { Run(cfg, s.Lo, s.Hi, collect) })
		defer st.stop(cancel) // the loop body panicked: its panic goes on
		for part := range st.parts {
			if !yield(part.items.([]T)) {
				// The loop body broke or returned: the work stops, and
				// a panic or Goexit of a callback that ran meanwhile is
				// still passed on, never dropped.
				st.stop(cancel)
				st.end()
				return
			}
			st.release(part.reserved)
		}
		st.end()
	}
}

// collector is the Reducer that collects the items of a batch in order.
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
	limit int             // most source items reserved at once
	parts chan streamPart // the batches' items, in order; closed when the producer ends
	quit  chan struct{}   // closed by the consumer: produce no more
	room  chan struct{}   // a release happened (capacity 1)
	once  sync.Once       // closes quit
	wait  sync.WaitGroup  // the producer

	mu    sync.Mutex // guards held and count
	held  int        // source items reserved and not released
	count int        // batches reserved and not released

	// How the producer ended, written before parts is closed.
	fail any  // what it panicked with
	exit bool // its goroutine called runtime.Goexit
}

// streamPart is the items of one batch, and the source items reserved for
// it.
type streamPart struct {
	items    any // a []T
	reserved int
}

func newStream(buffer int) *stream {
	if buffer <= 0 {
		buffer = defaultBuffer
	}
	return &stream{
		limit: buffer,
		// A batch starts only while fewer than streamBatches are held, so
		// sends never block.
		parts: make(chan streamPart, streamBatches),
		quit:  make(chan struct{}),
		room:  make(chan struct{}, 1),
	}
}

// produce runs the loop (run) on the producer's goroutine and records how
// it ended; parts is closed when it has.
func (st *stream) produce(run func()) {
	normal := false
	defer func() {
		if !normal {
			if v := recover(); v != nil {
				st.fail = v
			} else {
				st.exit = true // only runtime.Goexit ends a function without a panic or a return
			}
		}
		close(st.parts)
		st.wait.Done()
	}()
	run()
	normal = true
}

// reserve waits until a batch of size source items fits in the window, and
// reserves it; false if the consumer has stopped.
func (st *stream) reserve(size int) bool {
	for {
		st.mu.Lock()
		if st.count < streamBatches && (st.count == 0 || st.held+size <= st.limit) {
			st.held += size
			st.count++
			st.mu.Unlock()
			return true
		}
		st.mu.Unlock()
		select {
		case <-st.room:
		case <-st.quit:
			return false
		}
	}
}

// release gives back a batch's reservation once the consumer has handed
// out its items.
func (st *stream) release(size int) {
	st.mu.Lock()
	st.held -= size
	st.count--
	st.mu.Unlock()
	select {
	case st.room <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// emit hands the items of a batch, for which size source items were
// reserved, to the consumer; false if the consumer has stopped.
func (st *stream) emit(items any, size int) bool {
	select {
	case <-st.quit:
		return false
	default:
	}
	st.parts <- streamPart{items, size}
	return true
}

// stop ends the stream from the consumer's side, however the consumer's
// loop ended: no more batches, the one in flight cancelled, and the
// producer awaited. It is idempotent.
func (st *stream) stop(cancel context.CancelFunc) {
	st.once.Do(func() { close(st.quit) })
	cancel()
	for range st.parts {
		// Dropped: the consumer has stopped.
	}
	st.wait.Wait()
}

// end passes on, in the consumer's goroutine, how the producer ended, once
// every batch has been handed out.
func (st *stream) end() {
	st.wait.Wait()
	switch {
	case st.fail != nil:
		panic(st.fail)
	case st.exit:
		goruntime.Goexit()
	}
}

// runStream is the stream driver (cfg.stream != nil): the loop in batches,
// over the seq if there is one, each batch on the pool's or the blocking
// driver (drive), and each batch's result handed to the consumer in order
// rather than combined. It returns r.identity().
func runStream[A any](cfg Config, lo, hi int, r Reducer[A]) A {
	st := cfg.stream
	cfg.stream = nil
	done := cfg.done()
	b := newBatching(cfg, max(1, st.limit/streamBatches))
	b.reserve = st.reserve
	body := func(lo, hi int) bool {
		part := drive(cfg, lo, hi, r)
		if isClosed(done) {
			// Cancelled: part holds the batch's prefix that ran (see
			// prefixRuns), the end of what the loop body gets. If the
			// consumer stopped, emit drops it.
			st.emit(part, b.size)
			return false
		}
		return st.emit(part, b.size)
	}
	if src := cfg.seq; src != nil {
		cfg.seq = nil
		src.batches(b, done, body)
		return r.identity()
	}
	if !b.ready() {
		return r.identity()
	}
	for i := lo; i < hi; {
		n := min(b.size, span(i, hi))
		if !body(i, i+n) {
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
// body. Stopping, panics and runtime.Goexit are as for Stream.
func StreamUnordered[T any](s Spec[T]) stditer.Seq2[[]int, []T] {
	return func(yield func([]int, []T) bool) {
		if p := s.Pool; p != nil && p.Closed() {
			panic(runtime.ErrClosed)
		}
		parent := s.Context
		if parent == nil {
			parent = context.Background()
		}
		ctx, cancel := context.WithCancel(parent)
		st := &stream{
			parts: make(chan streamPart, max(s.Blocking, 1)),
			quit:  make(chan struct{}),
		}
		cfg := s.Config
		cfg.Context = ctx
		emit := Reducer[struct{}]{
			Fold: func(acc struct{}, lo, hi int) struct{} {
				var part unorderedPart[T]
				s.EachIndex(lo, hi, func(i int, v T) {
					part.pos = append(part.pos, i)
					part.items = append(part.items, v)
				})
				if len(part.items) > 0 {
					st.emit(part, 0)
				}
				return acc
			},
		}
		st.wait.Add(1)
		go st.produce(func() { Run(cfg, s.Lo, s.Hi, emit) })
		defer st.stop(cancel) // the loop body panicked: its panic goes on
		for p := range st.parts {
			part := p.items.(unorderedPart[T])
			if !yield(part.pos, part.items) {
				st.stop(cancel)
				st.end()
				return
			}
		}
		st.end()
	}
}

// unorderedPart is one block's items and their source positions.
type unorderedPart[T any] struct {
	pos   []int
	items []T
}
