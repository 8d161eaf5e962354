// Package par is gopar's user API: parallel iterators over ranges and
// slices, run on a work-stealing pool.
//
//	total := par.Range(0, n).Map(f).Sum()
//	par.Slice(xs).ForEach(g)
//
// A pipeline starts from a source, goes through adapters and ends in a
// terminal operation that runs it and returns when every item is done.
// Nothing runs before the terminal operation.
//
// # The API by family
//
//   - Sources: Range(lo, hi) (any lo <= hi, up to [math.MinInt,
//     math.MaxInt)), Slice(xs), Numbers(xs).
//   - Adapters: the methods Map and Filter keep the item type; the
//     functions Map (any result type) and FilterMap (map and filter in one
//     step) change it. Functions that take any iterator accept the Iterator
//     interface, which Iter and Nums implement.
//   - Terminal operations: ForEach, Reduce, Fold (an accumulator per run of
//     items: histograms, word counts), Sum (Nums.Sum, or the function Sum),
//     Min, Max, MinFunc, MaxFunc, Count, Len, Collect.
//   - Searches, which stop early: Any, All, Find, FindFirst (the lowest
//     match; the work above it is dropped, the work below it still runs).
//   - Errors: TryForEach and TryMap (results in source order) stop handing
//     out items at the first error and return the lowest-index one among
//     the calls that ran.
//   - Settings: WithContext (a done context stops any terminal operation),
//     WithPool, WithBlockSize, and Blocking(limit) for callbacks that block
//     on I/O: at most limit at once, on goroutines of their own, not on the
//     pool (the errgroup.SetLimit fan-out).
//   - Blocks: Blocks, ReduceBlocks and Chunks hand your own loop contiguous
//     sub-ranges, with no call per item.
//   - Sorting: Sort, SortFunc and SortStableFunc, the slices sorts in
//     parallel.
//   - Fork-join: Join(a, b) and JoinFunc(f, a, b) run two calls, possibly in
//     parallel, and may be nested freely.
//   - Pools: DefaultPool (GOMAXPROCS workers, or GOPAR_WORKERS), NewPool,
//     Pool.Close; ErrClosed; a panic in any callback comes back as a *Panic.
//
// # What you get for free
//
// Compared with a hand-written fan-out of goroutines:
//
//   - Load balancing. The index range is split statically across the
//     workers, and a worker that runs out steals the top quarter of what
//     another has left, so uneven items still keep every core busy.
//   - No tuning. Items are taken in blocks whose size adapts to their
//     measured cost: cheap items run in long sequential blocks, costly ones
//     one at a time.
//   - Small inputs stay cheap. An operation starts on the calling goroutine
//     and wakes the pool only once it has run long enough to be worth it.
//   - Early exit. Once an operation is decided (a match, an error, a done
//     context), the items not yet handed out are dropped, not walked.
//   - Nesting. A function given to ForEach may itself call par or Join; the
//     waiting goroutine runs work while it waits, so this never deadlocks.
//   - Panics come back. A panic in any callback stops the operation and is
//     re-raised in the caller as a *Panic that keeps the original value and
//     the stack where it happened.
//   - Order. Reduce and Fold combine partial results in index order,
//     Collect and TryMap keep source order.
//
// Functions handed to par run concurrently on several goroutines and must be
// safe for that. Passing a nil function panics at once with a message that
// names the operation.
package par
