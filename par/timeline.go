package par

import "github.com/gopar-dev/gopar/partition"

// Timeline is the schedule of one operation, recorded by WithTimeline:
// which goroutine (the caller, a pool worker) ran which block of items and
// when, and every steal, with its victim and the stolen range. Its WriteSVG
// draws it, one lane per goroutine, with the steals as arrows. It is
// [partition.Timeline], where its fields are described.
type Timeline = partition.Timeline

// WithTimeline returns it with its terminal operations recording their
// schedule into t, which each operation overwrites: read it (or draw it
// with t.WriteSVG) once the operation has returned, and give t to one
// operation at a time. It is for seeing why a loop does not scale: an idle
// lane, a block that ran long, steals that came late.
//
// Block indexes are source indexes, as given to Map or ForEach; over
// FromSeq, positions in the sequence; a float Sum records items too,
// although it runs over blocks of 4096 of them. Count without a Filter runs
// nothing and records nothing.
//
// Recording costs two clock reads and an append of 32 bytes per block,
// which shows only on the shortest blocks, those of items of a nanosecond
// (BenchmarkTimeline measures it); without it, a terminal operation
// pays one nil test per block. A nil t turns recording off.
func (it Iter[T]) WithTimeline(t *Timeline) Iter[T] {
	it.s.Timeline = t
	return it
}

// WithTimeline returns it with its terminal operations recording their
// schedule into t; see Iter.WithTimeline.
func (it Nums[T]) WithTimeline(t *Timeline) Nums[T] {
	return Nums[T]{it.Iter.WithTimeline(t)}
}

// WithTimeline returns r with its terminal operations, Blocks and
// ReduceBlocks included, recording their schedule into t; see
// Iter.WithTimeline.
func (r Ints) WithTimeline(t *Timeline) Ints { return Ints{r.Nums.WithTimeline(t)} }
