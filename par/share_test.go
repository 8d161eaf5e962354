package par_test

import (
	"fmt"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// TestOperationsOfMixedSizesShareThePool: goroutines run operations of
// very different sizes on the default pool at once, large loops beside
// small ones and nested ones, with GOMAXPROCS above the cores: every
// operation visits each of its items once and returns the right sum, and
// all of them end (a hang fails the test after a minute: a deadlock, not
// a latency bound, which BenchmarkSharedPool reports).
func TestOperationsOfMixedSizesShareThePool(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(4))
	settleDefaultPool(t)
	const large, smallCallers = 2, 8
	largeOps, smallOps := max(8/race.Scale, 2), max(200/race.Scale, 20)
	check := func(n int, nested bool) error {
		visited := make([]atomic.Int32, n)
		mark := func(i int) int { visited[i].Add(1); return i }
		var got int
		if nested && n >= 64 {
			var sum atomic.Int64
			par.Range(0, n/64).ForEach(func(b int) {
				sum.Add(int64(par.Range(b*64, b*64+64).Map(mark).Sum()))
			})
			got = int(sum.Load()) + par.Range(n/64*64, n).Map(mark).Sum()
		} else {
			got = par.Range(0, n).Map(mark).Sum()
		}
		if want := n * (n - 1) / 2; got != want {
			return fmt.Errorf("sum over %d items (nested %v) = %d, want %d", n, nested, got, want)
		}
		for i := range visited {
			if v := visited[i].Load(); v != 1 {
				return fmt.Errorf("%d items (nested %v): item %d visited %d times, want once", n, nested, i, v)
			}
		}
		return nil
	}
	within(t, time.Minute, "operations of mixed sizes", func() {
		var wg sync.WaitGroup
		errs := make(chan error, large+smallCallers)
		for range large {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range largeOps {
					if err := check(1<<20/race.Scale, false); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		for c := range smallCallers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(c), 48))
				for range smallOps {
					if err := check(1+rng.IntN(1<<12), c%2 == 1); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}

// BenchmarkSharedPool: issue 48's request scenario as a benchmark: one
// goroutine runs the sum of mix over 2^22 items back to back while the
// benchmark's loop runs the sum over 2^15 items and sleeps 1 ms; it
// reports the small operation's p50 and p99 (ns) and the large operations
// completed per second, for gopar and the static fan-out. A latency budget
// is read here, never asserted in a test (benchmarks/cmd/requests has the
// full scenario with errgroup and conc).
func BenchmarkSharedPool(b *testing.B) {
	forms := []struct {
		name string
		sum  func(n int) uint64
	}{
		{"gopar", func(n int) uint64 { return par.Sum(par.Map(par.Range(0, n), mixInt)) }},
		{"static", func(n int) uint64 { return staticFn(n, mixInt) }},
	}
	for _, f := range forms {
		b.Run(f.name, func(b *testing.B) {
			stop := make(chan struct{})
			var largeDone atomic.Int64
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					sink = f.sum(1 << 22)
					largeDone.Add(1)
				}
			}()
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				t0 := time.Now()
				sink = f.sum(1 << 15)
				lat = append(lat, time.Since(t0))
				time.Sleep(time.Millisecond)
			}
			elapsed := time.Since(start)
			close(stop)
			wg.Wait()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2]), "p50-ns")
			b.ReportMetric(float64(lat[len(lat)*99/100]), "p99-ns")
			b.ReportMetric(float64(largeDone.Load())/elapsed.Seconds(), "large/s")
		})
	}
}
