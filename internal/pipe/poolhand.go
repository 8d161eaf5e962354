package pipe

// The pool driver's hand: what a participant of the parallel phase takes
// from the partitioner, and how large (poolHand).

import (
	"math"
	goruntime "runtime"
	"sync/atomic"
	"time"

	"github.com/gopar-dev/gopar/partition"
	"github.com/gopar-dev/gopar/runtime"
)

// participate runs one participant of the loop on w, through the engine,
// until the partitioner has nothing more for it.
func (o *loop) participate(w *runtime.Worker) {
	h := &poolHand{o: o, sizer: o.sizer, start: time.Now(), quantum: time.Duration(yieldWait.Load())}
	if !o.parts.Enter(&h.p) {
		return
	}
	obs := observers{task: o.cfg.task}
	if o.rec != nil {
		obs.log = o.newLaneLog(w, &h.p)
	}
	if ps := o.cfg.stats.begin(poolLane(w, o.caller, o.workers)); ps != nil {
		ps.stole = &h.p
		obs.stats = ps
	}
	h.take = o.cfg.clamp(h.sizer.size / takesPerClock)
	participate(&o.r, &o.panicked, obs, hand(h))
}

// poolHand is how the pool driver hands one participant its work: pieces
// of the ranges the partitioner gives it (p), sized by the clock.
type poolHand struct {
	o *loop
	p partition.Participant

	// The block size is measured over windows of takesPerClock pieces of
	// sizer.size/takesPerClock items each: the clock is read once per
	// window, while only one piece at a time is out of the thieves' reach,
	// so a piece that runs into a hot spot unbalances the loop by a fraction
	// of a block, not by a whole one. Pieces cost a take each (about 20 ns:
	// 4% of the time of 1-2 ns items), so while the items' cost is steady
	// the rest of a window is taken at once; see wholeWindow.
	sizer         sizer
	take          int // items per piece
	taken         int // pieces in the block next returned last
	start         time.Time
	last          time.Duration
	measured      int     // items run in this window
	pieces, takes int     // pieces (of takesPerClock) and takes in this window
	steady        bool    // the last window's items cost about what the one before's did
	perItem       float64 // the last window's time per item, in ns

	// yielded is when the participant last yielded its processor, and
	// quantum how long its yields keep it waiting, on average (runFor).
	yielded, quantum time.Duration
}

func (h *poolHand) next() (lo, hi int, ok bool) {
	o := h.o
	take, pieces := h.take, 1
	if o.r.Setup {
		// Half of what our range has left; a new range (Left is then 0)
		// starts with the sizer's block.
		take = o.cfg.clamp(max(take, h.p.Left()/2))
	} else if n := h.wholeWindow(&h.p, o.cfg.MaxBlock); n > 1 {
		take, pieces = h.take*n, n
	}
	h.taken = pieces
	return h.p.Next(take)
}

func (h *poolHand) newRun() { h.newRange() }

func (h *poolHand) blockRuns() bool { return false }

func (h *poolHand) resume() (run, bool) { return run{}, false }

// folded stops or cuts the partitioner as the Reducer says, and, at the
// end of a window, resizes the pieces and, once a quantum, yields the
// processor.
func (h *poolHand) folded(lo, hi int, stop bool, cut int) {
	o := h.o
	if stop || isClosed(o.stop) {
		o.parts.Cancel()
	} else if cut < math.MaxInt {
		o.parts.CutAt(cut)
	}
	h.measured += hi - lo
	h.takes++
	if h.pieces += h.taken; h.pieces >= takesPerClock {
		now := time.Since(h.start)
		took := now - h.last
		h.sizer.size = h.take * takesPerClock
		h.sizer.observe(h.measured, h.takes, took)
		h.take = o.cfg.clamp(h.sizer.size / takesPerClock)
		h.windowCost(took, h.measured)
		h.last, h.measured, h.pieces, h.takes = now, 0, 0, 0
		if now-h.yielded >= h.runFor() {
			h.yield(now)
		}
	}
}

// yield yields the participant's processor at now. Among goroutines that
// yield as often, gopar's, that costs a quantum's wait at most; a plain
// goroutine that never yields keeps the processor for the Go scheduler's
// time slice (10 ms), and a participant that yielded every quantum all the
// same would get a fiftieth of the processor beside it. So where its
// yields keep it waiting that long (an average that gives the last wait a
// quarter, at least longWait: one wait of a time slice is enough, and a
// few short ones end it), the participant runs as long before it yields
// again: beside goroutines that do not yield, it takes turns with them as
// they do with each other. Waits of gopar's own operations, which
// yield every quantum, are shorter and leave it at yieldQuantum. The last
// participant's average (yieldWait) is where the next participant's
// starts: the goroutines that a yield lets run are the process's, not the
// loop's.
func (h *poolHand) yield(now time.Duration) {
	goruntime.Gosched()
	back := time.Since(h.start)
	h.yielded, h.quantum = now, (3*h.quantum+back-now)/4
	yieldWait.Store(int64(h.quantum))
}

// runFor is the time from one yield to the next: yieldQuantum, the wait
// included, or where its yields keep it waiting as long as a goroutine
// that does not yield holds a processor (longWait or more, on average),
// twice the wait, so that it then runs as long as it waited.
func (h *poolHand) runFor() time.Duration {
	if h.quantum >= longWait {
		return 2 * h.quantum
	}
	return yieldQuantum
}

// yieldWait is how long a participant's yields kept it waiting for a
// processor, on average, as of the last one, in nanoseconds.
var yieldWait atomic.Int64

// keep keeps the run x if the loop combines its runs.
func (h *poolHand) keep(mine []run, x run) []run {
	if h.o.r.Combine == nil {
		return mine
	}
	return append(mine, x)
}

// abandon stops the loop and lets Next say it is over for this
// participant.
func (h *poolHand) abandon() {
	h.o.parts.Cancel()
	for {
		if _, _, ok := h.p.Next(1); !ok {
			return
		}
	}
}

// leave hands the loop the participant's runs and lane; Leave publishes
// them to whoever sees the loop done, which the last participant to leave
// sets.
func (h *poolHand) leave(mine []run, log *laneLog) {
	h.o.gather(mine, log)
	if h.p.Leave() {
		h.o.done.Set()
	}
}

// windowCost notes that the window just ended ran n items in took, and
// decides whether the participant is steady.
func (st *poolHand) windowCost(took time.Duration, n int) {
	per := float64(took) / float64(max(n, 1))
	st.steady = st.perItem > 0 && per <= steadyRise*st.perItem
	st.perItem = per
}

// newRange forgets the items' cost when the participant moves to a new
// range (a steal or a claim): its cost is not known until a whole window
// has run in it.
func (st *poolHand) newRange() { st.steady, st.perItem = false, 0 }

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
func (st *poolHand) wholeWindow(p *partition.Participant, maxBlock int) int {
	n := takesPerClock - st.pieces
	if maxBlock > 0 {
		n = min(n, maxBlock/st.take)
	}
	if !st.steady || n <= 1 || p.Left() < st.take*n {
		return 1
	}
	return n
}
