package benchmarks

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/exascience/pargo/parallel"
	"github.com/sourcegraph/conc/iter"
	"golang.org/x/sync/errgroup"
)

// This file holds the hand-rolled fan-outs and the peers, written once over a
// block function: block(lo, hi) runs the workload's loop, body inlined, over the
// items [lo, hi) and returns their partial sum. A call per block costs nothing
// next to the block's work, so these helpers are as fast as writing the fan-out
// out by hand in each workload.

// static is the fan-out gopar replaces: P goroutines, P equal contiguous chunks, a
// WaitGroup, one partial result per goroutine.
func static(n int, block func(lo, hi int) uint64) uint64 {
	p := runtime.GOMAXPROCS(0)
	partial := make([]uint64, p)
	var wg sync.WaitGroup
	for w := 0; w < p; w++ {
		lo, hi := w*n/p, (w+1)*n/p
		wg.Add(1)
		go func() {
			defer wg.Done()
			partial[w] = block(lo, hi)
		}()
	}
	wg.Wait()
	return sum(partial)
}

// seqFn is the plain loop with the item called through a func value: what
// static-fn must beat, divided by the workers, to be an honest floor. It is
// kept out of line so that the compiler cannot see which function item is.
//
//go:noinline
func seqFn(n int, item func(int) uint64) uint64 { return itemBlock(item, 0, n) }

// itemBlock is the sum of item(i) over [lo, hi), the item called through a
// func value. Its loop is the best the compiler makes of such a call: item
// and the partial sum live in the frame, and nothing is reloaded through a
// pointer (README.md, "Implementations").
func itemBlock(item func(int) uint64, lo, hi int) uint64 {
	var s uint64
	for i := lo; i < hi; i++ {
		s += item(i)
	}
	return s
}

// staticFn is static with the per-item function called through a func value: the
// floor for any API that takes a per-item func. It is kept out of line so that
// the compiler cannot see which function item is and inline it.
//
//go:noinline
func staticFn(n int, item func(int) uint64) uint64 {
	return static(n, func(lo, hi int) uint64 { return itemBlock(item, lo, hi) })
}

// dynamic is the best hand-rolled fan-out for uneven work: P goroutines pull
// fixed chunks of chunk items from an atomic counter until none is left.
func dynamic(n, chunk int, block func(lo, hi int) uint64) uint64 {
	p := runtime.GOMAXPROCS(0)
	partial := make([]uint64, p)
	var next atomic.Int64 // the index of the next chunk to hand out
	var wg sync.WaitGroup
	for w := 0; w < p; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s uint64
			for {
				lo := int(next.Add(1)-1) * chunk
				if lo >= n {
					break
				}
				s += block(lo, min(lo+chunk, n))
			}
			partial[w] = s
		}()
	}
	wg.Wait()
	return sum(partial)
}

// dynamicFn is dynamic with the item called through a func value.
func dynamicFn(n, chunk int, item func(int) uint64) uint64 {
	return dynamic(n, chunk, func(lo, hi int) uint64 { return itemBlock(item, lo, hi) })
}

// perItem starts one goroutine per item, each writing its own result slot.
func perItem(n int, item func(int) uint64) uint64 {
	result := make([]uint64, n)
	var wg sync.WaitGroup
	wg.Add(n)
	for i := 0; i < n; i++ {
		go func() {
			defer wg.Done()
			result[i] = item(i)
		}()
	}
	wg.Wait()
	return sum(result)
}

// withErrgroup runs the chunks of chunk items as errgroup tasks, at most P at a
// time (SetLimit(P)).
func withErrgroup(n, chunk int, block func(lo, hi int) uint64) uint64 {
	chunks := (n + chunk - 1) / chunk
	partial := make([]uint64, chunks)
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for c := 0; c < chunks; c++ {
		g.Go(func() error {
			lo := c * chunk
			partial[c] = block(lo, min(lo+chunk, n))
			return nil
		})
	}
	g.Wait()
	return sum(partial)
}

// withConc maps the chunks of chunk items with conc's iter.Map, which runs P
// goroutines that pull elements from an atomic counter.
func withConc(n, chunk int, block func(lo, hi int) uint64) uint64 {
	chunks := make([]int, (n+chunk-1)/chunk)
	for c := range chunks {
		chunks[c] = c * chunk
	}
	partial := iter.Map(chunks, func(lo *int) uint64 {
		return block(*lo, min(*lo+chunk, n))
	})
	return sum(partial)
}

// The peers' per-item forms: what a user of conc writes for "the sum of
// item(i)" without chunking by hand. conc has no range source and no
// reduction, so the items become a slice and the results another, summed
// after. pargo has no per-item form: its Range and RangeReduce hand the user
// a sub-range, which is the block form above.

// withConcMap maps every index with conc's iter.Map, which hands out the
// elements one at a time from an atomic counter, and sums the results. The
// slice of indexes is built once, outside the timed runs.
func withConcMap(n int, item func(int) uint64) uint64 {
	return sum(iter.Map(indexes()[:n], func(i *int) uint64 { return item(*i) }))
}

// withConcForEach is the same with iter.ForEachIdx over a slice of empty
// structs (no memory), writing each result to its slot.
func withConcForEach(n int, item func(int) uint64) uint64 {
	out := make([]uint64, n)
	iter.ForEachIdx(make([]struct{}, n), func(i int, _ *struct{}) { out[i] = item(i) })
	return sum(out)
}

// maxPerItemPeer bounds the loops the per-item peers run: their result slice
// (and conc Map's slice of indexes) holds one word per item, 512 MiB at 2^26.
const maxPerItemPeer = 1 << 26

// indexes returns [0, 1, ..., maxPerItemPeer-1], built on first use.
var indexes = sync.OnceValue(func() []int {
	xs := make([]int, maxPerItemPeer)
	for i := range xs {
		xs[i] = i
	}
	return xs
})

// withPargo runs pargo's RangeReduce, which splits [0, n) in halves recursively on
// goroutines. It gets as many batches as the other peers get chunks (its default,
// 2P batches, would be a static split).
func withPargo(n, chunk int, block func(lo, hi int) uint64) uint64 {
	batches := (n + chunk - 1) / chunk
	s := parallel.RangeReduce(0, n, batches,
		func(lo, hi int) any { return block(lo, hi) },
		func(a, b any) any { return a.(uint64) + b.(uint64) })
	return s.(uint64)
}

// sum adds up partial results.
func sum(xs []uint64) uint64 {
	var s uint64
	for _, x := range xs {
		s += x
	}
	return s
}
