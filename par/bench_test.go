package par_test

import (
	"math"
	goruntime "runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// Quick in-package benchmarks; the full suite with every baseline and peer
// is the benchmarks module.

var sink any

const w1 = 1 << 26

// seqFn is the sequential loop with one call of f per item, as staticFn
// and gopar-item make (noinline: inlined, the call to mixInt would go).
//
//go:noinline
func seqFn(n int, f func(int) uint64) uint64 {
	var s uint64
	for i := range n {
		s += f(i)
	}
	return s
}

func staticFn(n int, f func(int) uint64) uint64 {
	p := goruntime.GOMAXPROCS(0)
	parts := make([]uint64, p)
	var wg sync.WaitGroup
	for k := 0; k < p; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			// The bounds in locals: Go does not hoist (k+1)*n/p out of the
			// loop, and a division per item made this floor slower than the
			// sequential loop (273 ms against 163 ms on the device).
			var s uint64
			lo, hi := k*n/p, (k+1)*n/p
			for i := lo; i < hi; i++ {
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
	// seq-fn against static-fn is the trust check of a run: the same calls,
	// one goroutine against one per core (>= 1.7x at 2 workers).
	b.Run("seq-fn", func(b *testing.B) {
		for range b.N {
			sink = seqFn(w1, mixInt)
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

// BenchmarkW0: one of W0's calls, a sum over 1,000 cheap items, which runs
// inline on the caller. seq-fn is the floor of the per-item form without a
// profile: the plain loop calling the same func value.
func BenchmarkW0(b *testing.B) {
	b.Run("seq", func(b *testing.B) {
		for range b.N {
			sink = seqSum(0, 1000)
		}
	})
	b.Run("seq-fn", func(b *testing.B) {
		for range b.N {
			sink = seqFn(1000, mixInt)
		}
	})
	b.Run("gopar-item", func(b *testing.B) {
		for range b.N {
			sink = par.Sum(par.Map(par.Range(0, 1000), mixInt))
		}
	})
	b.Run("gopar-block", func(b *testing.B) {
		for range b.N {
			sink = par.ReduceBlocks(par.Range(0, 1000), seqSum, addU64)
		}
	})
}

func addU64(a, b uint64) uint64 { return a + b }

// BenchmarkFewCheap: what a loop of a few cheap items costs. Up to four
// items per worker, a loop goes parallel before item 0 (internal/pipe's fewItems):
// it pays the pool's entry and a wake-up that a costly item 0 would
// repay. 64 items (over four per worker on up to 16 workers) stay inline.
// loop/n= is the plain loop calling the same func value.
func BenchmarkFewCheap(b *testing.B) {
	for _, n := range []int{2, 8, 64} {
		b.Run("n="+itoa(n), func(b *testing.B) {
			for range b.N {
				sink = par.Sum(par.Map(par.Range(0, n), mixInt))
			}
		})
		b.Run("loop/n="+itoa(n), func(b *testing.B) {
			for range b.N {
				sink = seqFn(n, mixInt)
			}
		})
	}
}

// BenchmarkLoopAtAnIdlePool: a loop of 2^15 to 2^17 cheap items (about 80
// to 330 us here) that comes 1 ms after the last, when the pool's workers
// have parked, as a loop does between a server's requests. seq/ is the plain
// loop. The pause is not timed; the median op is reported beside the mean,
// which the VM's outliers move. The loop's helper once started 60-100 us
// late (runtime/SLEEP.md, "Waking from a goroutine that goes on
// running").
func BenchmarkLoopAtAnIdlePool(b *testing.B) {
	benchAtAnIdlePool(b, func(n int) uint64 { return par.ReduceBlocks(par.Range(0, n), seqSum, addU64) })
}

// BenchmarkJoinAtAnIdlePool: par.Join of two halves of 2^15 to 2^17 cheap
// items that comes 1 ms after the last, when the pool's workers have
// parked: a fork at the top of a request. seq/ is the plain loop over both
// halves. The median op is reported beside the mean.
func BenchmarkJoinAtAnIdlePool(b *testing.B) {
	benchAtAnIdlePool(b, func(n int) uint64 {
		var x, y uint64
		par.Join(func() { x = seqSum(0, n/2) }, func() { y = seqSum(n/2, n) })
		return x + y
	})
}

// benchAtAnIdlePool runs gopar(n), the sum of the cheap items [0, n), and
// the plain loop (seq/) for n of 2^15 to 2^17, each op after a pause.
func benchAtAnIdlePool(b *testing.B, gopar func(n int) uint64) {
	for _, lg := range []int{15, 16, 17} {
		n := 1 << lg
		b.Run("seq/n=2^"+itoa(lg), func(b *testing.B) {
			afterAPause(b, func() { sink = seqSum(0, n) })
		})
		b.Run("gopar/n=2^"+itoa(lg), func(b *testing.B) {
			afterAPause(b, func() { sink = gopar(n) })
		})
	}
}

// afterAPause times op b.N times, each after an untimed pause of 1 ms, and
// reports the median op in us-median.
func afterAPause(b *testing.B, op func()) {
	times := make([]time.Duration, 0, b.N)
	for range b.N {
		b.StopTimer()
		time.Sleep(time.Millisecond)
		b.StartTimer()
		t0 := time.Now()
		op()
		times = append(times, time.Since(t0))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e3, "us-median")
}

// firstFrom is a plain loop's search: it calls pred through a func value,
// as FindFirst must, so it is the honest floor for FindFirst's per-item
// call.
//
//go:noinline
func firstFrom(lo int, pred func(int) bool) int {
	for i := lo; ; i++ {
		if pred(i) {
			return i
		}
	}
}

// BenchmarkFindFirstLong: the "search until found" idiom over [0,
// math.MaxInt). A match at 1000 is found by the caller alone; a match at
// 2^22 takes the parallel phase, which works from the bottom of the range
// up, so it should cost a plain loop's time (loop-fn) divided by the
// workers, not more.
func BenchmarkFindFirstLong(b *testing.B) {
	for _, m := range []int{1000, 1 << 22} {
		pred := func(i int) bool { return i >= m }
		b.Run("gopar/match="+itoa(m), func(b *testing.B) {
			for range b.N {
				if v, ok := par.Range(0, math.MaxInt).FindFirst(pred); !ok || v != m {
					b.Fatal(v, ok)
				}
			}
		})
		b.Run("loop-fn/match="+itoa(m), func(b *testing.B) {
			for range b.N {
				if v := firstFrom(0, pred); v != m {
					b.Fatal(v)
				}
			}
		})
	}
}

// BenchmarkNestedFindFirst: an outer FindFirst over 1e9 items whose
// predicate runs an inner FindFirst over another 1e9 items.
func BenchmarkNestedFindFirst(b *testing.B) {
	for range b.N {
		v, ok := par.Range(0, 1e9).FindFirst(func(i int) bool {
			j, found := par.Range(0, 1e9).FindFirst(func(j int) bool { return j >= 500+i%7 })
			return found && j == 500+2000%7 && i >= 2000
		})
		if !ok || v != 2000 {
			b.Fatal(v, ok)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Join overhead: fib(n) with a par.Join at every level against the plain
// recursion (W6, benchmarks/README.md). Joins per fib(n) = fib(n+1) - 1. Run with
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
	// join-busy: as join-alone, with every other worker of the pool held
	// by a task that blocks, so that nobody is idle and every join takes
	// the inline path; on more than one worker that path publishes b on
	// the promotion board (runtime's board.go) where it can.
	b.Run("join-busy", func(b *testing.B) {
		hold := make(chan struct{})
		defer close(hold)
		for range runtime.Default().Workers() - 1 {
			runtime.Default().Go(func(*runtime.Worker) { <-hold })
		}
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

// BenchmarkFloatSum: the reproducible float Sum against the plain parallel
// sum it replaced (blocks that fall where the scheduler hands them out),
// on 2^26 float64s.
func BenchmarkFloatSum(b *testing.B) {
	xs := make([]float64, 1<<26)
	for i := range xs {
		xs[i] = float64(i%1000) * 0.001
	}
	b.Run("reproducible", func(b *testing.B) {
		for range b.N {
			sink = par.Numbers(xs).Sum()
		}
	})
	b.Run("plain", func(b *testing.B) {
		for range b.N {
			sink = par.ReduceBlocks(par.Range(0, len(xs)), func(lo, hi int) float64 {
				var s float64
				for _, x := range xs[lo:hi] {
					s += x
				}
				return s
			}, func(a, c float64) float64 { return a + c })
		}
	})
}

// BenchmarkTryMap: TryMap over 10^6 cheap items against Map + Collect,
// which cannot fail.
func BenchmarkTryMap(b *testing.B) {
	const n = 1_000_000
	b.Run("trymap", func(b *testing.B) {
		for range b.N {
			out, _ := par.TryMap(par.Range(0, n), func(i int) (uint64, error) { return mixInt(i), nil })
			sink = out
		}
	})
	b.Run("map-collect", func(b *testing.B) {
		for range b.N {
			sink = par.Map(par.Range(0, n), mixInt).Collect()
		}
	})
}
