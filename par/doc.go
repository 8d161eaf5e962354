// Package par is gopar's user API: parallel iterators over ranges and
// slices, run on a work-stealing pool.
//
//	total := par.Range(0, n).Map(f).Sum()
//	par.Slice(xs).ForEach(g)
//
// A pipeline starts from a source, goes through adapters and settings, and
// ends in a terminal operation that runs it and returns when every item is
// done. Nothing runs before the terminal operation.
//
// # The API by family
//
// Sources:
//
//   - [Range](lo, hi): the integers of [lo, hi), as an [Ints], which adds
//     the block API below.
//   - [Slice](xs), and [Numbers](xs) for a slice of numbers (it has Sum).
//   - [Chunks](xs, n): the consecutive sub-slices of n elements of xs.
//   - [FromSeq](seq): the items of a standard library iter.Seq, pulled on
//     a goroutine of the operation's own while the pool works (Rayon's
//     par_bridge).
//   - [Lines](data), [LinesString], [Split] and [ReadLines]: the lines or
//     records of a large input, split in parallel.
//
// Adapters (each returns a new iterator):
//
//   - [Iter.Map] and [Iter.Filter], which keep the item type;
//   - the function [Map], which changes it (Go methods cannot add type
//     parameters), [FilterMap], which maps and filters in one step,
//     [FlatMap], which turns each item into a slice of items, and [MapInit],
//     which gives f a value made per goroutine (a buffer, a generator).
//
// With Go 1.27 or newer, which allows methods with type parameters of their
// own, every step chains: Map changes the item type, and FilterMap, FlatMap,
// MapInit, ForEachInit, Fold, the Try forms, MapErr and the keyed
// operations are methods too, the same operations as the functions
// (chain.go; gopar's go.mod stays at go 1.23, and older toolchains have the
// functions only):
//
//	counts := par.Slice(lines).FlatMap(strings.Fields).Filter(long).CountBy(strings.ToLower)
//
// Settings (kept by the adapters after them):
//
//   - [Iter.WithPool]: run on a pool of your own;
//   - [Iter.WithContext]: stop once a context is done;
//   - [Iter.WithBlockSize]: bound the number of items run in one go;
//   - [Iter.Blocking](limit): for callbacks that wait on I/O: at most limit
//     at once, on goroutines of their own, not on the pool (the
//     errgroup.SetLimit fan-out);
//   - [Iter.WithProgress]: report the items done, at most every 100 ms;
//   - [Iter.WithTimeline]: record which goroutine ran which items when, and
//     every steal, into a [Timeline] that draws itself as an SVG.
//
// Terminal operations: [Iter.ForEach], [Iter.ForEachIndex] (with the
// item's position, as slices.All), [ForEachPtr] (a pointer to each element
// of a slice, to update it in place), [Iter.Reduce], [Fold] (an
// accumulator per run of items: histograms, word counts), [Nums.Sum] and the
// function [Sum] (float sums are reproducible), [Iter.Count], [Iter.Collect],
// [Iter.Partition] (matched and rest in one pass),
// [Min], [Max], [MinFunc], [MaxFunc], and [ForEachInit] (ForEach with a
// value per goroutine). Reduce, Fold and Collect keep index order.
//
// Keyed results, into a map with a map per participant merged at the end,
// never a locked one: [GroupBy] and [GroupByKey] (map[K][]V, each group in
// source order), [ReduceByKey] (an associative op per key: per-key min,
// mean and max in one pass), [CountBy] (a histogram, a word count),
// [CollectMap] (the last value of a key wins), and [Distinct] (the distinct
// items in order of first occurrence, deduplicated in parallel by key hash).
//
// Ordered streaming: [Iter.Values] and [Iter.All] return the results as an
// iter.Seq and an iter.Seq2 in source order, computed ahead of the range
// loop, at most [Iter.WithBuffer] items ahead; with [Iter.Unordered] and
// Blocking, in completion order.
//
// Searches, which stop early: [Iter.Any], [Iter.Every], [Iter.Find],
// [Iter.FindFirst] (the lowest match: the work above it is dropped, the work
// below it still runs).
//
// Errors: [Iter.TryForEach] and [TryMap] (results in source order) stop
// handing out items at the first error and return the lowest-index one
// among the calls that ran (errgroup returns the first in time: the
// context forms [Iter.TryForEachContext] and [TryMapContext] do that).
// [TryForEachInit] and [TryMapInit] do the same with a value per goroutine,
// as ForEachInit and MapInit. [Iter.ForEachErr] and [MapErr] (every result)
// run every item instead and return every failure: an errors.Join of one
// [ItemError] per failed call, with the item's index, in index order.
//
// Context: [Iter.WithContext] stops a pipeline between blocks. The guide's
// section "Where a done context is observed" lists where, and what each
// operation then returns.
//
// Blocks, for a tight inner loop with no call per item: [Ints.Blocks] and
// [ReduceBlocksIn] hand body whole sub-ranges [lo, hi), with every setting
// of the range, and call it O(workers x log n) times, so body may build a
// map or a buffer per call; [Blocks] and [ReduceBlocks] are their
// shorthands.
//
// Fork-join: [Join](a, b) runs two functions possibly in parallel;
// [JoinFunc](f, a, b) returns f(a) and f(b) without closures, for recursive
// divide and conquer. Both run inline while every worker is busy: JoinFunc
// then costs about the two calls, and Join also allocates its two closures
// (docs/benchmarks.md, "Headline figures"). [JoinAll](fns...) runs any
// number of different tasks; [Scope] runs tasks that start more tasks
// through a [Group]; [TryScope] does that for tasks that block (a
// directory walk, a crawler), at most a limit at once, with errors and a
// context as TryForEachContext has.
//
// Pools: [DefaultPool] (sized by the GOPAR_WORKERS environment variable,
// else GOMAXPROCS), [NewPool], [Pool], and [ErrClosed], the panic of an
// operation on a closed pool. A pool's size is not a cap on the callbacks in
// flight (see runtime.Pool.Workers).
//
// Scans (prefix sums): [ScanSumInclusive], [ScanSumExclusive], and
// [ScanInclusive], [ScanExclusive] for any associative operation.
//
// Sorting: [Sort], [SortFunc], [SortStableFunc], the slices sorts on every
// core.
//
// # What you get for free
//
// Compared with a hand-written fan-out of goroutines: load balancing of
// uneven items, block sizes that need no tuning, small inputs that stay on
// the caller, an early exit that drops the work not yet handed out, nesting
// without deadlock, panics re-raised in the caller, and index order. The
// README's list says what each one means; docs/guide.md shows each beside
// the fan-out it replaces.
//
// Functions handed to par run concurrently on several goroutines and must be
// safe for that. Passing a nil function panics at once with a message that
// names the method.
package par
