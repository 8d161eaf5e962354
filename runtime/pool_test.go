package runtime

import (
	"bytes"
	"errors"
	"math"
	goruntime "runtime"
	"runtime/trace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gopar-dev/gopar/internal/latch"
	"github.com/gopar-dev/gopar/internal/race"
)

func TestNewRejectsBadWorkerCounts(t *testing.T) {
	for _, n := range []int{0, -1, -100} {
		p, err := New(n)
		if err == nil || p != nil {
			t.Fatalf("New(%d) = %v, %v; want an error", n, p, err)
		}
		if !strings.Contains(err.Error(), "at least one worker") {
			t.Fatalf("New(%d) error does not say what is wrong: %v", n, err)
		}
	}
	// Far more workers than cores: refused, pointing to Blocking.
	for _, n := range []int{MaxWorkers + 1, 1 << 20} {
		p, err := New(n)
		if err == nil || p != nil {
			t.Fatalf("New(%d) = %v, %v; want an error", n, p, err)
		}
		if !strings.Contains(err.Error(), "MaxWorkers") || !strings.Contains(err.Error(), "Blocking") {
			t.Fatalf("New(%d) error does not say what is wrong and what to do: %v", n, err)
		}
	}
}

func TestWorkersFromEnv(t *testing.T) {
	procs := min(goruntime.GOMAXPROCS(0), MaxWorkers)
	cases := []struct {
		v       string
		want    int
		wantErr bool
	}{
		{"", procs, false}, {"3", 3, false}, {"1", 1, false},
		{"0", procs, true}, {"-2", procs, true}, {"many", procs, true}, {"2.5", procs, true},
		{"4097", procs, true}, {"4096", MaxWorkers, false},
	}
	for _, c := range cases {
		n, err := workersFromEnv(c.v)
		if n != c.want || (err != nil) != c.wantErr {
			t.Errorf("workersFromEnv(%q) = %d, %v; want %d, error %v", c.v, n, err, c.want, c.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), WorkersEnv) {
			t.Errorf("error for %q does not name %s: %v", c.v, WorkersEnv, err)
		}
	}
}

func TestCloseLeaksNoGoroutine(t *testing.T) {
	before := goruntime.NumGoroutine()
	for range 5 {
		p, err := New(4)
		if err != nil {
			t.Fatal(err)
		}
		p.Do(func(w *Worker) { fib(w, 12) })
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
	}
	// Exited goroutines may take a moment to be reaped by the scheduler.
	deadline := time.Now().Add(5 * time.Second)
	for goruntime.NumGoroutine() > before && time.Now().Before(deadline) {
		goruntime.Gosched()
	}
	if after := goruntime.NumGoroutine(); after > before {
		t.Fatalf("goroutines: %d before, %d after closing the pools", before, after)
	}
}

func TestClosedPoolFailsClearly(t *testing.T) {
	p, _ := New(2)
	p.Close()
	defer func() {
		if r := recover(); r != ErrClosed {
			t.Fatalf("Do on a closed pool: recovered %v, want ErrClosed", r)
		}
	}()
	p.Do(func(*Worker) { t.Error("ran on a closed pool") })
}

func TestDefaultPoolCannotBeClosed(t *testing.T) {
	if err := Default().Close(); err == nil {
		t.Fatal("closing the default pool succeeded")
	}
	var got int
	Default().Do(func(w *Worker) { got = fib(w, 10) })
	if got != 55 {
		t.Fatalf("default pool fib(10) = %d", got)
	}
}

func cpuTime() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestParkedPoolUsesNoCPU: once every worker has parked, the process uses
// (almost) no CPU time over 200 ms.
func TestParkedPoolUsesNoCPU(t *testing.T) {
	if race.Scale > 1 {
		t.Skip("the race detector's own threads use CPU")
	}
	p := newPool(t, 4)
	p.Do(func(w *Worker) { fib(w, 18) })
	waitParked(t, p)
	used := idleCPU()
	t.Logf("CPU used by an idle 4-worker pool over 200 ms: %v", used)
	if used > 2*time.Millisecond {
		t.Fatalf("idle pool used %v of CPU over 200 ms (the least of %d windows), want < 2ms", used, idleWindows)
	}
}

// idleWindows is how many 200 ms windows idleCPU may measure.
const idleWindows = 3

// idleCPU is the CPU time the process uses over 200 ms while its pools are
// idle: the least of up to idleWindows windows, stopping at one under 2 ms.
// The process's own runtime and the VM it runs on sometimes take a few
// milliseconds in a window (a parked pool measured 0.3-1.4 ms per window on
// the 2-core development VM, and once 2.03 ms under go test ./...), while a
// worker that spins or a heartbeat that never sleeps takes tens of
// milliseconds in every window.
func idleCPU() time.Duration {
	least := time.Duration(math.MaxInt64)
	for range idleWindows {
		before := cpuTime()
		time.Sleep(200 * time.Millisecond) // the measurement window, not synchronisation
		if least = min(least, cpuTime()-before); least < 2*time.Millisecond {
			break
		}
	}
	return least
}

// waitParked waits until every worker of p has announced it is sleepy, by
// yielding, not by sleeping.
func waitParked(t testing.TB, p *Pool) {
	deadline := time.Now().Add(5 * time.Second)
	for int(p.idle.sleepers.Load()) < p.nWorkers {
		if time.Now().After(deadline) {
			t.Fatalf("workers did not park: %d of %d sleepy", p.idle.sleepers.Load(), p.nWorkers)
		}
		goruntime.Gosched()
	}
	goruntime.GC() // let the collector's background work finish before measuring
}

// TestWakeFromParked: work offered to a fully parked pool gets run by a
// worker (the caller waits without running it itself).
func TestWakeFromParked(t *testing.T) {
	p := newPool(t, 2)
	for range 20 {
		waitParked(t, p)
		var ran latch.Latch
		var ranOn sync.Map
		p.Do(func(w *Worker) {
			// The caller waits on a latch that only the offered job sets; a
			// parked worker must be woken to steal it, or the caller would
			// run it itself from its own deque. Either way the latch is set.
			offer(w, func(v *Worker) { ranOn.Store(v.isPool, true); ran.Set() })
			waitLatch(w, &ran)
		})
		if !ran.IsSet() {
			t.Fatal("offered job did not run")
		}
	}
	if s := p.Stats(); s.Wakeups == 0 && s.Executed == 0 {
		t.Fatalf("no wake-up recorded: %+v", s)
	}
}

// forksThatWake are the forks that may offer work to a parked pool and then
// go on with work of their own: Spread (a loop's parallel phase) and
// JoinLazy (par.Join). Each runs offered (on the worker it woke, unless the
// caller gets to it first) and own (on the caller), and returns when both
// have run.
var forksThatWake = []struct {
	name string
	fork func(p *Pool, offered, own func())
}{
	{"Spread", spreadOne},
	{"JoinLazy", func(p *Pool, offered, own func()) { p.JoinLazy(own, offered) }},
}

// spreadOne is a Spread of one helper running offered, with own as self.
func spreadOne(p *Pool, offered, own func()) {
	var done latch.Latch
	var left atomic.Int32
	left.Store(2)
	ran := func(f func()) func(*Worker) {
		return func(*Worker) {
			f()
			if left.Add(-1) == 0 {
				done.Set()
			}
		}
	}
	p.Do(func(w *Worker) { spread(w, 1, ran(offered), ran(own), &done) })
}

// TestForksYieldToAWokenWorker: a fork whose offer wakes a parked worker
// lets that worker run before it runs its own work. On one P the difference
// is plain: without the yield the caller runs its own work first every
// time, since the woken worker waits on the caller's P (SLEEP.md, "Waking
// from a goroutine that goes on running"). With it, the worker runs first
// unless the scheduler's periodic look at its global queue picks the caller
// back (once in 61 schedules), so one attempt of five suffices.
func TestForksYieldToAWokenWorker(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(1))
	for _, f := range forksThatWake {
		t.Run(f.name, func(t *testing.T) {
			p := newPool(t, 2)
			offeredFirst := 0
			for range 5 {
				waitParked(t, p)
				var first atomic.Int32
				f.fork(p, func() { first.CompareAndSwap(0, 1) }, func() { first.CompareAndSwap(0, 2) })
				if first.Load() == 1 {
					offeredFirst++
				}
			}
			if offeredFirst == 0 {
				t.Fatalf("in 5 calls of %s that woke a parked worker on one P, the caller ran its own work before the worker ran the offered work every time", f.name)
			}
		})
	}
}

func TestPanicError(t *testing.T) {
	base := errors.New("base")
	p := newPanic(base)
	if !errors.Is(p, base) || !strings.Contains(p.Error(), "base") {
		t.Fatalf("Panic does not expose its value: %v", p)
	}
	if newPanic(p) != p {
		t.Fatal("NewPanic wrapped a *Panic again")
	}
	if newPanic("text").Unwrap() != nil {
		t.Fatal("Unwrap of a non-error value is not nil")
	}
}

// TestTraceRegions runs work under runtime/trace and checks the trace
// mentions the workers' regions.
func TestTraceRegions(t *testing.T) {
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Skipf("tracing unavailable: %v", err)
	}
	p := newPool(t, 2)
	p.Do(func(w *Worker) { fib(w, 16) })
	var l latch.Latch
	p.Go(func(*Worker) { l.Set() })
	p.Do(func(w *Worker) { waitLatch(w, &l) })
	trace.Stop()
	if !bytes.Contains(buf.Bytes(), []byte("gopar.")) {
		t.Fatal("the trace has no gopar regions")
	}
}

// TestNextGuestWaitSkipsLeftWork: work that one guest offered and nobody
// ran stays in the guest slot's deque. The next goroutine to lease the slot
// must not run it in a wait of its own: it does not descend from what that
// goroutine waits for, and might take a lock the goroutine holds
// (WAITING.md). The one worker is busy, so nobody else takes the work until
// the second guest's wait has looked at it.
func TestNextGuestWaitSkipsLeftWork(t *testing.T) {
	// How the first guest leaves the work: offered in Do, or by a task
	// spawned in a Scope there (it descends from the scope's region).
	leave := map[string]func(w *Worker, x func(*Worker)){
		"offer": func(w *Worker, x func(*Worker)) { offer(w, x) },
		"scope": func(w *Worker, x func(*Worker)) {
			w.Scope(func(s Scope) { s.Spawn(func(s Scope) { offer(s.Worker(), x) }) })
		},
	}
	for name, leave := range leave {
		t.Run(name, func(t *testing.T) { testNextGuestWaitSkipsLeftWork(t, leave) })
	}
}

func testNextGuestWaitSkipsLeftWork(t *testing.T, leave func(w *Worker, x func(*Worker))) {
	p := newPool(t, 1)
	release := busyWorkers(t, p)
	var slot *Worker
	var l latch.Latch
	ranOn := make(chan *Worker, 1)
	p.Do(func(w *Worker) {
		slot = w
		leave(w, func(w *Worker) { ranOn <- w; l.Set() })
	})
	if len(ranOn) > 0 {
		t.Fatal("the first guest ran the work it left")
	}
	parks := p.Stats().Parks
	waited := make(chan *Worker)
	go func() {
		p.Do(func(w *Worker) {
			waited <- w
			waitLatch(w, &l)
		})
		close(waited)
	}()
	if w := <-waited; w != slot {
		t.Fatalf("the second guest leased slot %d, want the first one's, %d", w.Index(), slot.Index())
	}
	eventually(t, "the second guest to park or run the first one's offer", func() bool { return p.Stats().Parks > parks || len(ranOn) > 0 })
	release(-1) // the worker takes the offer now, if the wait did not
	<-waited
	if w := <-ranOn; w == slot {
		t.Fatalf("the second guest's Wait ran work the first guest offered: the waiting rule is broken")
	}
}

// TestInject: Inject runs its func on a worker of an open pool and reports
// true; on a closed pool it reports false and the func never runs.
func TestInject(t *testing.T) {
	p := newPool(t, 2)
	ran := make(chan *Worker, 1)
	if !inject(p, func(w *Worker) { ran <- w }) {
		t.Fatal("Inject on an open pool reported false")
	}
	if w := <-ran; w == nil || w.Pool() != p {
		t.Fatalf("the injected func ran on %v, want a worker of the pool", w)
	}
	q := newPool(t, 2)
	q.Close()
	if inject(q, func(*Worker) { t.Error("an injected func ran on a closed pool") }) {
		t.Fatal("Inject on a closed pool reported true")
	}
}
