package par_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/par"
)

// BenchmarkSumBesideSleeps times a CPU par.Sum over 2^26 items alone, and
// while another goroutine keeps 64 sleeps of 1 ms in flight: in Blocking
// mode (the sleeps hold no pool worker, so the Sum should take about as
// long as alone) and in CPU mode (each sleep holds a worker, which the Sum
// then lacks). The same sleeps on hand-rolled goroutines are the floor:
// waking 64 goroutines every millisecond takes CPU time from the Sum
// whatever schedules them. Compare the ns/op of the four.
func BenchmarkSumBesideSleeps(b *testing.B) {
	sleep := func(int) { time.Sleep(time.Millisecond) }
	sumAlone := func() { sink = par.Range(0, w1).Sum() }
	b.Run("alone", func(b *testing.B) {
		for range b.N {
			sumAlone()
		}
	})
	beside := func(b *testing.B, sleeps func()) {
		var stop atomic.Bool
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				sleeps()
			}
		}()
		for range b.N {
			sumAlone()
		}
		stop.Store(true)
		wg.Wait()
	}
	// The floor: the same sleeps fanned out by hand, a goroutine per sleep
	// and a semaphore. 64,000 wake-ups a second cost CPU time whoever
	// schedules them.
	b.Run("beside-goroutines", func(b *testing.B) {
		beside(b, func() {
			sem := make(chan struct{}, 64)
			var wg sync.WaitGroup
			for i := range 640 {
				sem <- struct{}{}
				wg.Add(1)
				go func() {
					defer func() { <-sem; wg.Done() }()
					sleep(i)
				}()
			}
			wg.Wait()
		})
	})
	b.Run("beside-blocking-mode", func(b *testing.B) {
		beside(b, func() { par.Range(0, 640).Blocking(64).ForEach(sleep) })
	})
	b.Run("beside-cpu-mode", func(b *testing.B) {
		beside(b, func() { par.Range(0, 640).ForEach(sleep) })
	})
}

// BenchmarkSleepsFanout runs W9's shape without its CPU part, 2,000 sleeps
// of 1 ms, in Blocking mode with a limit of 64 and in CPU mode, where at
// most one sleep per pool worker waits at a time.
func BenchmarkSleepsFanout(b *testing.B) {
	sleep := func(int) { time.Sleep(time.Millisecond) }
	b.Run("blocking-64", func(b *testing.B) {
		for range b.N {
			par.Range(0, 2000).Blocking(64).ForEach(sleep)
		}
	})
	b.Run("cpu-mode", func(b *testing.B) {
		for range b.N {
			par.Range(0, 2000).ForEach(sleep)
		}
	})
}
