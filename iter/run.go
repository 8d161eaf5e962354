package iter

import (
	"cmp"
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
	Identity func() A
	// Fold folds the items with index in [lo, hi) into acc.
	Fold func(acc A, lo, hi int) A
	// Combine joins the results of two adjacent runs, left first. Nil means
	// only the side effects of Fold matter, and Run returns Identity().
	Combine func(left, right A) A
	// Stop, if not nil, is asked after each block whether the loop can end
	// early (an item was found, an error returned): blocks not yet started
	// are then skipped.
	Stop func(acc A) bool
}

// Timing of the adaptive schedule. Reading the clock costs about 35 ns here,
// so it is read once per block.
const (
	// goParallelAfter: a loop that has run this long on the caller alone is
	// worth waking workers for (waking one takes a few microseconds). A loop
	// that finishes sooner never touches the pool: 1,000 cheap items cost
	// about what a plain loop costs.
	goParallelAfter = 20 * time.Microsecond
	// blockTarget is the time one block should take: long enough that the
	// per-block costs (two atomics, a clock read, a func call) stay around
	// 1%, short enough that a block into a hot spot does not unbalance the
	// loop.
	blockTarget = 4 * time.Microsecond
	// maxBlock bounds a block's size so that the first block into a hot
	// spot cannot be huge.
	maxBlock = 1 << 16
	// takesPerClock: in the parallel phase a block is taken from the
	// partitioner in this many pieces (a take costs two atomics, about 5 ns;
	// a clock read 35 ns).
	takesPerClock = 8
)

// Run folds the items of [lo, hi) with r and returns the combined result.
//
// The caller starts alone, in blocks that grow while they are quick (see
// nextBlock). If the loop is not done after goParallelAfter, the rest of it
// goes to the work-stealing partitioner, split into one partition per pool
// worker, and Workers()-1 helper jobs are offered to the pool: with the
// caller, that makes one participant per worker. The caller keeps working as
// one of them and returns when every item is done. (On a one-worker pool the
// caller therefore runs the whole loop itself.)
//
// A panic in Fold stops the loop (blocks not yet started are skipped) and is
// re-raised in the caller as a *runtime.Panic, after every participant has
// left the loop.
func Run[A any](cfg Config, lo, hi int, r Reducer[A]) (result A) {
	done := cfg.done()
	if hi <= lo || isClosed(done) {
		return r.Identity()
	}
	defer func() {
		if v := recover(); v != nil {
			panic(runtime.NewPanic(v))
		}
	}()

	// Inline phase: the caller alone, no shared state.
	acc := r.Identity()
	start := time.Now()
	size, i := 1, lo
	for last := time.Duration(0); i < hi; {
		n := min(cfg.clamp(size), hi-i)
		acc = r.Fold(acc, i, i+n)
		i += n
		now := time.Since(start)
		size = nextBlock(size, n, now-last)
		last = now
		if (r.Stop != nil && r.Stop(acc)) || isClosed(done) {
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
	pool := cfg.Pool
	if pool == nil {
		pool = runtime.Default()
	}
	o := &loop[A]{r: r, cfg: cfg, stop: done, parts: partition.NewLoop(i, hi, pool.Workers()), size: size}
	if r.Combine != nil {
		o.runs = append(o.runs, run[A]{lo: lo, hi: i, acc: acc})
	}
	pool.Do(func(w *runtime.Worker) {
		if w != nil {
			help := func(w *runtime.Worker) { o.participate(w) }
			for range pool.Workers() - 1 {
				w.Offer(help)
			}
		}
		o.participate(w)
		if w != nil {
			w.Wait(&o.done)
		}
	})
	if p := o.panicked.Load(); p != nil {
		panic(p)
	}
	return o.combine()
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

// nextBlock adapts the block size to the time the last block of n items
// took. A quick block grows the next one in proportion, up to 16 times, so
// that cheap items reach long blocks after three or four clock reads; a slow
// one scales the next one down to the target.
func nextBlock(size, n int, took time.Duration) int {
	switch {
	case took < blockTarget/2:
		if n < size {
			return size // the block was cut short by the end of a range
		}
		grow := int64(maxGrowth)
		if took > 0 {
			grow = min(grow, int64(blockTarget/took))
		}
		return int(min(int64(size)*grow, maxBlock))
	case took > 2*blockTarget:
		return max(1, int(int64(n)*int64(blockTarget)/int64(took)))
	}
	return size
}

// maxGrowth bounds how fast blocks grow: a block into a region of costlier
// items takes at most this many times the previous block's time.
const maxGrowth = 16

// loop is the shared state of the parallel phase of one Run.
type loop[A any] struct {
	r     Reducer[A]
	cfg   Config
	parts *partition.Loop
	stop  <-chan struct{} // cfg.done(): cancels the loop
	size  int             // block size the caller had reached: where helpers start
	done  runtime.Latch

	panicked atomic.Pointer[runtime.Panic]

	mu   sync.Mutex
	runs []run[A]
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
	st := participant[A]{next: -1, size: o.size, start: time.Now()}
	st.take = o.cfg.clamp(st.size / takesPerClock)
	// A panic stops runBlocks; cancel the loop, and run again to drain it.
	for !o.runBlocks(&p, &st) {
		o.parts.Cancel()
	}
	if st.next >= 0 && o.r.Combine != nil {
		st.cur.hi = st.next
		st.mine = append(st.mine, st.cur)
		o.mu.Lock()
		o.runs = append(o.runs, st.mine...)
		o.mu.Unlock()
	}
	// Leave publishes the runs recorded above to whoever sees the loop done.
	if p.Leave() {
		o.done.Set()
	}
}

// participant is one goroutine's state in the parallel phase.
type participant[A any] struct {
	mine []run[A] // finished runs
	cur  run[A]   // the run being folded
	next int      // end of cur; -1: no run yet

	// The block size (items per blockTarget) is measured over takesPerClock
	// takes of size/takesPerClock items each: the clock is read once per
	// block, while only one take at a time is out of the thieves' reach, so a
	// take that runs into a hot spot unbalances the loop by a fraction of a
	// block, not by a whole one.
	size, take      int
	start           time.Time
	last            time.Duration
	measured, takes int
}

// runBlocks folds the blocks the partitioner hands out into st until it has
// no more (true), or until the user's code panics (false; the first panic of
// the loop is recorded). All the user's code that a participant runs
// (Identity, Fold, Stop) runs here, under one recover: helpers are detached
// jobs, where an escaping panic would crash the program.
func (o *loop[A]) runBlocks(p *partition.Participant, st *participant[A]) (finished bool) {
	defer func() {
		if v := recover(); v != nil {
			o.panicked.CompareAndSwap(nil, runtime.NewPanic(v))
			finished = false
		}
	}()
	for {
		lo, hi, ok := p.Next(st.take)
		if !ok {
			return true
		}
		if lo != st.next {
			if st.next >= 0 && o.r.Combine != nil {
				st.cur.hi = st.next
				st.mine = append(st.mine, st.cur)
			}
			st.next = -1 // if Identity panics, there is no current run
			st.cur = run[A]{lo: lo, acc: o.r.Identity()}
		}
		st.cur.acc = o.r.Fold(st.cur.acc, lo, hi)
		st.next = hi
		if (o.r.Stop != nil && o.r.Stop(st.cur.acc)) || isClosed(o.stop) {
			o.parts.Cancel()
		}
		st.measured += hi - lo
		if st.takes++; st.takes == takesPerClock {
			now := time.Since(st.start)
			st.size = nextBlock(st.take*takesPerClock, st.measured, now-st.last)
			st.take = o.cfg.clamp(st.size / takesPerClock)
			st.last, st.measured, st.takes = now, 0, 0
		}
	}
}

// checkRunsTile checks that the sorted runs of a loop that ran to the end
// cover [lo, hi) exactly once (gopar_debug only).
func (o *loop[A]) checkRunsTile() {
	// runs[0] is the caller's inline prefix, which ends where the
	// partitioned rest of the loop begins.
	at, end := o.runs[0].lo, o.runs[0].hi+o.parts.Len()
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
		return o.r.Identity()
	}
	slices.SortFunc(o.runs, func(a, b run[A]) int { return cmp.Compare(a.lo, b.lo) })
	if invariant.Enabled && !o.parts.Cancelled() {
		o.checkRunsTile()
	}
	acc := o.runs[0].acc
	for _, r := range o.runs[1:] {
		acc = o.r.Combine(acc, r.acc)
	}
	return acc
}
