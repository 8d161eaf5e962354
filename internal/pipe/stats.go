package pipe

// Per-operation statistics (Config.Stats): what each goroutine that ran a
// loop did, counted by the goroutine in memory of its own and added to the
// operation's record once per participant run, so that a block costs one
// nil test when no statistics are asked for, and two adds when they are.

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gopar-dev/gopar/partition"
)

// Stats is what one operation did, as Config.Stats collects it. An
// operation that runs several loops one after the other (a sort's phases,
// a float sum's two passes) adds them all up; a restream's loops, which
// run beside the operation's on goroutines of their own (restream.go),
// are not counted, as a timeline does not record them.
type Stats struct {
	// Elapsed is the time from the call to the return.
	Elapsed time.Duration
	// Items is the number of source positions whose items the loops ran
	// (over a FromSeq, the sequence's items); Blocks the calls of the
	// loops' bodies that ran them, each over a block of positions.
	Items, Blocks int
	// Steals is the number of successful steals between participants.
	Steals int
	// FirstParallel is the time from the call until a goroutine other
	// than the caller started its part; 0 if none did (a loop that stayed
	// on its caller).
	FirstParallel time.Duration
	// Buffered is the most source items held at once between the source
	// and the loop body: over a FromSeq or FromChan, the items pulled
	// from the sequence and not yet done with; for a stream (Values),
	// also the items computed and not yet handed to the loop that ranges
	// over it. BufferedBytes is what they took at the sizes the buffer's
	// limit counts (unsafe.Sizeof of an item, and of its source item over
	// a sequence), not what they point to. Both are 0 for a loop over a
	// range that is not a stream, which buffers nothing.
	Buffered      int
	BufferedBytes int64
	// SourceWait is the time the source was held back because its buffer
	// was full: a FromSeq's sequence waiting for the loop (or a stream's
	// consumer) to make room, or a stream over a range waiting to start
	// its next batch. ConsumerWait is the time a stream's consumer (the
	// loop over Values) waited for its next items. A source that waits
	// points at the loop or the consumer; a consumer that waits, at the
	// work or the source.
	SourceWait, ConsumerWait time.Duration
	// Spilled is the bytes that an operation that spills to disk
	// (par's CountBySorted and the other Sorted ones) wrote there, and
	// SpillRuns the files it wrote them in, merges of files included; both
	// are 0 for a result that fit in its memory budget.
	Spilled   int64
	SpillRuns int
	// Participants holds one entry per goroutine that took part: the
	// caller first (if it ran a block), then the pool's workers and
	// guests by index, then Blocking's goroutines, named as Timeline's
	// lanes are.
	Participants []Participant
}

// Participant is what one goroutine did in an operation.
type Participant struct {
	// Name says which goroutine, as Lane.Name does: "caller", "worker 3",
	// "guest 65", "goroutine 2".
	Name string
	// Items, Blocks and Steals are this goroutine's part of the
	// operation's.
	Items, Blocks, Steals int
	// Busy is the time it spent at the operation's work, and Idle the
	// time it spent in the operation waiting for items to run (over a
	// sequence: for the sequence to yield, or for room in the buffer).
	// The rest of Elapsed it was elsewhere: at other work, or not yet
	// started.
	Busy, Idle time.Duration
}

// opStats is an operation's record while it runs, shared by its
// participants (Config.stats).
type opStats struct {
	start time.Time
	mu    sync.Mutex
	parts map[laneKey]*Participant // the operation's totals are their sums
	first time.Duration            // FirstParallel so far; 0: none yet
	// span, if not nil, is the number of items in the loop's positions
	// [lo, hi), for a loop whose positions are not items (a float sum's
	// blocks); nil: hi-lo.
	span func(lo, hi int) int

	// The buffers: the most source items held at once, and what they take
	// (itemBytes each, if set: a stream sets it to what a held position
	// takes, its item and its source item), and the waits of the source
	// and of a stream's consumer.
	buffered             int
	bufferedBytes        int64
	itemBytes            uintptr
	sourceWait, consumed time.Duration
}

// partStats is one participant run's counts, in memory of its own, added
// to the operation's record when it leaves (done).
type partStats struct {
	op            *opStats
	key           laneKey
	start         time.Time
	items, blocks int
	idle          time.Duration // waits for items within the run
	// stole is the participant's partitioner entry, whose steals done
	// counts (the pool driver's; nil elsewhere).
	stole *partition.Participant
}

// runStats is Run with statistics: the loop's record is made here, and
// written to cfg.Stats once it has returned, after a panic too.
func runStats(cfg Config, lo, hi int, r Reducer[any]) any {
	op := newOpStats()
	cfg.stats = op
	defer op.finish(cfg.Stats)
	return observe(cfg, lo, hi, r)
}

// newOpStats starts an operation's record.
func newOpStats() *opStats {
	return &opStats{start: time.Now(), parts: map[laneKey]*Participant{}}
}

// source adds what a source (a feeder, a stream's producer) held and
// waited: held items at most, of size bytes each unless the operation
// says otherwise (itemBytes), and waited in all. A nil op records
// nothing.
func (op *opStats) source(held int, size uintptr, waited time.Duration) {
	if op == nil {
		return
	}
	op.mu.Lock()
	defer op.mu.Unlock()
	if op.itemBytes != 0 {
		size = op.itemBytes
	}
	if held > op.buffered {
		op.buffered = held
		op.bufferedBytes = int64(held) * int64(size)
	}
	op.sourceWait += waited
}

// waiting returns when a wait that the operation's record counts
// starts: the zero time if op is nil, which counts nothing.
func (op *opStats) waiting() time.Time {
	if op == nil {
		return time.Time{}
	}
	return time.Now()
}

// consumer adds a wait of a stream's consumer that started at t
// (waiting).
func (op *opStats) consumer(t time.Time) {
	if op == nil {
		return
	}
	d := time.Since(t)
	op.mu.Lock()
	op.consumed += d
	op.mu.Unlock()
}

// begin starts the counts of a participant run on the goroutine key of
// the operation op, or returns nil if no statistics are collected (op is
// nil).
func (op *opStats) begin(key laneKey) *partStats {
	if op == nil {
		return nil
	}
	return &partStats{op: op, key: key, start: time.Now()}
}

// waiting returns when a wait for items starts: the zero time if ps is
// nil (no statistics).
func (ps *partStats) waiting() time.Time {
	if ps == nil {
		return time.Time{}
	}
	return time.Now()
}

// waited counts a wait for items that started at t (waiting).
func (ps *partStats) waited(t time.Time) {
	if ps != nil {
		ps.idle += time.Since(t)
	}
}

// block counts a block of the loop's positions [lo, hi).
func (ps *partStats) block(lo, hi int) {
	n := hi - lo
	if f := ps.op.span; f != nil {
		n = f(lo, hi)
	}
	ps.items += n
	ps.blocks++
}

// done adds the run's counts to the operation's record. The engine calls
// it as the participant leaves, before the loop can end.
func (ps *partStats) done() {
	now := time.Now()
	op := ps.op
	op.mu.Lock()
	defer op.mu.Unlock()
	p := op.parts[ps.key]
	if p == nil {
		p = &Participant{Name: ps.key.name()}
		op.parts[ps.key] = p
	}
	steals := 0
	if ps.stole != nil {
		steals = ps.stole.Steals()
	}
	p.Items += ps.items
	p.Blocks += ps.blocks
	p.Steals += steals
	p.Busy += now.Sub(ps.start) - ps.idle
	p.Idle += ps.idle
	if ps.key.kind != callerLane {
		if at := ps.start.Sub(op.start); op.first == 0 || at < op.first {
			op.first = max(at, 1)
		}
	}
}

// finish writes the operation's record to st.
func (op *opStats) finish(st *Stats) {
	elapsed := time.Since(op.start)
	op.mu.Lock()
	defer op.mu.Unlock()
	keys := make([]laneKey, 0, len(op.parts))
	for k, p := range op.parts {
		if k.kind == callerLane && p.Blocks == 0 && p.Steals == 0 {
			continue // a caller that ran nothing has no lane in a timeline either
		}
		keys = append(keys, k)
	}
	sortLaneKeys(keys)
	out := Stats{Elapsed: elapsed, FirstParallel: op.first, Participants: make([]Participant, len(keys)),
		Buffered: op.buffered, BufferedBytes: op.bufferedBytes, SourceWait: op.sourceWait, ConsumerWait: op.consumed}
	for i, k := range keys {
		p := op.parts[k]
		out.Participants[i] = *p
		out.Items += p.Items
		out.Blocks += p.Blocks
		out.Steals += p.Steals
	}
	*st = out
}

// String lays st out as a query plan's analysis does: the operation's
// totals on one line; what it buffered and waited, if it buffered
// anything; then a line per participant, with the share of the
// operation's time it was busy, and the time it waited for items:
//
//	12.3ms, 1048576 items in 240 blocks, 14 steals, parallel after 45µs
//	  buffered 4096 items (32768 bytes) at most; waited: source 3.1ms, consumer 0s
//	  caller    busy 12.1ms (98%)  idle 0s  524288 items  120 blocks  0 steals
//	  worker 1  busy 11.9ms (97%)  idle 0s  524288 items  120 blocks  14 steals
func (st Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v, %d items in %d blocks, %d steals", st.Elapsed, st.Items, st.Blocks, st.Steals)
	if st.FirstParallel > 0 {
		fmt.Fprintf(&b, ", parallel after %v", st.FirstParallel)
	} else {
		b.WriteString(", on the caller alone")
	}
	if st.Buffered > 0 || st.SourceWait > 0 || st.ConsumerWait > 0 {
		fmt.Fprintf(&b, "\n  buffered %d items (%d bytes) at most; waited: source %v, consumer %v",
			st.Buffered, st.BufferedBytes, st.SourceWait, st.ConsumerWait)
	}
	width := 0
	for _, p := range st.Participants {
		width = max(width, len(p.Name))
	}
	for _, p := range st.Participants {
		share := 0.0
		if st.Elapsed > 0 {
			share = 100 * float64(p.Busy) / float64(st.Elapsed)
		}
		fmt.Fprintf(&b, "\n  %-*s  busy %v (%.0f%%)  idle %v  %d items  %d blocks  %d steals",
			width, p.Name, p.Busy, share, p.Idle, p.Items, p.Blocks, p.Steals)
	}
	return b.String()
}
