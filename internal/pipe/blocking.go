package pipe

import "github.com/gopar-dev/gopar/internal/plumb"

// runBlocking is Run for callbacks that may block (Config.Blocking set):
// file, network or database calls, whose time is spent waiting, not
// computing. Such calls must not hold the pool's workers, so they run on
// goroutines of their own, at most cfg.Blocking at once, each taking one
// item at a time (cfg.MinBlock items, if set) in index order (the first
// items start first, as with an errgroup). The caller only waits: it may
// itself be a pool worker. A negative limit panics.
//
// Goroutines start lazily: each one that takes an item starts the next
// while fewer than the limit run and items remain, so a short loop starts
// few. All of them have returned when runBlocking returns.
//
// A goroutine folds the items it takes into a run while their indexes are
// contiguous; runs are combined in index order, as in Run. Once the loop is
// decided (Stop, a done context, a panic) no item is handed out any more,
// and after a Cut no item at or above it; calls already running finish. A
// panic is re-raised in the caller as a *runtime.Panic once every goroutine
// has returned; a runtime.Goexit in a callback likewise ends the caller's
// goroutine with runtime.Goexit, unless a callback panicked.
func runBlocking(cfg Config, lo, hi int, r Reducer[any]) any {
	if cfg.Blocking < 0 {
		RefuseBlocking(cfg.Blocking)
	}
	b := &inOrderLoop{r: r, lo: lo, n: uint64(hi) - uint64(lo), limit: cfg.Blocking,
		take: uint64(max(cfg.MinBlock, 1)), stop: cfg.done(), rec: cfg.rec, task: cfg.task, stats: cfg.stats}
	b.start()
	plumb.Block(cfg.Pool, b.wg.Wait) // the caller may be a pool worker
	if b.rec != nil {
		b.rec.merge(b.logs)
	}
	plumb.Raise(b.panicked.Load())
	if r.Combine == nil {
		return r.identity()
	}
	sortRuns(b.runs)
	return combineRuns(r.prefixRuns(b.runs, lo, b.stop), r)
}
