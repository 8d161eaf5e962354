package benchmarks

import "sync"

// W8 is "many-callers": 32 goroutines at once, each running 200 small parallel
// sums of mix(i) over [0, 4096). The checksum adds up all 6,400 sums.
//
// seq runs the 6,400 sums one after the other on one goroutine. Every other
// implementation starts the 32 callers, and each caller runs its 200 sums with
// that implementation's fan-out: static starts P goroutines per sum, and so on.
var W8 = &Workload{
	ID:    "W8",
	Name:  "many-callers",
	What:  "32 goroutines at once, each 200 parallel sums of mix over [0, 4096)",
	Impls: manyCallers(w8Loop.baselines()),
	Targets: []Target{
		{Impl: "gopar-item", Against: "static-fn", Limit: 1.03},
		{Impl: "gopar-block", Against: "static", Limit: 1.0},
		{Impl: "gopar-block", Against: BestPeer, Limit: 1},
	},
}

const (
	w8Callers = 32
	w8Sums    = 200
)

// w8Loop is one caller's sum; 8 chunks of 512 for dynamic and the peers.
var w8Loop = loop{n: 4096, item: mixInt, block: mixBlock, chunk: 512, pools: true}

// manyCallers turns implementations of one small sum into implementations of W8.
// The plain loops, seq and seq-fn, run all the sums on a single goroutine.
func manyCallers(impls []Impl) []Impl {
	out := make([]Impl, len(impls))
	for k, im := range impls {
		if im.Name == "seq" || im.Name == "seq-fn" {
			out[k] = Impl{im.Name, func() uint64 {
				var s uint64
				for range w8Callers * w8Sums {
					s += im.Run()
				}
				return s
			}}
			continue
		}
		out[k] = Impl{im.Name, func() uint64 { return callers(im.Run) }}
	}
	return out
}

// callers runs sum 200 times on each of 32 goroutines started at once and returns
// the total.
func callers(sumOnce func() uint64) uint64 {
	partial := make([]uint64, w8Callers)
	var wg sync.WaitGroup
	for c := range w8Callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s uint64
			for range w8Sums {
				s += sumOnce()
			}
			partial[c] = s
		}()
	}
	wg.Wait()
	return sum(partial)
}
