// Package par is gopar's user API: parallel iterators over ranges and
// slices, run on a work-stealing pool.
//
//	total := par.Range(0, n).Map(f).Sum()
//	par.Slice(xs).ForEach(g)
//
// A pipeline starts from a source (Range, Slice, Numbers), goes through
// adapters (Map, Filter, and the function par.Map to change the item type)
// and ends in a terminal operation (ForEach, Reduce, Sum, Count, Collect)
// that runs it and returns when every item is done.
//
// What you get for free, compared with a hand-written fan-out of goroutines:
//
//   - Load balancing. The index range is split statically across the
//     workers, and a worker that runs out steals the top quarter of what
//     another has left, so uneven items still keep every core busy.
//   - No tuning. Items are taken in blocks whose size adapts to their
//     measured cost: cheap items run in long sequential blocks, costly ones
//     one at a time.
//   - Small inputs stay cheap. An operation starts on the calling goroutine
//     and wakes the pool only once it has run long enough to be worth it.
//   - Nesting. A function given to ForEach may itself call par or Join; the
//     waiting goroutine runs work while it waits, so this never deadlocks.
//   - Panics come back. A panic in any callback stops the operation and is
//     re-raised in the caller as a *Panic that keeps the original
//     value and the stack where it happened.
//   - Order. Reduce combines partial results in index order, Collect keeps
//     source order.
//
// Functions handed to par run concurrently on several goroutines and must be
// safe for that. Passing a nil function panics at once with a message that
// names the method.
//
// The default pool has GOMAXPROCS workers, or as many as the GOPAR_WORKERS
// environment variable says. Use WithPool to run on a pool of your own.
package par
