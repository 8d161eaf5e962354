package par_test

import (
	goruntime "runtime"
	"sync"
	"testing"

	"github.com/gopar-dev/gopar/par"
)

const scanN = 1 << 24

func scanInput() []int64 {
	xs := make([]int64, scanN)
	for i := range xs {
		xs[i] = int64(mixInt(i) % 1000)
	}
	return xs
}

//go:noinline
func scanLoop(dst, src []int64) int64 {
	var acc int64
	for i, x := range src {
		acc += x
		dst[i] = acc
	}
	return acc
}

//go:noinline
func scanLoopFn(dst, src []int64, op func(a, b int64) int64) int64 {
	var acc int64
	for i, x := range src {
		acc = op(acc, x)
		dst[i] = acc
	}
	return acc
}

// parallelCopy is a static fan-out of copy(dst, src): one read and one
// write of every element, the memory traffic of a plain scan, spread over
// the cores. Its time is the floor of any scan on this machine.
func parallelCopy(dst, src []int64) {
	p := goruntime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for k := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lo, hi := k*len(src)/p, (k+1)*len(src)/p
			copy(dst[lo:hi], src[lo:hi])
		}()
	}
	wg.Wait()
}

// parallelRead is a static fan-out that only reads src (a sum): pass 1 of
// the blocked scan.
func parallelRead(src []int64) int64 {
	p := goruntime.GOMAXPROCS(0)
	parts := make([]int64, p)
	var wg sync.WaitGroup
	for k := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s int64
			for _, x := range src[k*len(src)/p : (k+1)*len(src)/p] {
				s += x
			}
			parts[k] = s
		}()
	}
	wg.Wait()
	return parts[0] + parts[len(parts)-1]
}

func add64(a, b int64) int64 { return a + b }

func BenchmarkScan(b *testing.B) {
	src := scanInput()
	dst := make([]int64, scanN)
	b.Run("loop", func(b *testing.B) {
		for range b.N {
			scanLoop(dst, src)
		}
	})
	b.Run("loop-fn", func(b *testing.B) {
		for range b.N {
			scanLoopFn(dst, src, add64)
		}
	})
	b.Run("copy", func(b *testing.B) {
		for range b.N {
			copy(dst, src)
		}
	})
	b.Run("parallel-copy", func(b *testing.B) {
		for range b.N {
			parallelCopy(dst, src)
		}
	})
	b.Run("parallel-read", func(b *testing.B) {
		for range b.N {
			sink = parallelRead(src)
		}
	})
	b.Run("gopar", func(b *testing.B) {
		for range b.N {
			par.ScanInclusive(dst, src, 0, add64)
		}
	})
	b.Run("gopar-sum", func(b *testing.B) {
		for range b.N {
			par.ScanSumInclusive(dst, src)
		}
	})
}

func BenchmarkScanInPlace(b *testing.B) {
	src := scanInput()
	b.Run("loop", func(b *testing.B) {
		for range b.N {
			scanLoop(src, src)
		}
	})
	b.Run("gopar-sum", func(b *testing.B) {
		for range b.N {
			par.ScanSumInclusive(src, src)
		}
	})
}
