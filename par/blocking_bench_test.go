package par_test

import (
	"sync"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/par"
)

// BenchmarkSumBesideBlocking: a CPU sum over 2^26 items (W1's per-item
// form) alone, and while a loop of callbacks that sleep runs beside it, 64
// at once, in blocking mode (on goroutines of its own: the sum keeps the
// pool) or in the CPU mode (the sleeping callbacks hold the pool's workers).
func BenchmarkSumBesideBlocking(b *testing.B) {
	sum := func() { sink = par.Sum(par.Map(par.Range(0, w1), mixInt)) }
	// beside runs loop over and over until stop is closed.
	beside := func(loop func()) (stop func()) {
		done, started := make(chan struct{}), make(chan struct{})
		var once sync.Once
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				once.Do(func() { close(started) })
				loop()
			}
		}()
		<-started
		return func() { close(done); wg.Wait() }
	}
	sleepy := func(int) { time.Sleep(time.Millisecond) }
	b.Run("alone", func(b *testing.B) {
		for range b.N {
			sum()
		}
	})
	b.Run("beside-blocking-mode", func(b *testing.B) {
		stop := beside(func() { par.Range(0, 640).Blocking(64).ForEach(sleepy) })
		defer stop()
		for range b.N {
			sum()
		}
	})
	b.Run("beside-cpu-mode", func(b *testing.B) {
		stop := beside(func() { par.Range(0, 64).WithBlockSize(1, 1).ForEach(sleepy) })
		defer stop()
		for range b.N {
			sum()
		}
	})
}
