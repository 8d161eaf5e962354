package runtime

import (
	"fmt"
	"os"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// skipIfPinned skips a test of how the default pool follows GOMAXPROCS
// when GOPAR_WORKERS pins its size.
func skipIfPinned(t *testing.T) {
	t.Helper()
	if os.Getenv(WorkersEnv) != "" {
		t.Skipf("%s pins the default pool's size", WorkersEnv)
	}
}

// sumRange adds lo..hi-1 on w, splitting in halves with Join down to
// single items, and marks each item visited.
func sumRange(w *Worker, lo, hi int, visited []atomic.Int32) int {
	if hi-lo == 1 {
		visited[lo].Add(1)
		return lo
	}
	mid := (lo + hi) / 2
	var a, b int
	w.Join(func(w *Worker) { a = sumRange(w, lo, mid, visited) }, func(w *Worker) { b = sumRange(w, mid, hi, visited) })
	return a + b
}

// sumCheck runs sumRange over 0..n-1 on p and checks the sum and that
// every item ran once.
func sumCheck(p *Pool, n int) error {
	visited := make([]atomic.Int32, n)
	var got int
	p.Do(func(w *Worker) { got = sumRange(w, 0, n, visited) })
	if want := n * (n - 1) / 2; got != want {
		return fmt.Errorf("sum on a pool of %d workers = %d, want %d", p.Workers(), got, want)
	}
	for i := range visited {
		if c := visited[i].Load(); c != 1 {
			return fmt.Errorf("item %d ran %d times on a pool of %d workers, want once", i, c, p.Workers())
		}
	}
	return nil
}

// sumOn is sumCheck on the test's goroutine.
func sumOn(t testing.TB, p *Pool, n int) {
	t.Helper()
	if err := sumCheck(p, n); err != nil {
		t.Fatal(err)
	}
}

// TestDefaultFollowsGOMAXPROCS: GOMAXPROCS 1, 2, 1 in one process, and the
// default pool follows once a worker has looked (noticeProcs, what a
// worker does as it runs out of work). The pool replaced still works and
// keeps its size.
func TestDefaultFollowsGOMAXPROCS(t *testing.T) {
	skipIfPinned(t)
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(0))
	for _, n := range []int{1, 2, 1, 3} {
		goruntime.GOMAXPROCS(n)
		old := Default()
		old.noticeProcs()
		p := Default()
		if p.Workers() != n {
			t.Fatalf("after GOMAXPROCS(%d) and a worker's look, the default pool has %d workers", n, p.Workers())
		}
		if (p == old) != (old.Workers() == n) {
			t.Fatalf("GOMAXPROCS(%d): pool of %d workers replaced: %v, want a new one only for a new size", n, old.Workers(), p != old)
		}
		if Default() != p {
			t.Fatal("Default made another pool with GOMAXPROCS unchanged")
		}
		if err := p.Close(); err == nil {
			t.Fatal("the new default pool closed")
		}
		sumOn(t, p, 1000)
		sumOn(t, old, 1000) // the replaced pool keeps working
		if old.Closed() {
			t.Fatal("the replaced default pool was closed")
		}
	}
}

// TestDefaultFollowsWhileItRuns: without a test's help, the pool's own
// workers see the change: within a bounded number of operations after
// GOMAXPROCS changes, Default returns a pool of the new size.
func TestDefaultFollowsWhileItRuns(t *testing.T) {
	skipIfPinned(t)
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(0))
	for _, n := range []int{1, 2, 1} {
		goruntime.GOMAXPROCS(n)
		ops := 0
		for ; Default().Workers() != n && ops < 1000; ops++ {
			sumOn(t, Default(), 1<<10)
		}
		if got := Default().Workers(); got != n {
			t.Fatalf("after GOMAXPROCS(%d) and %d operations, the default pool has %d workers", n, ops, got)
		}
	}
}

// TestDefaultPinnedByEnv: a default pool sized by GOPAR_WORKERS keeps its
// size whatever GOMAXPROCS is.
func TestDefaultPinnedByEnv(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(0))
	var p *Pool
	// Registered before Setenv's, so it runs after the variable is
	// restored: the next Default reads the environment again.
	t.Cleanup(func() { p.stale.Store(true) })
	t.Setenv(WorkersEnv, "3")
	Default().stale.Store(true) // make the next Default read the variable
	p = Default()
	if p.Workers() != 3 {
		t.Fatalf("with %s=3 the default pool has %d workers", WorkersEnv, p.Workers())
	}
	for _, n := range []int{1, 2, 4} {
		goruntime.GOMAXPROCS(n)
		p.noticeProcs()
		if q := Default(); q != p {
			t.Fatalf("GOMAXPROCS(%d) replaced a default pool pinned by %s (%d workers now)", n, WorkersEnv, q.Workers())
		}
	}
}

// TestNewPoolKeepsItsSize: a pool made by New is never replaced or
// resized.
func TestNewPoolKeepsItsSize(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(0))
	p := newPool(t, 2)
	for _, n := range []int{1, 3} {
		goruntime.GOMAXPROCS(n)
		p.noticeProcs()
		if p.stale.Load() || p.Workers() != 2 {
			t.Fatalf("GOMAXPROCS(%d) touched a pool made by New: %d workers, stale %v", n, p.Workers(), p.stale.Load())
		}
		sumOn(t, p, 100)
	}
}

// TestDefaultFollowsUnderLoad: many goroutines run operations on the
// default pool while GOMAXPROCS changes between 1, 2 and 8 under them;
// every operation visits every item once, and ends with the right sum,
// on whichever pool it started.
func TestDefaultFollowsUnderLoad(t *testing.T) {
	skipIfPinned(t)
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(0))
	const callers, changes = 8, 20
	progress := make(chan struct{}, 2*callers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	pools := make(map[*Pool]bool)
	var mu sync.Mutex
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				p := Default()
				mu.Lock()
				pools[p] = true
				mu.Unlock()
				if err := sumCheck(p, 1<<9); err != nil {
					t.Error(err) // and go on: the changes wait for progress
				}
				select {
				case progress <- struct{}{}:
				default:
				}
			}
		}()
	}
	sizes := []int{1, 2, 8}
	for i := range changes {
		goruntime.GOMAXPROCS(sizes[i%len(sizes)])
		for len(progress) > 0 {
			<-progress // ended before the change
		}
		for range 2 * callers {
			<-progress // operations end meanwhile: the next change comes while others run
		}
	}
	close(stop)
	wg.Wait()
	if len(pools) < 2 {
		t.Fatalf("%d GOMAXPROCS changes under load, and the operations ran on %d default pool(s), want it replaced", changes, len(pools))
	}
}
