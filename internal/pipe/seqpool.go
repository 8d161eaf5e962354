package pipe

import (
	goruntime "runtime"
	"sync/atomic"
	"time"

	"github.com/gopar-dev/gopar/internal/sched"
	"github.com/gopar-dev/gopar/runtime"
)

// The pool sequence driver: a pipeline over a seq (FromSeq, FromChan, a
// restream) on the pool runs as one loop for the whole seq. The feeder
// (feed.go) pulls the seq on a goroutine of its own while the participants,
// the caller and the helper jobs it offers to the pool, each take the next
// chunk of what it pulled into the window's ring, fold it, and take the
// next, until the seq ends or the loop is decided. It is the blocking
// sequence driver (blockseq.go) with other participants and other chunks:
//
//   - The caller starts alone, as in the pool driver's inline phase: a seq
//     that ends within goParallelAfter never wakes a worker. After that it
//     offers the pool's other workers one helper job each, under the
//     loop's Frame, so that a wait runs only the loop's work.
//   - The participants take their chunks through seqBlocks
//     (seqblocks.go): each from a reservation of its own, which another
//     steals half of only when it runs dry, so that its chunks stay
//     contiguous, and one accumulator serves them (one run) until a
//     steal. A chunk is what has arrived in the reservation, up to the
//     participant's chunk size: small while the participants wait for the
//     seq, larger while the seq is ahead. The size follows the clock
//     (chunkSize).
//   - Every participant keeps one accumulator for as long as its chunks
//     are contiguous, or for the whole seq where the order does not count
//     (Reducer.Unordered, no Combine); ordered runs join the prefix as
//     soon as they reach it (prefixRuns), so the runs waiting to be
//     combined are those past the oldest running chunk.

const (
	// seqChunkMost is the most items in one chunk: the ring holds
	// seqRingChunks of them per participant, so that a participant rarely
	// waits for another's chunk to leave the ring.
	seqChunkMost  = 1 << 13
	seqRingChunks = 4
	seqRingMin    = 1 << 16
	// The ring holds up to seqRingBytes of items, within seqRingMost
	// slots: a steal splits what has arrived past the oldest item in use,
	// so the longer the ring, the fewer the steals and the runs. Its
	// segments are allocated as the feeder reaches them (window), so a
	// short seq costs one.
	seqRingBytes = 4 << 20
	seqRingMost  = 1 << 18
	// seqChunkTarget is the time a chunk should take: long enough that a
	// take (a lock, a look at the reservations) costs about 1%, short
	// enough that a steal finds most of a reservation untaken, and that
	// the last chunks of the seq leave no participant idle for long.
	seqChunkTarget = 100 * time.Microsecond
)

// runPoolSeq is runSeq on the pool.
func runPoolSeq[A any](cfg Config, src batchSource, r Reducer[A]) A {
	pool := cfg.Pool
	if pool == nil {
		pool = runtime.Default()
	}
	workers := pool.Workers()
	most, target := cfg.clamp(seqChunkMost), seqChunkTarget
	ring := pow2(max(seqRingMin, seqRingChunks*workers*most, min(seqRingMost, seqRingBytes/int(max(src.itemSize(), 1)))))
	b := &blockingLoop[A]{r: r, limit: workers, stop: cfg.done(), rec: cfg.rec}
	p := &poolSeq{pool: pool, helpers: workers - 1, least: max(cfg.MinBlock, 1), most: most, target: target}
	p.help = func(w *runtime.Worker) { b.work(int(b.started.Add(1)), w) }
	b.onPool = p
	return b.overSeq(cfg, src, ring, workers, 1, func() { p.run(b.work) })
}

// poolSeq is what a loop over a seq on the pool adds to the blocking
// loop's state: who participates, and how large their chunks are.
type poolSeq struct {
	pool    *runtime.Pool
	caller  *runtime.Worker       // the worker the caller entered the pool as (nil: none)
	helpers int                   // the helper jobs the caller offers
	help    func(*runtime.Worker) // a helper job
	start   time.Duration         // when the loop started, on sinceEpoch's clock
	offered bool                  // the caller has offered the helpers (the caller's)
	live    atomic.Int32          // participants that have not left, the caller included
	left    sched.Latch           // set by the last participant to leave
	frame   sched.Frame           // the loop's region of the fork tree

	least, most int           // bounds of a chunk (Config's MinBlock and MaxBlock)
	target      time.Duration // the time a chunk should take
}

// run runs the loop's participants: the caller, as participant 0, and the
// helpers it offers; it returns once every one has left. A
// runtime.Goexit on the caller waits for the others too, then goes on.
func (p *poolSeq) run(work func(k int, w *runtime.Worker)) {
	p.live.Store(1)
	p.start = sinceEpoch()
	p.pool.Do(func(w *runtime.Worker) {
		p.caller = w
		waited := false
		defer func() {
			if !waited && w != nil {
				sched.Wait(w, &p.left)
			}
		}()
		if w == nil {
			work(0, nil) // no worker to offer helpers from: the caller runs every chunk
		} else {
			sched.Spread(w, &p.frame, 0, p.help, func(w *runtime.Worker) { work(0, w) }, &p.left)
		}
		waited = true
	})
}

// spread offers the helpers, once the loop has run on the caller, w, for
// goParallelAfter.
func (p *poolSeq) spread(w *runtime.Worker) {
	if p.offered || w == nil || p.helpers == 0 || sinceEpoch()-p.start < goParallelAfter {
		return
	}
	p.offered = true
	p.live.Add(int32(p.helpers)) // before the offers: a helper may leave at once
	for range p.helpers {
		sched.Offer(w, p.help)
	}
	// Let a woken worker start its helper at once rather than after the
	// Go scheduler's back-off (internal/sched/SLEEP.md).
	goruntime.Gosched()
}

// lane returns the timeline lane of participant k, on w, as in the pool
// driver; participant 0 is the caller.
func (p *poolSeq) lane(k int, w *runtime.Worker) laneKey {
	if k == 0 {
		return laneKey{kind: callerLane}
	}
	return poolLane(w, p.caller, p.pool.Workers())
}

// leave says that a participant has left the loop.
func (p *poolSeq) leave() {
	if p.live.Add(-1) == 0 {
		p.left.Set()
	}
}

// newChunkSize returns a participant's chunk size, which starts at the
// least.
func (p *poolSeq) newChunkSize() chunkSize {
	return chunkSize{take: p.least, least: p.least, most: p.most, target: p.target}
}

// chunkSize is the number of items a participant takes at a time, which
// doubles while a chunk takes under half the target and halves while one
// takes over twice it.
type chunkSize struct {
	take, least, most int
	target            time.Duration
}

// next returns the size of the next chunk after one of n items took took.
func (c *chunkSize) next(n int, took time.Duration) int {
	switch {
	case took < c.target/2 && n >= c.take:
		c.take = min(2*c.take, c.most)
	case took > 2*c.target:
		c.take = max(c.take/2, c.least)
	}
	return c.take
}
