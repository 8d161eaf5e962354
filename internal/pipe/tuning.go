package pipe

// This file holds the package's tuning constants, each with what it bounds,
// why it has its value, and the measurement behind it, or, where there is
// none, what the value trades. The constants that encode or name things
// are beside the code they belong to: Partition's flags (FlagNo, FlagYes),
// the enums (form, the routes, want, the lane kinds), the SVG picture's
// dimensions, and Apart's model of memory (cacheLine, mapHeader).

import "time"

// Timing of the adaptive schedule: the pool driver's inline phase
// (inline.go), its parallel phase (poolhand.go), and the sizer that both
// follow (sizer.go). Reading the clock costs about 35 ns here (more under
// the race detector), so it is read once per block.
const (
	// goParallelAfter: a loop that has run this long on the caller alone is
	// worth waking workers for (what a wake-up costs: runtime/SLEEP.md). A
	// loop that finishes sooner never touches the pool: 1,000 cheap items
	// cost about what a plain loop costs.
	goParallelAfter = 20 * time.Microsecond
	// blockTarget is the time one block should take: long enough that the
	// per-block costs (two atomics, a clock read, a func call) stay around
	// 1%, short enough that a block into a hot spot does not unbalance the
	// loop. Where a block's fixed cost is larger (see sizer), so is the
	// target.
	blockTarget = 4 * time.Microsecond
	// maxBlock bounds a block's size (at blockTarget) so that the first
	// block into a hot spot cannot be huge. No measurement sets 2^16: a
	// larger bound lets such a block hold more items, a smaller one makes
	// the cheapest items read the clock more often.
	maxBlock = 1 << 16
	// takesPerClock: in the parallel phase a block is taken from the
	// partitioner in this many pieces (a take costs two atomics, about 5 ns;
	// a clock read 35 ns), so that a piece that runs into a hot spot
	// unbalances the loop by an eighth of a block. docs/design.md gives
	// what pieces cost and save (the paragraph on blockTarget).
	takesPerClock = 8
	// fixedShare: a block takes at least this many times its fixed cost,
	// which therefore stays under 1/fixedShare of the time. No measurement
	// sets 8: a larger share makes such blocks longer, and the loop's
	// balance coarser, a smaller one leaves more of the time to the fixed
	// cost.
	fixedShare = 8
	// firstPartitionBlocks: a loop that hands out low indexes first starts
	// with partitions of this many blocks (see partition.NewGrowingLoop).
	// No measurement sets 4: larger first partitions mean fewer claims,
	// smaller ones less work above an early cut.
	firstPartitionBlocks = 4
	// fewPerWorker: a loop of at most this many items per pool worker
	// skips the inline phase and goes parallel before item 0 (see
	// fewItems): item 0 is then a quarter or more of a participant's work.
	// A larger bound pays a wake-up on more loops whose items turn out to
	// be cheap; a smaller one lets more loops of costly items wait for
	// their item 0.
	fewPerWorker = 4
	// yieldQuantum: a participant of a parallel loop yields its
	// processor (runtime.Gosched) once per this much of its time in the
	// loop, at a window's clock read, so that a goroutine waiting for a
	// processor (another operation's caller, woken from a sleep) waits
	// about this long rather than for the Go scheduler's preemption, 10 ms;
	// where its yields keep it waiting longWait or more (goroutines that do
	// not yield hold the processors), once per that wait (poolHand.yield).
	// Alone, a yield costs about 200 ns a quantum.
	yieldQuantum = 200 * time.Microsecond
	longWait     = 2 * time.Millisecond
)

// maxGrowth bounds how fast blocks grow: a block into a region of costlier
// items takes at most this many times the previous block's time.
const maxGrowth = 16

// maxInlineGrowth is maxGrowth in the caller's inline phase, where the
// blocks start at one item (item 0) and every block costs a clock read and
// a step of the sizer (some 50 ns): growing 64 times rather than 16 takes
// a loop of 1,000 cheap items (W0) in 3 blocks rather than 4, with 3 clock
// reads rather than 5 (the last block reads none). No other participant
// waits on a block of the inline phase, so a block that runs into costlier
// items delays only the moment the loop goes parallel, by the block's
// time; and a block still holds at most the items that the last block's
// cost puts at blockTarget.
const maxInlineGrowth = 64

// probeEvery: one window in probeEvery+1 has twice the settled size, so
// that the sizer tells a fixed cost from a cost per item even when the
// size has settled. No measurement sets 4: more probes follow a change of
// the fixed cost sooner, and make more windows longer than the target.
const probeEvery = 4

// steadyRise: a window whose items cost at most this many times the
// previous window's leaves the participant steady: it takes the rest of a
// window in one go (wholeWindow). No measurement sets 2: a
// larger factor keeps whole windows through larger jumps of cost, a
// smaller one goes back to pieces at smaller ones.
const steadyRise = 2

// Batch sizes of the stream driver and of a restream's producer
// (batching.go) adapt to the item cost: a batch should take about
// batchTarget (pulled and run), long enough that waking the pool (see
// goParallelAfter) and the pause between batches stay small.
const (
	batchTarget = time.Millisecond
	// maxBatch bounds a batch, unless blocking mode asks for more, and a
	// feeder runs ahead of the takes by up to half its ring, or maxBatch
	// if that is more (startFeed). No measurement sets 2^16: a larger
	// bound holds more items of a fast source at once.
	maxBatch = 1 << 16
	// blockingBatches: in blocking mode, a batch holds at least this many
	// times the limit (see runSeq), so that the limit is reached: a batch
	// sized by time alone would hold one item that waits a millisecond,
	// and run it alone.
	blockingBatches = 4
)

// creditBatches: a pump's batch holds at most this fraction of its
// credit's limit, so that the next batches run while the driver takes the
// last ones.
const creditBatches = 4

// pumpChunks is the number of chunks a pump may hand over ahead of the
// driver: enough that the driver rarely waits for the pump's next chunk,
// while its credit bounds the items computed ahead.
const pumpChunks = 2

// Stream windows. Unless Config.Buffer says otherwise, the limit is what
// defaultBufferBytes holds of a source position's items (the source item
// in the ring, if the source is a seq, and the item computed from it, by
// their unsafe.Sizeof: see bufferLimit), at most defaultBuffer and at least
// one per worker. streamBatches is the batches held over a range. Batches
// and chunks are sized by time, so the default holds a few milliseconds of
// work for small items: enough to keep the workers busy while the loop
// body takes its items, whatever an item costs. The peak heap it gives
// 1 KB records is in docs/design.md, "Memory in bytes".
const (
	defaultBuffer      = 1 << 16
	defaultBufferBytes = 4 << 20
	streamBatches      = 4
)

// The ring of the sequence driver on the pool (seqpool.go).
const (
	// seqChunkMost is the most items in one chunk: the ring holds
	// seqRingChunks of them per participant, so that a participant rarely
	// waits for another's chunk to leave the ring.
	seqChunkMost  = 1 << 13
	seqRingChunks = 4
	// The ring holds seqRingBytes of items (or the memory budget, if less:
	// Config.windowBytes), within seqRingMost slots and
	// at least seqRingChunks items per participant (a chunk's most shrinks
	// to fit): a steal splits what has arrived past the oldest item in
	// use, so the longer the ring, the fewer the steals and the runs. Its
	// segments are allocated as the feeder reaches them (seqStore.put), so a
	// short seq costs one.
	seqRingBytes = 4 << 20
	seqRingMost  = 1 << 18
	// seqChunkTarget is the time a chunk should take: long enough that a
	// take (a lock, a look at the reservations) costs about 1%, short
	// enough that a steal finds most of a reservation untaken, and that
	// the last chunks of the seq leave no participant idle for long. The
	// takes' share of a CPU profile is in docs/design.md,
	// "Why the sequence driver has takes of its own".
	seqChunkTarget = 100 * time.Microsecond
)

// The ring of the sequence driver in blocking mode (seqloop.go) holds at
// least blockingRingPerCall items per call at once, and at least
// blockingRingMin, so that a slow call rarely holds the others back: the
// others run at most a ring's worth of items past it. No measurement sets
// them: a longer ring lets the others run further past a slow call, and
// holds more items in memory.
const (
	blockingRingPerCall = 64
	blockingRingMin     = 1024
)

// seqSegment is the slots of a segment of a seqStore's ring, allocated when
// the feeder first writes into it (seqStore.put), and the least slots of a
// ring: a short seq costs a segment, not a ring. No measurement sets 2^10:
// a larger segment costs a short seq more memory, a smaller one makes a
// long ring's table of segments longer.
const (
	seqSegment      = 1 << seqSegmentShift
	seqSegmentShift = 10
)

// A reproducible sum (sum.go) adds its items in fixed blocks of sumBlock
// items, aligned to the start of the range, or of more where a range would
// have over maxSumBlocks of them, and combines the blocks' sums in a fixed
// pairwise tree. The cost is one stored float per block (a 2^26-item sum
// keeps 16,384 of them) and the final tree, about n/4096 additions; a done
// context stops a block between two pieces of sumBlock items. The blocks
// set a float sum's bits: other values give other bits.
const (
	sumBlock     = 1 << 12
	maxSumBlocks = 1 << 20
)

// Apart's look at its accumulators' neighbours (apart.go).
const (
	// apartKeep is how many accumulators' addresses Apart remembers: the
	// ones handed out last, a few per participant.
	apartKeep = 32
	// apartSmall is the largest object whose neighbours Apart looks at:
	// an object larger than a few lines shares at most its ends, which its
	// participant writes no more often than the rest.
	apartSmall = 4 * cacheLine
)

// progressEvery is the shortest time between two calls of a progress
// callback (progress.go). No measurement sets 100 ms: a shorter period
// calls the callback, and wakes its goroutine, more often; a longer one
// reports less often.
const progressEvery = 100 * time.Millisecond
