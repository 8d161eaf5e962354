package pipe

// Config: how a loop runs, on which pool and within which bounds.

import (
	"context"
	"fmt"

	"github.com/gopar-dev/gopar/partition"
	"github.com/gopar-dev/gopar/runtime"
)

// Config is how a loop runs: on which pool, and within which bounds on the
// number of items run in one go. The zero Config runs on runtime.Default()
// with no bounds, the schedule gopar is tuned for.
//
// Run reads a Config once and picks one driver for the loop; the other
// settings either bound what that driver does (MinBlock, MaxBlock,
// Context) or watch it. Each mode lives in one place:
//
//	driver    chosen when                   runs in
//	pool      (the default)                 runPool, pool.go
//	blocking  Blocking != 0                 runBlocking, blocking.go
//	sequence  the Spec is over an iter.Seq  runSeq, seq.go: one loop for
//	                                        the whole seq, on the pool
//	                                        (seqpool.go) or the blocking
//	                                        driver's goroutines (seqloop.go)
//	stream    Stream ranges over a range    runStream, stream.go (each batch
//	                                        on the pool or blocking driver;
//	                                        over a seq, the sequence driver
//	                                        hands its runs to the stream)
//
//	observer  set by    plugs in through           lives in
//	progress  Progress  the Reducer's Fold         progress.go
//	timeline  Timeline  rec, read by each driver   timeline.go
//
// Observers work on any driver and never pick one: see runObserved.
type Config struct {
	Pool *runtime.Pool // nil: runtime.Default()
	// MinBlock, if positive, is the fewest items handed out at a time (to
	// amortise a per-block setup in the block API). A range that runs out
	// still hands out its last, smaller piece.
	MinBlock int
	// MaxBlock, if positive, is the most items handed out at a time (to bound
	// the work that no thief can take, when item costs vary wildly).
	MaxBlock int
	// Context, if not nil, cancels the loop: once it is done, blocks not
	// yet started are skipped, as when Reducer.Stop says so.
	Context context.Context
	// Blocking, if positive, runs the loop for callbacks that block (I/O):
	// one item at a time on at most Blocking goroutines of its own, not on
	// the pool (the blocking driver, runBlocking).
	Blocking int

	// Progress, if not nil, is told how far the loop has got: see
	// startProgress.
	Progress func(done, total int)

	// Timeline, if not nil, receives the schedule of the loop: see
	// Timeline. Recording it costs two clock reads and an append per
	// block; left nil, it costs a nil test per block.
	Timeline *partition.Timeline

	// Stats, if not nil, receives what the loop did once it has
	// returned: see Stats. Counting costs two adds per block and two
	// clock reads per participant.
	Stats *Stats

	// Slow, if not nil, is called when the operation has run for longer
	// than it says, while it still runs (slow.go).
	Slow *Slow

	// Buffer, if positive, bounds the source items that Stream pulls or
	// computes ahead of the loop that ranges over it (see stream.go), and
	// the positions a restream's pump computes ahead of the operation
	// (credit, credit.go), in place of the default in bytes
	// (bufferLimit).
	Buffer int

	// Failure, if not nil, reports the failure of a source of the pipeline
	// that can fail (see Failure): the loop ignores it, and the operations
	// that return an error return its error.
	Failure Failure

	seq    batchSource // a pipeline over an iter.Seq: the sequence driver, runSeq
	stream *stream     // a loop whose results go to Stream: over a seq, the sequence driver's runs; over a range, runStream
	rec    *recording  // the timeline being recorded, for the drivers to add to
	task   *opTask     // the operation's runtime/trace task, while a trace is recorded (optrace.go)
	stats  *opStats    // the operation's statistics, while Stats asks for them (stats.go)

	// Budget, if not nil, bounds the memory that an operation that can
	// spill to disk holds, and says where it spills (par's WithMemory,
	// WithTempDir). Nil: no bound but GOMEMLIMIT's share (see par). Its
	// Memory also bounds the ring of a seq and a stream's buffer
	// (windowBytes).
	Budget *Budget

	// Unordered, if set, frees the operations that can use it from source
	// order (par's Iter.Unordered): Fold keeps one accumulator per
	// goroutine that runs the loop (FoldUnordered), and Values hands out
	// the items of a blocking loop as their calls return
	// (StreamUnordered).
	Unordered bool

	// Padding: Config, and so Spec, is a whole number of 16-byte words
	// on 64-bit platforms (see TestCopiesInWholeWords).
	_ [15]byte
}

// done returns the channel that cancels the loop, nil if nothing can.
func (c Config) done() <-chan struct{} {
	if c.Context == nil {
		return nil
	}
	return c.Context.Done()
}

// isClosed reports whether done, a channel from Config.done, is closed.
// Polling an open channel costs a few nanoseconds: cheap once per block.
func isClosed(done <-chan struct{}) bool {
	if done == nil {
		return false
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// clamp applies the bounds to a number of items.
func (c Config) clamp(n int) int {
	if c.MaxBlock > 0 {
		n = min(n, c.MaxBlock)
	}
	return max(n, c.MinBlock, 1)
}

// RefuseBlocking panics with the message of a Blocking limit that is not at
// least 1: par's Blocking, and the blocking drivers for a Config made by
// hand.
func RefuseBlocking(limit int) {
	panic(fmt.Sprintf("gopar: Blocking(%d): the limit of calls at once must be at least 1", limit))
}

// Budget is the memory an operation may hold before it spills to disk, and
// where it spills. A Budget is never changed once a Config points to it:
// a setting makes a new one.
type Budget struct {
	Memory  int64  // bytes; 0: the default
	TempDir string // "": os.TempDir()
	DiskCap int64  // bytes the spill files may hold; 0: no cap
}

// windowBytes returns the bytes a window of items (a seq's ring, a
// stream's buffer) holds under c: def, or the memory budget if less.
func (c Config) windowBytes(def int) int {
	if c.Budget != nil && c.Budget.Memory > 0 {
		return int(min(int64(def), c.Budget.Memory))
	}
	return def
}
