package par

import "github.com/gopar-dev/gopar/internal/pipe"

// Stats is what one operation did, filled by WithStats when it returns:
// its Elapsed time, the Items and Blocks its loops ran, the Steals
// between participants, how long until a goroutine other than the caller
// took part (FirstParallel), and per goroutine (Participants) its share
// of those and the time it was Busy in the operation. Its String method
// lays it out as a query plan's analysis does.
type Stats = pipe.Stats

// Participant is what one goroutine did in an operation: its Name, as a
// Timeline lane's ("caller", "worker 3", "goroutine 2"), its share of the
// operation's Items, Blocks and Steals, and the time it was Busy at its
// work and Idle waiting for items.
type Participant = pipe.Participant

// WithStats returns it with its terminal operations writing what they did
// into st when they return (after a panic too): items, blocks, steals,
// what a sequence or a stream buffered and waited, and each participating
// goroutine's part, busy and idle time. Values and All write st when the
// range over them ends, and count the time from its start. Give st to
// one operation at a time. An operation that runs several loops one after
// the other (a sort, a float Sum) adds them up. The steps before an index
// adapter over a stream (Take, Skip, Enumerate, Chain, Zip after a
// Filter, a FlatMap or over FromSeq) run as loops of their own, beside the
// operation's, and are not counted, as a timeline does not record them.
// Count without a Filter, which runs no loop, leaves st as it was.
//
// Counting costs two adds per block, two clock reads per participant
// and per wait, and a compare per item of a sequence; cheap enough to
// leave on: log the figures of an operation that ran
// long, or keep them beside a request's trace. Like WithTimeline, it keeps
// a loop's first block on its caller rather than offering the rest of the
// loop to an idle worker meanwhile. A nil st turns counting off.
func (it Iter[T]) WithStats(st *Stats) Iter[T] {
	it.s.Stats = st
	return it
}

// WithStats returns it with its terminal operations writing what they did
// into st; see Iter.WithStats.
func (it Nums[T]) WithStats(st *Stats) Nums[T] { return Nums[T]{it.Iter.WithStats(st)} }

// WithStats returns r with its terminal operations, Blocks and
// ReduceBlocks included, writing what they did into st; see
// Iter.WithStats.
func (r Ints) WithStats(st *Stats) Ints { return Ints{r.Nums.WithStats(st)} }
