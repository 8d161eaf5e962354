package par_test

import (
	goruntime "runtime"
	"sync"
	"testing"

	"github.com/gopar-dev/gopar/par"
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
