package iter

import (
	"cmp"
	"context"
	"math"
	"math/bits"
	goruntime "runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gopar-dev/gopar/internal/invariant"
	"github.com/gopar-dev/gopar/partition"
	"github.com/gopar-dev/gopar/runtime"
)

// Reducer says how a parallel loop turns blocks of indices into a result.
//
// The loop is cut into runs: maximal sequences of contiguous blocks that one
// goroutine folds, one after the other, into an accumulator that starts at
// Identity(). Combine then joins the runs' accumulators in index order, so
// it needs to be associative, not commutative.
type Reducer[A any] struct {
	// Identity gives a run's starting accumulator; nil gives A's zero
	// value. Every accumulator it gives is folded into or passed to
	// Combine (FoldUnordered's free list relies on that), except after a
	// panic, or when Stop or Cut says the first block holds the answer. (Leave it nil where that is the identity: in a generic
	// function each closure captures the type's dictionary, and Run's
	// closures escape into the parallel phase's state, so a closure
	// costs an allocation at every call, inline loops included.)
	Identity func() A
	// Fold folds the items with index in [lo, hi) into acc.
	Fold func(acc A, lo, hi int) A
	// Combine joins the results of two adjacent runs, left first. Nil means
	// only the side effects of Fold matter, and Run returns Identity().
	Combine func(left, right A) A
	// Stop, if not nil, is asked after each block whether the loop is
	// decided (an item was found, an error returned): then no item that is
	// not already running is run.
	Stop func(acc A) bool
	// Cut, if not nil, is asked after each block from which index on the
	// items are no longer needed (math.MaxInt: all still are), as when
	// FindFirst has a match at that index: items above it are dropped,
	// those below still run. A loop with a Cut hands out low indexes first
	// (see partition.NewGrowingLoop), so little runs above a cut.
	Cut func(acc A) int
	// Setup, if set, says that each call of Fold may carry a setup that
	// only large blocks amortise: the block API's body, which may build a
	// map or a buffer per block. Blocks then at least double in the
	// caller's inline phase, and a participant takes half of what its
	// range has left at a time (at least the sizer's block, which still
	// follows the clock), so that Fold is called O(participants x log n)
	// times, as the leaves of Rayon's splitting are, rather than once every
	// few microseconds of work. Half of a range stays in the thieves'
	// reach. See docs/design.md, "Blocks with a setup".
	Setup bool
	// AllRuns keeps every run that ran when a done context stops the loop.
	// By default a stopped loop's result covers a prefix: only the runs
	// before the first index that did not run are combined (see
	// prefixRuns), so that a cancelled Collect, Reduce or Sum is the result
	// of a shorter input, never one with holes. The Try forms set it: an
	// error counts wherever it came from, and they return no partial
	// result.
	AllRuns bool
	// Unordered lets a participant fold every block it runs into one
	// accumulator, contiguous or not, and Combine join any two: for an
	// accumulator whose combine is commutative (FoldUnordered), so that a
	// loop makes one per participant, not one per steal.
	Unordered bool
	// SeqLen, if not nil, is told the number of items of a seq that ended
	// by itself (the sequence driver's; see window.batches). It is not
	// called when the loop stopped the seq while it still had items, or
	// over a range, whose length the caller knows.
	SeqLen func(n int)
}

// identity returns r.Identity(), or A's zero value if it is nil.
func (r *Reducer[A]) identity() A {
	if r.Identity == nil {
		var zero A
		return zero
	}
	return r.Identity()
}

// answered reports whether acc, the result of the loop's items in order
// from its start up to some index, holds the answer of a loop that ends at
// hi: Stop says so, or Cut is below hi (the prefix ran in order, so a match
// is at or below it). The items after it do not count. Asked between blocks
// where the items run in order: the inline phase, the first block beside a
// promoted rest, a FromSeq's batches.
func (r *Reducer[A]) answered(acc A, hi int) bool {
	return (r.Stop != nil && r.Stop(acc)) || (r.Cut != nil && r.Cut(acc) < hi)
}

// decided reports whether the loop ends after acc: it is answered, or done
// is closed (a cancelled loop stops, and its prefix counts).
func (r *Reducer[A]) decided(acc A, hi int, done <-chan struct{}) bool {
	return r.answered(acc, hi) || isClosed(done)
}

// Timing of the adaptive schedule. Reading the clock costs about 35 ns here
// (more under the race detector), so it is read once per block.
const (
	// goParallelAfter: a loop that has run this long on the caller alone is
	// worth waking workers for (what a wake-up costs: runtime/SLEEP.md). A
	// loop that finishes sooner never touches the pool: 1,000 cheap items
	// cost about what a plain loop costs.
	goParallelAfter = 20 * time.Microsecond
	// blockTarget is the time one block should take: long enough that the
	// per-block costs (two atomics, a clock read, a func call) stay around
	// 1%, short enough that a block into a hot spot does not unbalance the
	// loop. Where a block's fixed cost is larger (see sizer), so is the
	// target.
	blockTarget = 4 * time.Microsecond
	// maxBlock bounds a block's size (at blockTarget) so that the first
	// block into a hot spot cannot be huge.
	maxBlock = 1 << 16
	// takesPerClock: in the parallel phase a block is taken from the
	// partitioner in this many pieces (a take costs two atomics, about 5 ns;
	// a clock read 35 ns).
	takesPerClock = 8
	// fixedShare: a block takes at least this many times its fixed cost,
	// which therefore stays under 1/fixedShare of the time.
	fixedShare = 8
	// firstPartitionBlocks: a loop that hands out low indexes first starts
	// with partitions of this many blocks (see partition.NewGrowingLoop).
	firstPartitionBlocks = 4
	// fewPerWorker: a loop of at most this many items per pool worker
	// skips the inline phase and goes parallel before item 0 (see
	// fewItems).
	fewPerWorker = 4
	// yieldQuantum: a participant of a parallel loop yields its
	// processor (runtime.Gosched) once per this much of its time in the
	// loop, at a window's clock read, so that a goroutine waiting for a
	// processor (another operation's caller, woken from a sleep) waits
	// about this long rather than for the Go scheduler's preemption, 10 ms.
	// Alone, a yield costs about 200 ns a quantum.
	yieldQuantum = 200 * time.Microsecond
)

// Config is how a loop runs: on which pool, and within which bounds on the
// number of items run in one go. The zero Config runs on runtime.Default()
// with no bounds, the schedule gopar is tuned for.
//
// Run reads a Config once and picks one driver for the loop; the other
// settings either bound what that driver does (MinBlock, MaxBlock,
// Context) or watch it. Each mode lives in one place:
//
//	driver    chosen when                   runs in
//	pool      (the default)                 runPool, run.go
//	blocking  Blocking != 0                 runBlocking, blocking.go
//	sequence  the Spec is over an iter.Seq  runSeq, seq.go: one loop for
//	                                        the whole seq, on the pool
//	                                        (seqpool.go) or the blocking
//	                                        driver's goroutines (blockseq.go)
//	stream    Stream ranges over the Spec   runStream, stream.go (each batch
//	                                        on the pool or blocking driver,
//	                                        over a seq or a range)
//
//	observer  set by    plugs in through           lives in
//	progress  Progress  the Reducer's Fold         progress.go
//	timeline  Timeline  rec, read by each driver   timeline.go
//
// Observers work on any driver and never pick one: see runObserved.
type Config struct {
	Pool *runtime.Pool // nil: runtime.Default()
	// MinBlock, if positive, is the fewest items handed out at a time (to
	// amortise a per-block setup in the block API). A range that runs out
	// still hands out its last, smaller piece.
	MinBlock int
	// MaxBlock, if positive, is the most items handed out at a time (to bound
	// the work that no thief can take, when item costs vary wildly).
	MaxBlock int
	// Context, if not nil, cancels the loop: once it is done, blocks not
	// yet started are skipped, as when Reducer.Stop says so.
	Context context.Context
	// Blocking, if positive, runs the loop for callbacks that block (I/O):
	// one item at a time on at most Blocking goroutines of its own, not on
	// the pool (the blocking driver, runBlocking).
	Blocking int

	// Progress, if not nil, is told how far the loop has got: see
	// startProgress.
	Progress func(done, total int)

	// Timeline, if not nil, receives the schedule of the loop: see
	// Timeline. Recording it costs two clock reads and an append per
	// block; left nil, it costs a nil test per block.
	Timeline *Timeline

	// Buffer, if positive, bounds the source items that Stream pulls or
	// computes ahead of the loop that ranges over it (see stream.go);
	// other operations ignore it.
	Buffer int

	// Failure, if not nil, reports the failure of a source of the pipeline
	// that can fail (see Failure): the loop ignores it, and the operations
	// that return an error return its error.
	Failure Failure

	seq    batchSource // a pipeline over an iter.Seq: the sequence driver, runSeq
	stream *stream     // a loop whose results go to Stream: the stream driver, runStream
	rec    *recording  // the timeline being recorded, for the drivers to add to

	// Unordered, if set, frees the operations that can use it from source
	// order (par's Iter.Unordered): Fold keeps one accumulator per
	// goroutine that runs the loop (FoldUnordered), and Values hands out
	// the items of a blocking loop as their calls return
	// (StreamUnordered).
	Unordered bool

	// Padding: Config, and so Spec, is a whole number of 16-byte words
	// on 64-bit platforms (see TestCopiesInWholeWords).
	_ [7]byte
}

// done returns the channel that cancels the loop, nil if nothing can.
func (c Config) done() <-chan struct{} {
	if c.Context == nil {
		return nil
	}
	return c.Context.Done()
}

// isClosed reports whether done, a channel from Config.done, is closed.
// Polling an open channel costs a few nanoseconds: cheap once per block.
func isClosed(done <-chan struct{}) bool {
	if done == nil {
		return false
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// clamp applies the bounds to a number of items.
func (c Config) clamp(n int) int {
	if c.MaxBlock > 0 {
		n = min(n, c.MaxBlock)
	}
	return max(n, c.MinBlock, 1)
}

// Run folds the items of [lo, hi) with r and returns the combined result.
// Every lo <= hi is valid, up to [math.MinInt, math.MaxInt).
//
// Run is where a loop's Config is read: it starts the observers that cfg
// asks for (runObserved), then hands the loop to one driver (drive). See
// Config for the drivers and observers, and runPool for the default one.
//
// A panic in Fold stops the loop and is re-raised in the caller as a
// *runtime.Panic, after every goroutine that ran the loop has left it. On a
// closed pool, Run panics with runtime.ErrClosed before running any item.
func Run[A any](cfg Config, lo, hi int, r Reducer[A]) A {
	if p := cfg.Pool; p != nil && p.Closed() {
		panic(runtime.ErrClosed) // before any item runs, whatever the size
	}
	if c, ok := cfg.seq.(configured); ok {
		cfg.seq = c.withConfig(cfg) // the steps before an index adapter run with these settings (restream.go)
	}
	if cfg.Timeline != nil || cfg.Progress != nil {
		return runObserved(cfg, lo, hi, r)
	}
	return drive(cfg, lo, hi, r)
}

// runObserved runs the loop on its driver with the observers that cfg asks
// for. An observer plugs into any driver and never picks one: the timeline
// through cfg.rec, to which each driver adds the blocks it runs, and
// progress by counting the items of each call of Fold. Over an iter.Seq,
// both span every batch of the loop.
func runObserved[A any](cfg Config, lo, hi int, r Reducer[A]) A {
	if t := cfg.Timeline; t != nil {
		rec := &recording{start: time.Now(), others: map[laneKey][]Block{}}
		cfg.rec = rec
		defer rec.finish(t) // after a panic too: what ran until then
	}
	report := cfg.Progress
	if report == nil {
		return drive(cfg, lo, hi, r)
	}
	total := span(lo, hi)
	if cfg.seq != nil {
		total = -1 // unknown until the seq ends
	}
	p := startProgress(report, total)
	defer p.stop() // the loop panicked: stop the reporter, then go on panicking
	acc := drive(cfg, lo, hi, countItems(p, r))
	p.finish()
	return acc
}

// drive runs the loop on the driver that cfg calls for: the one place where
// a driver is picked. The observers, if any, are already in place. The
// stream driver comes back here for each of its batches, with cfg.stream
// cleared.
func drive[A any](cfg Config, lo, hi int, r Reducer[A]) A {
	switch {
	case cfg.stream != nil:
		return runStream(cfg, lo, hi, r)
	case cfg.seq != nil:
		return runSeq(cfg, r)
	case hi <= lo || isClosed(cfg.done()):
		return r.identity()
	case cfg.Blocking != 0:
		return runBlocking(cfg, lo, hi, r)
	}
	return runPool(cfg, lo, hi, r)
}

// runPool is the pool driver: the loop over [lo, hi), not empty, on the
// caller and the pool's workers.
//
// The caller starts alone, in blocks that grow while they are quick (see
// sizer). If the loop is not done after goParallelAfter, the rest of it
// goes to the work-stealing partitioner, split into one partition per pool
// worker (or, for a loop with a Cut or too long for that, into partitions
// that grow from the bottom), and Workers()-1 helper jobs are offered to the
// pool: with the caller, that makes one participant per worker. The caller
// keeps working as one of them and returns when every item is done. (On a
// one-worker pool the caller therefore runs the whole loop itself.) A loop
// of a few items per worker skips the inline phase: see fewItems.
//
// Once the loop is decided (Stop, a done context, a panic) or cut (Cut), the
// partitioner hands out no more items that are not needed: what still runs
// is at most the blocks already handed out, one per participant. Counted
// from the callback that decided, which reports it when its block returns,
// that is at most two blocks per participant: O(participants x block)
// items, whatever the loop's length (par's TestWorkAfterTheDecision).
func runPool[A any](cfg Config, lo, hi int, r Reducer[A]) A {
	done := cfg.done()
	defer func() {
		if v := recover(); v != nil {
			panic(runtime.NewPanic(v))
		}
	}()

	pool := cfg.Pool
	if pool == nil {
		pool = runtime.Default()
	}
	// A few items go parallel at once; any other loop starts with the
	// inline phase: the caller alone, no shared state but, while its first
	// block runs, the rest of the loop on the promotion board.
	few := fewItems(pool, lo, hi)
	var acc A // the inline phase's, made only if it runs (see Identity)
	if !few {
		acc = r.identity()
	}
	start := sinceEpoch()
	sz := sizer{size: 1, growth: maxInlineGrowth}
	rec := cfg.rec
	var recBase time.Duration // start, on the recording's clock
	if rec != nil {
		recBase = epoch.Add(start).Sub(rec.start)
	}
	i := lo
	for last := time.Duration(0); i < hi && !few; {
		n := min(cfg.clamp(sz.size), span(i, hi))
		if i == lo && n < span(i, hi) && rec == nil && pool.Workers() > 1 {
			var rest *restOfLoop[A]
			if acc, rest = foldFirst(pool, cfg, lo, n, hi, r, acc); rest != nil {
				return rest.join(acc)
			}
		} else {
			acc = r.Fold(acc, i, i+n)
		}
		i += n
		if i == hi && rec == nil {
			// The last block: nothing is left to size or to decide (a
			// Stop, Cut or done context now changes nothing), so the
			// clock is not read.
			return acc
		}
		now := sinceEpoch() - start
		if rec != nil {
			rec.caller = append(rec.caller, Block{Lo: i - n, Hi: i, Start: recBase + last, End: recBase + now})
		}
		sz.observe(n, 1, now-last)
		if r.Setup {
			sz.size = max(sz.size, 2*n)
		}
		last = now
		if r.decided(acc, hi, done) {
			return acc
		}
		if now > goParallelAfter {
			break
		}
	}
	if i == hi {
		return acc
	}

	// Parallel phase over what is left.
	var parts *partition.Loop
	switch {
	case few:
		// One item per partition: participants claim the items in index
		// order, one at a time, as goroutines started in a loop would
		// run them; where the costly items come first (longest first),
		// that keeps the costly ones apart.
		parts = partition.NewLoop(i, hi, span(i, hi))
	case r.Cut != nil:
		parts = partition.NewGrowingLoop(i, hi, pool.Workers(), firstPartitionBlocks*cfg.clamp(sz.size))
	default:
		parts = partition.NewLoop(i, hi, pool.Workers())
	}
	sz.growth = 0 // the parallel phase's: maxGrowth
	o := &loop[A]{r: r, cfg: cfg, stop: done, parts: parts, sizer: sz, rec: rec, workers: pool.Workers(), lo: lo, rest: i}
	if r.Combine != nil && i > lo {
		o.runs = append(o.runs, run[A]{lo: lo, hi: i, acc: acc})
	}
	// No more participants than partitions: a loop of two items on 16
	// workers wakes one helper, not fifteen.
	helpers := int(min(uint64(pool.Workers()), parts.Partitions())) - 1
	pool.Do(func(w *runtime.Worker) {
		o.caller = w // before the helpers are offered, which read it
		// Reached only if runtime.Goexit ends the caller's goroutine (its
		// participate has left the loop by then): wait for the others, as
		// after a panic, then let the Goexit go on, unless one of them
		// panicked (see runtime's goexit.go).
		waited := false
		defer func() {
			if !waited {
				if w != nil {
					w.Wait(&o.done)
				}
				if p := o.panicked.Load(); p != nil && !p.IsGoexit() {
					panic(p)
				}
			}
		}()
		if w == nil {
			o.participate(nil)
		} else {
			// The helpers and the caller's wait live in the loop's frame:
			// the wait runs only this loop's work, never a task that might
			// block on a lock the caller holds (runtime/WAITING.md).
			w.Spread(&o.frame, helpers, o.participate, o.participate, &o.done)
		}
		waited = true
	})
	if rec != nil {
		rec.merge(o.logs)
	}
	// A panic, or a Goexit on another participant, which ends the
	// caller's goroutine too.
	runtime.Raise(o.panicked.Load())
	return o.combine()
}

// epoch is the origin of sinceEpoch.
var epoch = time.Now()

// sinceEpoch reads the monotonic clock, as the inline phase does after every
// block: time.Since on a time with a monotonic reading reads that clock
// alone, where time.Now reads the wall clock too, which costs about twice
// as much. On a loop of 1,000 cheap items (W0), time.Now was 4% of the call.
func sinceEpoch() time.Duration { return time.Since(epoch) }

// fewItems reports whether the loop over [lo, hi) has so few items that it
// should go parallel before its first item.
//
// The inline phase looks at the clock between blocks, and its first block is
// item 0: if that item is costly (a file to process, one of seven analyses),
// it runs alone for as long as it takes while the pool waits, and a loop of
// two such items runs one after the other. With at most fewPerWorker items
// per worker, item 0 is a large share of a participant's work (a quarter or
// more), so the loop offers its items to the pool at once, at the cost of a
// wake-up (a few microseconds, runtime/SLEEP.md) where the items turn out to
// be cheap. A loop with more items per worker loses at most a small share to
// its first item, and keeps the inline phase, which costs nothing when the
// loop is short. One worker, or one item, has nothing to share.
func fewItems(pool *runtime.Pool, lo, hi int) bool {
	n := span(lo, hi)
	if n < 2 || n > fewPerWorker*runtime.MaxWorkers {
		return false
	}
	w := pool.Workers()
	return w > 1 && n <= fewPerWorker*w
}

// restOfLoop is a loop's rest, [lo, hi), while the caller runs its first
// block: published with runtime.Pool.Promote, so that a worker that is idle
// once the block has run for a heartbeat tick runs it as a loop of its own
// (inline, then parallel) and hands back its result. The first block is
// the one whose time nothing predicts: it is item 0 (see sizer), and a
// costly item 0 would otherwise run alone however long it took. Later
// blocks are sized by the clock, and the inline phase ends after
// goParallelAfter.
type restOfLoop[A any] struct {
	cfg    Config
	r      Reducer[A]
	lo, hi int
	// cancel: the first block decided the loop (Stop, Cut), or failed. The
	// rest stops after the block it runs.
	cancel   atomic.Bool
	acc      A              // the rest's result, written by its runner
	decided  bool           // the first block decided the loop
	panicked *runtime.Panic // how the rest ended on its runner, if not normally
	fn       func()         // h.run, made once per restOfLoop
}

// restOfLoops keeps the restOfLoop of loops whose rest was not taken, for
// the next loop, so that a short loop pays no allocation for it (one per
// loop costs W0's per-item call about 12%). The board's entry is then the same
// func (h.fn) again. That is safe because an entry's heartbeat marks belong
// to its publication, not to the func: published again, the func's word
// starts unmarked, so a worker's take, which needs the ripe mark, cannot
// take the new publication with a CAS from the old one's word
// (runtime/PROMOTION.md, "Ripe").
var restOfLoops sync.Pool

// release keeps h for the next loop, which overwrites cfg and r. Only a
// rest that nobody took is released: its other fields are still zero.
func (h *restOfLoop[A]) release() { restOfLoops.Put(h) }

// run runs the rest on the worker that took it.
func (h *restOfLoop[A]) run() {
	r := h.r
	stop := r.Stop
	r.Stop = func(acc A) bool { return h.cancel.Load() || (stop != nil && stop(acc)) }
	h.acc = drive(h.cfg, h.lo, h.hi, r)
}

// foldFirst folds the loop's first block, [lo, lo+n), into acc, with the
// rest of the loop, [lo+n, hi), on the promotion board meanwhile. It
// returns the block's result, and the rest if a worker took it, once that
// worker is done with it: the caller then returns rest.join(acc). A panic
// or Goexit in the block stops a taken rest and waits for it before it
// goes on.
func foldFirst[A any](pool *runtime.Pool, cfg Config, lo, n, hi int, r Reducer[A], acc A) (A, *restOfLoop[A]) {
	h, _ := restOfLoops.Get().(*restOfLoop[A])
	if h == nil {
		h = new(restOfLoop[A])
		h.fn = h.run
	}
	h.cfg, h.r, h.lo, h.hi = cfg, r, lo+n, hi
	pr := pool.Promote(h.fn)
	if !pr.Published() {
		h.release()
		return r.Fold(acc, lo, lo+n), nil
	}
	returned := false
	defer func() {
		if returned {
			return
		}
		// The block did not return: the loop is over, and no item of it
		// may still run once it has unwound.
		p := runtime.Unwinding(recover())
		h.cancel.Store(true)
		if !pr.Reclaim() {
			p = runtime.Stronger(p, pr.Wait())
		}
		if !p.IsGoexit() {
			panic(p)
		}
	}()
	acc = r.Fold(acc, lo, lo+n)
	returned = true
	if pr.Reclaim() {
		h.release()
		return acc, nil
	}
	if r.answered(acc, hi) {
		// The answer is in the first block, and the rest's items, which
		// come after it, do not count.
		h.decided = true
		h.cancel.Store(true)
	} else if isClosed(cfg.done()) {
		// A done context stops the loop, and its prefix counts: the first
		// block ran whole, so the rest, which stops after the block it
		// runs, gives its own prefix (see prefixRuns) to be combined.
		h.cancel.Store(true)
	}
	h.panicked = pr.Wait()
	return acc, h
}

// join returns the loop's result from the first block's, acc, and the
// rest's, or passes on the rest's panic or Goexit.
func (h *restOfLoop[A]) join(acc A) A {
	runtime.Raise(h.panicked)
	if h.decided || h.r.Combine == nil {
		return acc
	}
	return h.r.Combine(acc, h.acc)
}

// span returns the number of items in [lo, hi) as an int, at most
// math.MaxInt: enough for a block, whose end it bounds.
func span(lo, hi int) int {
	if n := uint64(hi) - uint64(lo); n <= math.MaxInt {
		return int(n)
	}
	return math.MaxInt
}

// RunBlocks runs body on blocks that together cover [lo, hi), as Run does,
// for loops that produce no result but their side effects.
func RunBlocks(cfg Config, lo, hi int, body func(lo, hi int)) {
	Run(cfg, lo, hi, Reducer[struct{}]{
		Identity: func() struct{} { return struct{}{} },
		Fold: func(acc struct{}, lo, hi int) struct{} {
			body(lo, hi)
			return acc
		},
	})
}

// RunPrefix is RunBlocks for a loop whose results land in place (Collect
// into a slice): it returns how many items from lo ran without a hole, all
// of them unless a done context stopped the loop (see Reducer.AllRuns).
// Items after the first hole may have run too; their results do not count.
func RunPrefix(cfg Config, lo, hi int, body func(lo, hi int)) int {
	return Run(cfg, lo, hi, Reducer[int]{
		Fold: func(acc int, lo, hi int) int {
			body(lo, hi)
			return acc + (hi - lo)
		},
		Combine: func(a, b int) int { return a + b },
	})
}

// A sizer adapts the number of items run in one go to their measured cost,
// so that cheap items run in long blocks and costly ones one at a time.
//
// It is fed windows of takes: the inline phase reads the clock after every
// block (one take), a participant after takesPerClock takes. size is the
// number of items a window should hold: a window that took less than half
// its target grows the next one in proportion, up to maxGrowth times; one
// that took more than twice its target scales the next one down to it.
//
// The target is blockTarget, unless a take has a fixed cost (the take
// itself, a setup in Fold, or everything slowed down by the race detector or
// a preempted machine): then a take is made to last fixedShare times that
// cost, so the fixed part can never dominate. Scaling down alone would shrink
// such takes to one item each and keep them there, since no number of items
// brings their time under the target. The fixed cost is estimated from two
// consecutive windows whose takes held different numbers of items: a take
// of s items costs c + s*a, so two sizes give c. The estimate is clamped to
// the cheaper take's time, so a change of item cost between the two windows
// (a hot spot) can only make it too small, never larger than a take.
type sizer struct {
	size int // items per window
	// growth, if not 0, replaces maxGrowth: how many times a window may
	// hold the last one's items (maxInlineGrowth in the inline phase).
	growth int
	fixed  time.Duration // estimated fixed cost of one take
	// The last estimate: two in a row must agree before fixed rises, so
	// that one noisy window cannot inflate blocks.
	estimate time.Duration
	// Windows since the last estimate: every probeEvery, a window of twice
	// the size lets a fixed cost be told apart from a cost per item even
	// when the size has settled.
	unprobed int
	// The previous window: items and time per take.
	prevItems int
	prevTime  time.Duration
}

// maxGrowth bounds how fast blocks grow: a block into a region of costlier
// items takes at most this many times the previous block's time.
const maxGrowth = 16

// maxInlineGrowth is maxGrowth in the caller's inline phase, where the
// blocks start at one item (item 0) and every block costs a clock read and
// a step of the sizer (some 50 ns): growing 64 times rather than 16 takes
// a loop of 1,000 cheap items (W0) in 3 blocks rather than 4, with 3 clock
// reads rather than 5 (the last block reads none). No other participant
// waits on a block of the inline phase, so a block that runs into costlier
// items delays only the moment the loop goes parallel, by the block's
// time; and a block still holds at most the items that the last block's
// cost puts at blockTarget.
const maxInlineGrowth = 64

// probeEvery: one window in probeEvery+1 has twice the settled size.
const probeEvery = 4

// observe adapts size to a window of takes that held n items and took
// took.
func (z *sizer) observe(n, takes int, took time.Duration) {
	per, perTime := n, took
	if takes > 1 {
		// Two 64-bit divisions: skipped in the inline phase, which
		// observes every block and may run only a few of them (W0).
		per, perTime = n/takes, took/time.Duration(takes)
	}
	if c, ok := estimateFixed(z.prevItems, z.prevTime, per, perTime); ok {
		z.fixed, z.estimate, z.unprobed = min(c, z.estimate), c, 0
	} else {
		z.unprobed++
	}
	target := max(blockTarget, time.Duration(takes*fixedShare)*z.fixed)
	growth := maxGrowth
	if z.growth != 0 {
		growth = z.growth
	}
	z.size = nextBlock(z.size, n, took, target, growth)
	z.prevItems, z.prevTime = per, perTime
	if z.unprobed >= probeEvery {
		// Twice the items per take (a window of one-item takes would
		// otherwise stay one-item takes).
		// Bounded like any growth: a MaxBlock below size leaves every
		// window short, and unbounded doubling would overflow.
		z.size, z.unprobed = min(2*max(z.size, per*takes), blockLimit(target)), 0
	}
}

// estimateFixed estimates the fixed cost of a take from two takes of s1 and
// s2 items that took t1 and t2, if their sizes differ enough to tell: from
// t = c + s*a at both sizes, c = (s2*t1 - s1*t2) / (s2 - s1).
func estimateFixed(s1 int, t1 time.Duration, s2 int, t2 time.Duration) (time.Duration, bool) {
	if s1 > s2 {
		s1, t1, s2, t2 = s2, t2, s1, t1
	}
	if s1 < 1 || s2 < 2*s1 {
		return 0, false
	}
	c := (float64(s2)*float64(t1) - float64(s1)*float64(t2)) / float64(s2-s1)
	return time.Duration(max(0, min(c, float64(min(t1, t2))))), true
}

// blockLimit is the largest window for a target: it grows with the target,
// so that a large fixed cost can still be amortised.
func blockLimit(target time.Duration) int {
	return int(min(int64(maxBlock)*int64(target/blockTarget), math.MaxInt32))
}

// nextBlock returns the size of the next window given that the last one,
// of n items (size had been asked for), took took, for a window that should
// take target, growing at most growth times.
func nextBlock(size, n int, took, target time.Duration, growth int) int {
	limit := blockLimit(target)
	switch {
	case took < target/2:
		if n < size {
			return size // the block was cut short by the end of a range
		}
		// grow = min(growth, target/took), dividing only where target/took
		// is the smaller: the inline phase asks this after each of a short
		// loop's few blocks, and a 64-bit division costs several times the
		// multiplication (whose 128-bit product cannot wrap).
		grow := int64(growth)
		if hi, lo := bits.Mul64(uint64(took), uint64(growth)); took > 0 && (hi != 0 || lo > uint64(target)) {
			grow = int64(target / took)
		}
		return int(min(int64(size)*grow, int64(limit)))
	case took > 2*target:
		return max(1, int(int64(n)*int64(target)/int64(took)))
	}
	return min(size, limit)
}

// loop is the shared state of the parallel phase of one Run.
type loop[A any] struct {
	r     Reducer[A]
	cfg   Config
	parts *partition.Loop
	stop  <-chan struct{} // cfg.done(): cancels the loop
	sizer sizer           // where the caller's inline phase left off: helpers start there
	done  runtime.Latch
	frame runtime.Frame // the loop's region of the fork tree

	panicked atomic.Pointer[runtime.Panic]

	// Recording a timeline (rec != nil): caller is the worker the caller
	// entered the pool with, to give its lane to helper jobs it runs
	// itself; workers is the pool's, to tell its workers from guests.
	rec     *recording
	caller  *runtime.Worker
	workers int

	// lo is the loop's first index, rest the first that the partitioner
	// hands out (lo itself where the loop went parallel before item 0).
	lo, rest int

	mu   sync.Mutex
	runs []run[A]
	logs []*laneLog // the participants' timelines (rec != nil)
}

type run[A any] struct {
	lo, hi int // the indexes folded into acc
	acc    A
}

// participate runs blocks of the loop until the partitioner has nothing more
// for this goroutine, records its runs, and leaves; the last to leave sets
// done.
func (o *loop[A]) participate(w *runtime.Worker) {
	var p partition.Participant
	if !o.parts.Enter(&p) {
		return
	}
	st := participant[A]{sizer: o.sizer, start: time.Now()}
	if o.rec != nil {
		st.log = o.newLaneLog(w, &p)
	}
	st.take = o.cfg.clamp(st.sizer.size / takesPerClock)
	// A runtime.Goexit in the user's code ends this goroutine: the
	// deferred function records it, stops the loop and leaves it, as after
	// a panic; the caller then ends its own goroutine the same way.
	left := false
	defer func() {
		if !left {
			runtime.Record(&o.panicked, runtime.Unwinding(nil))
			o.parts.Cancel()
			for {
				if _, _, ok := p.Next(1); !ok {
					break
				}
			}
			o.publishLog(&st)
			if p.Leave() {
				o.done.Set()
			}
		}
	}()
	// A panic stops runBlocks: cancel the loop, then let Next say it is
	// over for us.
	for !o.runBlocks(&p, &st) {
		o.parts.Cancel()
	}
	left = true
	if st.inRun && o.r.Combine != nil {
		st.cur.hi = st.next
		st.mine = append(st.mine, st.cur)
		o.mu.Lock()
		o.runs = append(o.runs, st.mine...)
		o.mu.Unlock()
	}
	o.publishLog(&st)
	// Leave publishes the runs and the timeline recorded above to whoever
	// sees the loop done.
	if p.Leave() {
		o.done.Set()
	}
}

// participant is one goroutine's state in the parallel phase.
type participant[A any] struct {
	mine  []run[A] // finished runs
	cur   run[A]   // the run being folded
	next  int      // end of cur
	inRun bool     // whether cur holds a run (indexes may be negative: no sentinel)

	// The block size is measured over windows of takesPerClock pieces of
	// sizer.size/takesPerClock items each: the clock is read once per
	// window, while only one piece at a time is out of the thieves' reach,
	// so a piece that runs into a hot spot unbalances the loop by a fraction
	// of a block, not by a whole one. Pieces cost a take each (about 20 ns:
	// 4% of the time of 1-2 ns items), so while the items' cost is steady
	// the rest of a window is taken at once; see wholeWindow.
	sizer         sizer
	take          int // items per piece
	start         time.Time
	last          time.Duration
	measured      int     // items run in this window
	pieces, takes int     // pieces (of takesPerClock) and takes in this window
	steady        bool    // the last window's items cost about what the one before's did
	perItem       float64 // the last window's time per item, in ns

	// yielded is when the participant last yielded its processor
	// (yieldQuantum).
	yielded time.Duration

	log *laneLog // nil unless a timeline is recorded
}

// publishLog hands the timeline lane st recorded, if any, to the loop, on
// every way out of participate (before Leave, which publishes it).
func (o *loop[A]) publishLog(st *participant[A]) {
	if st.log == nil {
		return
	}
	st.log.close()
	o.mu.Lock()
	o.logs = append(o.logs, st.log)
	o.mu.Unlock()
}

// runBlocks folds the blocks the partitioner hands out into st until it has
// no more (true), or until the user's code panics (false; the first panic of
// the loop is recorded). All the user's code that a participant runs
// (Identity, Fold, Stop) runs here, under one recover: helpers are detached
// jobs, where an escaping panic would crash the program.
func (o *loop[A]) runBlocks(p *partition.Participant, st *participant[A]) (finished bool) {
	defer func() {
		if v := recover(); v != nil {
			runtime.Record(&o.panicked, runtime.NewPanic(v))
			finished = false
		}
	}()
	for {
		take, pieces := st.take, 1
		if o.r.Setup {
			// Half of what our range has left; a new range (Left is then
			// 0) starts with the sizer's block.
			take = o.cfg.clamp(max(take, p.Left()/2))
		} else if n := st.wholeWindow(p, o.cfg.MaxBlock); n > 1 {
			take, pieces = st.take*n, n
		}
		lo, hi, ok := p.Next(take)
		if !ok {
			return true
		}
		if !st.inRun || (lo != st.next && !o.r.Unordered) {
			if st.inRun && o.r.Combine != nil {
				st.cur.hi = st.next
				st.mine = append(st.mine, st.cur)
			}
			st.newRange()
			st.inRun = false // if Identity panics, there is no current run
			st.cur = run[A]{lo: lo, acc: o.r.identity()}
		}
		// The one test a block pays for the timeline when none is
		// recorded.
		if g := st.log; g == nil {
			st.cur.acc = o.r.Fold(st.cur.acc, lo, hi)
		} else {
			t0 := g.rec.since()
			st.cur.acc = o.r.Fold(st.cur.acc, lo, hi)
			g.block(lo, hi, t0)
		}
		st.next, st.inRun = hi, true
		if (o.r.Stop != nil && o.r.Stop(st.cur.acc)) || isClosed(o.stop) {
			o.parts.Cancel()
		} else if o.r.Cut != nil {
			if c := o.r.Cut(st.cur.acc); c < math.MaxInt {
				o.parts.CutAt(c)
			}
		}
		st.measured += hi - lo
		st.takes++
		if st.pieces += pieces; st.pieces >= takesPerClock {
			now := time.Since(st.start)
			took := now - st.last
			st.sizer.size = st.take * takesPerClock
			st.sizer.observe(st.measured, st.takes, took)
			st.take = o.cfg.clamp(st.sizer.size / takesPerClock)
			st.windowCost(took, st.measured)
			st.last, st.measured, st.pieces, st.takes = now, 0, 0, 0
			if now-st.yielded >= yieldQuantum {
				st.yielded = now
				goruntime.Gosched()
			}
		}
	}
}

// steadyRise: a window whose items cost at most this many times the
// previous window's leaves the participant steady.
const steadyRise = 2

// windowCost notes that the window just ended ran n items in took, and
// decides whether the participant is steady.
func (st *participant[A]) windowCost(took time.Duration, n int) {
	per := float64(took) / float64(max(n, 1))
	st.steady = st.perItem > 0 && per <= steadyRise*st.perItem
	st.perItem = per
}

// newRange forgets the items' cost when the participant moves to a new
// range (a steal or a claim): its cost is not known until a whole window
// has run in it.
func (st *participant[A]) newRange() { st.steady, st.perItem = false, 0 }

// wholeWindow returns how many of the current window's pieces to take at
// once: the rest of the window while the participant is steady (its last
// window's items cost at most steadyRise times the one before's, both in
// the current range) and its range still holds them, otherwise 1. A
// positive maxBlock (Config.MaxBlock) bounds the take.
//
// Pieces exist for items whose cost jumps, a hot spot, and such a jump
// shows in the window that meets it. The pieces come back for the window
// after it, and in a new range (a steal or a claim), where nothing is known
// of the items yet, for the rest of the window in which it starts and the
// whole window after that. An owner whose range is steady, and then runs
// into a hot spot, has one window out of the thieves' reach instead of one
// piece: a block of blockTarget at the old cost.
func (st *participant[A]) wholeWindow(p *partition.Participant, maxBlock int) int {
	n := takesPerClock - st.pieces
	if maxBlock > 0 {
		n = min(n, maxBlock/st.take)
	}
	if !st.steady || n <= 1 || p.Left() < st.take*n {
		return 1
	}
	return n
}

// checkRunsTile checks that the sorted runs of a loop that ran to the end
// cover [lo, hi) exactly once (gopar_debug only).
func (o *loop[A]) checkRunsTile() {
	// The caller's inline prefix, if any, ends where the partitioned
	// rest of the loop begins.
	at, end := o.lo, o.rest+int(o.parts.Len())
	for _, r := range o.runs {
		if r.lo != at || r.lo >= r.hi {
			invariant.Failf("run [%d, %d) where the runs so far end at %d", r.lo, r.hi, at)
		}
		at = r.hi
	}
	if at != end {
		invariant.Failf("the runs end at %d, the loop at %d", at, end)
	}
}

// combine joins the runs in index order.
func (o *loop[A]) combine() A {
	if o.r.Combine == nil {
		return o.r.identity()
	}
	sortRuns(o.runs)
	if invariant.Enabled && o.parts.Cut() == math.MaxInt && !o.r.Unordered {
		o.checkRunsTile()
	}
	return combineRuns(o.r.prefixRuns(o.runs, o.lo, o.stop), o.r)
}

// sortRuns puts runs in index order.
func sortRuns[A any](runs []run[A]) {
	slices.SortFunc(runs, func(a, b run[A]) int { return cmp.Compare(a.lo, b.lo) })
}

// prefixRuns returns the sorted runs of a loop from lo whose results count.
// A loop that a done context stopped may have skipped blocks anywhere, so
// its runs leave holes; its result is then that of the prefix, the runs
// before the first index that did not run (all of them with AllRuns). A
// loop whose context is not done keeps every run: its holes, if any, come
// from a Cut, which drops only the items above the answer, or from a Stop,
// whose answer stands wherever it came from.
func (r *Reducer[A]) prefixRuns(runs []run[A], lo int, done <-chan struct{}) []run[A] {
	if r.AllRuns || !isClosed(done) {
		return runs
	}
	at := lo
	for k, run := range runs {
		if run.lo != at {
			return runs[:k]
		}
		at = run.hi
	}
	return runs
}

// combineRuns joins sorted runs, left to right, with r.Combine; no runs give
// r.identity().
func combineRuns[A any](runs []run[A], r Reducer[A]) A {
	if len(runs) == 0 {
		return r.identity()
	}
	acc := runs[0].acc
	for _, run := range runs[1:] {
		acc = r.Combine(acc, run.acc)
	}
	return acc
}
