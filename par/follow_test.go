package par_test

import (
	"os"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// settleDefaultPool runs operations until the default pool has its size for
// the GOMAXPROCS of now, which an earlier test may have changed and
// restored: a test that reads the pool's size after an operation (as a
// bound) then reads the size the operation ran with.
func settleDefaultPool(t *testing.T) {
	t.Helper()
	want := min(goruntime.GOMAXPROCS(0), par.MaxWorkers)
	if os.Getenv(runtime.WorkersEnv) != "" {
		return
	}
	for range 1000 {
		if par.DefaultPool().Workers() == want {
			return
		}
		par.Range(0, 1<<16).ForEach(func(int) {}) // long enough to go parallel
		goruntime.Gosched()                       // the workers' turn (see TestDefaultPoolFollowsGOMAXPROCS)
	}
	t.Fatalf("the default pool has %d workers after 1000 operations at GOMAXPROCS %d", par.DefaultPool().Workers(), want)
}

// TestDefaultPoolFollowsGOMAXPROCS: GOMAXPROCS goes 1, 2, 1 in one
// process; within a bounded number of operations the default pool has
// GOMAXPROCS workers, and every operation's result is right meanwhile.
//
// The pool follows once one of its workers looks, and at GOMAXPROCS 1 a
// worker runs only when the caller gives up the one P: a caller that never
// blocks gives it up only when the Go scheduler preempts it (every 10 ms),
// which may be more than 1,000 short operations. So the caller yields
// after each operation, as a program that blocks now and then does.
func TestDefaultPoolFollowsGOMAXPROCS(t *testing.T) {
	if os.Getenv(runtime.WorkersEnv) != "" {
		t.Skipf("%s pins the default pool's size", runtime.WorkersEnv)
	}
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(0))
	const n = 1 << 14
	want := n * (n - 1) / 2 * 3
	triple := func(i int) int { return 3 * i }
	for _, procs := range []int{1, 2, 1} {
		goruntime.GOMAXPROCS(procs)
		ops := 0
		for ; par.DefaultPool().Workers() != procs && ops < 1000; ops++ {
			if got := par.Range(0, n).Map(triple).Sum(); got != want {
				t.Fatalf("GOMAXPROCS(%d): Sum = %d, want %d", procs, got, want)
			}
			goruntime.Gosched() // the workers' turn
		}
		if got := par.DefaultPool().Workers(); got != procs {
			t.Fatalf("after GOMAXPROCS(%d) and %d operations, the default pool has %d workers", procs, ops, got)
		}
		if got := par.Range(0, n).Map(triple).Sum(); got != want {
			t.Fatalf("GOMAXPROCS(%d), %d workers: Sum = %d, want %d", procs, procs, got, want)
		}
	}
}

// TestDefaultPoolFollowsUnderLoad: operations on many goroutines, nested
// ones among them, while GOMAXPROCS changes under them; every index is
// visited exactly once by every operation.
func TestDefaultPoolFollowsUnderLoad(t *testing.T) {
	if os.Getenv(runtime.WorkersEnv) != "" {
		t.Skipf("%s pins the default pool's size", runtime.WorkersEnv)
	}
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(0))
	const callers, changes, n = 6, 12, 1 << 12
	progress := make(chan struct{}, 2*callers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				visited := make([]atomic.Int32, n)
				if c%2 == 0 {
					par.Range(0, n).ForEach(func(i int) { visited[i].Add(1) })
				} else { // nested: an operation per block of 64
					par.Range(0, n/64).ForEach(func(b int) {
						par.Range(b*64, b*64+64).ForEach(func(i int) { visited[i].Add(1) })
					})
				}
				for i := range visited {
					if v := visited[i].Load(); v != 1 {
						t.Errorf("caller %d: index %d visited %d times, want once", c, i, v)
						break
					}
				}
				select {
				case progress <- struct{}{}:
				default:
				}
			}
		}()
	}
	for i := range changes {
		goruntime.GOMAXPROCS([]int{1, 2, 4}[i%3])
		for len(progress) > 0 {
			<-progress
		}
		for range 2 * callers {
			<-progress
		}
	}
	close(stop)
	wg.Wait()
}

// settleForAllocs prepares a test that counts allocations with
// testing.AllocsPerRun, which runs at GOMAXPROCS 1: it sets GOMAXPROCS 1
// and settles the default pool at that size, so that no replacement of the
// pool falls inside the count. The returned func restores GOMAXPROCS.
func settleForAllocs(t *testing.T) (restore func()) {
	t.Helper()
	procs := goruntime.GOMAXPROCS(1)
	settleDefaultPool(t)
	return func() { goruntime.GOMAXPROCS(procs) }
}
