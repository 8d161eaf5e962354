package pipe

import "slices"

// runBatches runs s with the settings up in batches, in order, each on the
// pool (or the blocking driver), and hands each batch's items to emit; with
// need >= 0, only the first need items, and it stops there. Each batch is
// reserved from c before it is pulled or run, and holds at most a
// creditBatches-th of its limit. Batches follow
// the clock as the sequence driver's do; over a seq with need >= 0, no
// batch is longer than the items still needed, so that a seq whose items
// each give at most one item (no FlatMap) is pulled for no item past the
// last one needed. Over a range, items past it may run, as those past a
// search's match do.
//
// It reports whether it handed out every item (or need of them): false if
// emit returned false, or a done context cut the items short. A batch
// that ran whole does not count as cut, even if the context is done by its
// end: the next batch tells, running nothing if it is (so that, as over a
// seq, a done context that left no item out is told from one that did).
func runBatches[T any](s Spec[T], up Config, c *credit, need int, emit func([]T) bool) bool {
	t := upstream(s, up)
	cfg := up
	cfg.seq = nil
	r := partCollector(&t)
	done := up.done()
	stopped, cut := false, false
	// A reservation refused means that the operation stopped the pump
	// while it waited for room: not every item was handed out.
	reserve := func(n int) bool {
		ok := c.reserve(n)
		stopped = stopped || !ok
		return ok
	}
	b := newBatching(cfg, max(1, c.limit/creditBatches))
	b.reserve = reserve
	body := func(lo, hi int) bool {
		part := Run(cfg, lo, hi, r)
		items := part.items
		if need >= 0 {
			items = items[:min(len(items), need)]
			need -= len(items)
		}
		if len(items) > 0 && !emit(items) {
			stopped = true
			return false
		}
		if part.n < span(lo, hi) {
			cut = true // the context stopped the batch
			return false
		}
		return need != 0
	}
	if src := t.seq; src != nil {
		if need >= 0 {
			b.reserve = func(int) bool {
				b.size = max(1, min(b.size, need))
				return need > 0 && reserve(b.size)
			}
		}
		src.batches(b, done, body)
		if !stopped && !cut && need != 0 {
			cut = src.(cutter).cutBy(done)
		}
	} else {
		for i := t.Lo; i < t.Hi && b.ready(); {
			k := min(b.size, span(i, t.Hi))
			if !body(i, i+k) {
				break
			}
			i += k
			b.adapt()
		}
	}
	return !stopped && !cut
}

// batchPart is a batch's items, and the number of its indexes, from its
// first, that ran without a hole: all of them unless a done context stopped
// the batch.
type batchPart[T any] struct {
	items []T
	n     int
}

// partCollector is the Reducer of runBatches: collector's, which also
// counts the indexes that ran.
func partCollector[T any](s *Spec[T]) Reducer[batchPart[T]] {
	return Reducer[batchPart[T]]{ // Identity: none yet
		Fold: func(acc batchPart[T], lo, hi int) batchPart[T] {
			if Filtered(s) {
				s.Each(lo, hi, func(v T) { acc.items = append(acc.items, v) })
			} else {
				n := len(acc.items)
				acc.items = slices.Grow(acc.items, hi-lo)[:n+hi-lo]
				at := *s
				at.Lo = lo - n // Fill writes item i at dst[i-Lo]
				Fill(&at, acc.items, lo, hi)
			}
			acc.n += hi - lo
			return acc
		},
		Combine: func(a, b batchPart[T]) batchPart[T] {
			a.items = append(a.items, b.items...)
			a.n += b.n
			return a
		},
	}
}

// cutter is a batchSource that tells, after batches returned by itself
// (not because body returned false), whether done cut its items short.
type cutter interface {
	cutBy(done <-chan struct{}) bool
}

// cutBy: a seq that returned ended, unless it is a channel's that done may
// have stopped while it waited (which cannot tell whether more values
// would have come: see par.FromChan).
func (w *seqStore[T]) cutBy(done <-chan struct{}) bool { return w.recv != nil && isClosed(done) }
