package pipe

// The pool driver, runPool: the inline phase on the caller, then the
// parallel phase over the partitioner, on the caller and the pool's workers.

import (
	"sync/atomic"

	"github.com/gopar-dev/gopar/internal/latch"
	"github.com/gopar-dev/gopar/internal/plumb"
	"github.com/gopar-dev/gopar/partition"
	"github.com/gopar-dev/gopar/runtime"
)

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
			panic(plumb.NewPanic(v))
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
	ph := inlinePhase{pool: pool, cfg: cfg, lo: lo, i: lo, hi: hi, sz: sizer{size: 1, growth: maxInlineGrowth}, done: done}
	var acc A // the inline phase's, made only if it runs (see Identity)
	if !few {
		var over bool
		if cfg.task == nil && cfg.stats == nil {
			acc, over = runInline(&ph, r)
		} else {
			ph.observed(func() { acc, over = runInline(&ph, r) })
		}
		if over {
			return acc
		}
	}
	var first any // the inline phase's result, boxed, if it ran
	if ph.i > lo {
		first = box(acc)
	}
	return unbox[A](runParallel(&ph, boxed(r), first, few))
}

// runParallel is the pool driver's parallel phase over what is left of the
// loop, [ph.i, ph.hi), where acc holds the inline phase's items, [ph.lo,
// ph.i), and ph.sz the sizer where that phase left off. few says that the
// loop went parallel before its first item (fewItems). It returns the
// loop's result.
func runParallel(ph *inlinePhase, r Reducer[any], acc any, few bool) any {
	pool, cfg, lo, i := ph.pool, ph.cfg, ph.lo, ph.i
	parts := ph.parallelParts(r, few)
	sz := ph.sz
	sz.growth = 0 // the parallel phase's: maxGrowth
	rec := cfg.rec
	o := &loop{r: r, cfg: cfg, stop: ph.done, parts: parts, sizer: sz, rec: rec, workers: pool.Workers(), lo: lo, rest: i}
	if r.Combine != nil && i > lo {
		o.runs = append(o.runs, run{lo: lo, hi: i, acc: acc})
	}
	// No more participants than partitions: a loop of two items on 16
	// workers wakes one helper, not fifteen.
	helpers := int(min(uint64(pool.Workers()), parts.Partitions())) - 1
	runRegion(pool, helpers, o)
	if rec != nil {
		rec.merge(o.logs)
	}
	// A panic, or a Goexit on another participant, which ends the
	// caller's goroutine too.
	plumb.Raise(o.panicked.Load())
	return o.combine()
}

// parallelParts returns the partitioner of the parallel phase over what
// the inline phase left, [ph.i, ph.hi).
func (ph *inlinePhase) parallelParts(r Reducer[any], few bool) *partition.Loop {
	i, hi, workers := ph.i, ph.hi, ph.pool.Workers()
	switch {
	case few:
		// One item per partition: participants claim the items in index
		// order, one at a time, as goroutines started in a loop would
		// run them; where the costly items come first (longest first),
		// that keeps the costly ones apart.
		return partition.NewLoop(i, hi, span(i, hi))
	case r.Cut != nil:
		return partition.NewGrowingLoop(i, hi, workers, firstPartitionBlocks*ph.cfg.clamp(ph.sz.size))
	default:
		return partition.NewLoop(i, hi, workers)
	}
}

// The loop as runRegion runs it: the caller and the helpers participate
// alike.

func (o *loop) entered(w *runtime.Worker) { o.caller = w } // the helpers read it
func (o *loop) help(w *runtime.Worker)    { o.participate(w) }
func (o *loop) self(w *runtime.Worker)    { o.participate(w) }
func (o *loop) ended() *latch.Latch       { return &o.done }

// unwound passes on a participant's panic, which wins over the caller's
// Goexit.
func (o *loop) unwound() {
	if p := o.panicked.Load(); p != nil && !p.IsGoexit() {
		panic(p)
	}
}

// fewItems reports whether the loop over [lo, hi) has so few items that it
// should go parallel before its first item.
//
// The inline phase looks at the clock between blocks, and its first block is
// item 0: if that item is costly (a file to process, one of seven analyses),
// it runs alone for as long as it takes while the pool waits, and a loop of
// two such items runs one after the other. With at most fewPerWorker items
// per worker, item 0 is a large share of a participant's work (a quarter or
// more), so the loop offers its items to the pool at once, at the cost of a
// wake-up (a few microseconds, runtime/SLEEP.md) where the items turn
// out to be cheap. A loop with more items per worker loses at most a small
// share to its first item, and keeps the inline phase, which costs nothing
// when the loop is short. One worker, or one item, has nothing to share.
func fewItems(pool *runtime.Pool, lo, hi int) bool {
	n := span(lo, hi)
	if n < 2 || n > fewPerWorker*runtime.MaxWorkers {
		return false
	}
	w := pool.Workers()
	return w > 1 && n <= fewPerWorker*w
}

// loop is the shared state of the parallel phase of one Run.
type loop struct {
	r     Reducer[any]
	cfg   Config
	parts *partition.Loop
	stop  <-chan struct{} // cfg.done(): cancels the loop
	sizer sizer           // where the caller's inline phase left off: helpers start there
	done  latch.Latch

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

	gathered // the participants' runs and lanes
}
