package runtime

import (
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/latch"
	"github.com/gopar-dev/gopar/internal/race"
)

// poolGoroutines returns the stacks of the goroutines running as one of
// p's members: a worker's main loop, or a spare.
func poolGoroutines(p *Pool) []string {
	buf := make([]byte, 1<<22)
	buf = buf[:goruntime.Stack(buf, true)]
	var found []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, w := range p.members {
			if strings.Contains(g, fmt.Sprintf("(*Worker).run(%p", w)) || strings.Contains(g, fmt.Sprintf("(*Worker).runSpare(%p", w)) {
				found = append(found, g)
				break
			}
		}
	}
	return found
}

// poolGoroutinesGone waits for p's goroutines to end and returns those
// still there after failAfter. A goroutine that has counted itself exited
// is still on its way out, in its deferred calls, when waitExited returns:
// no event marks the moment it is gone, so this looks again until then, as
// a goroutine-leak check (go.uber.org/goleak) does.
func poolGoroutinesGone(p *Pool) []string {
	gs := poolGoroutines(p)
	for start := time.Now(); len(gs) != 0 && time.Since(start) < failAfter; gs = poolGoroutines(p) {
		time.Sleep(time.Millisecond)
	}
	return gs
}

// retiringPool is newPool with a retire period of d.
func retiringPool(t testing.TB, workers int, d time.Duration) *Pool {
	p := newPool(t, workers)
	p.retireAfter = d // before any goroutine of p starts
	return p
}

// TestIdleWorkersRetire: once a pool has had nothing to do for its retire
// period, none of its goroutines is left; work published then starts them
// again, and they retire again.
func TestIdleWorkersRetire(t *testing.T) {
	p := retiringPool(t, 3, 5*time.Millisecond)
	if gs := poolGoroutines(p); len(gs) != 0 {
		t.Fatalf("a new pool has %d goroutines, want none until work comes", len(gs))
	}
	for round := 1; round <= 3; round++ {
		release := busyWorkers(t, p) // every worker runs a task at once
		if gs := poolGoroutines(p); len(gs) < 3 {
			t.Fatalf("round %d: %d goroutines hold the 3 workers' tasks", round, len(gs))
		}
		release(-1)
		p.waitExited()
		if gs := poolGoroutinesGone(p); len(gs) != 0 {
			t.Fatalf("round %d: %d goroutines left %v after the pool had retired:\n%s", round, len(gs), failAfter, strings.Join(gs, "\n\n"))
		}
		if got := p.Stats().Retired; got < uint64(3*round) {
			t.Fatalf("round %d: Stats.Retired = %d, want at least %d", round, got, 3*round)
		}
		if s := p.idle.sleepers.Load(); s != 3 {
			t.Fatalf("round %d: %d workers announced once all retired, want 3", round, s)
		}
	}
}

// TestIdleDefaultPoolLeavesNoGoroutine: after the default pool has run work
// on all its workers and been idle for a while, the process has no
// goroutine of gopar's: a goroutine-leak check passes with no ignore rule.
// It looks as go.uber.org/goleak does, retrying for a few seconds.
func TestIdleDefaultPoolLeavesNoGoroutine(t *testing.T) {
	p := Default()
	var wg sync.WaitGroup
	for range 4 * p.Workers() {
		wg.Add(1)
		p.Go(func(w *Worker) { defer wg.Done(); fib(w, 15) })
	}
	wg.Wait()
	var left []string
	for start := time.Now(); time.Since(start) < failAfter; {
		left = left[:0]
		buf := make([]byte, 1<<22)
		buf = buf[:goruntime.Stack(buf, true)]
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "gopar-dev/gopar/runtime.(*Worker).") || strings.Contains(g, "gopar-dev/gopar/runtime.(*Pool).") {
				left = append(left, g)
			}
		}
		if len(left) == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond) // a leak check's retry, as goleak's
	}
	t.Fatalf("%d goroutines of gopar's left %v after the default pool's last work:\n%s", len(left), failAfter, strings.Join(left, "\n\n"))
}

// TestRetireRacesWake: workers that retire as fast as the timer allows,
// while work is published at every moment of their retiring (Pool.Go, from
// outside; Join, from inside): every job runs exactly once, and none waits
// for ever (a wake-up spent on a worker whose goroutine has just ended).
func TestRetireRacesWake(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		p := retiringPool(t, workers, time.Microsecond)
		rounds := 2000 / race.Scale
		var ran atomic.Int64
		for i := range rounds {
			var done latch.Latch
			p.Go(func(w *Worker) {
				if got := fib(w, i%8); got != seqFib(i%8) {
					panic(fmt.Sprintf("fib(%d) = %d", i%8, got))
				}
				ran.Add(1)
				done.Set()
			})
			finished := make(chan struct{})
			go func() {
				p.Do(func(w *Worker) { waitLatch(w, &done) })
				close(finished)
			}()
			select {
			case <-finished:
			case <-time.After(failAfter):
				t.Fatalf("%d workers, round %d: the job did not run within %v", workers, i, failAfter)
			}
			if i%16 == 0 {
				p.waitExited() // a fully retired pool, for the next job to wake
			}
		}
		if got := ran.Load(); got != int64(rounds) {
			t.Fatalf("%d workers: %d jobs ran, want %d", workers, got, rounds)
		}
		if p.Stats().Retired == 0 {
			t.Fatalf("%d workers: no worker retired", workers)
		}
	}
}

// TestCloseRetiredPool: Close of a pool whose workers have retired, or never
// started, waits for nothing and leaves nobody idle.
func TestCloseRetiredPool(t *testing.T) {
	for _, used := range []bool{false, true} {
		p, err := New(3)
		if err != nil {
			t.Fatal(err)
		}
		p.retireAfter = time.Millisecond
		if used {
			p.Do(func(w *Worker) { fib(w, 15) })
			p.waitExited()
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if hungry(p) || p.idle.sleepers.Load() != 0 || p.idle.hunting.Load() != 0 {
			t.Fatalf("used=%v: after Close: idle %d, sleepers %d, hunting %d; want 0", used, p.idle.looking.Load(), p.idle.sleepers.Load(), p.idle.hunting.Load())
		}
	}
}

// TestRetiredGoroutineLeavesNewOwner: a waker may start a retired worker's
// new goroutine while the old one is still on its way out. The old one's
// exit must not take w from the new one: a task on it still finds that its
// goroutine acts as w (Spawn pushes onto w's deque, Close refuses, a wait
// lends its slot).
func TestRetiredGoroutineLeavesNewOwner(t *testing.T) {
	p := retiringPool(t, 1, time.Millisecond)
	if !useCurG.Load() {
		t.Skip("curG is not implemented here: no goroutine acts as a worker (curg.go)")
	}
	w := p.members[0]
	started, proceed := make(chan struct{}), make(chan struct{})
	inside := make(chan bool, 1)
	var once sync.Once
	p.testHookRetired = func(*Worker) {
		once.Do(func() {
			// The old goroutine has retired: a waker starts a new one,
			// which runs the task while this one has not yet left.
			p.Go(func(*Worker) {
				close(started)
				<-proceed
				inside <- p.self() == w
			})
			<-started
		})
	}
	p.Go(func(*Worker) {}) // starts the first goroutine, which retires
	<-started
	// The old goroutine is gone once only the new one is counted live.
	eventually(t, "the old goroutine to exit", func() bool { return p.live.Load() == 1 })
	close(proceed)
	if !<-inside {
		t.Fatalf("a task on the replacement goroutine does not act as its worker: owner %#x", w.owner.Load())
	}
}
