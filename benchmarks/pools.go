package benchmarks

import (
	"runtime"
	"sync"

	"github.com/alitto/pond/v2"
	"github.com/panjf2000/ants/v2"
)

// The two most used Go goroutine pools, in the form their READMEs show: a
// pool of limited size, made once and kept (as a program keeps it), tasks
// submitted one by one. ants has no way to wait for a batch, so its users
// pair Submit with a sync.WaitGroup; pond v2 has task groups. They get the
// same chunks as the other peers (withErrgroup), and the rows appear where
// issue 22 asks for them: W1, W8, W9 and W10.

// antsPool and pondPool return pools of size P (GOMAXPROCS when first used),
// shared by every run, and by every caller of W8.
var (
	antsPool = sync.OnceValue(func() *ants.Pool { return newAnts(runtime.GOMAXPROCS(0)) })
	pondPool = sync.OnceValue(func() pond.Pool { return pond.NewPool(runtime.GOMAXPROCS(0)) })
)

func newAnts(size int) *ants.Pool {
	p, err := ants.NewPool(size)
	if err != nil {
		panic(err)
	}
	return p
}

// withAnts runs the chunks of chunk items as tasks of an ants pool, and
// waits for them with a WaitGroup.
func withAnts(p *ants.Pool, n, chunk int, block func(lo, hi int) uint64) uint64 {
	chunks := (n + chunk - 1) / chunk
	partial := make([]uint64, chunks)
	var wg sync.WaitGroup
	wg.Add(chunks)
	for c := 0; c < chunks; c++ {
		err := p.Submit(func() {
			defer wg.Done()
			lo := c * chunk
			partial[c] = block(lo, min(lo+chunk, n))
		})
		if err != nil {
			panic(err)
		}
	}
	wg.Wait()
	return sum(partial)
}

// withPond runs the chunks of chunk items as a task group of a pond pool.
func withPond(p pond.Pool, n, chunk int, block func(lo, hi int) uint64) uint64 {
	chunks := (n + chunk - 1) / chunk
	partial := make([]uint64, chunks)
	g := p.NewGroup()
	for c := 0; c < chunks; c++ {
		g.Submit(func() {
			lo := c * chunk
			partial[c] = block(lo, min(lo+chunk, n))
		})
	}
	if err := g.Wait(); err != nil {
		panic(err)
	}
	return sum(partial)
}

// poolPeers returns the ants and pond rows of a loop.
func (l loop) poolPeers() []Impl {
	return []Impl{
		{"ants", func() uint64 { return withAnts(antsPool(), l.n, l.chunk, l.block) }},
		{"pond", func() uint64 { return withPond(pondPool(), l.n, l.chunk, l.block) }},
	}
}
