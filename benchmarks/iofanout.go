package benchmarks

import (
	"sync"
	"time"

	"github.com/alitto/pond/v2"
	"github.com/gopar-dev/gopar/par"
	"github.com/panjf2000/ants/v2"
	"github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"
)

// W9: the blocking fan-out Go programs write with errgroup.SetLimit: ioN
// items, each a 1 ms wait (standing for a network or disk call) plus about
// 2 us of CPU, at most ioLimit at once.
const (
	ioN     = 2000
	ioLimit = 64
	// ioRounds of mix take about 2 us here.
	ioRounds = 1000
)

// ioItem is one item of W9: a 1 ms wait, then about 2 us of CPU.
func ioItem(i int) uint64 {
	time.Sleep(time.Millisecond)
	h := uint64(i)
	for range ioRounds {
		h = mix(h)
	}
	return h
}

var W9 = &Workload{
	ID:    "W9",
	Name:  "io-fanout",
	What:  "2,000 items, each a 1 ms sleep plus 2 us of CPU, at most 64 at once",
	Items: ioN,
	Impls: []Impl{
		{"seq", func() uint64 {
			var s uint64
			for i := range ioN {
				s += ioItem(i)
			}
			return s
		}},
		// The hand-rolled form: a semaphore channel, a WaitGroup and a
		// results slice.
		{"semaphore", func() uint64 {
			out := make([]uint64, ioN)
			sem := make(chan struct{}, ioLimit)
			var wg sync.WaitGroup
			for i := range ioN {
				sem <- struct{}{}
				wg.Add(1)
				go func() {
					defer wg.Done()
					out[i] = ioItem(i)
					<-sem
				}()
			}
			wg.Wait()
			return sumOf(out)
		}},
		{"errgroup", func() uint64 {
			out := make([]uint64, ioN)
			var g errgroup.Group
			g.SetLimit(ioLimit)
			for i := range ioN {
				g.Go(func() error { out[i] = ioItem(i); return nil })
			}
			g.Wait()
			return sumOf(out)
		}},
		{"conc", func() uint64 {
			out := make([]uint64, ioN)
			p := pool.New().WithMaxGoroutines(ioLimit)
			for i := range ioN {
				p.Go(func() { out[i] = ioItem(i) })
			}
			p.Wait()
			return sumOf(out)
		}},
		// The goroutine pools, sized to the limit, made once.
		{"ants", func() uint64 {
			p := ioAnts()
			out := make([]uint64, ioN)
			var wg sync.WaitGroup
			wg.Add(ioN)
			for i := range ioN {
				if err := p.Submit(func() { defer wg.Done(); out[i] = ioItem(i) }); err != nil {
					panic(err)
				}
			}
			wg.Wait()
			return sumOf(out)
		}},
		{"pond", func() uint64 {
			out := make([]uint64, ioN)
			g := ioPond().NewGroup()
			for i := range ioN {
				g.Submit(func() { out[i] = ioItem(i) })
			}
			if err := g.Wait(); err != nil {
				panic(err)
			}
			return sumOf(out)
		}},
		{"gopar-blocking", func() uint64 {
			return par.Sum(par.Map(par.Range(0, ioN).Blocking(ioLimit), ioItem))
		}},
	},
	Targets: []Target{
		{Impl: "gopar-blocking", Against: BestPeer, Limit: 1.05},
		{Impl: "gopar-blocking", Against: "semaphore", Limit: 1.05},
	},
}

// ioAnts and ioPond are W9's pools: ioLimit goroutines each.
var (
	ioAnts = sync.OnceValue(func() *ants.Pool { return newAnts(ioLimit) })
	ioPond = sync.OnceValue(func() pond.Pool { return pond.NewPool(ioLimit) })
)

func sumOf(xs []uint64) uint64 {
	var s uint64
	for _, x := range xs {
		s += x
	}
	return s
}
