package par

// WithProgress returns it with its terminal operations reporting progress
// to report(done, total): done items out of total source items (those a
// Filter drops count as done). For a long operation it is called at most
// every 100 milliseconds while the operation runs, and then once at the end
// with done == total. Over FromSeq, whose length is unknown, total is -1 and
// the last call gives the number of items that ran (all of the sequence's,
// unless the operation ended early). A range
// longer than an int can count, such as [math.MinInt, math.MaxInt), reports
// math.MaxInt as its total.
// Count without a Filter, which knows its result without running anything,
// does not call it; an empty input gives one call, (0, 0). Cancellation
// and early exit (Any, Find, an error in TryForEach) also end with done ==
// total: the operation is over.
//
// The calls come from one goroutine at a time, never from a worker, and
// counting costs one atomic add per block of items, nothing per item.
// report may be slow or block: the work goes on without it, and the
// operation returns once the last call has returned. If report panics,
// in any call including the last, it is not called again, and the panic is
// re-raised in the caller as a *Panic when the work is done. A nil report
// turns progress off.
func (it Iter[T]) WithProgress(report func(done, total int)) Iter[T] {
	it.s.Progress = report
	return it
}

// WithProgress returns it with its terminal operations reporting progress
// to report: see Iter.WithProgress.
func (it Nums[T]) WithProgress(report func(done, total int)) Nums[T] {
	return Nums[T]{it.Iter.WithProgress(report)}
}
