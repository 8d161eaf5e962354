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
// FromChan, Values over FromSeq, an unordered CountBy and a Blocking
// ForEach alike: the pool's workers are all free for other work while it
// waits, so two tasks that must run at once (each waits for the other)
// both run. A helper that waited for the channel on its worker would leave
// one worker for the two tasks, which then wait for ever (the failure
// detector fires after 20 s). Called from a task of the pool (nested), the
// stream's caller, itself a worker, lends its slot while it waits
// (sched.Block); a plain wait there fails the same way.
func TestIdleStreamHoldsNoWorker(t *testing.T) {
	pool := poolForWithin(t, idleWorkers)
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
		"Blocking.ForEach": func(ch chan int, done func()) {
			par.FromChan(ch).WithPool(pool).Blocking(4).ForEach(func(int) { done() })
		},
	}
	for _, nested := range []bool{false, true} {
		if nested && !identityKnown {
			continue // a wait lends its worker's slot only where the goroutine's identity is known
		}
		for name, run := range forms {
			if nested {
				name += "/nested"
				plain := run
				run = func(ch chan int, done func()) {
					ended := make(chan struct{})
					pool.Go(func(*runtime.Worker) { defer close(ended); plain(ch, done) })
					<-ended
				}
			} else if name == "Blocking.ForEach" {
				continue // its goroutines are its own
			}
			testIdleStream(t, pool, name, run)
		}
	}
}

// The pool and the items of TestIdleStreamHoldsNoWorker.
const idleWorkers, idleItems = 2, 20_000

// testIdleStream runs one form of TestIdleStreamHoldsNoWorker on pool,
// of idleWorkers workers.
func testIdleStream(t *testing.T, pool *par.Pool, name string, run func(ch chan int, done func())) {
	t.Run(name, func(t *testing.T) {
		ch := make(chan int)
		var ran atomic.Int64
		all := make(chan struct{})
		done := func() {
			if ran.Add(1) == idleItems {
				close(all)
			}
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); run(ch, done) }()
		for i := range idleItems {
			ch <- i
		}
		<-all // every item has run; the channel stays open and empty
		// Two tasks on the pool that each wait for the other (or for the
		// test to give up, so that a failure leaves the pool usable).
		var arrived atomic.Int32
		both, abort := make(chan struct{}), make(chan struct{})
		met := make(chan struct{}, 2)
		for range 2 {
			pool.Go(func(*runtime.Worker) {
				if arrived.Add(1) == 2 {
					close(both)
				}
				select {
				case <-both:
				case <-abort:
				}
				met <- struct{}{}
			})
		}
		timeout := time.After(20 * time.Second)
		failed := false
		for range 2 {
			select {
			case <-met:
			case <-timeout:
				failed = true
				close(abort)
				<-met
			}
		}
		close(ch)
		wg.Wait()
		if failed {
			t.Fatalf("the pool's %d workers did not run two tasks at once beside an idle stream (stats %+v)", idleWorkers, pool.Stats())
		}
	})
}
