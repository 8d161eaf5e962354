package par_test

import (
	"fmt"
	"os"
	"os/exec"
	goruntime "runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/ending"
	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// hangLimit is how long a test waits before it calls an operation hung.
const hangLimit = ending.HangLimit

// endOf runs f on a goroutine of its own and reports how it ended.
func endOf(t *testing.T, f func()) ending.Ending { return ending.Of(t, f) }

// checkWhole checks that every worker of p is alive: one task per worker,
// each waiting until all have started, must all start.
func checkWhole(t *testing.T, p *par.Pool) {
	t.Helper()
	n := p.Workers()
	var started atomic.Int32
	all := make(chan struct{})
	done := make(chan struct{}, n)
	for range n {
		p.Go(func(*runtime.Worker) {
			if started.Add(1) == int32(n) {
				close(all)
			}
			select {
			case <-all:
			case <-time.After(hangLimit):
			}
			done <- struct{}{}
		})
	}
	select {
	case <-all:
	case <-time.After(hangLimit):
		t.Fatalf("only %d of %d workers ran at once: the pool lost workers", started.Load(), n)
	}
	for range n {
		<-done
	}
}

// busy costs about a microsecond, so that loops of a few thousand items go
// parallel.
func busy(i int) {
	x := uint64(i)
	for range 200 {
		x = x*0x9E3779B97F4A7C15 + 1
	}
	if x == 42 {
		panic("unreachable")
	}
}

// goexitOps are every terminal operation and fork form, each running f
// once for every item (index) of [0, n) on pool p, where p applies.
func goexitOps() []struct {
	name string
	run  func(p *par.Pool, n int, f func(int))
} {
	id := func(f func(int)) func(int) int { return func(i int) int { f(i); return i } }
	add := func(a, b int) int { return a + b }
	zero := func() int { return 0 }
	seq := func(n int) func(func(int) bool) {
		return func(yield func(int) bool) {
			for i := range n {
				if !yield(i) {
					return
				}
			}
		}
	}
	var joinTree func(lo, hi int, f func(int))
	joinTree = func(lo, hi int, f func(int)) {
		if hi-lo == 1 {
			f(lo)
			return
		}
		mid := (lo + hi) / 2
		par.Join(func() { joinTree(lo, mid, f) }, func() { joinTree(mid, hi, f) })
	}
	type span struct {
		lo, hi int
		f      func(int)
	}
	var joinFuncTree func(s span) int
	joinFuncTree = func(s span) int {
		if s.hi-s.lo == 1 {
			s.f(s.lo)
			return 1
		}
		mid := (s.lo + s.hi) / 2
		a, b := par.JoinFunc(joinFuncTree, span{s.lo, mid, s.f}, span{mid, s.hi, s.f})
		return a + b
	}
	var workerTree func(w *runtime.Worker, s span) int
	workerTree = func(w *runtime.Worker, s span) int {
		if s.hi-s.lo == 1 {
			s.f(s.lo)
			return 1
		}
		mid := (s.lo + s.hi) / 2
		a, b := runtime.JoinFunc(w, workerTree, span{s.lo, mid, s.f}, span{mid, s.hi, s.f})
		return a + b
	}
	var workerJoin func(w *runtime.Worker, lo, hi int, f func(int))
	workerJoin = func(w *runtime.Worker, lo, hi int, f func(int)) {
		if hi-lo == 1 {
			f(lo)
			return
		}
		mid := (lo + hi) / 2
		w.Join(func(w *runtime.Worker) { workerJoin(w, lo, mid, f) }, func(w *runtime.Worker) { workerJoin(w, mid, hi, f) })
	}
	var groupTree func(g *par.Group, lo, hi int, f func(int))
	groupTree = func(g *par.Group, lo, hi int, f func(int)) {
		for hi-lo > 1 {
			mid, end := (lo+hi)/2, hi
			g.Go(func(g *par.Group) { groupTree(g, mid, end, f) })
			hi = mid
		}
		f(lo)
	}
	var spawnTree func(s runtime.Scope, lo, hi int, f func(int))
	spawnTree = func(s runtime.Scope, lo, hi int, f func(int)) {
		for hi-lo > 1 {
			mid, end := (lo+hi)/2, hi
			s.Spawn(func(s runtime.Scope) { spawnTree(s, mid, end, f) })
			hi = mid
		}
		f(lo)
	}
	// sortCalls sorts n*8 elements (the parallel sort from 8192 on) and
	// calls f with the number of the call of cmp, for its first n calls.
	sortCalls := func(sort func(p *par.Pool, xs []int, cmp func(a, b int) int)) func(p *par.Pool, n int, f func(int)) {
		return func(p *par.Pool, n int, f func(int)) {
			xs := shuffled(max(8*n, 1<<14), uint64(n))
			var calls atomic.Int64
			sort(p, xs, func(a, b int) int {
				if k := int(calls.Add(1) - 1); k < n {
					f(k)
				}
				return a - b
			})
		}
	}
	return []struct {
		name string
		run  func(p *par.Pool, n int, f func(int))
	}{
		{"ForEach", func(p *par.Pool, n int, f func(int)) { par.Range(0, n).WithPool(p).ForEach(f) }},
		{"ForEachIndex", func(p *par.Pool, n int, f func(int)) {
			par.Range(0, n).WithPool(p).ForEachIndex(func(i, _ int) { f(i) })
		}},
		{"Reduce", func(p *par.Pool, n int, f func(int)) { par.Range(0, n).WithPool(p).Map(id(f)).Reduce(zero, add) }},
		{"Sum", func(p *par.Pool, n int, f func(int)) { par.Range(0, n).WithPool(p).Map(id(f)).Sum() }},
		{"Count", func(p *par.Pool, n int, f func(int)) {
			par.Range(0, n).WithPool(p).Filter(func(i int) bool { f(i); return true }).Count()
		}},
		{"Collect", func(p *par.Pool, n int, f func(int)) { par.Range(0, n).WithPool(p).Map(id(f)).Collect() }},
		{"Any", func(p *par.Pool, n int, f func(int)) {
			par.Range(0, n).WithPool(p).Any(func(i int) bool { f(i); return false })
		}},
		{"Every", func(p *par.Pool, n int, f func(int)) {
			par.Range(0, n).WithPool(p).Every(func(i int) bool { f(i); return true })
		}},
		{"Values", func(p *par.Pool, n int, f func(int)) {
			for range par.Range(0, n).WithPool(p).Map(id(f)).Values() {
			}
		}},
		{"All", func(p *par.Pool, n int, f func(int)) {
			for range par.Range(0, n).WithPool(p).Map(id(f)).WithBuffer(64).All() {
			}
		}},
		{"FromSeq Values", func(p *par.Pool, n int, f func(int)) {
			for range par.FromSeq(seq(n)).WithPool(p).Map(id(f)).Values() {
			}
		}},
		{"MapInit", func(p *par.Pool, n int, f func(int)) {
			par.MapInit(par.Range(0, n).WithPool(p), zero, func(_, i int) int { f(i); return i }).Collect()
		}},
		{"ForEachInit", func(p *par.Pool, n int, f func(int)) {
			par.ForEachInit(par.Range(0, n).WithPool(p), zero, func(_, i int) { f(i) })
		}},
		{"Find", func(p *par.Pool, n int, f func(int)) {
			par.Range(0, n).WithPool(p).Find(func(i int) bool { f(i); return false })
		}},
		{"FindFirst", func(p *par.Pool, n int, f func(int)) {
			par.Range(0, n).WithPool(p).FindFirst(func(i int) bool { f(i); return false })
		}},
		{"TryForEach", func(p *par.Pool, n int, f func(int)) {
			par.Range(0, n).WithPool(p).TryForEach(func(i int) error { f(i); return nil })
		}},
		{"TryMap", func(p *par.Pool, n int, f func(int)) {
			par.TryMap(par.Range(0, n).WithPool(p), func(i int) (int, error) { f(i); return i, nil })
		}},
		{"Fold", func(p *par.Pool, n int, f func(int)) {
			par.Fold(par.Range(0, n).WithPool(p), zero, func(a, i int) int { f(i); return a + i }, add)
		}},
		{"Min", func(p *par.Pool, n int, f func(int)) { par.Min(par.Range(0, n).WithPool(p).Map(id(f))) }},
		{"FilterMap", func(p *par.Pool, n int, f func(int)) {
			par.FilterMap(par.Range(0, n).WithPool(p), func(i int) (int, bool) { f(i); return i, true }).Collect()
		}},
		{"FlatMap", func(p *par.Pool, n int, f func(int)) {
			par.FlatMap(par.Range(0, n).WithPool(p), func(i int) []int { f(i); return []int{i} }).Collect()
		}},
		{"Blocks", func(p *par.Pool, n int, f func(int)) {
			par.Range(0, n).WithPool(p).Blocks(func(lo, hi int) {
				for i := lo; i < hi; i++ {
					f(i)
				}
			})
		}},
		{"Blocking ForEach", func(p *par.Pool, n int, f func(int)) { par.Range(0, n).Blocking(8).ForEach(f) }},
		{"Blocking TryMap", func(p *par.Pool, n int, f func(int)) {
			par.TryMap(par.Range(0, n).Blocking(8), func(i int) (int, error) { f(i); return i, nil })
		}},
		{"FromSeq", func(p *par.Pool, n int, f func(int)) { par.FromSeq(seq(n)).WithPool(p).ForEach(f) }},
		{"FromSeq Blocking", func(p *par.Pool, n int, f func(int)) { par.FromSeq(seq(n)).Blocking(4).ForEach(f) }},
		{"WithProgress", func(p *par.Pool, n int, f func(int)) {
			par.Range(0, n).WithPool(p).WithProgress(func(int, int) {}).ForEach(f)
		}},
		{"WithTimeline", func(p *par.Pool, n int, f func(int)) {
			var tl par.Timeline
			par.Range(0, n).WithPool(p).WithTimeline(&tl).ForEach(f)
		}},
		{"SortFunc", sortCalls(func(p *par.Pool, xs []int, cmp func(a, b int) int) { par.SortFuncOn(p, xs, cmp) })},
		{"SortStableFunc", sortCalls(func(p *par.Pool, xs []int, cmp func(a, b int) int) { par.SortStableFuncOn(p, xs, cmp) })},
		{"par.Join", func(p *par.Pool, n int, f func(int)) { joinTree(0, n, f) }},
		{"par.JoinFunc", func(p *par.Pool, n int, f func(int)) { joinFuncTree(span{0, n, f}) }},
		{"par.JoinAll", func(p *par.Pool, n int, f func(int)) {
			fns := make([]func(), n)
			for i := range fns {
				fns[i] = func() { f(i) }
			}
			par.JoinAll(fns...)
		}},
		{"par.Scope", func(p *par.Pool, n int, f func(int)) {
			par.Scope(func(g *par.Group) { groupTree(g, 0, n, f) })
		}},
		{"Worker.Join", func(p *par.Pool, n int, f func(int)) {
			p.Do(func(w *runtime.Worker) { workerJoin(w, 0, n, f) })
		}},
		{"runtime.JoinFunc", func(p *par.Pool, n int, f func(int)) {
			p.Do(func(w *runtime.Worker) { workerTree(w, span{0, n, f}) })
		}},
		{"Pool.Scope", func(p *par.Pool, n int, f func(int)) {
			p.Scope(func(s runtime.Scope) { spawnTree(s, 0, n, f) })
		}},
	}
}

// TestGoexitEveryOperation: runtime.Goexit in a callback at the first, a
// middle and the last item ends the operation on every pool size: the
// calling goroutine ends with Goexit, after every callback that was running
// has returned, and every worker of the pool is back afterwards.
func TestGoexitEveryOperation(t *testing.T) {
	n := 3000 / race.Scale
	for _, workers := range []int{1, 2, 8} {
		p := newPool(t, workers)
		for _, op := range goexitOps() {
			for _, at := range []int{0, n / 2, n - 1} {
				what := fmt.Sprintf("%s on %d workers, Goexit at item %d of %d", op.name, workers, at, n)
				checkGoexitAt(t, what, at, func(f func(int)) { op.run(p, n, f) })
			}
			checkWhole(t, p)
		}
		checkWhole(t, par.DefaultPool())
	}
}

// checkGoexitAt runs an operation whose callback f calls runtime.Goexit at
// item at, and checks that the operation ends its goroutine with Goexit,
// with no callback still running, after item at ran.
func checkGoexitAt(t *testing.T, what string, at int, run func(f func(int))) {
	t.Helper()
	var running atomic.Int64
	var reached atomic.Bool
	f := func(i int) {
		running.Add(1)
		defer running.Add(-1)
		busy(i)
		if i == at {
			reached.Store(true)
			goruntime.Goexit()
		}
	}
	if e := endOf(t, func() { run(f) }); !e.Goexited {
		t.Errorf("%s: %v, want runtime.Goexit", what, e)
	}
	if r := running.Load(); r != 0 {
		t.Errorf("%s: the operation ended with %d callbacks still running", what, r)
	}
	if !reached.Load() {
		t.Errorf("%s: item %d never ran", what, at)
	}
}

// TestGoexitStopsTheLoop: after a Goexit, a long loop hands out no more
// items, as after a panic.
func TestGoexitStopsTheLoop(t *testing.T) {
	const n = 1 << 24
	for _, workers := range []int{1, 2, 8} {
		p := newPool(t, workers)
		var ran atomic.Int64
		e := endOf(t, func() {
			par.Range(0, n).WithPool(p).ForEach(func(i int) {
				if ran.Add(1) == 200_000 { // in the parallel phase
					goruntime.Goexit()
				}
			})
		})
		if !e.Goexited || ran.Load() > n/4 {
			t.Errorf("%d workers: %v after %d of %d items, want Goexit after few", workers, e, ran.Load(), n)
		}
	}
}

// TestGoexitPanicWins: a panic and a Goexit in the same operation give the
// panic, whichever came first.
func TestGoexitPanicWins(t *testing.T) {
	// On Blocking(2), the two items run at once on two goroutines; one
	// waits for the other to have failed first.
	// Both items start before either fails.
	both := func(goexitFirst bool) [2]func() {
		var exited, panicking atomic.Bool
		var started atomic.Int32
		start := func() {
			started.Add(1)
			for begin := time.Now(); started.Load() < 2 && time.Since(begin) < hangLimit; {
				goruntime.Gosched()
			}
		}
		return [2]func(){func() {
			start()
			if !goexitFirst {
				waitFlag(&panicking)
			}
			exited.Store(true)
			goruntime.Goexit()
		}, func() {
			start()
			if goexitFirst {
				waitFlag(&exited)
			}
			panicking.Store(true)
			panic("boom")
		}}
	}
	for _, goexitFirst := range []bool{true, false} {
		for name, form := range map[string]func(fs [2]func()){
			"Blocking ForEach": func(fs [2]func()) { par.Range(0, 2).Blocking(2).ForEach(func(i int) { fs[i]() }) },
			"Blocking TryForEach": func(fs [2]func()) {
				par.Range(0, 2).Blocking(2).TryForEach(func(i int) error { fs[i](); return nil })
			},
		} {
			e := endOf(t, func() { form(both(goexitFirst)) })
			if p, ok := e.Panicked.(*runtime.Panic); !ok || p.Value != "boom" {
				t.Errorf("%s, Goexit first %v: %v, want the panic", name, goexitFirst, e)
			}
		}
	}
	// The fork forms run both calls, in either order.
	goexit := func() { goruntime.Goexit() }
	boom := func() { panic("boom") }
	p := newPool(t, 2)
	for name, form := range map[string]func(){
		"Join(goexit, panic)": func() { par.Join(goexit, boom) },
		"Join(panic, goexit)": func() { par.Join(boom, goexit) },
		"JoinAll":             func() { par.JoinAll(goexit, func() {}, boom) },
		"Scope":               func() { par.Scope(func(g *par.Group) { g.Go(func(*par.Group) { boom() }); goexit() }) },
		"Worker.Join(goexit, panic)": func() {
			p.Do(func(w *runtime.Worker) { w.Join(func(*runtime.Worker) { goexit() }, func(*runtime.Worker) { boom() }) })
		},
		"Worker.Join(panic, goexit)": func() {
			p.Do(func(w *runtime.Worker) { w.Join(func(*runtime.Worker) { boom() }, func(*runtime.Worker) { goexit() }) })
		},
		"JoinFunc(goexit, panic)": func() {
			par.JoinFunc(func(f func()) int { f(); return 0 }, goexit, boom)
		},
		"JoinFunc(panic, goexit)": func() {
			par.JoinFunc(func(f func()) int { f(); return 0 }, boom, goexit)
		},
	} {
		for range 20 {
			e := endOf(t, form)
			if p, ok := e.Panicked.(*runtime.Panic); !ok || p.Value != "boom" {
				t.Errorf("%s: %v, want the panic", name, e)
				break
			}
		}
	}
	checkWhole(t, p)
}

// waitFlag returns once flag is set (or after hangLimit, which the caller
// then reports as a hang).
func waitFlag(flag *atomic.Bool) {
	for start := time.Now(); !flag.Load() && time.Since(start) < hangLimit; {
		goruntime.Gosched()
	}
}

// TestGoexitInProgressReport: a Goexit in WithProgress's report, on the
// reporter goroutine, ends the caller's goroutine once the loop has ended,
// as a panic there is re-raised then; the last report is not made.
func TestGoexitInProgressReport(t *testing.T) {
	var reported, last atomic.Bool
	e := endOf(t, func() {
		par.Range(0, 4).WithProgress(func(done, total int) {
			if done == total {
				last.Store(true)
			}
			reported.Store(true)
			goruntime.Goexit()
		}).ForEach(func(i int) {
			if i == 0 {
				waitFlag(&reported) // the first report comes after 100 ms
			}
		})
	})
	if !e.Goexited || last.Load() {
		t.Errorf("%v, last report made: %v; want Goexit and no last report", e, last.Load())
	}
}

// TestGoexitSortKeepsElements: a Goexit in cmp leaves xs a permutation of
// its elements, as a panic does.
func TestGoexitSortKeepsElements(t *testing.T) {
	p := newPool(t, 2)
	for _, stop := range []int{10, 100_000, 400_000} {
		xs := shuffled(1<<16, 7)
		var calls atomic.Int64
		e := endOf(t, func() {
			par.SortFuncOn(p, xs, func(a, b int) int {
				if calls.Add(1) == int64(stop) {
					goruntime.Goexit()
				}
				return a - b
			})
		})
		if !e.Goexited {
			t.Errorf("Goexit at cmp call %d: %v", stop, e)
		}
		if !isPermutation(xs) {
			t.Errorf("Goexit at cmp call %d: xs lost elements", stop)
		}
	}
}

// TestGoexitFatalInCallback runs a test that calls t.Fatal in a ForEach
// callback on a worker, in a child process: the test must fail with its
// message, not hang.
func TestGoexitFatalInCallback(t *testing.T) {
	if os.Getenv("GOPAR_FATAL_CHILD") == "1" {
		par.Range(0, 1<<20).ForEach(func(i int) {
			busy(i)
			if i == 1<<19 {
				t.Fatal("fatal in a callback")
			}
		})
		t.Log("not reached")
		return
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGoexitFatalInCallback$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GOPAR_FATAL_CHILD=1", "GOPAR_WORKERS=4")
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(hangLimit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the child test hung; output:\n%s", out)
	}
	if err == nil || !strings.Contains(string(out), "fatal in a callback") || !strings.Contains(string(out), "--- FAIL") ||
		strings.Contains(string(out), "not reached") {
		t.Errorf("child test: err %v, output:\n%s", err, out)
	}
}
