package pipe

// The runs of a loop (contiguous blocks that one goroutine folded) and
// how they combine into its result, in index order.

import (
	"cmp"
	"math"
	"slices"

	"github.com/gopar-dev/gopar/internal/invariant"
)

// run is a run of the loop: contiguous blocks that one goroutine folded,
// in order, into acc.
type run[A any] struct {
	lo, hi int // the indexes folded into acc
	acc    A
}

// checkRunsTile checks that the sorted runs of a loop that ran to the end
// cover [lo, hi) exactly once (gopar_debug only).
func (o *loop[A]) checkRunsTile() {
	// The caller's inline prefix, if any, ends where the partitioned
	// rest of the loop begins.
	at, end := o.lo, o.rest+int(o.parts.Len())
	for _, r := range o.runs {
		if r.lo != at || r.lo >= r.hi {
			invariant.Failf("run [%d, %d) where the runs so far end at %d", r.lo, r.hi, at)
		}
		at = r.hi
	}
	if at != end {
		invariant.Failf("the runs end at %d, the loop at %d", at, end)
	}
}

// combine joins the runs in index order.
func (o *loop[A]) combine() A {
	if o.r.Combine == nil {
		return o.r.identity()
	}
	sortRuns(o.runs)
	if invariant.Enabled && o.parts.Cut() == math.MaxInt && !o.r.Unordered {
		o.checkRunsTile()
	}
	return combineRuns(o.r.prefixRuns(o.runs, o.lo, o.stop), o.r)
}

// sortRuns puts runs in index order.
func sortRuns[A any](runs []run[A]) {
	slices.SortFunc(runs, func(a, b run[A]) int { return cmp.Compare(a.lo, b.lo) })
}

// prefixRuns returns the sorted runs of a loop from lo whose results count.
// A loop that a done context stopped may have skipped blocks anywhere, so
// its runs leave holes; its result is then that of the prefix, the runs
// before the first index that did not run (all of them with AllRuns). A
// loop whose context is not done keeps every run: its holes, if any, come
// from a Cut, which drops only the items above the answer, or from a Stop,
// whose answer stands wherever it came from.
func (r *Reducer[A]) prefixRuns(runs []run[A], lo int, done <-chan struct{}) []run[A] {
	if r.AllRuns || !isClosed(done) {
		return runs
	}
	at := lo
	for k, run := range runs {
		if run.lo != at {
			return runs[:k]
		}
		at = run.hi
	}
	return runs
}

// combineRuns joins sorted runs, left to right, with r.Combine; no runs give
// r.identity().
func combineRuns[A any](runs []run[A], r Reducer[A]) A {
	if len(runs) == 0 {
		return r.identity()
	}
	acc := runs[0].acc
	for _, run := range runs[1:] {
		acc = r.Combine(acc, run.acc)
	}
	return acc
}
