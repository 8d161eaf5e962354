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
// The hand-rolled fan-outs (static, dynamic, goroutine) split the outer loop
// only and run each inner sum as a plain loop: that is the best one can do by
// hand. seq-fn and static-fn, the per-item form's floors, call mix through a
// func value for every one of the 2^24 inner items, as gopar-item does. The
// peers nest, as a user of the library would write it: the outer and the
// inner loops both go through the peer.
var W7 = &Workload{
	ID:       "W7",
	Name:     "nested",
	What:     "64 outer items in parallel, each an inner parallel sum of mix over 2^18 indexes",
	Balanced: true,
	Impls: []Impl{
		{"seq", func() uint64 { return outerBlock(0, w7Outer64) }},
		{"seq-fn", func() uint64 { return seqFn(w7Outer64*w7Inner, mixInt) }},
		{"static", func() uint64 { return static(w7Outer64, outerBlock) }},
		{"static-fn", func() uint64 { return staticFn(w7Outer64*w7Inner, mixInt) }},
		{"dynamic", func() uint64 { return dynamic(w7Outer64, 1, outerBlock) }},
		{"goroutine", func() uint64 { return perItem(w7Outer64, innerSeq) }},
		{"errgroup", nestedErrgroup},
		{"conc", nestedConc},
		{"pargo", nestedPargo},
		{"conc-map-item", nestedConcItem},
	},
	Targets: []Target{
		{Impl: "gopar-item", Against: "static-fn", Limit: 1.03},
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

// nestedConcItem: conc's per-item form at both levels, iter.Map over the outer
// items, each mapping its inner indexes one by one (withConcMap).
func nestedConcItem() uint64 {
	return sum(iter.Map(indexes()[:w7Outer64], func(o *int) uint64 {
		return sum(iter.Map(indexes()[*o<<w7InnerLog:(*o+1)<<w7InnerLog], func(i *int) uint64 { return mixInt(*i) }))
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
