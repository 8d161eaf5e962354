package pipe

// A participant of the parallel phase: one goroutine's loop over the
// blocks the partitioner hands it (participate, runBlocks).

import (
	"math"
	goruntime "runtime"
	"time"

	"github.com/gopar-dev/gopar/internal/sched"
	"github.com/gopar-dev/gopar/partition"
	"github.com/gopar-dev/gopar/runtime"
)

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
			sched.Record(&o.panicked, sched.Unwinding(nil))
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
	if last, ok := st.runs.end(); ok && o.r.Combine != nil {
		o.mu.Lock()
		o.runs = append(append(o.runs, st.runs.mine...), last)
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
			sched.Record(&o.panicked, sched.NewPanic(v))
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
