package pipe

import (
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gopar-dev/gopar/internal/latch"
	"github.com/gopar-dev/gopar/internal/plumb"
	"github.com/gopar-dev/gopar/runtime"
)

// The pool sequence driver: a pipeline over a seq (FromSeq, FromChan, a
// restream) on the pool runs as one loop for the whole seq. The feeder
// (feed.go) pulls the seq on a goroutine of its own while the participants,
// the caller and the helper jobs it offers to the pool, each take the next
// chunk of what it pulled into the store's ring, fold it, and take the
// next, until the seq ends or the loop is decided. It is the blocking
// sequence driver (seqloop.go) with other participants and other chunks:
//
//   - The caller starts alone, as in the pool driver's inline phase: a seq
//     that ends within goParallelAfter never wakes a worker. After that it
//     offers the pool's other workers one helper job each, in the
//     loop's region, so that a wait runs only the loop's work.
//   - Only the caller waits for the seq. A helper (a pool worker) that
//     finds nothing to take leaves the loop, and its worker goes back to
//     the pool, where other operations' work or the sleep protocol has it:
//     a slow seq holds no worker of the pool. A helper is offered again
//     when there is something to take and nobody present to take it (see
//     helpers below).
//   - The participants take their chunks through seqBlocks
//     (seqblocks.go): each from a reservation of its own, which another
//     steals half of only when it runs dry, so that its chunks stay
//     contiguous, and one accumulator serves them (one run) until a
//     steal. A chunk is what has arrived in the reservation, up to the
//     participant's chunk size: small while the participants wait for the
//     seq, larger while the seq is ahead. The size follows the clock
//     (doubling).
//   - Every participant keeps one accumulator for as long as its chunks
//     are contiguous, or for the whole seq where the order does not count
//     (Reducer.Unordered, no Combine); ordered runs join the prefix as
//     soon as they reach it (prefixRuns), so the runs waiting to be
//     combined are those past the oldest running chunk.

// poolRing returns the slots of a pool loop's ring over a seq whose items
// take size bytes, and the most items of a chunk.
func poolRing(cfg Config, size uintptr, workers int) (ring, most int) {
	slots := max(seqRingChunks*workers, min(seqRingMost, cfg.windowBytes(seqRingBytes)/int(max(size, 1))))
	most = cfg.clamp(min(seqChunkMost, slots/(seqRingChunks*workers)))
	return pow2(max(slots, seqRingChunks*workers*most)), most
}

// runPoolSeq is runSeq on the pool.
func runPoolSeq(cfg Config, src batchSource, r Reducer[any]) any {
	pool := cfg.Pool
	if pool == nil {
		pool = runtime.Default()
	}
	workers := pool.Workers()
	ring, most := poolRing(cfg, src.itemSize(), workers)
	target := seqChunkTarget
	b := &inOrderLoop{r: r, limit: workers, stop: cfg.done(), rec: cfg.rec, task: cfg.task, stats: cfg.stats}
	p := &poolSeq{pool: pool, helpers: workers - 1, least: max(cfg.MinBlock, 1), most: most, target: target,
		sizes: make([]doubling, workers)}
	p.work = b.work
	p.wanted = func() bool { return b.seq.wanted() }
	b.onPool = p
	if r.Unordered && r.Combine != nil {
		b.parked = make([]parkedRun, workers)
	}
	return b.overSeq(cfg, src, ring, workers, 1, func() { p.run() })
}

// poolSeq is what a loop over a seq on the pool adds to the in-order
// loop's state (inOrderLoop): who participates, and how large their
// chunks are.
//
// Helpers. The caller offers all of them once (spread), each holding
// a token; a helper that finds nothing to take leaves the loop, and gives
// its token back (idle) once its slot is free. A token goes out again,
// with a new helper job, where there is something to take that nobody
// present takes: after a participant's take that leaves more for another
// (offer, on its worker's deque), or when the feeder publishes an item
// while no participant waits for one (arrive, through the pool's
// injector). No offer is lost: a helper gives its token back before it
// looks once more for something to take (wanted), and the others look at
// the tokens after they make something takeable, both with sequentially
// consistent atomics, so either the helper sees the item and comes back,
// or the other side sees the token and offers it (helpers.pml). A lost
// offer would cost only parallelism, not progress, while the caller waits
// for the seq; but a callback on the caller that waits for a later item
// needs a helper to run that item.
type poolSeq struct {
	pool    *runtime.Pool
	caller  *runtime.Worker // the worker the caller entered the pool as (nil: none)
	helpers int             // the helper jobs the caller offers
	start   time.Duration   // when the loop started, on sinceEpoch's clock
	offered bool            // the caller has offered the helpers (the caller's)
	left    latch.Latch     // set by the last participant to leave

	work   func(k int, w *runtime.Worker) // runs participant k on w until it leaves
	wanted func() bool                    // a participant that came now would find a chunk
	idle   atomic.Int32                   // helper tokens not out with a job

	mu      sync.Mutex // guards what follows
	present int        // participants in the loop, the caller included until it leaves
	free    []int      // the helpers' slots (participant numbers) nobody holds

	sizes []doubling // by slot: the chunk size its last participant left with (the slot's holder's)

	least, most int           // bounds of a chunk (Config's MinBlock and MaxBlock)
	target      time.Duration // the time a chunk should take
}

// run runs the loop's participants: the caller, as participant 0, and the
// helpers it offers; it returns once every one has left. A
// runtime.Goexit on the caller waits for the others too, then goes on.
func (p *poolSeq) run() {
	p.present = 1
	for k := p.helpers; k >= 1; k-- {
		p.free = append(p.free, k)
	}
	p.start = sinceEpoch()
	runRegion(p.pool, 0, p)
}

// The loop as runRegion runs it: the caller is participant 0, and helpers
// come one at a time (help).

func (p *poolSeq) entered(w *runtime.Worker) { p.caller = w }
func (p *poolSeq) self(w *runtime.Worker)    { p.work(0, w) } // with no worker, the caller runs every chunk
func (p *poolSeq) ended() *latch.Latch       { return &p.left }
func (p *poolSeq) unwound()                  {}

// spread offers the helpers, once the loop has run on the caller, w, for
// goParallelAfter.
func (p *poolSeq) spread(w *runtime.Worker) {
	if p.offered || w == nil || p.helpers == 0 || sinceEpoch()-p.start < goParallelAfter {
		return
	}
	p.offered = true
	for range p.helpers {
		plumb.Offer(w, p.help)
	}
	// Let a woken worker start its helper at once rather than after the
	// Go scheduler's back-off (runtime/SLEEP.md).
	goruntime.Gosched()
}

// help is a helper job, which holds a token: it joins the loop, and once
// it has left, comes back while there is something to take and it gets
// its token back.
func (p *poolSeq) help(w *runtime.Worker) {
	for p.join(w) && p.wanted() && p.take() {
	}
}

// join runs one participant on w, in a free slot, and gives its token
// back once it has left and freed the slot; false: the loop is over.
func (p *poolSeq) join(w *runtime.Worker) bool {
	defer p.idle.Add(1)
	k, ok := p.enter()
	if !ok {
		return false
	}
	p.work(k, w) // ends with p.leave(k)
	return true
}

// take takes a token, if one is idle.
func (p *poolSeq) take() bool {
	for {
		n := p.idle.Load()
		if n <= 0 {
			return false
		}
		if p.idle.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

// offer offers a helper from w, the worker of a participant whose take
// left something for another, if a token is idle.
func (p *poolSeq) offer(w *runtime.Worker) {
	if w != nil && p.take() {
		plumb.Offer(w, p.help)
	}
}

// arrive is the feeder's: it has published an item, and no participant
// waits for one. It offers a helper through the pool's injector, if a
// token is idle.
func (p *poolSeq) arrive() {
	if p.take() && !plumb.Inject(p.pool, p.help) {
		p.idle.Add(1)
	}
}

// arrival returns the feeder's hook, arrive (seqRing.arrive); nil off the
// pool, where p is nil.
func (p *poolSeq) arrival() func() {
	if p == nil {
		return nil
	}
	return p.arrive
}

// tokens returns the idle tokens, which seqBlocks looks at after a take;
// nil off the pool, where p is nil.
func (p *poolSeq) tokens() *atomic.Int32 {
	if p == nil {
		return nil
	}
	return &p.idle
}

// enter claims a free slot for a helper; false once the loop is over (the
// caller and every helper have left).
func (p *poolSeq) enter() (k int, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.present == 0 {
		return 0, false
	}
	k = p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	p.present++
	return k, true
}

// leave says that participant k has left the loop; the last one to leave,
// after the caller, sets left.
func (p *poolSeq) leave(k int) {
	p.mu.Lock()
	if k != 0 {
		p.free = append(p.free, k)
	}
	p.present--
	last := p.present == 0
	p.mu.Unlock()
	if last {
		p.left.Set()
	}
}

// lane returns the timeline lane of participant k, on w, as in the pool
// driver; participant 0 is the caller.
func (p *poolSeq) lane(k int, w *runtime.Worker) laneKey {
	if k == 0 {
		return laneKey{kind: callerLane}
	}
	return poolLane(w, p.caller, p.pool.Workers())
}

// sizeOf returns the chunk size of participant k: where the slot's last
// participant left it (keep), or at the least for the slot's first.
func (p *poolSeq) sizeOf(k int) doubling {
	if c := p.sizes[k]; c.size > 0 {
		return c
	}
	return doubling{size: p.least, least: p.least, most: p.most, target: p.target}
}

// keep keeps the chunk size of participant k, which is leaving, for the
// slot's next participant. The slot is its until leave frees it.
func (p *poolSeq) keep(k int, c doubling) { p.sizes[k] = c }
