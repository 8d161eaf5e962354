package pipe

import (
	"context"
	stditer "iter"
	"runtime/trace"
	"slices"
	"sync/atomic"

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
//     seq (seqpool.go, seqloop.go), with every chunk a run of its own: a
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
		st, cfg, cancel, finish := openStream(&s)
		cfg.stream = st
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

// openStream starts a range over a stream of s, on the consumer's
// goroutine: it refuses a closed pool, and returns the stream, the loop's
// settings (a context that cancel cancels, a trace task named here, where
// the operation was called, if a trace is recorded, and the stream's
// statistics), cancel, and finish, which the range defers to run once the
// producer has ended: it adds the statistics up and ends the task.
func openStream[T any](s *Spec[T]) (st *stream, cfg Config, cancel context.CancelFunc, finish func()) {
	if p := s.Pool; p != nil && p.Closed() {
		panic(runtime.ErrClosed)
	}
	parent := s.Context
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancel(parent)
	st = newStream(streamLimit(s), s.Pool)
	cfg = s.Config
	cfg.Context = ctx
	var task *opTask
	if cfg.task == nil && trace.IsEnabled() {
		task = startOp(s.Context)
		cfg.task = task
	}
	var stats func()
	st.stats, stats = streamStats(s, &cfg)
	return st, cfg, cancel, func() {
		stats()
		if task != nil {
			task.end()
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
