package partition

import "time"

// A Timeline is the schedule of one parallel loop: which goroutine ran
// which block of indexes and when, and every successful steal. Package
// par records one with Iter.WithTimeline, and package iter with
// Config.Timeline; WriteSVG draws it.
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
	// "guest 65" (the index of a worker of the runtime.Pool), or
	// "goroutine 2" (a goroutine of a Blocking loop).
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
