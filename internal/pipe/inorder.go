package pipe

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gopar-dev/gopar/internal/cut"
	"github.com/gopar-dev/gopar/runtime"
)

// inOrderLoop is the shared state of a loop whose participants take their
// items in index order: from a shared counter (runBlocking) or from the
// chunks of a seq (runBlockingSeq and, on the pool, runPoolSeq: see
// overSeq, seqloop.go). Its participants' hand is inOrderHand.
type inOrderLoop struct {
	r     Reducer[any]
	lo    int
	n     uint64
	limit int
	take  uint64 // items handed out at a time
	stop  <-chan struct{}

	next     atomic.Uint64 // offset of the next item to hand out
	cut      cut.Line      // items at or above it are no longer needed
	decided  atomic.Bool   // Stop, a done context or a panic: hand out nothing
	started  atomic.Int64  // goroutines started
	wg       sync.WaitGroup
	panicked atomic.Pointer[runtime.Panic]

	rec      *recording // nil unless a timeline is recorded
	task     *opTask    // nil unless a trace is recorded (optrace.go)
	stats    *opStats   // nil unless statistics are collected (stats.go)
	gathered            // the participants' runs and lanes

	// Over a seq (runBlockingSeq, runPoolSeq), where the items come from,
	// and, for an ordered result, the prefix of the runs combined as they
	// end.
	seq      *seqBlocks
	prefixMu sync.Mutex // guards prefix
	prefix   prefixRuns

	// On the pool (runPoolSeq): the participants are the caller and
	// helper jobs it offers, not goroutines of the loop's own. An
	// unordered loop keeps the run of a helper that leaves in its slot
	// (parked, by participant), for the next helper in the slot to go on
	// with: one accumulator per slot for the whole seq.
	onPool *poolSeq
	parked []parkedRun
}

// parkedRun is the run a helper left in its slot.
type parkedRun struct {
	x  run
	ok bool
}

// start starts one more goroutine, unless the limit is reached.
func (b *inOrderLoop) start() {
	k := b.started.Add(1)
	if k > int64(b.limit) {
		return
	}
	b.wg.Add(1)
	go b.work(int(k-1), nil)
}

// nextBlock hands out the next block of items [i, e), or reports that there
// is none to run.
//
// The offset moves by CAS and stops at n: an add of take per call would
// keep counting after the end, and with a take near 2^63 over a range of
// 2^64-1 items it wraps past 2^64 to offsets already handed out. (Calls
// here wait on I/O: one CAS per block costs nothing that matters.)
//
// Over a seq, more reports that the block left something for another
// participant to take (seqBlocks.block).
//
// ps, if not nil, counts the participant's waits for a seq's items.
func (b *inOrderLoop) nextBlock(k, take int, ps *partStats) (i, e int, ok, more bool) {
	if b.seq != nil {
		return b.seq.block(k, take, ps)
	}
	if b.decided.Load() || isClosed(b.stop) {
		return 0, 0, false, false
	}
	var off, end uint64
	for {
		off = b.next.Load()
		if off >= b.n {
			return 0, 0, false, false
		}
		end = off + b.take
		if end < off || end > b.n { // wrapped past 2^64, or past the loop's end
			end = b.n
		}
		if b.next.CompareAndSwap(off, end) {
			break
		}
	}
	i, e = int(uint64(b.lo)+off), int(uint64(b.lo)+end)
	if i >= b.cut.At() {
		return 0, 0, false, false
	}
	return i, e, true, false
}

// work runs participant k of the loop, through the engine, until no item
// is left for it; k numbers the participant, for its lane of a timeline
// and its slot in the seq's ring. On the pool, w is the worker it runs on
// (nil off the pool).
func (b *inOrderLoop) work(k int, w *runtime.Worker) {
	if b.onPool != nil {
		defer b.onPool.leave(k)
	} else {
		defer b.wg.Done()
	}
	h := &inOrderHand{b: b, k: k, w: w, take: int(b.take)}
	if b.onPool != nil {
		h.chunk = b.onPool.sizeOf(k)
		h.take = h.chunk.size
	}
	obs := observers{task: b.task}
	if b.rec != nil || b.stats != nil {
		key := laneKey{goroutineLane, k}
		if p := b.onPool; p != nil {
			key = p.lane(k, w)
		}
		if b.rec != nil {
			obs.log = &laneLog{rec: b.rec, key: key}
		}
		obs.stats = b.stats.begin(key)
		h.stats = obs.stats
	}
	participate(&b.r, &b.panicked, obs, hand(h))
}

// inOrderHand is how an inOrderLoop hands one participant its work: the
// next items in index order, or the next chunk of the seq (nextBlock).
type inOrderHand struct {
	b     *inOrderLoop
	k     int
	w     *runtime.Worker
	take  int           // items per block
	chunk doubling      // on the pool: the chunk size, which follows the clock
	start time.Duration // on the pool: when the last block was taken
	stats *partStats    // nil unless statistics are collected
}

func (h *inOrderHand) next() (lo, hi int, ok bool) {
	b := h.b
	lo, hi, ok, more := b.nextBlock(h.k, h.take, h.stats)
	switch {
	case !ok:
	case b.onPool != nil:
		h.start = sinceEpoch()
		if more {
			b.onPool.offer(h.w)
		}
	case b.started.Load() < int64(b.limit) && (b.seq != nil || b.next.Load() < b.n):
		// Hand the next item to a new goroutine while this one runs.
		b.start()
	}
	return lo, hi, ok
}

func (h *inOrderHand) newRun() {}

// resume takes the run parked in the helper's slot, if any.
func (h *inOrderHand) resume() (run, bool) {
	if h.b.parked == nil {
		return run{}, false
	}
	p := &h.b.parked[h.k]
	x, ok := p.x, p.ok
	*p = parkedRun{}
	return x, ok
}

// blockRuns: a stream's consumer takes every chunk as soon as the chunks
// before it have run.
func (h *inOrderHand) blockRuns() bool { return h.b.prefix.emit != nil }

// folded decides or cuts the loop as the Reducer says, tells the seq the
// chunk is done, and, on the pool, resizes the chunks and has the caller
// offer the helpers once it has run alone for long enough.
func (h *inOrderHand) folded(lo, hi int, stop bool, cut int) {
	b := h.b
	if stop {
		b.decided.Store(true)
	} else if cut < math.MaxInt {
		b.cut.Lower(cut)
	}
	if b.seq != nil {
		b.seq.finished(h.k) // after the decision: a waiting taker sees it
	}
	if p := b.onPool; p != nil {
		h.take = h.chunk.next(hi-lo >= h.take, sinceEpoch()-h.start)
		if h.k == 0 {
			p.spread(h.w)
		}
	}
}

func (h *inOrderHand) keep(mine []run, x run) []run { return h.b.keep(mine, x) }

func (h *inOrderHand) abandon() { h.b.decided.Store(true) }

// leave hands the loop the participant's runs and lane, and frees its slot
// in the seq's ring; an unordered loop's helper parks its one run in its
// slot instead (see inOrderLoop.parked).
func (h *inOrderHand) leave(mine []run, log *laneLog) {
	b := h.b
	if s := b.seq; s != nil {
		s.finished(h.k)
	}
	if p := b.onPool; p != nil {
		p.keep(h.k, h.chunk) // a helper that comes back goes on at this size
	}
	if b.parked != nil && h.k > 0 && len(mine) == 1 {
		b.parked[h.k] = parkedRun{mine[0], true}
		mine = nil
	}
	b.gather(mine, log)
}

// unpark gathers the runs parked in the slots, once every participant has
// left.
func (b *inOrderLoop) unpark() {
	for _, p := range b.parked {
		if p.ok {
			b.runs = append(b.runs, p.x)
		}
	}
}

// stopped reports whether the loop needs no item at or past position at:
// it is decided, its context is done, or at is past the cut.
func (b *inOrderLoop) stopped(at int) bool {
	return b.decided.Load() || isClosed(b.stop) || at >= b.cut.At()
}
