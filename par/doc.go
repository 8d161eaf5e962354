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
// # The iterator types
//
// Five names, one idea each:
//
//   - [Iter] is the parallel iterator: a source with its adapters and
//     settings, and the terminal operations as its methods.
//   - [Iterator] is the interface that every function taking an iterator
//     accepts ([Map], [Fold], [Sum], [GroupBy], ...), so that any of these
//     types can be passed to it.
//   - [Nums] is an Iter of numbers, which adds Sum; its Map and Filter keep
//     it a Nums.
//   - [Ints] is the range that [Range] returns: a Nums of ints, which adds
//     the block API, and whose settings keep it an Ints.
//   - [Numbers] makes a Nums from a slice of numbers, as [Slice] makes an
//     Iter from any slice.
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
//     which gives f a value made per goroutine (a buffer, a generator);
//   - the index adapters, which keep order: [Iter.Take] and [Iter.Skip] (a
//     prefix, the rest), [Iter.Chain] and [Chain] (one iterator after
//     another), [Enumerate] (each item with its position), and [Zip] and
//     [ZipWith] (two iterators side by side, to the shorter's end).
//
// With Go 1.27 or newer, which allows methods with type parameters of their
// own, every step chains: Map changes the item type, and FilterMap, FlatMap,
// MapInit, ForEachInit, Fold, the Try forms, MapErr and the keyed
// operations are methods too, the same operations as the functions
// (gopar's go.mod stays at go 1.24, and older toolchains have the
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
// accumulator per run of items: histograms, word counts), [Nums.Sum] and its
// function form [Sum] (float sums are reproducible), [Iter.Count], [Iter.Collect],
// [Iter.Partition] (matched and rest in one pass),
// [Min], [Max], [MinFunc], [MaxFunc], and [ForEachInit] (ForEach with a
// value per goroutine). Reduce, Fold and Collect keep index order.
//
// Keyed results, into a map with a map per participant merged at the end
// (past 256K keys, maps the participants share by key hash, for counts and
// under Unordered): [GroupBy] and [GroupByKey] (map[K][]V, each group in
// source order), [ReduceByKey] (an associative op per key: per-key min,
// mean and max in one pass), [CountBy] (a histogram, a word count),
// [CollectMap] (the last value of a key wins), and [Distinct] (the distinct
// items in order of first occurrence, deduplicated in parallel by key hash).
// [CountBySorted], [ReduceByKeySorted], [GroupBySorted] and [DistinctSorted]
// take more keys than memory holds: within a budget in bytes
// ([Iter.WithMemory], [EntrySize] for what entries point to), spilling the
// rest to files ([Iter.WithTempDir], [EntryCodec] for a codec of one's
// own) and reading the result back in key order ([Sorted]).
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
// [ItemError] per failed call, with the item's index, in index order. Under
// a done context they, and [Results], keep what ran and end with an
// [Unfinished] that names the items left.
//
// Context: [Iter.WithContext] stops a pipeline between blocks; its doc says
// what each operation then returns, and which calls take no context.
//
// Blocks, for a tight inner loop with no call per item: [Ints.Blocks] and
// [ReduceBlocks] (with Go 1.27 or newer, also the method
// Ints.ReduceBlocks) hand body whole sub-ranges [lo, hi) of a Range, with
// every setting of the range, and call it O(workers x log n) times, so body
// may build a map or a buffer per call; with [Ints.Blocking](limit), one
// index at a time, at most limit at once, for a body that waits on I/O:
//
//	par.Range(0, len(xs)).Blocks(func(lo, hi int) { ... })
//	total := par.ReduceBlocks(par.Range(0, n), sumOf, add)
//
// Fork-join: [Join](a, b) runs two functions possibly in parallel;
// [JoinFunc](f, a, b) returns f(a) and f(b) without closures, for recursive
// divide and conquer. Both run inline while every worker is busy: JoinFunc
// then costs about the two calls, and Join also allocates its two closures
// (docs/benchmarks.md, "Other figures"). [JoinAll](fns...) runs any
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
//
// # Panics and Goexit
//
// A panic in a callback stops the operation: blocks not yet started are
// skipped, and calls already running finish. Once every goroutine of the
// operation has left it, the panic is re-raised in the caller as a [*Panic]
// holding the original value and the stack of the callback, so that nothing
// of the operation still runs when the caller recovers. If several
// callbacks panic, the first is kept ([Join], [JoinFunc] and [JoinAll] keep
// the lowest-indexed function's); a panic that crosses nested operations
// keeps its first stack. Join, JoinFunc and JoinAll still run their other
// functions, and a [Scope] its other tasks, before re-raising. The pool
// stays usable.
//
// A runtime.Goexit in a callback (t.Fatal, t.FailNow or t.SkipNow in a
// test), wherever it runs (a worker, the caller, a Blocking goroutine,
// inside Join or Scope, a sort's cmp, a scan's op, WithProgress's report,
// a FromSeq sequence), is handled as a panic, and then the goroutine that
// called the operation calls runtime.Goexit itself: a t.Fatal in a callback
// ends the test as it would in the test's own goroutine, instead of hanging
// it. A panic in the same operation wins over a Goexit, as in Go a panic in
// a deferred call replaces a Goexit. A pool worker goroutine that a
// callback ended is replaced.
//
// # Profiles and traces
//
// Every callback runs under the pprof labels of the goroutine that called
// the operation ([runtime/pprof.Do], SetGoroutineLabels), whichever
// goroutine runs it, as it would on a goroutine the caller started with
// go: a CPU profile of a request handler that runs par under its
// request's labels shows all the work under them, and so does a goroutine
// dump (tracebacks print labels from Go 1.27 on). Many callers with
// different labels share the pool, and each callback wears its own
// caller's; a worker takes them off when the callback returns. A caller
// without labels pays nothing for this. Built with the gopar_nolabels
// tag, callbacks on the pool's workers run with no labels (runtime's
// package doc says why).
//
// While a [runtime/trace] is recorded, each operation is a task named
// after it (gopar.Sum, gopar.ForEach, gopar.Values ...), under the task of
// the context given to [Iter.WithContext] if that carries one, as
// [runtime/trace.NewTask] makes it; and each goroutine's part in the
// operation (the caller's start alone, each participant's run) is a region
// of that task, of the same name, on the goroutine that ran it. In go tool
// trace, a request traced as a task then lists the operations it ran, and
// each operation the goroutines that ran it and for how long. Operations
// that run in phases (a sort, a float sum) are a task per phase. Without a
// trace, this costs one test per operation.
//
// [Iter.WithStats] fills, as an operation returns, the figures of a query
// plan's analysis: items, blocks and steals, what a sequence or a stream
// buffered and how long its source and consumer waited, and each
// goroutine's part, busy and idle time, cheaply enough to log for every
// request. [Iter.WithSlow] calls a function of the caller's while an
// operation runs past a time, from which a program can snapshot a
// [runtime/trace.FlightRecorder] of its own.
//
// # Nesting and locks
//
// A callback may call par again, or Join, or start a Scope, to any depth,
// without deadlock, even on a pool of one worker: a goroutine that waits for
// work it forked runs that work, and what it forks, meanwhile, and a caller
// from outside the pool (main, an HTTP handler, a nested call) takes part as
// a guest of the pool; when every guest slot is taken, the call runs on its
// caller alone, still correct (runtime.Pool.Do). Nested calls start no
// goroutines, so nesting does not oversubscribe the machine. Code that forks
// at every level of a deep recursion passes its worker down instead
// (runtime.Worker.Join, runtime.JoinFunc).
//
// A lock may be held across any par call, Blocking mode and the sorts
// included: a program that does not deadlock when every operation runs
// sequentially on its caller (Join running a then b, a loop running its
// items in order, Scope calling each task at once) does not deadlock with
// gopar, since a waiting goroutine runs only work that descends from what it
// waits for (docs/design.md, "Join"). Code that deadlocks sequentially still
// does: a Join whose a waits for something b does, a task that takes a lock
// its own caller holds.
//
// # Small inputs
//
// Every operation starts on the calling goroutine alone, in blocks that grow
// quickly, and hands the rest to the pool's workers only once it has run
// for about 20 microseconds: a loop over a thousand cheap items never wakes
// the pool, so no "if n is small, loop" switch is needed. A loop of a few
// items (at most four per worker) offers them to the pool at once, one at a
// time in index order: list the costliest first. Block sizes are measured,
// not set: each goroutine times its blocks and aims at a few microseconds
// per block, so cheap items run in long blocks and costly ones one or a few
// at a time.
package par
