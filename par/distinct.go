package par

import (
	"github.com/gopar-dev/gopar/internal/pipe"
	"github.com/gopar-dev/gopar/runtime"
)

// Distinct returns the distinct items of it, each once, in the order of
// their first occurrence in the source: the parallel form of
//
//	seen := map[T]bool{}
//	var out []T
//	for _, x := range xs {
//		if !seen[x] {
//			seen[x] = true
//			out = append(out, x)
//		}
//	}
//
// (ParlayLib's remove_duplicates_ordered, Java's distinct on an ordered
// stream). Items are equal as == says, as for map keys: +0 and -0 are one
// item, and each float NaN is an item of its own. No items give an empty
// slice, not nil.
//
// Distinct deduplicates in parallel however many distinct items there are,
// where merging a map per worker would cost one map operation per distinct
// item on one goroutine: each participant sorts the items it runs into
// shards by key hash, in order (four or more shards per worker), then the
// shards are deduplicated in parallel, each into a map of its own, and the
// first occurrences are written out in parallel in source order. It holds
// every item once in its shards meanwhile: about len x (the size of T + 2)
// bytes. (With a toolchain before Go 1.24, which has no hash for any
// comparable type, each run of items keeps a map instead, merged in index
// order.)
//
// With Unordered, the distinct items come in no particular order. A done
// context (WithContext) leaves the distinct items of a prefix of the source
// (with Unordered, of the items that ran). A panic in a function of the
// pipeline, or in hashing an interface value whose dynamic type is not
// comparable (as a map panics), is re-raised as a *Panic.
func Distinct[T comparable](it Iterator[T]) []T {
	s := specOf(it)
	if hash := comparableHasher[T](); hash != nil {
		return distinctSharded(s, hash, distinctShards(s))
	}
	return distinctMerged(s)
}

// distinctInline is the number of items below which Distinct deduplicates
// on one shard, on the calling goroutine: a few microseconds of map work,
// less than waking a worker costs.
const distinctInline = 8192

// distinctRun is the part of Distinct's work that one run of contiguous
// items (with Unordered, one goroutine) gives.
type distinctRun[T comparable] struct {
	ids  []uint8 // the shard of each item, in source order
	bufs [][]T   // by shard: its items, in source order

	// Set by the shard's deduplication: whether bufs[s][j] is the first
	// occurrence of its item, and how many first occurrences bufs[s] has.
	// Each shard is deduplicated by one goroutine, which writes only its
	// own shard's entries.
	first [][]bool
	count []int
	at    int // where the run's first occurrences go in the result
}

// distinctRuns is Distinct's accumulator: runs in index order (with
// Unordered, in no particular order). Items are added to the last run.
type distinctRuns[T comparable] struct {
	runs   []*distinctRun[T]
	shards int
}

func newDistinctRuns[T comparable](shards int) *distinctRuns[T] {
	return &distinctRuns[T]{runs: []*distinctRun[T]{{
		bufs:  make([][]T, shards),
		first: make([][]bool, shards),
		count: make([]int, shards),
	}}, shards: shards}
}

// distinctShards returns the number of shards for s: one for a source of
// fewer than distinctInline items, otherwise a power of two of at least 4
// per worker, from 8 to 256 (a shard is a byte).
func distinctShards[T any](s pipe.Spec[T]) int {
	if !pipe.IsSeq(&s) && !pipe.Flat(&s) && uint64(s.Hi)-uint64(s.Lo) < distinctInline {
		return 1
	}
	pool := s.Pool
	if pool == nil {
		pool = runtime.Default()
	}
	k := 8
	for k < 4*pool.Workers() && k < 256 {
		k *= 2
	}
	return k
}

// distinctSharded is Distinct with a hash of T over shards shards (a power
// of two, at most 256): the items go to shards by
// hash (the loop, over the pipeline), then each shard is deduplicated
// (dedup), then the first occurrences are written out (emit).
func distinctSharded[T comparable](s pipe.Spec[T], hash func(T) uint64, shards int) []T {
	shift := uint(64)
	for k := shards; k > 1; k >>= 1 {
		shift--
	}
	d := keyedFold(s, false, nil,
		func(d *distinctRuns[T], xs []T) *distinctRuns[T] {
			if d == nil {
				d = newDistinctRuns[T](shards)
			}
			r := d.runs[len(d.runs)-1]
			for _, x := range xs {
				sh := uint8(0)
				if shift < 64 {
					sh = uint8(hash(x) >> shift)
				}
				r.ids = append(r.ids, sh)
				r.bufs[sh] = append(r.bufs[sh], x)
			}
			return d
		},
		func(a, b *distinctRuns[T]) *distinctRuns[T] {
			switch {
			case a == nil:
				return b
			case b == nil:
				return a
			}
			a.runs = append(a.runs, b.runs...)
			return a
		})
	if d == nil {
		return []T{}
	}
	return d.firsts(s.Pool)
}

// firsts deduplicates the shards (dedup) and returns the first
// occurrences (emit), in the order of the runs, on pool (nil: the default
// pool). The context, progress and timeline belong to the loop that filled
// d: this runs no callback of the pipeline, and finishes even if that
// context is done, since the result is the loop's.
func (d *distinctRuns[T]) firsts(pool *runtime.Pool) []T {
	total := 0
	for _, r := range d.runs {
		total += len(r.ids)
	}
	cfg := pipe.Config{Pool: pool, MaxBlock: 1}
	parallel := func(n int, body func(lo, hi int)) {
		if total < distinctInline || n == 1 {
			body(0, n)
		} else {
			pipe.RunBlocks(cfg, 0, n, body)
		}
	}
	parallel(d.shards, d.dedup)
	n := 0
	for _, r := range d.runs {
		r.at = n
		for _, c := range r.count {
			n += c
		}
	}
	out := make([]T, n)
	parallel(len(d.runs), func(lo, hi int) {
		for _, r := range d.runs[lo:hi] {
			r.emit(out, d.shards)
		}
	})
	return out
}

// dedup marks the first occurrences of the items of shards [lo, hi): each
// shard's runs are walked in order with one map, whose length grows exactly
// when an item is new.
func (d *distinctRuns[T]) dedup(lo, hi int) {
	for sh := lo; sh < hi; sh++ {
		seen := map[T]struct{}{}
		for _, r := range d.runs {
			buf := r.bufs[sh]
			if len(buf) == 0 {
				continue
			}
			first := make([]bool, len(buf))
			n := 0
			for j, x := range buf {
				l := len(seen)
				seen[x] = struct{}{}
				if len(seen) != l {
					first[j] = true
					n++
				}
			}
			r.first[sh], r.count[sh] = first, n
		}
	}
}

// emit writes the first occurrences of the run into out from r.at on, in
// source order: the shard ids give the order, a cursor per shard the item.
func (r *distinctRun[T]) emit(out []T, shards int) {
	cur := make([]int, shards)
	k := r.at
	for _, sh := range r.ids {
		j := cur[sh]
		cur[sh] = j + 1
		if r.first[sh][j] {
			out[k] = r.bufs[sh][j]
			k++
		}
	}
}

// distinctSet is the accumulator of distinctMerged: a run's items, each
// once, in order of first occurrence.
type distinctSet[T comparable] struct {
	seen  map[T]struct{}
	items []T
}

func (d *distinctSet[T]) add(x T) {
	l := len(d.seen)
	d.seen[x] = struct{}{}
	if len(d.seen) != l {
		d.items = append(d.items, x)
	}
}

// distinctMerged is Distinct without a hash of T: a set per run, merged in
// index order on one goroutine.
func distinctMerged[T comparable](s pipe.Spec[T]) []T {
	d := keyedFold(s, false, nil,
		func(d *distinctSet[T], xs []T) *distinctSet[T] {
			if d == nil {
				d = &distinctSet[T]{seen: map[T]struct{}{}}
			}
			for _, x := range xs {
				d.add(x)
			}
			return d
		},
		func(a, b *distinctSet[T]) *distinctSet[T] {
			switch {
			case a == nil:
				return b
			case b == nil:
				return a
			}
			for _, x := range b.items {
				a.add(x)
			}
			return a
		})
	if d == nil {
		return []T{}
	}
	return d.items
}
