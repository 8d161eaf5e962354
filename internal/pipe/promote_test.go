package pipe

import (
	"context"
	"errors"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/runtime"
)

// busy occupies every worker of pool with a task that blocks until the
// returned release is called, and returns once they all run.
func busy(t *testing.T, pool *runtime.Pool) (release func()) {
	t.Helper()
	gate := make(chan struct{})
	var running sync.WaitGroup
	running.Add(pool.Workers())
	for range pool.Workers() {
		pool.Go(func(*runtime.Worker) {
			running.Done()
			<-gate
		})
	}
	running.Wait()
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release)
	return release
}

// TestFirstBlockPromoted: a loop of many items whose item 0 waits for
// another item to start. Item 0 is the inline phase's first block, alone on
// the caller; the rest of the loop must go to a worker while it runs, on an
// idle pool and on one whose workers were all busy at the call and free up
// during item 0. Failed before the promotion board: the rest started only
// after item 0 returned, here after the 10 s timeout.
func TestFirstBlockPromoted(t *testing.T) {
	for _, workers := range []int{2, 4} {
		for _, busyAtCall := range []bool{false, true} {
			pool, err := runtime.New(workers)
			if err != nil {
				t.Fatal(err)
			}
			var release func()
			if busyAtCall {
				release = busy(t, pool)
			}
			const n = 64
			other := make(chan struct{})
			var closeOnce sync.Once
			waited := true
			counts := make([]atomic.Int32, n)
			RunBlocks(Config{Pool: pool}, 0, n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					counts[i].Add(1)
					if i != 0 {
						closeOnce.Do(func() { close(other) })
						continue
					}
					if release != nil {
						release()
					}
					select {
					case <-other:
					case <-time.After(10 * time.Second):
						waited = false
					}
				}
			})
			if !waited {
				t.Fatalf("%d workers (busy at the call: %v): no other item started within 10 s while item 0 of %d waited for one", workers, busyAtCall, n)
			}
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("%d workers: item %d ran %d times", workers, i, c)
				}
			}
			pool.Close()
		}
	}
}

// promotedSum runs a loop of n items on pool whose item 0 holds the caller
// until the rest has been promoted (some other item started), then calls
// first(); other items call item(i). It returns Run's result.
func promotedSum(pool *runtime.Pool, n int, first func(), item func(i int) int) int {
	other := make(chan struct{})
	var once sync.Once
	return Run(Config{Pool: pool}, 0, n, Reducer[int]{
		Identity: func() int { return 0 },
		Fold: func(acc, lo, hi int) int {
			for i := lo; i < hi; i++ {
				if i == 0 {
					select {
					case <-other:
					case <-time.After(10 * time.Second):
					}
					first()
					continue
				}
				once.Do(func() { close(other) })
				acc += item(i)
			}
			return acc
		},
		Combine: func(a, b int) int { return a + b },
	})
}

// TestPromotedRest: the promoted rest's result is combined in order, its
// panic and Goexit reach the caller, and a panic or Goexit of item 0 waits
// for the rest before it goes on.
func TestPromotedRest(t *testing.T) {
	pool, err := runtime.New(2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	checkPromotedFailures(t, pool, 200)
}

// TestFewItemsFailures: TestPromotedRest's checks on loops of a few items
// (fewItems), whose helpers come from the board's entry (runFew): the
// result, a panic or Goexit on a helper, and a panic or Goexit of item 0
// while the other items run on workers, which must not run after the loop
// unwound. At 2 and 4 workers, 2 and 4 items per worker.
func TestFewItemsFailures(t *testing.T) {
	for _, workers := range []int{2, 4} {
		pool, err := runtime.New(workers)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{2 * workers, fewPerWorker * workers} {
			checkPromotedFailures(t, pool, n)
		}
		pool.Close()
	}
}

// checkPromotedFailures runs TestPromotedRest's checks on loops of n
// items.
func checkPromotedFailures(t *testing.T, pool *runtime.Pool, n int) {
	t.Helper()
	if got, want := promotedSum(pool, n, func() {}, func(i int) int { return i }), n*(n-1)/2; got != want {
		t.Fatalf("sum with a promoted rest: got %d, want %d", got, want)
	}
	catch := func(f func()) (p *runtime.Panic, goexit bool) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			returned := false
			defer func() {
				if v := recover(); v != nil {
					p, _ = v.(*runtime.Panic)
				} else if !returned {
					goexit = true
				}
			}()
			f()
			returned = true
		}()
		<-done
		return p, goexit
	}
	errRest, errFirst := errors.New("rest"), errors.New("first")
	if p, _ := catch(func() {
		promotedSum(pool, n, func() {}, func(i int) int {
			if i == n-1 {
				panic(errRest)
			}
			return i
		})
	}); p == nil || !errors.Is(p, errRest) {
		t.Fatalf("panic in the promoted rest: got %v, want %v", p, errRest)
	}
	if p, g := catch(func() {
		promotedSum(pool, n, func() {}, func(i int) int {
			if i == n/2 {
				goruntime.Goexit()
			}
			return i
		})
	}); p != nil || !g {
		t.Fatalf("Goexit in the promoted rest: got panic %v, Goexit %v; want Goexit", p, g)
	}
	// Item 0 fails while the rest runs elsewhere: no item may run after the
	// loop has unwound.
	var after atomic.Bool
	var unwound atomic.Bool
	slow := func(i int) int {
		if unwound.Load() {
			after.Store(true)
		}
		time.Sleep(50 * time.Microsecond)
		return i
	}
	p, _ := catch(func() {
		defer unwound.Store(true)
		promotedSum(pool, n, func() { panic(errFirst) }, slow)
	})
	if p == nil || !errors.Is(p, errFirst) {
		t.Fatalf("panic in item 0 with the rest promoted: got %v, want %v", p, errFirst)
	}
	if _, g := catch(func() {
		defer unwound.Store(true)
		unwound.Store(false)
		promotedSum(pool, n, goruntime.Goexit, slow)
	}); !g {
		t.Fatal("Goexit in item 0 with the rest promoted: the caller did not Goexit")
	}
	if after.Load() {
		t.Fatal("an item of the promoted rest ran after the loop unwound")
	}
	// The pool is whole.
	if got := promotedSum(pool, n, func() {}, func(i int) int { return i }); got != n*(n-1)/2 {
		t.Fatalf("after the failures: got %d", got)
	}
}

// TestPromotedRestStops: item 0 decides the loop (Stop) while the rest runs
// on a worker: the rest stops, and the result is item 0's.
func TestPromotedRestStops(t *testing.T) {
	pool, err := runtime.New(2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	const n = 1 << 20
	other := make(chan struct{})
	var once sync.Once
	var ran atomic.Int64
	got := Run(Config{Pool: pool}, 0, n, Reducer[int]{
		Identity: func() int { return -1 },
		Fold: func(acc, lo, hi int) int {
			for i := lo; i < hi; i++ {
				if i == 0 {
					select {
					case <-other:
					case <-time.After(10 * time.Second):
					}
					return 0 // found at 0
				}
				once.Do(func() { close(other) })
				ran.Add(1)
				time.Sleep(time.Microsecond)
			}
			return acc
		},
		Combine: func(a, b int) int {
			if a >= 0 {
				return a
			}
			return b
		},
		Stop: func(acc int) bool { return acc >= 0 },
	})
	if got != 0 {
		t.Fatalf("got %d, want 0 (item 0 decided)", got)
	}
	if r := ran.Load(); r >= n/2 {
		t.Fatalf("the rest ran %d of %d items after item 0 decided", r, n)
	}
}

// TestPromotedRestCancelledKeepsItsPrefix: a worker takes the rest while
// item 0 runs, and an item of the rest cancels the loop's context before
// item 0 returns. The loop stops, and its result is that of the prefix
// that ran: every item from 0 up to the first that did not run, the first
// block and as much of the rest as ran from its start. A done context is
// not an answer found in the first block, as Stop or Cut is, so the rest's
// result is not dropped. Fails if foldFirst drops it: the result then
// counts the first block alone, where the rest ran on from its start (the
// rest's own first block most often runs before its item 1000 cancels;
// where a thief runs item 1000 first, the rest's start stays unrun, and
// the prefix is the first block's).
func TestPromotedRestCancelledKeepsItsPrefix(t *testing.T) {
	pool, err := runtime.New(2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	const n, cancelAt = 1 << 16, 1000
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelled := make(chan struct{})
	var ran atomic.Int64
	did := make([]atomic.Bool, n)
	waited := true
	got := Run(Config{Pool: pool, Context: ctx}, 0, n, Reducer[int64]{
		Fold: func(acc int64, lo, hi int) int64 {
			for i := lo; i < hi; i++ {
				ran.Add(1)
				did[i].Store(true)
				acc++
				switch i {
				case 0:
					select {
					case <-cancelled:
					case <-time.After(10 * time.Second):
						waited = false
					}
				case cancelAt:
					cancel()
					close(cancelled)
				}
			}
			return acc
		},
		Combine: func(a, b int64) int64 { return a + b },
	})
	if !waited {
		t.Fatalf("item %d did not run within 10 s while item 0 waited for it", cancelAt)
	}
	prefix := 0 // the items from 0 that ran, up to the first that did not
	for prefix < n && did[prefix].Load() {
		prefix++
	}
	if r := ran.Load(); got != int64(prefix) {
		t.Fatalf("the loop's result counts %d items, %d ran, the first %d of them in a row: want the %d", got, r, prefix, prefix)
	}
}
