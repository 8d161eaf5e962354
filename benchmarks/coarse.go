package benchmarks

import (
	"runtime"
	"sync"

	"github.com/gopar-dev/gopar/par"
	"github.com/sourcegraph/conc/iter"
	"golang.org/x/sync/errgroup"
)

// W10 "few coarse items": n items of about 20 ms of CPU each, for n = 2, 4,
// P and 2P (P = GOMAXPROCS when the run starts), the hand-rolled fan-out of
// "process these four files". The ideal is ceil(n/P) items' time. Each count
// is a workload of its own (W10-2, W10-4, W10-P, W10-2P).
//
// W11 "few unequal items" is shaped like the Benchmarks Game's k-nucleotide:
// seven jobs of unequal cost, longest first (relative costs 18, 12, 6, 4,
// 3, 2, 1, about 5 ms a unit). On two cores the longest job is under half
// the work, so the ideal is half the total, which only an order that starts
// the costly jobs first reaches.

// coarseRounds of mix take about 20 ms here.
const coarseRounds = 6_000_000

// coarse is one item of cost units x 20 ms, seeded with i.
func coarse(i, units int) uint64 {
	h := uint64(i)
	for range units * coarseRounds {
		h = mix(h)
	}
	return h
}

// knucUnits are W11's job costs, in units of a quarter of a W10 item.
var knucUnits = [...]int{18, 12, 6, 4, 3, 2, 1}

// knucItem is W11's job i.
func knucItem(i int) uint64 {
	h := uint64(i)
	for range knucUnits[i] * coarseRounds / 4 {
		h = mix(h)
	}
	return h
}

// CoarseItem is W10's item i, about 20 ms of CPU; cmd/itemstarts times it.
func CoarseItem(i int) uint64 { return coarse(i, 1) }

var (
	W10x2  = fewItems("W10-2", "2 items", func() int { return 2 }, CoarseItem)
	W10x4  = fewItems("W10-4", "4 items", func() int { return 4 }, CoarseItem)
	W10xP  = fewItems("W10-P", "P items", func() int { return runtime.GOMAXPROCS(0) }, CoarseItem)
	W10x2P = fewItems("W10-2P", "2P items", func() int { return 2 * runtime.GOMAXPROCS(0) }, CoarseItem)
	W11    = fewItems("W11", "7 jobs of unequal cost, longest first (k-nucleotide's shape)", func() int { return len(knucUnits) }, knucItem)
)

// fewItems is a workload of n() items, each item(i), with every form a Go
// programmer writes for a handful of big jobs.
func fewItems(id, what string, n func() int, item func(int) uint64) *Workload {
	name := "few-coarse"
	if id == "W11" {
		name = "few-unequal"
	}
	w := &Workload{
		ID:   id,
		Name: name,
		What: what + " of about 20 ms of CPU each",
		Impls: []Impl{
			{"seq", func() uint64 {
				var s uint64
				for i := range n() {
					s += item(i)
				}
				return s
			}},
			{"goroutine", func() uint64 { return perItem(n(), item) }},
			{"errgroup", func() uint64 {
				k := n()
				out := make([]uint64, k)
				var g errgroup.Group
				g.SetLimit(runtime.GOMAXPROCS(0))
				for i := range k {
					g.Go(func() error { out[i] = item(i); return nil })
				}
				g.Wait()
				return sum(out)
			}},
			{"conc", func() uint64 {
				idx := make([]int, n())
				for i := range idx {
					idx[i] = i
				}
				return sum(iter.Map(idx, func(i *int) uint64 { return item(*i) }))
			}},
			{"ants", func() uint64 {
				k := n()
				out := make([]uint64, k)
				var wg sync.WaitGroup
				wg.Add(k)
				for i := range k {
					if err := antsPool().Submit(func() { defer wg.Done(); out[i] = item(i) }); err != nil {
						panic(err)
					}
				}
				wg.Wait()
				return sum(out)
			}},
			{"pond", func() uint64 {
				k := n()
				out := make([]uint64, k)
				g := pondPool().NewGroup()
				for i := range k {
					g.Submit(func() { out[i] = item(i) })
				}
				if err := g.Wait(); err != nil {
					panic(err)
				}
				return sum(out)
			}},
			{"gopar-item", func() uint64 { return par.Sum(par.Map(par.Range(0, n()), item)) }},
		},
		Targets: []Target{
			{Impl: "gopar-item", Against: "goroutine", Limit: 1.05},
			{Impl: "gopar-item", Against: BestPeer, Limit: 1.05},
		},
	}
	if id == "W11" {
		w.Targets = []Target{{Impl: "gopar-item", Against: "goroutine", Limit: 1.03}}
	}
	return w
}
