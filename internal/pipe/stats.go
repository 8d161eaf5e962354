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
	// Participants holds one entry per goroutine that took part: the
	// caller first, then the pool's workers and guests by index, then
	// Blocking's goroutines, named as Timeline's lanes are.
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
	// Busy is the time it spent in the operation, from each start of its
	// part to the end; the rest of Elapsed it was elsewhere (idle, at
	// other work, or not yet started).
	Busy time.Duration
}

// opStats is an operation's record while it runs, shared by its
// participants (Config.stats).
type opStats struct {
	start time.Time
	mu    sync.Mutex
	parts map[laneKey]*Participant // the operation's totals are their sums
	first time.Duration            // FirstParallel so far; 0: none yet
}

// partStats is one participant run's counts, in memory of its own, added
// to the operation's record when it leaves (done).
type partStats struct {
	op            *opStats
	key           laneKey
	start         time.Time
	items, blocks int
	// stole is the participant's partitioner entry, whose steals done
	// counts (the pool driver's; nil elsewhere).
	stole *partition.Participant
}

// runStats is Run with statistics: the loop's record is made here, and
// written to cfg.Stats once it has returned, after a panic too.
func runStats[A any](cfg Config, lo, hi int, r Reducer[A]) A {
	op := &opStats{start: time.Now(), parts: map[laneKey]*Participant{}}
	cfg.stats = op
	defer op.finish(cfg.Stats)
	return Run(cfg, lo, hi, r)
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

// block counts a block of n items.
func (ps *partStats) block(n int) {
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
	p.Busy += now.Sub(ps.start)
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
	for k := range op.parts {
		keys = append(keys, k)
	}
	sortLaneKeys(keys)
	out := Stats{Elapsed: elapsed, FirstParallel: op.first, Participants: make([]Participant, len(keys))}
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
// totals on one line, then a line per participant, with the share of the
// operation's time it was busy:
//
//	12.3ms, 1048576 items in 240 blocks, 14 steals, parallel after 45µs
//	  caller    busy 12.1ms (98%)  524288 items  120 blocks  0 steals
//	  worker 1  busy 11.9ms (97%)  524288 items  120 blocks  14 steals
func (st Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v, %d items in %d blocks, %d steals", st.Elapsed, st.Items, st.Blocks, st.Steals)
	if st.FirstParallel > 0 {
		fmt.Fprintf(&b, ", parallel after %v", st.FirstParallel)
	} else {
		b.WriteString(", on the caller alone")
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
		fmt.Fprintf(&b, "\n  %-*s  busy %v (%.0f%%)  %d items  %d blocks  %d steals", width, p.Name, p.Busy, share, p.Items, p.Blocks, p.Steals)
	}
	return b.String()
}
