package pipe

// The pool driver's inline phase: the caller's clock, and the promotion
// of a loop's rest while its first block runs (restOfLoop, foldFirst).

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/gopar-dev/gopar/internal/invariant"
	"github.com/gopar-dev/gopar/internal/plumb"
	"github.com/gopar-dev/gopar/partition"
	"github.com/gopar-dev/gopar/runtime"
)

// epoch is the origin of sinceEpoch.
var epoch = time.Now()

// sinceEpoch reads the monotonic clock, as the inline phase does after every
// block: time.Since on a time with a monotonic reading reads that clock
// alone, where time.Now reads the wall clock too, which costs about twice
// as much. On a loop of 1,000 cheap items (W0), time.Now was 4% of the call.
func sinceEpoch() time.Duration { return time.Since(epoch) }

// inlinePhase is the state of the pool driver's inline phase over [lo,
// hi) but for its accumulator: the caller's clock, the sizer, and the
// first index not yet run. runInline folds the blocks it hands out; the
// parallel phase starts where it left off.
type inlinePhase struct {
	pool      *runtime.Pool
	cfg       Config
	lo, i, hi int // the loop, and the first index not yet run
	sz        sizer
	done      <-chan struct{} // cfg.done()
	ps        *partStats      // the caller's statistics, if the loop keeps any
	start     time.Duration   // the phase's start, on sinceEpoch's clock
	last      time.Duration   // the end of the last block, since start
	recBase   time.Duration   // start, on the timeline's clock (cfg.rec)
}

// begin starts the phase's clock.
func (ph *inlinePhase) begin() {
	ph.start = sinceEpoch()
	if rec := ph.cfg.rec; rec != nil {
		ph.recBase = epoch.Add(ph.start).Sub(rec.start)
	}
}

// next returns the next block, [lo, lo+n), and whether it is the loop's
// first and does not end it: the caller then runs it with the rest of the
// loop on the promotion board (foldFirst), unless the loop is observed
// block by block or the pool has one worker.
func (ph *inlinePhase) next() (lo, n int, first bool) {
	lo, n = ph.i, min(ph.cfg.clamp(ph.sz.size), span(ph.i, ph.hi))
	if ph.ps != nil {
		ph.ps.block(lo, lo+n)
	}
	first = lo == ph.lo && n < span(lo, ph.hi) && ph.cfg.rec == nil && ph.ps == nil && ph.pool.Workers() > 1
	return lo, n, first
}

// ran moves the phase past the block of n items that the caller has run
// and says whether that ended the loop. Otherwise, it times the block,
// adds it to the timeline, if any, and sizes the next one (setup: see
// Reducer.Setup).
func (ph *inlinePhase) ran(n int, setup bool) bool {
	ph.i += n
	rec := ph.cfg.rec
	if ph.i == ph.hi && rec == nil {
		// The last block: nothing is left to size or to decide (a Stop,
		// Cut or done context now changes nothing), so the clock is not
		// read.
		return true
	}
	now := sinceEpoch() - ph.start
	if rec != nil {
		rec.caller = append(rec.caller, partition.Block{Lo: ph.i - n, Hi: ph.i, Start: ph.recBase + ph.last, End: ph.recBase + now})
	}
	ph.sz.observe(n, 1, now-ph.last)
	if setup {
		ph.sz.size = max(ph.sz.size, 2*n)
	}
	ph.last = now
	return false
}

// observed runs inline, the inline phase, observed: as a region of the
// caller's, the part of a traced loop that its caller runs alone, and with
// its blocks counted in the caller's statistics. Like a timeline,
// statistics keep the first block's rest off the promotion board, so that
// every block of the phase is the caller's.
func (ph *inlinePhase) observed(inline func()) {
	if t := ph.cfg.task; t != nil {
		defer t.region().End()
	}
	ph.ps = ph.cfg.stats.begin(laneKey{kind: callerLane})
	if ph.ps != nil {
		defer ph.ps.done()
	}
	inline()
}

// runInline is the pool driver's inline phase (ph): the caller alone, in
// blocks that grow while they are quick (see sizer), the first of them
// with the rest of the loop on the promotion board (foldFirst), until the
// loop is over or has run for goParallelAfter. It returns the phase's
// accumulator and whether the loop is over (acc is then its result). The
// rest of the phase's state is A's alone, so that the code compiled for
// each accumulator type is this loop.
func runInline[A any](ph *inlinePhase, r Reducer[A]) (A, bool) {
	acc := r.identity()
	ph.begin()
	for ph.i < ph.hi {
		lo, n, first := ph.next()
		if first {
			var rest *restOfLoop[A]
			if acc, rest = foldFirst(ph, lo, n, r, acc); rest != nil {
				return rest.join(acc), true
			}
		} else {
			acc = r.Fold(acc, lo, lo+n)
		}
		if ph.ran(n, r.Setup) || r.decided(acc, ph.hi, ph.done) {
			return acc, true
		}
		if ph.last > goParallelAfter {
			break
		}
	}
	return acc, ph.i == ph.hi
}

// restOfLoop is a loop's rest, [lo, hi), while the caller runs its first
// block: published with plumb.Promote, so that a worker that is idle
// once the block has run for a heartbeat tick runs it as a loop of its own
// (inline, then parallel) and hands back its result. The first block is
// the one whose time nothing predicts: it is item 0 (see sizer), and a
// costly item 0 would otherwise run alone however long it took. Later
// blocks are sized by the clock, and the inline phase ends after
// goParallelAfter.
type restOfLoop[A any] struct {
	rest
	r   Reducer[A]
	acc A // the rest's result, written by its runner
}

// rest is the part of a restOfLoop that its accumulator's type does not
// change: the rest's range and how it ended.
type rest struct {
	cfg    Config
	lo, hi int
	// cancel: the first block decided the loop (Stop, Cut), or failed. The
	// rest stops after the block it runs.
	cancel   atomic.Bool
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
	h.acc = unbox[A](driveRange(h.cfg, h.lo, h.hi, boxed(r)))
}

// foldFirst folds the loop's first block, [lo, lo+n), into acc, with the
// rest of the loop, [lo+n, ph.hi), on the promotion board meanwhile. It
// returns the block's result, and the rest if a worker took it, once that
// worker is done with it: the caller then returns rest.join(acc). A panic
// or Goexit in the block stops a taken rest and waits for it before it
// goes on.
func foldFirst[A any](ph *inlinePhase, lo, n int, r Reducer[A], acc A) (A, *restOfLoop[A]) {
	hi := ph.hi
	h, _ := restOfLoops.Get().(*restOfLoop[A])
	if h == nil {
		h = new(restOfLoop[A])
		h.fn = h.run
	}
	h.cfg, h.r, h.lo, h.hi = ph.cfg, r, lo+n, hi
	pr := plumb.Promote(ph.pool, h.fn)
	if !pr.Published() {
		h.release()
		return r.Fold(acc, lo, lo+n), nil
	}
	if invariant.Enabled {
		defer pr.CheckEnded("foldFirst")
	}
	h.whilePromoted(pr, func() { acc = r.Fold(acc, lo, lo+n) })
	if pr.Reclaim() {
		h.release()
		return acc, nil
	}
	h.taken(pr, r.answered(acc, hi))
	return acc, h
}

// whilePromoted runs fold, the loop's first block, while the rest is on
// the promotion board (pr). If the block does not return, the loop is
// over, and no item of it may still run once it has unwound: the rest is
// cancelled, and taken back or waited for, before the stronger of the two
// panics or Goexits goes on.
func (h *rest) whilePromoted(pr plumb.Promotion, fold func()) {
	returned := false
	defer func() {
		if returned {
			return
		}
		p := plumb.Unwinding(recover())
		h.cancel.Store(true)
		if !pr.Reclaim() {
			p = plumb.Stronger(p, pr.Wait())
		}
		if !p.IsGoexit() {
			panic(p)
		}
	}()
	fold()
	returned = true
}

// taken waits for the rest, which a worker took, once the first block has
// run; answered says whether that block holds the loop's answer.
func (h *rest) taken(pr plumb.Promotion, answered bool) {
	if answered {
		// The answer is in the first block, and the rest's items, which
		// come after it, do not count.
		h.decided = true
		h.cancel.Store(true)
	} else if isClosed(h.cfg.done()) {
		// A done context stops the loop, and its prefix counts: the first
		// block ran whole, so the rest, which stops after the block it
		// runs, gives its own prefix (see prefixRuns) to be combined.
		h.cancel.Store(true)
	}
	h.panicked = pr.Wait()
}

// join returns the loop's result from the first block's, acc, and the
// rest's, or passes on the rest's panic or Goexit.
func (h *restOfLoop[A]) join(acc A) A {
	plumb.Raise(h.panicked)
	if h.decided || h.r.Combine == nil {
		return acc
	}
	return h.r.Combine(acc, h.acc)
}
