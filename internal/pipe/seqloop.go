package pipe

import (
	"context"
	"math/bits"

	"github.com/gopar-dev/gopar/internal/plumb"
)

// The loop over a seq that both sequence drivers run (overSeq; the pool's
// participants are in seqpool.go), and the blocking sequence driver.
//
// The blocking sequence driver: a pipeline over a seq in blocking mode
// (FromSeq with Blocking) runs on the blocking driver's goroutines, each of
// which takes its next block of items from the feeder as soon as its last
// call has returned. No batch waits for its slowest call: a call that takes
// long holds back only its own goroutine, as in a hand-written producer,
// channel and workers.
//
// The items taken live in the store's ring until their calls return. A
// goroutine takes items only while the ring has room past the oldest item
// still running: a call that takes very long lets the others run at most a
// ring's worth of items past it, and then waits for it, which bounds memory
// (the ring holds at least blockingRingPerCall items per call at once, so
// that a slow call rarely holds the others back).
//
// An ordered result (Reduce, Collect, the searches) keeps the runs of each
// goroutine as in runBlocking, but combines them into the prefix as soon as
// they join it, so that over a long seq the runs waiting to be combined are
// those past the oldest running call, not every run of the seq.

// runBlockingSeq is runSeq in blocking mode.
func runBlockingSeq(cfg Config, src batchSource, r Reducer[any]) any {
	if cfg.Blocking < 0 {
		RefuseBlocking(cfg.Blocking)
	}
	take := max(cfg.MinBlock, 1)
	ring := pow2(max(blockingRingMin, blockingRingPerCall*cfg.Blocking*take))
	b := &inOrderLoop{r: r, limit: cfg.Blocking, take: uint64(take), stop: cfg.done(), rec: cfg.rec, task: cfg.task, stats: cfg.stats}
	return b.overSeq(cfg, src, ring, ring, blockingBatches*cfg.Blocking*take, func() {
		b.start()
		plumb.Block(cfg.Pool, b.wg.Wait) // the caller may be a pool worker
	})
}

// pow2 returns the least power of two at or above n (n >= 1).
func pow2(n int) int { return 1 << bits.Len(uint(n-1)) }

// overSeq runs b over the items of src, which it opens with a ring of ring
// slots (takes within reach: see seqBlocks) and a feeder that runs at
// least least items ahead: runAll starts b's
// participants and returns once every one has left. It is the part that
// the blocking and the pool sequence drivers share: a context done from
// the start, the end of the seq told to SeqLen, panics and Goexits of the
// callbacks and of the seq, and the ordered combine of the runs.
//
// For a stream (cfg.stream), every chunk is a run of its own, and each run
// goes to the stream's consumer as soon as the runs before it have
// (prefixRuns.emit); the positions of a run stay in use until the consumer
// has handed out its items, and the feeder pulls at most the stream's limit
// past the oldest position in use (see stream.go).
func (b *inOrderLoop) overSeq(cfg Config, src batchSource, ring, reach, least int, runAll func()) any {
	r, done := b.r, b.stop
	exact := r.SeqLen != nil
	o := seqRing{slots: ring, span: ring, least: least, exact: exact, arrive: b.onPool.arrival(), stats: cfg.stats, ctx: cfg.Context}
	st := cfg.stream
	if st != nil {
		o.span = min(ring, st.limit)
		o.slots, o.stream = pow2(o.span), true
		ring = o.slots
		b.prefix.emit = func(x run) { st.emit(streamPart{items: x.acc, hi: x.hi}) }
	}
	t := src.open(o, done)
	if t == nil || isClosed(done) {
		return runNoSeq(t, r, done, exact)
	}
	stopped := false
	defer func() {
		if !stopped {
			// runtime.Goexit in a callback on the caller (a participant
			// in the pool driver): every other participant has left.
			// The seq stops, and a panic of another callback is passed
			// on instead of the Goexit.
			t.stop()
			if p := b.panicked.Load(); p != nil && !p.IsGoexit() {
				panic(p)
			}
		}
	}()
	b.seq = newSeqBlocks(t, ring, reach, b.limit, b.onPool != nil, b.stopped)
	b.seq.idle = b.onPool.tokens()
	if b.onPool != nil {
		b.seq.pool = b.onPool.pool
	}
	if st != nil {
		b.seq.floor = 0 // nothing consumed yet
		st.attach(b.seq)
	}
	if cfg.Context != nil {
		// A take waiting on the seq returns once the context is done.
		defer context.AfterFunc(cfg.Context, b.seq.interrupt)()
	}
	runAll()
	n, ended := t.stop()
	stopped = true
	b.unpark()
	if b.rec != nil {
		b.rec.merge(b.logs)
	}
	plumb.Raise(b.panicked.Load()) // a callback's panic before the seq's
	t.raise()
	if ended && exact {
		r.SeqLen(n)
	}
	return b.seqResult(st != nil)
}

// runNoSeq is overSeq when no participant runs: t is nil (a nil seq, or
// done closed and the seq not pulled), or done is closed. It returns r's
// identity, once it has told SeqLen, with exact, the length of a seq that
// ended.
func runNoSeq(t seqTaker, r Reducer[any], done <-chan struct{}, exact bool) any {
	if t == nil {
		if exact && !isClosed(done) {
			r.SeqLen(0) // a nil seq
		}
		return r.identity()
	}
	// Done from the start, or since open looked. With exact, the seq
	// is pulled to tell whether the context left an item out.
	if exact {
		t.wait(0, nil)
	}
	n, ended := t.stop()
	t.raise()
	if ended && exact {
		r.SeqLen(n)
	}
	return r.identity()
}

// seqResult is overSeq's result once every participant has left and the
// seq has stopped: the prefix combined with the runs past a hole; r's
// identity for a loop that does not combine its runs, or, with stream set,
// for a stream's, which went to its consumer.
func (b *inOrderLoop) seqResult(stream bool) any {
	r := b.r
	if r.Combine == nil || stream {
		return r.identity() // a stream's runs past a hole are dropped
	}
	// Runs past a hole: a decision left positions reserved and not taken.
	for _, x := range b.prefix.waiting {
		b.runs = append(b.runs, x)
	}
	sortRuns(b.runs)
	return b.prefix.join(r.prefixRuns(b.runs, b.prefix.hi, b.stop), r)
}

// keep adds the run cur, which has ended, to mine, a goroutine's runs, or,
// over a seq with an ordered result, to the loop's prefix; a loop that
// does not combine its runs keeps none.
func (b *inOrderLoop) keep(mine []run, cur run) []run {
	switch {
	case b.r.Combine == nil:
		return mine
	case b.seq == nil || b.r.Unordered:
		return append(mine, cur)
	}
	b.prefixMu.Lock()
	defer b.prefixMu.Unlock()
	b.prefix.add(cur, b.r)
	return mine
}

// prefixRuns is the result of the runs of a loop from position 0 combined
// as they come: acc holds the runs of [0, hi), and waiting those that start
// past hi, by start. With emit (a stream), the runs that join the prefix
// go to emit, in order, instead of into acc.
type prefixRuns struct {
	acc     any
	hi      int
	have    bool
	waiting map[int]run
	emit    func(run)
}

// add adds run x; the runs that join the prefix are combined into it.
func (p *prefixRuns) add(x run, r Reducer[any]) {
	if x.lo != p.hi {
		if p.waiting == nil {
			p.waiting = map[int]run{}
		}
		p.waiting[x.lo] = x
		return
	}
	for {
		switch {
		case p.emit != nil:
			p.emit(x)
		case p.have:
			p.acc = r.Combine(p.acc, x.acc)
		default:
			p.acc, p.have = x.acc, true
		}
		p.hi = x.hi
		next, ok := p.waiting[p.hi]
		if !ok {
			return
		}
		delete(p.waiting, p.hi)
		x = next
	}
}

// join returns the prefix combined with the sorted runs after it.
func (p *prefixRuns) join(after []run, r Reducer[any]) any {
	if !p.have {
		return combineRuns(after, r)
	}
	acc := p.acc
	for _, x := range after {
		acc = r.Combine(acc, x.acc)
	}
	return acc
}
