package benchmarks

import (
	"github.com/gopar-dev/gopar/runtime"
)

// rayon-split: Rayon's default way of dividing a range, rebuilt on gopar's
// runtime so that docs/steal-fraction.md can compare it with gopar's range
// partitioner on the same pool. It is not a gopar API.
//
// Rayon does not steal parts of a range. It halves the range recursively with
// join, and a splitter decides when to stop: it starts with as many splits as
// there are threads, halves that budget at every split, and stops splitting
// when the budget is spent, unless the half it holds was stolen (migrated to
// another thread), which re-arms the budget to the thread count. So a range
// splits into about P pieces up front, and more only where thieves show up.
// (rayon-core: iter/plumbing, Splitter and LengthSplitter; the minimum length
// is 1.)

// rayonTask is one half in the recursion.
type rayonTask struct {
	lo, hi int
	splits int
	// forker is the worker that made this half; a half run by any other
	// worker was stolen.
	forker *runtime.Worker
	block  func(lo, hi int) uint64
}

// rayonSplit sums block over [0, n) with Rayon's thief splitting.
func rayonSplit(n int, block func(lo, hi int) uint64) uint64 {
	pool := runtime.Default()
	var r uint64
	pool.Do(func(w *runtime.Worker) {
		r = rayonHalf(w, rayonTask{0, n, pool.Workers(), w, block})
	})
	return r
}

func rayonHalf(w *runtime.Worker, t rayonTask) uint64 {
	if !rayonTrySplit(&t, w != t.forker, w.Pool().Workers()) {
		return t.block(t.lo, t.hi)
	}
	mid := t.lo + (t.hi-t.lo)/2
	var a, b uint64
	// Join, not JoinFunc: Rayon offers the second half at once.
	w.Join(
		func(w *runtime.Worker) { a = rayonHalf(w, rayonTask{t.lo, mid, t.splits, w, t.block}) },
		func(w2 *runtime.Worker) { b = rayonHalf(w2, rayonTask{mid, t.hi, t.splits, w, t.block}) },
	)
	return a + b
}

// rayonTrySplit is Rayon's LengthSplitter.try_split with a minimum length
// of 1: split if the halves are not empty and the budget allows, re-arming
// the budget when the task was stolen.
func rayonTrySplit(t *rayonTask, stolen bool, threads int) bool {
	if (t.hi-t.lo)/2 < 1 {
		return false
	}
	switch {
	case stolen:
		t.splits = max(threads, t.splits/2)
		return true
	case t.splits > 0:
		t.splits /= 2
		return true
	}
	return false
}
