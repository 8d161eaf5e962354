package benchmarks

// W0, W1 and W2: sums of a cheap function over a range.

// W0 is "small": the sum of mix(i) over [0, 1000), 10,000 times. It measures what
// going parallel costs on an input too small to gain from it.
var W0 = &Workload{
	ID:    "W0",
	Name:  "small",
	What:  "sum of mix(i), i in [0, 1000), 10,000 times",
	Impls: repeat(w0Loop.baselines(), w0Times),
	Targets: []Target{
		{Impl: "gopar-block", Against: "seq", Limit: 1.5},
		{Impl: "gopar-item", Against: "seq", Limit: 1.5},
		{Impl: "gopar-block", Against: BestPeer, Limit: 1},
	},
}

const w0Times = 10_000

// w0Loop is one of W0's 10,000 sums; 8 chunks of 128 for dynamic and the peers.
var w0Loop = loop{n: 1000, item: mixInt, block: mixBlock, chunk: 128}

// W1 is "sum-light": the sum of mix(i) over [0, 2^26). Fine-grained uniform work.
var W1 = &Workload{
	ID:       "W1",
	Name:     "sum-light",
	What:     "sum of mix(i), i in [0, 2^26)",
	Balanced: true,
	Impls:    w1Loop.baselines(),
	Targets:  sumTargets,
}

// w1Loop: chunks of 2^14 items (about 20 us of work), 4096 of them.
var w1Loop = loop{n: 1 << 26, item: mixInt, block: mixBlock, chunk: 1 << 14, pools: true}

// mixBlock is the sum of mix(i) over [lo, hi).
func mixBlock(lo, hi int) uint64 {
	var s uint64
	for i := lo; i < hi; i++ {
		s += mix(uint64(i))
	}
	return s
}

// sumTargets are the targets of the balanced sums W1 and W2. The per-item form
// calls the item through a func value, so it is held to static-fn (an honest
// floor: no slower than seq-fn divided by the workers); the block form runs the
// inlined loop, so it is held to static.
var sumTargets = []Target{
	{Impl: "gopar-item", Against: "static-fn", Limit: 1.03},
	{Impl: "gopar-block", Against: "static", Limit: 1.05},
	{Impl: "gopar-block", Against: "seq", Speedup: true, Limit: 1.9},
	{Impl: "gopar-block", Against: BestPeer, Limit: 1},
}

// W2 is "sum-tiny": the sum of i*i over [0, 2^28). Almost no work per item, so
// it shows what an API costs per item.
var W2 = &Workload{
	ID:       "W2",
	Name:     "sum-tiny",
	What:     "sum of i*i, i in [0, 2^28)",
	Balanced: true,
	Impls:    w2Loop.baselines(),
	Targets:  sumTargets,
}

// w2Loop: chunks of 2^16 items (about 20 us of work), 4096 of them.
var w2Loop = loop{n: 1 << 28, item: square, block: squareBlock, chunk: 1 << 16}

// square is W2's item: i*i, wrapping.
func square(i int) uint64 { return uint64(i) * uint64(i) }

// squareBlock is the sum of i*i over [lo, hi).
func squareBlock(lo, hi int) uint64 {
	var s uint64
	for i := lo; i < hi; i++ {
		s += uint64(i) * uint64(i)
	}
	return s
}

// repeat returns impls, each run times times in a row, the checksums added up.
func repeat(impls []Impl, times int) []Impl {
	out := make([]Impl, len(impls))
	for k, im := range impls {
		out[k] = Impl{im.Name, func() uint64 {
			var s uint64
			for range times {
				s += im.Run()
			}
			return s
		}}
	}
	return out
}
