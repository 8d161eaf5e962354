package pipe

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/gopar-dev/gopar/partition"
	"github.com/gopar-dev/gopar/runtime"
)

// A Timeline is the schedule of one operation, as Config.Timeline records
// it: which goroutine ran which block of indexes and when, and every
// successful steal. WriteSVG draws it.
//
// Each operation that records into a Timeline replaces what it held. Read
// it once the operation has returned, and give one Timeline to one
// operation at a time. An operation that panics leaves a partial timeline.
type Timeline struct {
	// Elapsed is how long the operation ran.
	Elapsed time.Duration
	// Lanes holds one lane per goroutine that ran blocks: the caller
	// first, then the pool's workers and guests by index, then the
	// goroutines of a Blocking loop.
	Lanes []Lane
	// Steals holds every successful steal, in order of At.
	Steals []Steal
}

// A Lane is what one goroutine ran during an operation.
type Lane struct {
	// Name says which goroutine: "caller" (the one that called the
	// operation; it has no lane if workers ran every block, as they may
	// in a loop of a few items), "worker 3" or
	// "guest 65" (runtime.Worker.Index), or "goroutine 2" (Blocking).
	Name string
	// Blocks are the blocks it ran, in order of Start.
	Blocks []Block
}

// A Block is one call of the loop's body: the indexes [Lo, Hi), run from
// Start to End, both measured from the start of the operation.
type Block struct {
	Lo, Hi     int
	Start, End time.Duration
}

// A Steal is one successful steal: the lane Thief took the indexes [Lo, Hi)
// from what the lane Victim had left (Thief and Victim index
// Timeline.Lanes). At is when the thief started its first block after the
// steal, so the steal happened just before. Items of a stolen range may in
// turn be stolen from the thief: each such steal is listed too.
type Steal struct {
	Thief, Victim int
	Lo, Hi        int
	At            time.Duration
}

// A lane's key orders the lanes: the caller, then the pool's workers and
// guests by index, then Blocking's goroutines by number.
type laneKey struct{ kind, n int }

const (
	callerLane = iota
	workerLane
	guestLane
	goroutineLane
)

// name is the Lane.Name of the lane with key k.
func (k laneKey) name() string {
	switch k.kind {
	case callerLane:
		return "caller"
	case workerLane:
		return "worker " + strconv.Itoa(k.n)
	case guestLane:
		return "guest " + strconv.Itoa(k.n)
	}
	return "goroutine " + strconv.Itoa(k.n)
}

// sortLaneKeys sorts keys in lane order.
func sortLaneKeys(keys []laneKey) {
	slices.SortFunc(keys, func(a, b laneKey) int {
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.n, b.n))
	})
}

// recording collects one operation's timeline while it runs. Only the
// caller's goroutine touches it: it appends its inline blocks directly and
// merges the logs of the other goroutines after they have finished, so no
// lock is taken while blocks run.
type recording struct {
	start  time.Time
	caller []Block
	others map[laneKey][]Block
	steals []stealRec
}

// stealRec is a Steal whose lanes are not yet numbered.
type stealRec struct {
	thief, victim laneKey
	lo, hi        int
	at            time.Duration
}

// since returns the time from the start of the operation.
func (rec *recording) since() time.Duration { return time.Since(rec.start) }

// add merges the blocks of one goroutine into its lane.
func (rec *recording) add(k laneKey, blocks []Block) {
	if k.kind == callerLane {
		rec.caller = append(rec.caller, blocks...)
	} else {
		rec.others[k] = append(rec.others[k], blocks...)
	}
}

// finish numbers the lanes and writes the timeline into t.
func (rec *recording) finish(t *Timeline) {
	var keys []laneKey
	if len(rec.caller) > 0 {
		keys = append(keys, laneKey{kind: callerLane})
	}
	for k := range rec.others {
		keys = append(keys, k)
	}
	// A victim whose every item was stolen before it ran one still gets
	// its lane.
	for _, s := range rec.steals {
		for _, k := range []laneKey{s.thief, s.victim} {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	sortLaneKeys(keys)
	lane := make(map[laneKey]int, len(keys))
	out := Timeline{Elapsed: rec.since(), Lanes: make([]Lane, len(keys))}
	for i, k := range keys {
		lane[k] = i
		blocks := rec.others[k]
		if k.kind == callerLane {
			blocks = rec.caller
		}
		slices.SortStableFunc(blocks, func(a, b Block) int { return cmp.Compare(a.Start, b.Start) })
		out.Lanes[i] = Lane{Name: k.name(), Blocks: blocks}
	}
	for _, s := range rec.steals {
		out.Steals = append(out.Steals, Steal{Thief: lane[s.thief], Victim: lane[s.victim], Lo: s.lo, Hi: s.hi, At: s.at})
	}
	slices.SortStableFunc(out.Steals, func(a, b Steal) int { return cmp.Compare(a.At, b.At) })
	*t = out
}

// laneLog is what one participant of a parallel phase records, in memory of
// its own: it is merged into the recording once the loop is done.
type laneLog struct {
	rec    *recording
	key    laneKey
	slot   int // the participant's partition.Participant.Slot
	blocks []Block
	stolen []partition.Stolen // appended by the partitioner
	at     []time.Duration    // when each of stolen was used
}

// newLaneLog starts the log of a participant of o that runs on w and has
// entered as p.
func (o *loop) newLaneLog(w *runtime.Worker, p *partition.Participant) *laneLog {
	g := &laneLog{rec: o.rec, key: poolLane(w, o.caller, o.workers), slot: p.Slot()}
	p.RecordSteals(&g.stolen)
	return g
}

// poolLane returns the lane of a participant that runs on w, in a loop
// whose caller entered a pool of workers workers as caller: a helper job
// that the caller runs while it waits belongs on the caller's lane (one
// goroutine, one lane).
func poolLane(w, caller *runtime.Worker, workers int) laneKey {
	switch i := w.Index(); {
	case w == caller:
		return laneKey{kind: callerLane}
	case i < workers:
		return laneKey{workerLane, i}
	default:
		return laneKey{guestLane, i}
	}
}

// block records that [lo, hi) ran from start until now; the steals that
// brought it (made by the Next that returned it) are dated start.
func (g *laneLog) block(lo, hi int, start time.Duration) {
	g.blocks = append(g.blocks, Block{Lo: lo, Hi: hi, Start: start, End: g.rec.since()})
	for len(g.at) < len(g.stolen) {
		g.at = append(g.at, start)
	}
}

// close dates the steals that no block followed (the loop was cut, or
// every stolen item was stolen again).
func (g *laneLog) close() {
	now := g.rec.since()
	for len(g.at) < len(g.stolen) {
		g.at = append(g.at, now)
	}
}

// merge adds the logs of one parallel phase to rec: a steal's victim is a
// slot of this phase's loop, which names the participant that owned it.
func (rec *recording) merge(logs []*laneLog) {
	owner := make(map[int]laneKey, len(logs))
	for _, g := range logs {
		owner[g.slot] = g.key
	}
	for _, g := range logs {
		rec.add(g.key, g.blocks)
		for i, s := range g.stolen {
			rec.steals = append(rec.steals, stealRec{thief: g.key, victim: owner[s.Victim], lo: s.Lo, hi: s.Hi, at: g.at[i]})
		}
	}
}
