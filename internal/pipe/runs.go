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
type run struct {
	lo, hi int // the indexes folded into acc
	acc    any
}

// runBook is one participant's runs, under every driver: the run it folds
// (cur, whose hi is where its last block ended) and the runs it finished
// (mine). A participant asks it whether each block it takes extends the
// current run (extends); if not, it ends that run (end), keeps it, and
// begins the next.
type runBook struct {
	mine  []run // finished runs
	cur   run   // the run being folded
	inRun bool  // whether cur holds a run (indexes may be negative: no sentinel)
}

// extends reports whether a block from lo folds into the current run:
// there is one, and lo is where it ends, or the loop is unordered (any
// block extends it).
func (bk *runBook) extends(lo int, unordered bool) bool {
	return bk.inRun && (lo == bk.cur.hi || unordered)
}

// begin starts a new current run at lo from r.identity(), after end: it
// holds a run once the caller has folded a block into it (folded), so that
// if Identity or Fold panics, there is no current run.
func (bk *runBook) begin(lo int, r *Reducer[any]) {
	bk.cur = run{lo: lo, hi: lo, acc: r.identity()}
}

// folded records that the block ending at hi is folded into cur.
func (bk *runBook) folded(hi int) { bk.cur.hi, bk.inRun = hi, true }

// end returns the current run, if there is one, and forgets it.
func (bk *runBook) end() (last run, ok bool) {
	last, ok = bk.cur, bk.inRun
	bk.cur, bk.inRun = run{}, false
	return last, ok
}

// checkRunsTile checks that the sorted runs of a loop that ran to the end
// cover [lo, hi) exactly once (gopar_debug only).
func (o *loop) checkRunsTile() {
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
func (o *loop) combine() any {
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
func sortRuns(runs []run) {
	slices.SortFunc(runs, func(a, b run) int { return cmp.Compare(a.lo, b.lo) })
}

// prefixRuns returns the sorted runs of a loop from lo whose results count.
// A loop that a done context stopped may have skipped blocks anywhere, so
// its runs leave holes; its result is then that of the prefix, the runs
// before the first index that did not run (all of them with AllRuns). A
// loop whose context is not done keeps every run: its holes, if any, come
// from a Cut, which drops only the items above the answer, or from a Stop,
// whose answer stands wherever it came from.
func (r *Reducer[A]) prefixRuns(runs []run, lo int, done <-chan struct{}) []run {
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
func combineRuns(runs []run, r Reducer[any]) any {
	if len(runs) == 0 {
		return r.identity()
	}
	acc := runs[0].acc
	for _, run := range runs[1:] {
		acc = r.Combine(acc, run.acc)
	}
	return acc
}
