package par

import (
	"sync/atomic"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// Partition returns the items for which pred is true and the others, each
// in source order, in one pass: pred is called once per item, where two
// Filter(...).Collect() calls (one with pred, one with its negation) call
// it twice and walk the source twice. It is Rayon's partition, and the
// parallel form of
//
//	for _, x := range xs {
//		if pred(x) {
//			matched = append(matched, x)
//		} else {
//			rest = append(rest, x)
//		}
//	}
//
// The results are new slices of exactly the right lengths (empty, not nil,
// when nothing goes there). Over a slice or a range with no adapter, the
// items are written straight into them: a first parallel pass calls pred
// and keeps its answer in a byte per item, and a second copies each item
// to its place, known from the counts of the items before it (ParlayLib's
// pack). Over any other iterator, whose items a second pass would have to
// compute again, each participant appends to two slices of its own per run
// of items, and the runs are then copied, in parallel, into the results.
//
// The iterator's settings apply; a done context leaves the results holding
// the items of a prefix (see Iter.WithContext), and a panic in pred is
// re-raised as a *Panic.
// A nil pred panics at once.
func (it Iter[T]) Partition(pred func(T) bool) (matched, rest []T) {
	mustFunc(pred, "Partition")
	s := it.s
	if pipe.Rereadable(&s) {
		if n := length(s, "Partition"); n > 0 {
			return pack(s, n, pred)
		}
	}
	runs := pipe.Run(s.Config, s.Lo, s.Hi, pipe.Reducer[[]*split[T]]{
		Identity: func() []*split[T] { return []*split[T]{{}} },
		Fold: func(acc []*split[T], lo, hi int) []*split[T] {
			sp := acc[0] // a run's list holds its own split only
			sp.yes, sp.no = pipe.SplitBlock(&s, lo, hi, pred, sp.yes, sp.no)
			return acc
		},
		// The lists of adjacent runs, left first: nothing is copied until
		// the lengths are known.
		Combine: func(a, b []*split[T]) []*split[T] { return append(a, b...) },
	})
	// Where each run's items go: offsets into the results.
	at := make([][2]int, len(runs)+1)
	for k, sp := range runs {
		at[k+1] = [2]int{at[k][0] + len(sp.yes), at[k][1] + len(sp.no)}
	}
	matched, rest = make([]T, at[len(runs)][0]), make([]T, at[len(runs)][1])
	cfg := pipe.Config{Pool: s.Pool}
	pipe.RunBlocks(cfg, 0, len(runs), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			copy(matched[at[k][0]:], runs[k].yes)
			copy(rest[at[k][1]:], runs[k].no)
		}
	})
	return matched, rest
}

// split is one run's share of a Partition.
type split[T any] struct{ yes, no []T }

// packChunk is the number of items whose counts a pack keeps together: the
// second pass gives a chunk's items their places from the counts of the
// chunks before it. 4096 items are a few microseconds of copying, and the
// counts of 2^23 items fit in 32 KiB.
const packChunk = 1 << 12

// pack is Partition over a Rereadable spec of n > 0 items.
func pack[T any](s pipe.Spec[T], n int, pred func(T) bool) (matched, rest []T) {
	// pipe.FlagYes, FlagNo, or 0 for an item that did not run. A length no
	// slice can have panics here, before any item runs.
	flags := makeFor[uint8](s, n, "Partition")
	chunks := (n-1)/packChunk + 1
	counts := make([]struct{ yes, no atomic.Int64 }, chunks)
	flag := func(lo, hi int) {
		// A block may start or end inside a chunk, whose other part
		// another participant counts: hence the atomic adds, one per
		// chunk and block.
		for lo < hi {
			c := (lo - s.Lo) / packChunk
			end := min(hi, s.Lo+(c+1)*packChunk)
			y := pipe.FlagBlock(&s, lo, end, pred, flags[lo-s.Lo:end-s.Lo])
			counts[c].yes.Add(int64(y))
			counts[c].no.Add(int64(end - lo - y))
			lo = end
		}
	}
	if s.Context == nil {
		pipe.RunBlocks(s.Config, s.Lo, s.Hi, flag)
	} else if p := pipe.RunPrefix(s.Config, s.Lo, s.Hi, flag); p < n {
		// A done context stopped the loop: the results are those of the
		// prefix that ran (see Iter.WithContext), so the items after it
		// count as not run.
		clear(flags[p:])
		c := p / packChunk
		var yes, no int64
		for _, f := range flags[c*packChunk : p] {
			if f == pipe.FlagYes {
				yes++
			} else {
				no++
			}
		}
		counts[c].yes.Store(yes)
		counts[c].no.Store(no)
		for k := c + 1; k < chunks; k++ {
			counts[k].yes.Store(0)
			counts[k].no.Store(0)
		}
	}
	// Where each chunk's items go.
	at := make([][2]int, chunks+1)
	for c := range counts {
		at[c+1] = [2]int{at[c][0] + int(counts[c].yes.Load()), at[c][1] + int(counts[c].no.Load())}
	}
	matched, rest = make([]T, at[chunks][0]), make([]T, at[chunks][1])
	pipe.RunBlocks(pipe.Config{Pool: s.Pool}, 0, chunks, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			from, to := c*packChunk, min((c+1)*packChunk, n)
			pipe.PackBlock(&s, s.Lo+from, s.Lo+to, flags[from:to], matched[at[c][0]:at[c+1][0]], rest[at[c][1]:at[c+1][1]])
		}
	})
	return matched, rest
}
