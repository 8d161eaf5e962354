// Package pipe is gopar's pipeline engine: how a chain of adapters over an
// indexed source becomes something the work-stealing partitioner can split,
// and how the pieces' results are folded and combined in index order.
//
// A [Spec] describes the pipeline (source, maps, filters) in a form whose
// common shapes cost one indirect call per item or none. A [Reducer] says
// what a terminal operation does with a block of indices and how two
// adjacent partial results combine. [Run] drives the loop: it starts on the
// caller, moves to the pool's workers once the loop has lasted long enough
// to be worth it, and adapts the block size to the measured cost of items.
//
// It serves two layers. Package iter is its public facade: aliases of
// [Spec], [Config] and the types they name, and the
// constructors, adapters and drivers a user of that layer needs to write a
// terminal operation of their own. Package par uses the rest as well: the
// block helpers of its operations ([SplitBlock], [FlagBlock], [PackBlock],
// [FoldSlices], [TryFill], [SumBlock], [SearchBlock]), the loops iter does
// not offer ([RunPrefix], [FoldUnordered], [StreamUnordered]), the
// Reducer's fields for them, and the questions on a Spec that only its
// operations ask ([IsSeq], [Rereadable], [Filtered], [Flat], [Item],
// [Fill]).
package pipe
