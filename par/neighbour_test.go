package par_test

import (
	"context"
	"errors"
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
// (plumb.Block); a plain wait there fails the same way.
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

// TestNestedStreamsHostile: streams run from inside a callback (their
// caller or consumer a pool worker, whose waits lend its slot) under what
// a user's code does to them: a break in the loop body, a panic in the
// pipeline, a context cancelled midway, and a lock held across the call,
// at 2 and 4 workers. Each ends as the sequential program would, and the
// pool keeps every worker (checkWhole).
func TestNestedStreamsHostile(t *testing.T) {
	n := streamN
	for _, workers := range []int{2, 4} {
		pool := poolForWithin(t, workers)
		each := func(f func(i int)) { par.Range(0, 2*workers).WithPool(pool).ForEach(f) }

		var got atomic.Int64
		each(func(int) {
			k := 0
			for range par.Map(par.FromSeq(countTo(n)).WithPool(pool), func(i int) int { return i }).Values() {
				if k++; k == 10 {
					break
				}
			}
			got.Add(int64(k))
		})
		if want := int64(10 * 2 * workers); got.Load() != want {
			t.Fatalf("%d workers: the nested loops took %d items, want %d", workers, got.Load(), want)
		}

		bad := errors.New("bad item")
		func() {
			defer func() {
				var p *par.Panic
				if v := recover(); !errors.As(asError(v), &p) || p.Value != bad {
					t.Fatalf("%d workers: recovered %v, want the nested callback's panic", workers, v)
				}
			}()
			each(func(int) {
				for range par.Map(par.FromSeq(countTo(n)).WithPool(pool), func(i int) int {
					if i == n/2 {
						panic(bad)
					}
					return i
				}).Values() {
				}
			})
		}()

		each(func(int) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			err := par.FromChan(countChan(n)).WithPool(pool).WithContext(ctx).TryForEach(func(i int) error {
				if i == n/4 {
					cancel()
				}
				return nil
			})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%d workers: a nested TryForEach cancelled midway returned %v", workers, err)
			}
		})

		var mu sync.Mutex
		var total atomic.Int64
		each(func(int) {
			mu.Lock()
			defer mu.Unlock()
			total.Add(int64(par.Sum(par.FromSeq(countTo(n)).WithPool(pool))))
		})
		if want := int64(2*workers) * int64(n) * int64(n-1) / 2; total.Load() != want {
			t.Fatalf("%d workers: the sums under a lock gave %d, want %d", workers, total.Load(), want)
		}
		checkWhole(t, pool)
	}
}

// countChan is a channel of 0, ..., n-1, buffered and closed.
func countChan(n int) chan int {
	ch := make(chan int, n)
	for i := range n {
		ch <- i
	}
	close(ch)
	return ch
}

// asError is v as an error, or nil.
func asError(v any) error {
	err, _ := v.(error)
	return err
}
