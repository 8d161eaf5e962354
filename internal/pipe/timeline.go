package pipe

// Recording an operation's schedule (Config.Timeline): each driver adds its
// blocks and steals, and finish writes them into a partition.Timeline.

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/gopar-dev/gopar/partition"
	"github.com/gopar-dev/gopar/runtime"
)

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
	caller []partition.Block
	others map[laneKey][]partition.Block
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
func (rec *recording) add(k laneKey, blocks []partition.Block) {
	if k.kind == callerLane {
		rec.caller = append(rec.caller, blocks...)
	} else {
		rec.others[k] = append(rec.others[k], blocks...)
	}
}

// finish numbers the lanes and writes the timeline into t.
func (rec *recording) finish(t *partition.Timeline) {
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
	out := partition.Timeline{Elapsed: rec.since(), Lanes: make([]partition.Lane, len(keys))}
	for i, k := range keys {
		lane[k] = i
		blocks := rec.others[k]
		if k.kind == callerLane {
			blocks = rec.caller
		}
		slices.SortStableFunc(blocks, func(a, b partition.Block) int { return cmp.Compare(a.Start, b.Start) })
		out.Lanes[i] = partition.Lane{Name: k.name(), Blocks: blocks}
	}
	for _, s := range rec.steals {
		out.Steals = append(out.Steals, partition.Steal{Thief: lane[s.thief], Victim: lane[s.victim], Lo: s.lo, Hi: s.hi, At: s.at})
	}
	slices.SortStableFunc(out.Steals, func(a, b partition.Steal) int { return cmp.Compare(a.At, b.At) })
	*t = out
}

// laneLog is what one participant of a parallel phase records, in memory of
// its own: it is merged into the recording once the loop is done.
type laneLog struct {
	rec    *recording
	key    laneKey
	slot   int // the participant's partition.Participant.Slot
	blocks []partition.Block
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
	g.blocks = append(g.blocks, partition.Block{Lo: lo, Hi: hi, Start: start, End: g.rec.since()})
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
