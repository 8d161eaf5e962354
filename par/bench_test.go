package par_test

import (
	goruntime "runtime"
	"sync"
	"testing"

	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// Quick in-package benchmarks; the full suite with every baseline and peer
// is the benchmarks module.

var sink any

const w1 = 1 << 26

func staticFn(n int, f func(int) uint64) uint64 {
	p := goruntime.GOMAXPROCS(0)
	parts := make([]uint64, p)
	var wg sync.WaitGroup
	for k := 0; k < p; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			var s uint64
			for i := k * n / p; i < (k+1)*n/p; i++ {
				s += f(i)
			}
			parts[k] = s
		}(k)
	}
	wg.Wait()
	var s uint64
	for _, v := range parts {
		s += v
	}
	return s
}

func BenchmarkW1(b *testing.B) {
	b.Run("seq", func(b *testing.B) {
		for range b.N {
			sink = seqSum(0, w1)
		}
	})
	b.Run("static-fn", func(b *testing.B) {
		for range b.N {
			sink = staticFn(w1, mixInt)
		}
	})
	b.Run("gopar-item", func(b *testing.B) {
		for range b.N {
			sink = par.Sum(par.Map(par.Range(0, w1), mixInt))
		}
	})
}

func BenchmarkW0(b *testing.B) {
	b.Run("seq", func(b *testing.B) {
		for range b.N {
			sink = seqSum(0, 1000)
		}
	})
	b.Run("gopar-item", func(b *testing.B) {
		for range b.N {
			sink = par.Sum(par.Map(par.Range(0, 1000), mixInt))
		}
	})
}

// Join overhead: fib(n) with a par.Join at every level against the plain
// recursion (BENCHMARKS.md W6). Joins per fib(n) = fib(n+1) - 1. Run with
// GOPAR_WORKERS=1 for the figures per join on one worker; "alone" runs fib on
// the default pool's workers with the caller blocked outside the pool, so that
// no participant is idle and every join takes the inline path.
const fibN = 27

func BenchmarkJoin(b *testing.B) {
	joins := float64(fibSeq(fibN+1) - 1)
	perJoin := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/joins, "ns/join")
	}
	b.Run("seq", func(b *testing.B) {
		for range b.N {
			sink = fibSeq(fibN)
		}
		perJoin(b)
	})
	b.Run("join", func(b *testing.B) {
		for range b.N {
			sink = joinFib(fibN)
		}
		perJoin(b)
	})
	b.Run("join-alone", func(b *testing.B) {
		done := make(chan int)
		for range b.N {
			runtime.Default().Go(func(*runtime.Worker) { done <- joinFib(fibN) })
			sink = <-done
		}
		perJoin(b)
	})
	b.Run("joinfunc", func(b *testing.B) {
		for range b.N {
			sink = joinFuncFib(fibN)
		}
		perJoin(b)
	})
	b.Run("joinfunc-alone", func(b *testing.B) {
		done := make(chan int)
		for range b.N {
			runtime.Default().Go(func(*runtime.Worker) { done <- joinFuncFib(fibN) })
			sink = <-done
		}
		perJoin(b)
	})
}
