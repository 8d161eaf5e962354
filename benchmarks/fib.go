package benchmarks

import (
	"sync"

	"github.com/exascience/pargo/parallel"
	"github.com/sourcegraph/conc"
	"golang.org/x/sync/errgroup"
)

// W6 is "fib-join": fib(30) with a fork-join at every level and no cutoff, so
// nearly all the time goes to forking and joining: fib(30) makes 2,692,537 calls,
// and the 1,346,268 with n >= 2 each fork. The static and dynamic fan-outs have
// nothing to split and are left out.
var W6 = &Workload{
	ID:   "W6",
	Name: "fib-join",
	What: "fib(30) with a fork-join at every level, no cutoff",
	Impls: []Impl{
		{"seq", func() uint64 { return fib(fibN) }},
		{"goroutine", func() uint64 { return fibGo(fibN) }},
		{"errgroup", func() uint64 { return fibErrgroup(fibN) }},
		{"conc", func() uint64 { return fibConc(fibN) }},
		{"pargo", func() uint64 { return fibPargo(fibN) }},
		{"closures", func() uint64 { return fibClosures(fibN) }},
	},
	Targets: []Target{
		{Impl: "gopar-joinfunc", Against: "seq", Speedup: true, Limit: 1.5},
		{Impl: "gopar-join", Against: "seq", Limit: 4},
		{Impl: "gopar-join", Against: "closures", Limit: 1},
		{Impl: "gopar-joinfunc", Against: "goroutine", Limit: 0.02},
		{Impl: "gopar-joinfunc", Against: BestPeer, Limit: 1},
		{Impl: "gopar-join", Against: "goroutine", Limit: 0.10},
		{Impl: "gopar-parjoinfunc", Against: "goroutine", Limit: 0.02},
	},
}

const fibN = 30

// fib is the plain recursive Fibonacci function.
func fib(n int) uint64 {
	if n < 2 {
		return uint64(n)
	}
	return fib(n-1) + fib(n-2)
}

// fibClosures is fib with its two calls in closures that escape, as a
// fork's do, run one after the other (inOrder): what the closures of
// gopar-join and the peers cost before anything runs in parallel.
func fibClosures(n int) uint64 {
	if n < 2 {
		return uint64(n)
	}
	var a, b uint64
	inOrder(func() { a = fibClosures(n - 1) }, func() { b = fibClosures(n - 2) })
	return a + b
}

// fibGo forks with a goroutine and a WaitGroup at every level.
func fibGo(n int) uint64 {
	if n < 2 {
		return uint64(n)
	}
	var a, b uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a = fibGo(n - 1)
	}()
	b = fibGo(n - 2)
	wg.Wait()
	return a + b
}

// fibErrgroup forks with an errgroup at every level. It sets no limit: with
// SetLimit, a task waiting on its children holds a slot they need, and the
// recursion deadlocks.
func fibErrgroup(n int) uint64 {
	if n < 2 {
		return uint64(n)
	}
	var a, b uint64
	var g errgroup.Group
	g.Go(func() error {
		a = fibErrgroup(n - 1)
		return nil
	})
	b = fibErrgroup(n - 2)
	g.Wait()
	return a + b
}

// fibConc forks with a conc.WaitGroup at every level.
func fibConc(n int) uint64 {
	if n < 2 {
		return uint64(n)
	}
	var a, b uint64
	var wg conc.WaitGroup
	wg.Go(func() { a = fibConc(n - 1) })
	b = fibConc(n - 2)
	wg.Wait()
	return a + b
}

// fibPargo forks with pargo's parallel.Do at every level.
func fibPargo(n int) uint64 {
	if n < 2 {
		return uint64(n)
	}
	var a, b uint64
	parallel.Do(
		func() { a = fibPargo(n - 1) },
		func() { b = fibPargo(n - 2) },
	)
	return a + b
}
