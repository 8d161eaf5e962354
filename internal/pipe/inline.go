package pipe

// The pool driver's inline phase: the caller's clock, and the promotion
// of a loop's rest while its first block runs (restOfLoop, foldFirst).

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/gopar-dev/gopar/internal/invariant"
	"github.com/gopar-dev/gopar/internal/sched"
	"github.com/gopar-dev/gopar/runtime"
)

// epoch is the origin of sinceEpoch.
var epoch = time.Now()

// sinceEpoch reads the monotonic clock, as the inline phase does after every
// block: time.Since on a time with a monotonic reading reads that clock
// alone, where time.Now reads the wall clock too, which costs about twice
// as much. On a loop of 1,000 cheap items (W0), time.Now was 4% of the call.
func sinceEpoch() time.Duration { return time.Since(epoch) }

// runInlineObserved is runInline observed: as a region of the caller's,
// the part of a traced loop that its caller runs alone, and with its
// blocks counted in the caller's statistics. Like a timeline, statistics
// keep the first block's rest off the promotion board, so that every
// block of the phase is the caller's.
func runInlineObserved[A any](pool *runtime.Pool, cfg Config, lo, hi int, r Reducer[A], done <-chan struct{}) (A, int, sizer, bool) {
	if t := cfg.task; t != nil {
		defer t.region().End()
	}
	ps := cfg.stats.begin(laneKey{kind: callerLane})
	if ps != nil {
		defer ps.done()
	}
	return runInline(pool, cfg, lo, hi, r, done, ps)
}

// runInline is the pool driver's inline phase over [lo, hi): the caller
// alone, in blocks that grow while they are quick (see sizer), the first of
// them with the rest of the loop on the promotion board (foldFirst), until
// the loop is over or has run for goParallelAfter. It returns the phase's
// accumulator, the first index it did not run, the sizer where it left off,
// and whether the loop is over (acc is then its result).
func runInline[A any](pool *runtime.Pool, cfg Config, lo, hi int, r Reducer[A], done <-chan struct{}, ps *partStats) (A, int, sizer, bool) {
	acc := r.identity()
	start := sinceEpoch()
	sz := sizer{size: 1, growth: maxInlineGrowth}
	rec := cfg.rec
	var recBase time.Duration // start, on the recording's clock
	if rec != nil {
		recBase = epoch.Add(start).Sub(rec.start)
	}
	i := lo
	for last := time.Duration(0); i < hi; {
		n := min(cfg.clamp(sz.size), span(i, hi))
		if ps != nil {
			ps.block(i, i+n)
		}
		if i == lo && n < span(i, hi) && rec == nil && ps == nil && pool.Workers() > 1 {
			var rest *restOfLoop[A]
			if acc, rest = foldFirst(pool, cfg, lo, n, hi, r, acc); rest != nil {
				return rest.join(acc), i, sz, true
			}
		} else {
			acc = r.Fold(acc, i, i+n)
		}
		i += n
		if i == hi && rec == nil {
			// The last block: nothing is left to size or to decide (a
			// Stop, Cut or done context now changes nothing), so the
			// clock is not read.
			return acc, i, sz, true
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
			return acc, i, sz, true
		}
		if now > goParallelAfter {
			break
		}
	}
	return acc, i, sz, i == hi
}

// restOfLoop is a loop's rest, [lo, hi), while the caller runs its first
// block: published with sched.Promote, so that a worker that is idle
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
// (internal/sched/PROMOTION.md, "Ripe").
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
	pr := sched.Promote(pool, h.fn)
	if !pr.Published() {
		h.release()
		return r.Fold(acc, lo, lo+n), nil
	}
	if invariant.Enabled {
		defer pr.CheckEnded("foldFirst")
	}
	returned := false
	defer func() {
		if returned {
			return
		}
		// The block did not return: the loop is over, and no item of it
		// may still run once it has unwound.
		p := sched.Unwinding(recover())
		h.cancel.Store(true)
		if !pr.Reclaim() {
			p = sched.Stronger(p, pr.Wait())
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
	sched.Raise(h.panicked)
	if h.decided || h.r.Combine == nil {
		return acc
	}
	return h.r.Combine(acc, h.acc)
}
