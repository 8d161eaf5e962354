package runtime

import (
	"errors"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/race"
)

// lazyTree runs leaf(i) for every i in [lo, hi), forking with JoinLazy.
func lazyTree(p *Pool, lo, hi int, leaf func(i int)) {
	if hi-lo == 1 {
		leaf(lo)
		return
	}
	mid := (lo + hi) / 2
	p.JoinLazy(func() { lazyTree(p, lo, mid, leaf) }, func() { lazyTree(p, mid, hi, leaf) })
}

// TestJoinLazyRunsEachOnce runs many trees at once from goroutines outside
// the pool, on more goroutines than cores: every leaf must run exactly
// once, and once the pool is quiet no offer may still be counted.
func TestJoinLazyRunsEachOnce(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	for _, workers := range []int{1, 4} {
		p := newPool(t, workers)
		const callers = 16
		leaves := 1 << 13 / race.Scale
		counts := make([]atomic.Int32, callers*leaves)
		var wg sync.WaitGroup
		for c := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lazyTree(p, c*leaves, (c+1)*leaves, func(i int) {
					counts[i].Add(1)
					// Some work, so that workers go idle and come back.
					seqFib(8)
				})
			}()
		}
		wg.Wait()
		if diff := onceDiff(counts); diff != "" {
			t.Fatalf("workers=%d: leaves not run exactly once (-want +got, runs by index):\n%s", workers, diff)
		}
		if n := p.idle.offered.Load(); n != 0 {
			t.Fatalf("workers=%d: %d offers still counted after every join returned", workers, n)
		}
	}
}

// TestJoinLazySharesWhenHungry: with every worker idle, JoinLazy must offer
// b, since a cannot finish until b has started elsewhere.
func TestJoinLazySharesWhenHungry(t *testing.T) {
	p := newPool(t, 2)
	for !hungry(p) {
		goruntime.Gosched() // the workers go idle moments after New
	}
	started := make(chan struct{})
	p.JoinLazy(func() {
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Error("b did not start while a waited for it: JoinLazy did not share it")
		}
	}, func() { close(started) })
	if n := p.idle.offered.Load(); n != 0 {
		t.Fatalf("%d offers still counted", n)
	}
}

// waitForB is a for the peer test: it waits up to 3 s for b to start
// (rayon's join_context_second, where a and b meet at a barrier), and
// reports whether b did.
func waitForB(started <-chan struct{}) bool {
	select {
	case <-started:
		return true
	case <-time.After(3 * time.Second):
		return false
	}
}

// TestJoinLazyFreshPool: the workers of a new pool count as idle from the
// start, so the first JoinLazy on it, made before their goroutines have
// run, offers b. Were they counted idle only once their goroutines ran,
// nobody would be idle yet, and a would run alone and wait the whole 3 s
// for a b that runs after it.
func TestJoinLazyFreshPool(t *testing.T) {
	for range 3 {
		p := newPool(t, 2)
		started := make(chan struct{})
		ok := false
		p.JoinLazy(func() { ok = waitForB(started) }, func() { close(started) })
		if !ok {
			t.Fatal("b did not start within 3 s while a waited for it on a new pool: its workers were not counted idle")
		}
	}
}

// TestJoinPeerSecond is rayon's join_context_second: on a pool of two
// workers, a Join made on one of them, where a waits for b to start, must
// have b run by the other.
func TestJoinPeerSecond(t *testing.T) {
	for range 3 {
		p := newPool(t, 2)
		res := make(chan bool)
		p.Go(func(*Worker) {
			started := make(chan struct{})
			ok := false
			p.JoinLazy(func() { ok = waitForB(started) }, func() { close(started) })
			res <- ok
		})
		if !<-res {
			t.Fatal("b did not start within 3 s while a waited for it, with the pool's other worker free")
		}
	}
}

// TestJoinLazyInlineWhenBusy: on a pool whose only worker runs the
// caller, nobody is idle, so JoinLazy calls a then b on the caller and
// publishes nothing.
func TestJoinLazyInlineWhenBusy(t *testing.T) {
	p := newPool(t, 1)
	done := make(chan error)
	p.Go(func(*Worker) {
		before := p.Stats()
		var order []string
		p.JoinLazy(func() { order = append(order, "a") }, func() { order = append(order, "b") })
		if got := strings.Join(order, ""); got != "ab" {
			done <- errors.New("ran " + got + ", want ab")
			return
		}
		if after := p.Stats(); after.Executed != before.Executed {
			done <- errors.New("a job was published and run")
			return
		}
		done <- nil
	})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestJoinLazyPanics(t *testing.T) {
	errA, errB := errors.New("a failed"), errors.New("b failed")
	cases := []struct {
		name         string
		failA, failB bool
		want         error
	}{
		{"a", true, false, errA},
		{"b", false, true, errB},
		{"both", true, true, errA},
	}
	for _, workers := range []int{1, 3} {
		p := newPool(t, workers)
		for _, c := range cases {
			// Inside a tree, so that both the inline and the shared
			// paths see panics.
			var ranB atomic.Bool
			pv := func() (r any) {
				defer func() { r = recover() }()
				lazyTree(p, 0, 64, func(i int) {
					switch {
					case i == 20 && c.failA:
						panic(errA)
					case i == 40:
						ranB.Store(true)
						if c.failB {
							panic(errB)
						}
					}
				})
				return nil
			}()
			pe, ok := pv.(*Panic)
			if !ok {
				t.Fatalf("workers=%d %s: recovered %T %v, want *Panic", workers, c.name, pv, pv)
			}
			if !errors.Is(pe, c.want) {
				t.Fatalf("workers=%d %s: panic value %v, want %v", workers, c.name, pe.Value, c.want)
			}
			if !strings.Contains(string(pe.Stack), "TestJoinLazyPanics") {
				t.Fatalf("workers=%d %s: stack does not show where the panic happened:\n%s", workers, c.name, pe.Stack)
			}
			if !ranB.Load() {
				t.Fatalf("workers=%d %s: the half after the panic did not run", workers, c.name)
			}
		}
		var sum atomic.Int64
		lazyTree(p, 0, 1000, func(i int) { sum.Add(int64(i)) })
		if got := sum.Load(); got != 999*1000/2 {
			t.Fatalf("workers=%d: after panics the tree summed to %d", workers, got)
		}
		if n := p.idle.offered.Load(); n != 0 {
			t.Fatalf("workers=%d: %d offers still counted", workers, n)
		}
	}
}

// TestJoinLazyNested mixes JoinLazy with the worker-passing forms: a leaf
// of a JoinLazy tree enters the pool and forks with JoinFunc, and that
// recursion's leaves fork with JoinLazy again.
func TestJoinLazyNested(t *testing.T) {
	p := newPool(t, 2)
	var count atomic.Int64
	inner := func(w *Worker, n int) int { return fibFunc(w, n) }
	lazyTree(p, 0, 32, func(i int) {
		var got int
		p.Do(func(w *Worker) { got = inner(w, 12) })
		if got != seqFib(12) {
			t.Errorf("inner fib = %d", got)
		}
		lazyTree(p, 0, 16, func(int) { count.Add(1) })
	})
	if got := count.Load(); got != 32*16 {
		t.Fatalf("nested leaves ran %d times, want %d", got, 32*16)
	}
	assertForkStacksEmpty(t, p)
}

func TestJoinLazyClosedPool(t *testing.T) {
	p, err := New(1)
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	// A closed pool has no idle participant left, so nothing is shared
	// and both calls run inline.
	var n int
	p.JoinLazy(func() { n++ }, func() { n++ })
	if n != 2 {
		t.Fatalf("ran %d calls on a closed pool, want 2", n)
	}
}
