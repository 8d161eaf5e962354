package runtime

import (
	"errors"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
)

// span is the argument of the tree recursions below.
type span struct{ lo, hi int }

// TestJoinFuncRunsEachOnce runs many trees at once, from many callers, on
// more goroutines than cores: every leaf must run exactly once, and work
// must actually move between participants.
//
// Whether a frame is stolen depends on the scheduler: on loaded cores the
// woken workers may not get a core before every tree is done (CI saw a run
// with 224 frames shared and none taken). So every attempt checks that each
// leaf ran once, and the test fails on sharing only if no attempt in
// attempts moved a leaf; a JoinFunc that never shares fails every attempt.
func TestJoinFuncRunsEachOnce(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	p := newPool(t, 4)
	const attempts = 20
	moved := 0
	for k := 0; k < attempts && moved == 0; k++ {
		moved = runTreesOnce(t, p)
	}
	if moved == 0 {
		t.Fatalf("in %d attempts, every leaf ran on its caller: nothing was shared (stats %+v)", attempts, p.Stats())
	}
	if s := p.Stats(); s.Shared == 0 {
		t.Fatalf("no JoinFunc frame was shared: %+v", s)
	}
	assertForkStacksEmpty(t, p)
}

// runTreesOnce runs a tree of JoinFuncs from each of 16 callers at once,
// fails t unless every leaf ran exactly once, and returns how many leaves
// ran on another worker than their caller's.
func runTreesOnce(t *testing.T, p *Pool) (moved int) {
	t.Helper()
	const callers = 16
	leaves := 1 << 14 / race.Scale
	counts := make([]atomic.Int32, callers*leaves)
	ranBy := make([]atomic.Int32, callers*leaves)
	var tree func(w *Worker, s span) struct{}
	tree = func(w *Worker, s span) struct{} {
		if s.hi-s.lo == 1 {
			counts[s.lo].Add(1)
			ranBy[s.lo].Store(int32(w.Index()))
			return struct{}{}
		}
		mid := (s.lo + s.hi) / 2
		JoinFunc(w, tree, span{s.lo, mid}, span{mid, s.hi})
		return struct{}{}
	}
	callerIndex := make([]int32, callers)
	var wg sync.WaitGroup
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Do(func(w *Worker) {
				callerIndex[c] = int32(w.Index())
				tree(w, span{c * leaves, (c + 1) * leaves})
			})
		}()
	}
	wg.Wait()
	if diff := onceDiff(counts); diff != "" {
		t.Fatalf("leaves not run exactly once (-want +got, runs by index):\n%s", diff)
	}
	for i := range ranBy {
		if ranBy[i].Load() != callerIndex[i/leaves] {
			moved++
		}
	}
	return moved
}

// TestJoinFuncMixedTypes nests JoinFuncs of two types, and closure Joins,
// on the same workers: frames of several stacks are shared out of call
// order, which takeBack must cope with.
func TestJoinFuncMixedTypes(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	p := newPool(t, 3)
	n := 16
	if race.Scale > 1 {
		n = 12
	}
	var outer func(w *Worker, s span) int64
	outer = func(w *Worker, s span) int64 {
		if s.hi == s.lo {
			return 0
		}
		if s.hi-s.lo == 1 {
			// Alternate the inner fork-join between the typed and the
			// closure form.
			if s.lo%2 == 0 {
				return int64(fibFunc(w, n))
			}
			return int64(fib(w, n))
		}
		mid := (s.lo + s.hi) / 2
		var x, y int64
		w.Join(func(w *Worker) {
			x, _ = JoinFunc(w, outer, span{s.lo, mid}, span{0, 0})
		}, func(w *Worker) {
			y = outer(w, span{mid, s.hi})
		})
		return x + y
	}
	const leaves = 64
	var got int64
	p.Do(func(w *Worker) { got = outer(w, span{0, leaves}) })
	if want := int64(leaves * seqFib(n)); got != want {
		t.Fatalf("got %d, want %d", got, want)
	}
	assertForkStacksEmpty(t, p)
}

func TestJoinFuncOnNilWorker(t *testing.T) {
	var order []int
	f := func(w *Worker, x int) int {
		if w != nil {
			t.Error("f got a worker from a nil-Worker JoinFunc")
		}
		order = append(order, x)
		return x * 10
	}
	a, b := JoinFunc(nil, f, 1, 2)
	if a != 10 || b != 20 || len(order) != 2 || order[0] != 1 || order[1] != 2 {
		t.Fatalf("JoinFunc(nil, f, 1, 2) = %d, %d after calls %v; want 10, 20 after [1 2]", a, b, order)
	}
}

func TestJoinFuncPanics(t *testing.T) {
	errA, errB := errors.New("a failed"), errors.New("b failed")
	// f panics for the arguments that say so, and records that it ran.
	type arg struct {
		name  string
		fail  error
		depth int // recursion depth above the failing call
	}
	var ran sync.Map
	var f func(w *Worker, x arg) int
	f = func(w *Worker, x arg) int {
		if x.depth > 0 {
			// Fork down to the failure, with real work beside it so that
			// frames get shared on several workers.
			l, r := JoinFunc(w, f, arg{x.name, x.fail, x.depth - 1}, arg{name: x.name + "/side", depth: 0})
			return l + r + fibFunc(w, 12)
		}
		ran.Store(x.name, true)
		if x.fail != nil {
			panic(x.fail)
		}
		return 1
	}
	cases := []struct {
		name string
		a, b arg
		want error
	}{
		{"a", arg{name: "a", fail: errA}, arg{name: "b"}, errA},
		{"b", arg{name: "a"}, arg{name: "b", fail: errB}, errB},
		{"both", arg{name: "a", fail: errA}, arg{name: "b", fail: errB}, errA},
		{"deep-a", arg{name: "a", fail: errA, depth: 12}, arg{name: "b", depth: 12}, errA},
		{"deep-b", arg{name: "a", depth: 12}, arg{name: "b", fail: errB, depth: 12}, errB},
	}
	for _, workers := range []int{1, 3} {
		p := newPool(t, workers)
		for _, c := range cases {
			ran.Clear()
			pv := func() (r any) {
				defer func() { r = recover() }()
				p.Do(func(w *Worker) { JoinFunc(w, f, c.a, c.b) })
				return nil
			}()
			pe, ok := pv.(*Panic)
			if !ok {
				t.Fatalf("workers=%d %s: recovered %T %v, want *Panic", workers, c.name, pv, pv)
			}
			if !errors.Is(pe, c.want) {
				t.Fatalf("workers=%d %s: panic value %v, want %v", workers, c.name, pe.Value, c.want)
			}
			if !strings.Contains(string(pe.Stack), "TestJoinFuncPanics") {
				t.Fatalf("workers=%d %s: stack does not show where the panic happened:\n%s", workers, c.name, pe.Stack)
			}
			if _, ok := ran.Load("b"); !ok {
				t.Fatalf("workers=%d %s: the call for b did not run", workers, c.name)
			}
			assertForkStacksEmpty(t, p)
		}
		// The pool is still usable.
		var got int
		p.Do(func(w *Worker) { got = fibFunc(w, 20) })
		if got != seqFib(20) {
			t.Fatalf("workers=%d: after panics fib = %d", workers, got)
		}
	}
}

// assertForkStacksEmpty checks that every JoinFunc popped its frame, also
// on the panic paths. It must run while p is quiet.
func assertForkStacksEmpty(t *testing.T, p *Pool) {
	t.Helper()
	for _, w := range p.members {
		// The members' goroutines last wrote these before the pool went
		// quiet; reading them here is ordered after by the joins that
		// finished the caller's work, except for idle workers, which do
		// not touch their stacks.
		for _, s := range w.forkStacks {
			if n := s.(interface{ depth() int }).depth(); n != 0 {
				t.Fatalf("worker %d: %d JoinFunc frames left on its stack", w.index, n)
			}
		}
	}
}

// depth is the number of frames on the stack, for assertForkStacksEmpty.
func (s *forkStack[A, R]) depth() int { return len(s.frames) }
