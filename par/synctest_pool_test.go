//go:build go1.25

package par_test

import (
	"os"
	"os/exec"
	goruntime "runtime"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// fakeEpoch is when a bubble's fake clock starts (testing/synctest).
var fakeEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// bubbleCases runs, inside one testing/synctest bubble, every kind of
// operation on the default pool: CPU loops, Blocking loops that sleep,
// Join, Scope, Go and streams. Each checks its result, that fake time
// advanced as the sleeps say, and that its callbacks ran inside the bubble
// (a callback outside it would read the real clock, and its send on the
// bubble's channel would be a fatal error). synctest.Test returns only once
// every goroutine started in the bubble has ended: a pool goroutine started
// there and left parked, or spinning, fails the test or hangs it.
func bubbleCases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var outside atomic.Int64 // callbacks that ran outside the bubble
		check := func() {
			if time.Now().Before(fakeEpoch) || time.Now().After(fakeEpoch.Add(24*time.Hour)) {
				outside.Add(1)
			}
		}
		start := time.Now()
		elapsed := func(what string, want time.Duration) {
			t.Helper()
			if d := time.Since(start); d != want {
				t.Errorf("%s: fake time advanced %v, want %v", what, d, want)
			}
			start = time.Now()
		}

		// CPU operations.
		n := 1 << 20
		if got, want := par.Range(0, n).Sum(), n*(n-1)/2; got != want {
			t.Errorf("Range(0, 2^20).Sum() = %d, want %d", got, want)
		}
		ch := make(chan int, 64) // the bubble's: only its goroutines may use it
		par.Range(0, 1<<14).ForEach(func(i int) {
			check()
			if i%1024 == 0 {
				ch <- i
			}
		})
		if len(ch) != 16 {
			t.Errorf("ForEach sent %d values, want 16", len(ch))
		}
		if got := par.Map(par.Range(0, 1000), func(i int) int { check(); return 2 * i }).Collect(); len(got) != 1000 || got[999] != 1998 {
			t.Errorf("Map.Collect: %d items, last %d", len(got), got[len(got)-1])
		}
		elapsed("CPU operations", 0)

		// Blocking operations that sleep.
		par.Range(0, 8).Blocking(4).ForEach(func(int) { check(); time.Sleep(time.Second) })
		elapsed("Blocking(4) over 8 sleeps of 1s", 2*time.Second)

		// Join: runtime's and par's.
		var a, b int
		runtime.Default().Join(func(*runtime.Worker) { check(); time.Sleep(time.Second); a = 1 },
			func(*runtime.Worker) { check(); time.Sleep(time.Second); b = 2 })
		par.Join(func() { check(); time.Sleep(time.Second); a += 10 }, func() { check(); time.Sleep(time.Second); b += 20 })
		if a != 11 || b != 22 {
			t.Errorf("Join: a=%d b=%d, want 11 and 22", a, b)
		}
		if got := fibJoin(20); got != 6765 {
			t.Errorf("fib(20) with par.Join = %d", got)
		}
		if d := time.Since(start); d < 2*time.Second || d > 4*time.Second {
			t.Errorf("two Joins of two sleeps of 1s: fake time advanced %v", d)
		}
		start = time.Now()

		// Scope: tasks spawned from the body, from tasks, and from a goroutine
		// the body waits for.
		var tasks atomic.Int32
		par.Scope(func(g *par.Group) {
			for range 3 {
				g.Go(func(g *par.Group) {
					check()
					time.Sleep(time.Second)
					g.Go(func(*par.Group) { check(); tasks.Add(1) })
					tasks.Add(1)
				})
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				time.Sleep(time.Second)
				g.Go(func(*par.Group) { check(); time.Sleep(time.Second); tasks.Add(1) })
			}()
			<-done
		})
		runtime.Default().Scope(func(s runtime.Scope) {
			s.Spawn(func(runtime.Scope) { check(); time.Sleep(time.Second); tasks.Add(1) })
		})
		if got := tasks.Load(); got != 8 {
			t.Errorf("Scope ran %d tasks, want 8", got)
		}
		if time.Since(start) < 2*time.Second {
			t.Errorf("Scope: fake time advanced %v, want at least 2s", time.Since(start))
		}
		start = time.Now()

		// Go: the function runs, and may use the bubble's channels.
		got := make(chan int)
		runtime.Default().Go(func(*runtime.Worker) { check(); got <- 7 })
		if v := <-got; v != 7 {
			t.Errorf("Go sent %d", v)
		}

		// Streams: a seq that sleeps between items, pulled while the pool
		// works, and a range over Values.
		seq := func(yield func(int) bool) {
			for i := range 10 {
				time.Sleep(time.Second)
				if !yield(i) {
					return
				}
			}
		}
		if got := par.Map(par.FromSeq(seq), func(i int) int { check(); return i * i }).Collect(); !slices.Equal(got, []int{0, 1, 4, 9, 16, 25, 36, 49, 64, 81}) {
			t.Errorf("FromSeq.Map.Collect = %v", got)
		}
		elapsed("FromSeq over 10 sleeps of 1s", 10*time.Second)
		sum := 0
		for v := range par.FromSeq(seq).Blocking(2).Values() {
			check()
			sum += v
		}
		if sum != 45 {
			t.Errorf("FromSeq.Blocking.Values summed to %d, want 45", sum)
		}
		if n := outside.Load(); n != 0 {
			t.Errorf("%d callbacks ran outside the bubble", n)
		}
	})
}

func fibJoin(n int) int {
	if n < 2 {
		return n
	}
	var x, y int
	par.Join(func() { x = fibJoin(n - 1) }, func() { y = fibJoin(n - 2) })
	return x + y
}

// TestSynctestAfterUseOutside: the default pool, in use outside any bubble
// before and after, serves operations inside a bubble (bubbleCases).
func TestSynctestAfterUseOutside(t *testing.T) {
	busyPool(t)
	bubbleCases(t)
	busyPool(t)
}

// TestSynctestFirstUse: the default pool first used inside a bubble
// (bubbleCases, in a process of its own, where nothing used it before)
// works inside it, lets the bubble end, and works outside afterwards. A pool
// made inside the bubble would hold its channels and timers, which a
// goroutine outside the bubble may not use.
func TestSynctestFirstUse(t *testing.T) {
	if os.Getenv("GOPAR_TEST_SYNCTEST_FIRST_USE") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSynctestFirstUse$", "-test.count=1", "-test.timeout=120s")
		cmd.Env = append(os.Environ(), "GOPAR_TEST_SYNCTEST_FIRST_USE=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the process that first uses the default pool inside a bubble failed: %v\n%s", err, out)
		}
		return
	}
	bubbleCases(t)
	busyPool(t)
}

// busyPool runs a loop that needs the default pool's workers: every
// participant holds its item until all of them hold one, so the loop ends
// only if Workers() participants run it at once.
func busyPool(t *testing.T) {
	t.Helper()
	n := runtime.Default().Workers()
	var arrived atomic.Int32
	deadline := time.Now().Add(20 * time.Second)
	par.Range(0, n).ForEach(func(int) {
		arrived.Add(1)
		for arrived.Load() < int32(n) && time.Now().Before(deadline) {
			goruntime.Gosched()
		}
	})
	if got := arrived.Load(); got != int32(n) {
		t.Fatalf("%d of %d participants ran the loop at once", got, n)
	}
}
