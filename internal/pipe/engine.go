package pipe

// The participant engine: one goroutine's part in a loop, under every
// driver (participate).

import (
	"sync"
	"sync/atomic"

	"github.com/gopar-dev/gopar/internal/plumb"
	"github.com/gopar-dev/gopar/runtime"
)

// A driver runs a loop on participants (goroutines), and hands each one its
// work through a hand: the pool driver pieces of the partitioner's ranges
// (poolHand); the blocking driver items in index order, and both sequence
// drivers chunks of the seq, in order (inOrderHand). Everything else a participant
// does is the engine's, the same under every driver: it folds each block
// into its current run, or ends that run and begins the next where the
// block does not extend it (runBook), or, in a stream, where every block
// is a run, ends the run with the block (blockRuns); it records the block
// on its timeline lane, if one is recorded; it asks the Reducer whether the
// loop is decided or cut (verdict) and tells the hand; and when the hand
// has no more work for it, or the user's code it runs (Identity, Fold,
// Stop, Cut) panics or calls runtime.Goexit, it ends: it records the
// failure for the caller to raise (unwound), and hands its runs and its
// lane to the loop. The progress observer counts the items of each Fold
// (countItems), so it needs nothing of its own here.

// hand is what a driver gives one participant of its loop.
type hand interface {
	// next returns the participant's next block, [lo, hi), or false once
	// there is none for it.
	next() (lo, hi int, ok bool)
	// newRun says that the block next returned begins a new run: it
	// does not extend the participant's current one.
	newRun()
	// folded says that the block [lo, hi) is folded, and what the Reducer
	// made of the run it ended: stop, whether the loop is decided, and
	// cut, the least index no longer needed (math.MaxInt: none).
	folded(lo, hi int, stop bool, cut int)
	// keep adds the run x, which has ended, to mine, the participant's
	// runs, and returns them.
	keep(mine []run, x run) []run
	// abandon says that the participant's user code panicked or called
	// runtime.Goexit: the loop must hand out no more work.
	abandon()
	// leave hands the loop the participant's runs and its timeline lane
	// (nil unless a timeline is recorded), as the participant leaves.
	leave(mine []run, log *laneLog)
	// blockRuns reports whether every block is a run of its own, which
	// keep takes as soon as the block is folded (a stream's chunks, which
	// its consumer waits for). Asked once, as the participant starts.
	blockRuns() bool
	// resume returns the run the participant goes on folding, if it has
	// one as it starts: a helper that comes back into its slot of an
	// unordered loop over a seq keeps the accumulator it parked there.
	// Asked once, as the participant starts.
	resume() (x run, ok bool)
}

// participate runs one participant of a loop with Reducer r: it takes
// blocks from h and folds them until h has none for it, then leaves. A
// panic or runtime.Goexit in the user's code is recorded in failed, for the
// caller to raise once every participant has left (the participants of the
// pool are detached jobs, where an escaping panic would crash the
// program). obs are the observers of the participant run, if any.
func participate(r *Reducer[any], failed *atomic.Pointer[runtime.Panic], obs observers, h hand) {
	if obs.task != nil {
		defer obs.task.region().End()
	}
	e := engine{r: r, failed: failed, log: obs.log, stats: obs.stats, blockRuns: h.blockRuns()}
	if x, ok := h.resume(); ok {
		e.runs.cur, e.runs.inRun = x, true
	}
	defer e.leave(h)
	e.fold(h)
	e.returned = true
}

// observers are what observes one participant run, each nil unless asked
// for: its timeline lane, the operation's trace task (optrace.go), and its
// statistics (stats.go).
type observers struct {
	log   *laneLog
	task  *opTask
	stats *partStats
}

// engine is one participant's state, under every driver.
type engine struct {
	r         *Reducer[any]
	failed    *atomic.Pointer[runtime.Panic]
	runs      runBook
	log       *laneLog   // nil unless a timeline is recorded
	stats     *partStats // nil unless statistics are collected
	returned  bool       // fold returned: no panic or Goexit
	blockRuns bool       // every block is a run of its own (hand.blockRuns)
}

// fold folds the blocks that h hands out into e's runs until it has no
// more. All the user's code that a participant runs runs here; a panic or
// runtime.Goexit in it ends fold, and leave records it.
func (e *engine) fold(h hand) {
	bk := &e.runs
	for {
		lo, hi, ok := h.next()
		if !ok {
			return
		}
		if !bk.extends(lo, e.r.Unordered) {
			if prev, ok := bk.end(); ok {
				bk.mine = h.keep(bk.mine, prev)
			}
			h.newRun()
			bk.begin(lo, e.r)
		}
		// The one test a block pays for the timeline when none is
		// recorded.
		if g := e.log; g == nil {
			bk.cur.acc = e.r.Fold(bk.cur.acc, lo, hi)
		} else {
			t0 := g.rec.since()
			bk.cur.acc = e.r.Fold(bk.cur.acc, lo, hi)
			g.block(lo, hi, t0)
		}
		if ps := e.stats; ps != nil {
			ps.block(lo, hi)
		}
		bk.folded(hi)
		stop, cut := e.r.verdict(bk.cur.acc)
		h.folded(lo, hi, stop, cut)
		if e.blockRuns {
			x, _ := bk.end()
			bk.mine = h.keep(bk.mine, x)
		}
	}
}

// leave, deferred by participate, ends e's part in the loop: a panic or
// runtime.Goexit that ends it is recorded and stops the loop (the run it
// was folding is lost with it); the run it ends with is kept; its runs and
// its lane go to the loop.
func (e *engine) leave(h hand) {
	if unwound(e.failed, recover(), e.returned) {
		h.abandon()
		e.runs.end()
	}
	if last, ok := e.runs.end(); ok {
		e.runs.mine = h.keep(e.runs.mine, last)
	}
	if e.log != nil {
		e.log.close()
	}
	if e.stats != nil {
		e.stats.done() // before the loop can end, which writes them out
	}
	h.leave(e.runs.mine, e.log)
}

// gathered is what a loop's participants hand it as they leave (the
// hands' leave): their runs and their timeline lanes.
type gathered struct {
	mu   sync.Mutex
	runs []run
	logs []*laneLog // the participants' lanes (a timeline is recorded)
}

// gather adds one participant's runs and its lane, if any (log may be nil).
func (g *gathered) gather(mine []run, log *laneLog) {
	if len(mine) == 0 && log == nil {
		return
	}
	g.mu.Lock()
	g.runs = append(g.runs, mine...)
	if log != nil {
		g.logs = append(g.logs, log)
	}
	g.mu.Unlock()
}

// unwound tells how a participant's user code ended, from a deferred
// function that passes it recover()'s value v and whether the code
// returned: false if it returned; true if a panic (v) or runtime.Goexit
// (v nil) unwinds the participant, which it records in the loop's failure
// slot for the caller to raise once every participant has left (the first
// panic wins over a Goexit).
func unwound(failed *atomic.Pointer[runtime.Panic], v any, returned bool) bool {
	if v == nil && returned {
		return false
	}
	plumb.Record(failed, plumb.Unwinding(v))
	return true
}
