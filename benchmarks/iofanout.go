package benchmarks

import (
	"sync"
	"time"

	"github.com/gopar-dev/gopar/par"
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
		{"gopar-blocking", func() uint64 {
			return par.Sum(par.Map(par.Range(0, ioN).Blocking(ioLimit), ioItem))
		}},
	},
	Targets: []Target{
		{Impl: "gopar-blocking", Against: BestPeer, Limit: 1.05},
		{Impl: "gopar-blocking", Against: "semaphore", Limit: 1.05},
	},
}

func sumOf(xs []uint64) uint64 {
	var s uint64
	for _, x := range xs {
		s += x
	}
	return s
}
