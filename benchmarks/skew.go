package benchmarks

// W3 and W4: uneven work, where equal chunks do not hold equal work.

// unevenTargets are the targets of the uneven loops W3-W5: each form against
// the static fan-out (vsStatic; 0 leaves that target out) and against the
// dynamic fan-out that calls the item the same way (through a func value for
// the per-item form, inlined for the block form).
func unevenTargets(vsStatic float64) []Target {
	var t []Target
	if vsStatic > 0 {
		t = append(t,
			Target{Impl: "gopar-item", Against: "static", Limit: vsStatic},
			Target{Impl: "gopar-block", Against: "static", Limit: vsStatic})
	}
	return append(t,
		Target{Impl: "gopar-item", Against: "dynamic-fn", Limit: 1.03},
		Target{Impl: "gopar-block", Against: "dynamic", Limit: 1.03},
		Target{Impl: "gopar-block", Against: BestPeer, Limit: 1})
}

// W3 is "skew-linear": item i mixes its index i/4 times, so the work grows
// linearly with i and a static halving gives one goroutine 25% and the other 75%.
var W3 = &Workload{
	ID:      "W3",
	Name:    "skew-linear",
	What:    "2^15 items; item i: h=i, then h=mix(h) i/4 times; sum of h",
	Impls:   w3Loop.baselines(),
	Targets: unevenTargets(0.72),
}

// w3Loop: chunks of 16 items, 2048 of them; the last chunk is about 1/1000 of the work.
var w3Loop = loop{n: 1 << 15, item: skewItem, block: skewBlock, chunk: 16, perItem: true}

// skewItem is W3's item.
func skewItem(i int) uint64 {
	h := uint64(i)
	for r := 0; r < i/4; r++ {
		h = mix(h)
	}
	return h
}

// skewBlock is the sum of skewItem(i) over [lo, hi).
func skewBlock(lo, hi int) uint64 {
	var s uint64
	for i := lo; i < hi; i++ {
		h := uint64(i)
		for r := 0; r < i/4; r++ {
			h = mix(h)
		}
		s += h
	}
	return s
}

// W4 is "skew-spike": 2^20 items of one mix each, except the last 1% of indexes,
// which do 400. Four fifths of the work sits in the last 1% of the range.
var W4 = &Workload{
	ID:      "W4",
	Name:    "skew-spike",
	What:    "2^20 items; 1 round of mix each, 400 rounds for the last 1% of indexes",
	Impls:   w4Loop.baselines(),
	Targets: unevenTargets(0.60),
}

const (
	w4N         = 1 << 20
	w4HotStart  = w4N - w4N/100 // the first index of the hot 1%
	w4HotRounds = 400
)

// w4Loop: chunks of 256 items, 4096 of them; the hot 1% spans 41 chunks.
var w4Loop = loop{n: w4N, item: spikeItem, block: spikeBlock, chunk: 256, perItem: true}

// spikeItem is W4's item.
func spikeItem(i int) uint64 {
	rounds := 1
	if i >= w4HotStart {
		rounds = w4HotRounds
	}
	h := uint64(i)
	for range rounds {
		h = mix(h)
	}
	return h
}

// spikeBlock is the sum of spikeItem(i) over [lo, hi).
func spikeBlock(lo, hi int) uint64 {
	var s uint64
	for i := lo; i < hi; i++ {
		rounds := 1
		if i >= w4HotStart {
			rounds = w4HotRounds
		}
		h := uint64(i)
		for range rounds {
			h = mix(h)
		}
		s += h
	}
	return s
}
