package pipe

// A participant of the parallel phase: one goroutine's loop over the
// blocks the partitioner hands it (participate, runBlocks).

import (
	"math"
	goruntime "runtime"
	"sync/atomic"
	"time"

	"github.com/gopar-dev/gopar/internal/sched"
	"github.com/gopar-dev/gopar/partition"
	"github.com/gopar-dev/gopar/runtime"
)

// participate runs blocks of the loop until the partitioner has nothing more
// for this goroutine, then leaves.
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
	defer o.leave(&p, &st)
	o.runBlocks(&p, &st)
	st.returned = true
}

// leave, deferred by participate, ends st's part in the loop: it records
// a panic or runtime.Goexit that ends it, and then stops the loop and lets
// Next say it is over for st; it hands the loop st's runs and timeline
// lane; the last participant to leave sets done. Helpers are detached
// jobs, where an escaping panic would crash the program: leave's recover
// keeps a panic in the user's code (Identity, Fold, Stop) from escaping,
// and the caller re-raises it (a Goexit ends the caller's goroutine too).
func (o *loop[A]) leave(p *partition.Participant, st *participant[A]) {
	if unwound(&o.panicked, recover(), st.returned) {
		o.parts.Cancel()
		for {
			if _, _, ok := p.Next(1); !ok {
				break
			}
		}
		st.runs.end() // the run's accumulator is lost with the panic
	}
	if last, ok := st.runs.end(); ok && o.r.Combine != nil {
		o.mu.Lock()
		o.runs = append(append(o.runs, st.runs.mine...), last)
		o.mu.Unlock()
	}
	o.publishLog(st)
	// Leave publishes the runs and the timeline recorded above to whoever
	// sees the loop done.
	if p.Leave() {
		o.done.Set()
	}
}

// participant is one goroutine's state in the parallel phase.
type participant[A any] struct {
	runs runBook[A] // its runs (kept only if the loop combines them)

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

	returned bool // runBlocks returned: no panic or Goexit
}

// publishLog hands the timeline lane st recorded, if any, to the loop, on
// its way out of the loop (before Leave, which publishes it).
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
// no more. All the user's code that a participant runs (Identity, Fold,
// Stop) runs here; a panic or runtime.Goexit in it ends runBlocks, and
// leave records it.
func (o *loop[A]) runBlocks(p *partition.Participant, st *participant[A]) {
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
			return
		}
		bk := &st.runs
		if !bk.extends(lo, o.r.Unordered) {
			if prev, ok := bk.end(); ok && o.r.Combine != nil {
				bk.mine = append(bk.mine, prev)
			}
			st.newRange()
			bk.begin(lo, &o.r)
		}
		// The one test a block pays for the timeline when none is
		// recorded.
		if g := st.log; g == nil {
			bk.cur.acc = o.r.Fold(bk.cur.acc, lo, hi)
		} else {
			t0 := g.rec.since()
			bk.cur.acc = o.r.Fold(bk.cur.acc, lo, hi)
			g.block(lo, hi, t0)
		}
		bk.folded(hi)
		if stop, cut := o.r.verdict(bk.cur.acc); stop || isClosed(o.stop) {
			o.parts.Cancel()
		} else if cut < math.MaxInt {
			o.parts.CutAt(cut)
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

// unwound tells how a participant's user code ended, from a deferred
// function that passes it recover()'s value v and whether the code
// returned: false if it returned; true if a panic (v) or runtime.Goexit
// (v nil) unwinds the participant, which it records in the loop's failure
// slot for the caller to raise once every participant has left (the first
// panic wins over a Goexit). The pool's and the blocking drivers'
// participants end through it.
func unwound(failed *atomic.Pointer[runtime.Panic], v any, returned bool) bool {
	if v == nil && returned {
		return false
	}
	sched.Record(failed, sched.Unwinding(v))
	return true
}
