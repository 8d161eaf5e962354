// Package iter is gopar's pipeline layer, for writing a parallel operation
// of one's own over a pipeline: a terminal operation that package par does
// not have, over the same sources and adapters, with the same schedule.
//
// A [Spec] is a splittable producer: a source of items addressed by index
// ([Ints], [Slice], [FromSeq], [FromChan], [FlatSource]) and the adapters
// applied to it ([MapSpec], [FilterMapSpec], [FlatMapSpec], [MapInitSpec],
// [EnumerateSpec], [SkipSpec], [TakeSpec], [ChainSpec], [ZipSpec], and the
// Map and Filter methods), in a form whose common shapes cost one indirect
// call per item or none. A [Reducer] says what the operation does with a
// block of indices and how two adjacent partial results combine; [Run]
// drives the loop over a Spec's indexes with the Spec's [Config]: it
// starts on the caller, moves to the pool's workers once the loop has
// lasted long enough to be worth it, and adapts the block size to the
// measured cost of items. A Reducer's Fold reads a block's items with the
// Spec's Each, EachUntil or EachIndex, or with [FoldBlock].
//
//	// count returns the number of items of s for which pred is true.
//	func count[T any](s iter.Spec[T], pred func(T) bool) int {
//		return iter.Run(s.Config, s.Lo, s.Hi, iter.Reducer[int]{
//			Fold: func(n, lo, hi int) int {
//				s.Each(lo, hi, func(v T) {
//					if pred(v) {
//						n++
//					}
//				})
//				return n
//			},
//			Combine: func(a, b int) int { return a + b },
//		})
//	}
//
// [RunBlocks] is Run for a loop of side effects, [Stream] hands the items
// to a range loop in order while later ones are computed, and [Sum] adds
// them up. A [github.com/gopar-dev/gopar/partition.Timeline], set in
// Config.Timeline, records which goroutine ran which block and every steal.
//
// Most programs use package par, whose operations are built on the same
// engine. The engine itself is package internal/pipe of this module, and
// this package is its facade: Spec is a type of its own over the engine's,
// with the same fields and the methods listed here; Reducer has the
// engine's fields that a terminal operation of one's own sets; Config,
// Failure and Number are the engine's, by alias; and the functions call
// the engine's. What only par's operations need (their block helpers, the loops that
// keep results in place or drop source order, the Spec questions they
// ask) stays there.
package iter
