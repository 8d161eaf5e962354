package par_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// busyFor busies its goroutine for about d.
func busyFor(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// TestIdleStreamHoldsNoWorker: a stream over a channel that has gone
// parallel and then finds its channel empty holds no worker of the pool,
// FromChan, Values over FromSeq, and an unordered CountBy alike: the
// pool's workers are all free for other work while it waits, so two tasks
// that must run at once (each waits for the other) both run. A helper that
// waited for the channel on its worker would leave one worker for the two
// tasks, which then wait for ever (the failure detector fires after 20 s).
func TestIdleStreamHoldsNoWorker(t *testing.T) {
	const workers, items = 2, 20_000
	pool := poolForWithin(t, workers)
	forms := map[string]func(ch chan int, done func()){
		"FromChan.ForEach": func(ch chan int, done func()) {
			par.FromChan(ch).WithPool(pool).ForEach(func(int) { busyFor(time.Microsecond); done() })
		},
		"Values": func(ch chan int, done func()) {
			src := func(yield func(int) bool) {
				for v := range ch {
					if !yield(v) {
						return
					}
				}
			}
			for range par.Map(par.FromSeq(src).WithPool(pool), func(v int) int { busyFor(time.Microsecond); return v }).Values() {
				done()
			}
		},
		"CountBy.Unordered": func(ch chan int, done func()) {
			par.CountBy(par.FromChan(ch).WithPool(pool).Unordered(), func(v int) int { busyFor(time.Microsecond); done(); return v % 7 })
		},
	}
	for name, run := range forms {
		t.Run(name, func(t *testing.T) {
			ch := make(chan int)
			var ran atomic.Int64
			all := make(chan struct{})
			done := func() {
				if ran.Add(1) == items {
					close(all)
				}
			}
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); run(ch, done) }()
			for i := range items {
				ch <- i
			}
			<-all // every item has run; the channel stays open and empty
			// Two tasks on the pool that each wait for the other.
			var both sync.WaitGroup
			both.Add(2)
			met := make(chan struct{}, 2)
			for range 2 {
				pool.Go(func(*runtime.Worker) { both.Done(); both.Wait(); met <- struct{}{} })
			}
			for range 2 {
				select {
				case <-met:
				case <-time.After(20 * time.Second):
					t.Fatalf("the pool's %d workers did not run two tasks at once beside an idle stream", workers)
				}
			}
			close(ch)
			wg.Wait()
		})
	}
}
