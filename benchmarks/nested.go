package benchmarks

import (
	"runtime"

	"github.com/exascience/pargo/parallel"
	"github.com/sourcegraph/conc/iter"
	"golang.org/x/sync/errgroup"
)

// W7 is "nested": 64 outer items in parallel, outer item o an inner parallel sum
// of mix(i) over its own 2^18 indexes [o*2^18, (o+1)*2^18). The checksum is the
// sum of mix over [0, 2^24).
//
// The hand-rolled fan-outs (static, static-fn, dynamic, goroutine) split the
// outer loop only and run each inner sum as a plain loop: that is the best one
// can do by hand. The peers nest, as a user of the library would write it: the
// outer and the inner loops both go through the peer.
var W7 = &Workload{
	ID:       "W7",
	Name:     "nested",
	What:     "64 outer items in parallel, each an inner parallel sum of mix over 2^18 indexes",
	Balanced: true,
	Impls: append(w7Outer.baselines()[:5],
		Impl{"errgroup", nestedErrgroup},
		Impl{"conc", nestedConc},
		Impl{"pargo", nestedPargo},
	),
	Targets: []Target{
		{Impl: "gopar-block", Against: "seq", Speedup: true, Limit: 1.9},
		{Impl: "gopar-block", Against: BestPeer, Limit: 1},
	},
}

const (
	w7Outer64  = 64
	w7InnerLog = 18
	w7Inner    = 1 << w7InnerLog
	// w7Chunk is the peers' inner chunk: 2^14 items, 16 chunks per inner sum.
	w7Chunk = 1 << 14
)

// w7Outer is the outer loop; its item is a whole inner sum, run as a plain loop.
// Its baselines are seq, static, static-fn, dynamic (one outer item a chunk) and
// goroutine (one per outer item).
var w7Outer = loop{n: w7Outer64, item: innerSeq, block: outerBlock, chunk: 1, perItem: true}

// innerSeq is outer item o's inner sum, as a plain loop.
func innerSeq(o int) uint64 { return mixBlock(o<<w7InnerLog, (o+1)<<w7InnerLog) }

// outerBlock runs outer items [lo, hi), each inner sum as a plain loop.
func outerBlock(lo, hi int) uint64 { return mixBlock(lo<<w7InnerLog, hi<<w7InnerLog) }

// innerBlock returns outer item o's block function over [0, 2^18).
func innerBlock(o int) func(lo, hi int) uint64 {
	base := o << w7InnerLog
	return func(lo, hi int) uint64 { return mixBlock(base+lo, base+hi) }
}

// nestedErrgroup: an errgroup over the outer items, each running an errgroup over
// its inner chunks, both limited to P tasks at a time.
func nestedErrgroup() uint64 {
	partial := make([]uint64, w7Outer64)
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for o := range w7Outer64 {
		g.Go(func() error {
			partial[o] = withErrgroup(w7Inner, w7Chunk, innerBlock(o))
			return nil
		})
	}
	g.Wait()
	return sum(partial)
}

// nestedConc: conc's iter.Map over the outer items, each mapping its inner chunks
// with iter.Map again.
func nestedConc() uint64 {
	outer := make([]int, w7Outer64)
	for o := range outer {
		outer[o] = o
	}
	return sum(iter.Map(outer, func(o *int) uint64 {
		return withConc(w7Inner, w7Chunk, innerBlock(*o))
	}))
}

// nestedPargo: pargo's RangeReduce over the outer items, one batch per item, each
// running RangeReduce over its inner chunks.
func nestedPargo() uint64 {
	s := parallel.RangeReduce(0, w7Outer64, w7Outer64,
		func(lo, hi int) any {
			var s uint64
			for o := lo; o < hi; o++ {
				s += withPargo(w7Inner, w7Chunk, innerBlock(o))
			}
			return s
		},
		func(a, b any) any { return a.(uint64) + b.(uint64) })
	return s.(uint64)
}
