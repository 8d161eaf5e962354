// Package iter is gopar's pipeline plumbing: how a chain of adapters over an
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
// Most programs use package par, which is built on this one.
package iter
