package runtime

import (
	"errors"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gopar-dev/gopar/internal/latch"
	"github.com/gopar-dev/gopar/internal/race"
)

func fib(w *Worker, n int) int {
	if n < 2 {
		return n
	}
	var a, b int
	w.Join(func(w *Worker) { a = fib(w, n-1) }, func(w *Worker) { b = fib(w, n-2) })
	return a + b
}

func fibFunc(w *Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := JoinFunc(w, fibFunc, n-1, n-2)
	return a + b
}

// fibForms are fib through each form of fork-join, for the tests and
// benchmarks that run both.
var fibForms = []struct {
	name string
	fib  func(*Worker, int) int
}{{"join", fib}, {"joinfunc", fibFunc}}

func seqFib(n int) int {
	if n < 2 {
		return n
	}
	return seqFib(n-1) + seqFib(n-2)
}

func newPool(t testing.TB, workers int) *Pool {
	t.Helper()
	p, err := New(workers)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestJoinFib runs fib with both forms of fork-join on pools of several
// sizes; afterwards every JoinFunc frame must have been popped.
func TestJoinFib(t *testing.T) {
	n := 24
	if race.Scale > 1 {
		n = 17
	}
	for _, form := range fibForms {
		for _, workers := range []int{1, 2, 3, 8} {
			p := newPool(t, workers)
			var got int
			p.Do(func(w *Worker) { got = form.fib(w, n) })
			if want := seqFib(n); got != want {
				t.Fatalf("%s, workers=%d: fib(%d) = %d, want %d", form.name, workers, n, got, want)
			}
			assertForkStacksEmpty(t, p)
		}
	}
}

func TestJoinOnNilWorkerRunsBoth(t *testing.T) {
	var w *Worker
	var order []string
	w.Join(func(*Worker) { order = append(order, "a") }, func(*Worker) { order = append(order, "b") })
	if strings.Join(order, "") != "ab" {
		t.Fatalf("nil worker ran %v", order)
	}
}

// TestJoinRunsEachOnce forks a wide tree of tasks from many goroutines at
// once, with more goroutines than cores, and checks every leaf ran exactly
// once.
func TestJoinRunsEachOnce(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	p := newPool(t, 4)
	const callers = 16
	leaves := 1 << 12 / race.Scale
	counts := make([]atomic.Int32, callers*leaves)
	var tree func(w *Worker, lo, hi int)
	tree = func(w *Worker, lo, hi int) {
		if hi-lo == 1 {
			counts[lo].Add(1)
			return
		}
		mid := (lo + hi) / 2
		w.Join(func(w *Worker) { tree(w, lo, mid) }, func(w *Worker) { tree(w, mid, hi) })
	}
	var wg sync.WaitGroup
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Do(func(w *Worker) { tree(w, c*leaves, (c+1)*leaves) })
		}()
	}
	wg.Wait()
	if diff := onceDiff(counts); diff != "" {
		t.Fatalf("leaves not run exactly once (-want +got, runs by index):\n%s", diff)
	}
}

func TestNestedDoWithOneWorker(t *testing.T) {
	p := newPool(t, 1)
	var got atomic.Int64
	p.Do(func(w *Worker) {
		w.Join(func(*Worker) {
			// A task that enters the pool again without passing its worker on,
			// as user code called from a task does.
			p.Do(func(w *Worker) {
				got.Add(int64(fib(w, 15)))
			})
		}, func(w *Worker) {
			p.Do(func(w *Worker) { got.Add(int64(fib(w, 15))) })
		})
	})
	if want := int64(2 * seqFib(15)); got.Load() != want {
		t.Fatalf("got %d, want %d", got.Load(), want)
	}
}

func TestJoinPanics(t *testing.T) {
	p := newPool(t, 2)
	errA, errB := errors.New("a failed"), errors.New("b failed")
	cases := []struct {
		name   string
		a, b   func(*Worker)
		want   error
		bothRe bool
	}{
		{"a", func(*Worker) { panic(errA) }, func(*Worker) {}, errA, true},
		{"b", func(*Worker) {}, func(*Worker) { panic(errB) }, errB, true},
		{"both", func(*Worker) { panic(errA) }, func(*Worker) { panic(errB) }, errA, true},
		{"deep", func(w *Worker) {
			w.Join(func(*Worker) {}, func(*Worker) { panic(errB) })
		}, func(*Worker) {}, errB, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ranB atomic.Bool
			b := func(w *Worker) { ranB.Store(true); c.b(w) }
			pv := func() (r any) {
				defer func() { r = recover() }()
				p.Do(func(w *Worker) { w.Join(c.a, b) })
				return nil
			}()
			pe, ok := pv.(*Panic)
			if !ok {
				t.Fatalf("recovered %T %v, want *Panic", pv, pv)
			}
			if !errors.Is(pe, c.want) {
				t.Fatalf("panic value %v, want %v", pe.Value, c.want)
			}
			if !strings.Contains(string(pe.Stack), "runtime.TestJoinPanics") {
				t.Fatalf("stack does not show where the panic happened:\n%s", pe.Stack)
			}
			if !ranB.Load() {
				t.Fatal("b did not run although a panicked")
			}
		})
	}
	// The pool is still usable.
	var got int
	p.Do(func(w *Worker) { got = fib(w, 15) })
	if got != seqFib(15) {
		t.Fatalf("after panics fib = %d", got)
	}
}

func TestOfferRunsEachOnce(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	p := newPool(t, 3)
	n := 20000 / race.Scale
	counts := make([]atomic.Int32, n)
	var done latch.Latch
	var left atomic.Int64
	left.Store(int64(n))
	p.Do(func(w *Worker) {
		for i := range n {
			offer(w, func(*Worker) {
				counts[i].Add(1)
				if left.Add(-1) == 0 {
					done.Set()
				}
			})
		}
		waitLatch(w, &done)
	})
	if diff := onceDiff(counts); diff != "" {
		t.Fatalf("offered jobs not run exactly once (-want +got, runs by index):\n%s", diff)
	}
}

// onceDiff compares per-item run counts with all ones: "" if every item ran
// exactly once, else a cmp.Diff listing the items that did not.
func onceDiff(counts []atomic.Int32) string {
	got := make([]int32, len(counts))
	for i := range counts {
		got[i] = counts[i].Load()
	}
	return cmp.Diff(slices.Repeat([]int32{1}, len(counts)), got)
}
