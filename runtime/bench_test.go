package runtime

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Join overhead: fib(n) with a Join at every level against the plain
// recursion (W6, benchmarks/README.md). Joins per fib(n) = fib(n+1) - 1.

const fibN = 30

var fibSink int

func BenchmarkFib(b *testing.B) {
	joins := float64(seqFib(fibN+1) - 1)
	b.Run("seq", func(b *testing.B) {
		for range b.N {
			fibSink = seqFib(fibN)
		}
	})
	for _, form := range fibForms {
		for _, workers := range []int{1, 2} {
			b.Run(form.name+"/workers="+string(rune('0'+workers)), func(b *testing.B) {
				p := newPool(b, workers)
				b.ResetTimer()
				for range b.N {
					p.Do(func(w *Worker) { fibSink = form.fib(w, fibN) })
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/joins, "ns/join")
			})
		}
	}
	b.Run("goroutine-per-fork", func(b *testing.B) {
		for range b.N {
			fibSink = goFib(fibN)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/joins, "ns/join")
	})
}

func goFib(n int) int {
	if n < 2 {
		return n
	}
	var a, b int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); b = goFib(n - 2) }()
	a = goFib(n - 1)
	wg.Wait()
	return a + b
}

// BenchmarkWakeParked measures how long a job submitted from outside takes
// to start when every worker of the pool is parked.
func BenchmarkWakeParked(b *testing.B) {
	p := newPool(b, 2)
	lat := make([]time.Duration, 0, b.N)
	started := make(chan time.Duration)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		waitParked(b, p)
		b.StartTimer()
		t0 := time.Now()
		p.Go(func(*Worker) { started <- time.Since(t0) })
		lat = append(lat, <-started)
	}
	reportMedian(b, lat)
}

// BenchmarkWakeRetired is BenchmarkWakeParked when every worker of the pool
// has retired (SLEEP.md, "Retiring"): the job's wake-up starts a goroutine.
// The pool retires its workers after 1 ms rather than idleRetire, so that
// the benchmark waits less between jobs; what a start costs does not depend
// on it.
func BenchmarkWakeRetired(b *testing.B) {
	p := retiringPool(b, 2, time.Millisecond)
	lat := make([]time.Duration, 0, b.N)
	started := make(chan time.Duration)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		p.waitExited()
		b.StartTimer()
		t0 := time.Now()
		p.Go(func(*Worker) { started <- time.Since(t0) })
		lat = append(lat, <-started)
	}
	reportMedian(b, lat)
}

// reportMedian reports the median of lat, in microseconds, as us-median: a
// latency's tail on the VM moves the mean far more than the median.
func reportMedian(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "us-median")
}

// BenchmarkForkWakesParked measures how long the work that a fork offers
// takes to start when every worker of the pool is parked and the caller
// goes on with work of its own, as a loop's parallel phase (Spread) or a
// par.Join (JoinLazy) does when it reaches an idle pool (SLEEP.md, "Waking
// from a goroutine that goes on running"). The caller's own work spins
// until the offered work has started, or for 1 ms.
func BenchmarkForkWakesParked(b *testing.B) {
	for _, f := range forksThatWake {
		b.Run(f.name, func(b *testing.B) {
			benchStartLatency(b, waitParked, func(p *Pool, mark func(), spin func(time.Duration)) {
				f.fork(p, mark, func() { spin(time.Millisecond) })
			})
		})
	}
}

// BenchmarkPromotionAtAnIdlePool: how long a func published on the
// promotion board waits for a worker when the pool is idle (every worker
// parked, the heartbeat asleep), as a loop's rest does while its item 0
// runs on a pool that was idle at the call. The publisher spins, never
// yielding, as CPU-bound user code does, until the func has started, or
// for 10 ms (a func not started by then counts as 10 ms).
func BenchmarkPromotionAtAnIdlePool(b *testing.B) {
	idle := func(t testing.TB, p *Pool) {
		waitParked(t, p)
		waitHeartbeatAsleep(t, p)
	}
	benchStartLatency(b, idle, func(p *Pool, mark func(), spin func(time.Duration)) {
		pr := promote(p, mark)
		if !pr.Published() {
			b.Fatal("nothing was published on an idle pool's board")
		}
		spin(10 * time.Millisecond)
		if !pr.Reclaim() {
			raise(pr.Wait())
		}
	})
}

// benchStartLatency runs op b.N times on a pool of 2 workers, each time
// after idle has brought the pool to rest (untimed), and reports the median
// time from op's call to the start of the work it offers, which calls
// mark. op's own work calls spin(limit), which returns once that work has
// started or limit has passed since the call; work not started by then
// counts as limit.
func benchStartLatency(b *testing.B, idle func(testing.TB, *Pool), op func(p *Pool, mark func(), spin func(limit time.Duration))) {
	p := newPool(b, 2)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		idle(b, p)
		b.StartTimer()
		var started atomic.Int64 // when the offered work started, in ns after t0, plus 1
		t0 := time.Now()
		mark := func() { started.CompareAndSwap(0, int64(time.Since(t0))+1) }
		spin := func(limit time.Duration) {
			for started.Load() == 0 && time.Since(t0) < limit {
			}
			started.CompareAndSwap(0, int64(limit)+1)
		}
		op(p, mark, spin)
		lat = append(lat, time.Duration(started.Load()-1))
	}
	reportMedian(b, lat)
}

// BenchmarkJoinOneWorkerAlone measures Join's overhead where nobody can
// steal: fib runs on the only worker of a one-worker pool, submitted with
// Go, while the caller blocks on a channel.
func BenchmarkJoinOneWorkerAlone(b *testing.B) {
	joins := float64(seqFib(fibN+1) - 1)
	p := newPool(b, 1)
	b.Run("seq", func(b *testing.B) {
		for range b.N {
			fibSink = seqFib(fibN)
		}
	})
	b.Run("join", func(b *testing.B) {
		done := make(chan int)
		for range b.N {
			p.Go(func(w *Worker) { done <- fib(w, fibN) })
			fibSink = <-done
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/joins, "ns/join")
	})
	b.Run("joinfunc", func(b *testing.B) {
		done := make(chan int)
		for range b.N {
			p.Go(func(w *Worker) { done <- fibFunc(w, fibN) })
			fibSink = <-done
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/joins, "ns/join")
	})
}

// BenchmarkPromotionDelay: how long a Join's b waits on the promotion board
// after a worker frees up. Every worker of a 2-worker pool is busy at the
// call, so b is published (promote.go); a then frees one worker and spins,
// never yielding, as CPU-bound user code does, until b starts. It reports
// the median and the 99th percentile of the time from that release to b's
// start: the freed worker's wake-up, the ripening (a heartbeat tick or two)
// and the take. docs/design.md, "When a Join goes parallel", compares the
// heartbeat with a timer per publication.
func BenchmarkPromotionDelay(b *testing.B) {
	p := newPool(b, 2)
	delays := make([]time.Duration, 0, b.N)
	for range b.N {
		release := busyWorkers(b, p)
		var started atomic.Bool
		var freed, bStart time.Time
		p.JoinLazy(func() {
			freed = time.Now()
			release(0)
			for !started.Load() {
			}
		}, func() {
			bStart = time.Now()
			started.Store(true)
		})
		release(-1)
		delays = append(delays, bStart.Sub(freed))
	}
	if p.Stats().Promoted == 0 {
		b.Fatal("b was never promoted")
	}
	slices.Sort(delays)
	b.ReportMetric(float64(delays[len(delays)/2].Microseconds()), "p50-us")
	b.ReportMetric(float64(delays[len(delays)*99/100].Microseconds()), "p99-us")
}

// BenchmarkSpawn measures what curG saves (curg.go): Scope.Spawn by the
// goroutine acting as the Scope's worker pushes the task onto that
// worker's deque, where it can tell that goroutine apart; built with the
// gopar_nocurg tag, it cannot, and every Spawn takes the foreign path (the
// scope's foreign list and the pool's injector). Each task spawns two more
// down to a depth of 10: 2,046 spawns per scope, on a 2-worker pool.
func BenchmarkSpawn(b *testing.B) {
	p := newPool(b, 2)
	var tree func(s Scope, depth int)
	tree = func(s Scope, depth int) {
		if depth == 0 {
			return
		}
		s.Spawn(func(s Scope) { tree(s, depth-1) })
		s.Spawn(func(s Scope) { tree(s, depth-1) })
	}
	const spawns = 1<<11 - 2
	done := make(chan struct{})
	for range b.N {
		p.Go(func(w *Worker) {
			w.Scope(func(s Scope) { tree(s, 10) })
			done <- struct{}{}
		})
		<-done
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/spawns, "ns/spawn")
}

// BenchmarkDo measures entering the pool: from a goroutine that is no
// member (Pool.self finds none, and Do leases a guest slot), and from inside
// Do (self finds the slot the caller runs as, and Do leases nothing), on
// pools of 2, 16 and 64 workers: Pool.self looks at every member's owner.
func BenchmarkDo(b *testing.B) {
	nop := func(*Worker) {}
	for _, n := range []int{2, 16, 64} {
		p := newPool(b, n)
		b.Run(fmt.Sprintf("outside/workers=%d", n), func(b *testing.B) {
			for range b.N {
				p.Do(nop)
			}
		})
		b.Run(fmt.Sprintf("nested/workers=%d", n), func(b *testing.B) {
			p.Do(func(*Worker) {
				for range b.N {
					p.Do(nop)
				}
			})
		})
	}
}
