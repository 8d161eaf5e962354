package par_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// TestJoinAllRunsEachOnce runs every count of functions from 0 to 40, each a
// small parallel sum so that joins nest in loops and are stolen, from
// several goroutines at once.
func TestJoinAllRunsEachOnce(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 41 {
				ran := make([]atomic.Int32, n)
				sums := make([]uint64, n)
				fns := make([]func(), n)
				for k := range fns {
					fns[k] = func() {
						ran[k].Add(1)
						sums[k] = par.Sum(par.Map(par.Range(0, 1000*(k+g)), mixInt))
					}
				}
				par.JoinAll(fns...)
				for k := range ran {
					if c := ran[k].Load(); c != 1 {
						t.Errorf("n=%d: function %d ran %d times", n, k, c)
					}
					if want := seqSum(0, 1000*(k+g)); sums[k] != want {
						t.Errorf("n=%d: function %d's sum %d, want %d", n, k, sums[k], want)
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestJoinAllPanics: a panic skips no other function, and the
// lowest-indexed panic is the one re-raised, with its stack.
func TestJoinAllPanics(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 16} {
		for _, failing := range [][]int{{0}, {n - 1}, {n / 2, n - 1}, {n - 1, 0}} {
			ran := make([]atomic.Bool, n)
			fns := make([]func(), n)
			for k := range fns {
				fns[k] = func() {
					ran[k].Store(true)
					for _, f := range failing {
						if f == k {
							panic(fmt.Errorf("function %d failed", k))
						}
					}
				}
			}
			pv := func() (r any) {
				defer func() { r = recover() }()
				par.JoinAll(fns...)
				return nil
			}()
			p, ok := pv.(*runtime.Panic)
			if !ok {
				t.Fatalf("n=%d failing=%v: recovered %T %v, want *runtime.Panic", n, failing, pv, pv)
			}
			want := fmt.Sprintf("function %d failed", min(failing[0], failing[len(failing)-1]))
			if fmt.Sprint(p.Value) != want || !strings.Contains(string(p.Stack), "TestJoinAllPanics") {
				t.Fatalf("n=%d failing=%v: panic %v, want %q with the stack where it happened", n, failing, p.Value, want)
			}
			for k := range ran {
				if !ran[k].Load() {
					t.Fatalf("n=%d failing=%v: function %d did not run", n, failing, k)
				}
			}
		}
	}
}

func TestJoinAllAndScopeBadInput(t *testing.T) {
	par.JoinAll() // no functions: nothing to do
	ran := false
	mustPanicWith(t, "par.JoinAll was given a nil function", func() {
		par.JoinAll(func() { ran = true }, nil)
	})
	if ran {
		t.Fatal("JoinAll ran a function before rejecting a nil one")
	}
	mustPanicWith(t, "par.Scope was given a nil function", func() { par.Scope(nil) })
	mustPanicWith(t, "Group.Go was given a nil function", func() {
		par.Scope(func(g *par.Group) { g.Go(nil) })
	})
	var kept *par.Group
	par.Scope(func(g *par.Group) { kept = g })
	mustPanicWith(t, "in a scope that has ended", func() {
		kept.Go(func(*par.Group) {})
	})
	par.Scope(func(g *par.Group) {}) // no tasks
}

// TestScopeTree starts a tree of tasks, each task starting its children
// through its own Group, and checks every task ran once before Scope
// returned, from several goroutines at once.
func TestScopeTree(t *testing.T) {
	const depth = 10 // 2^11-1 tasks
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ran [1 << (depth + 1)]atomic.Int32
			var node func(g *par.Group, id, level int)
			node = func(g *par.Group, id, level int) {
				ran[id].Add(1)
				if level == depth {
					return
				}
				g.Go(func(g *par.Group) { node(g, 2*id, level+1) })
				g.Go(func(g *par.Group) { node(g, 2*id+1, level+1) })
			}
			par.Scope(func(g *par.Group) { node(g, 1, 0) })
			for id := 1; id < len(ran); id++ {
				if c := ran[id].Load(); c != 1 {
					t.Errorf("task %d ran %d times", id, c)
				}
			}
		}()
	}
	wg.Wait()
}

// TestScopePanics: a panic in a task or in the body stops nothing; Scope
// re-panics with it once every task has run.
func TestScopePanics(t *testing.T) {
	boom := errors.New("boom")
	for _, inBody := range []bool{false, true} {
		var ran atomic.Int32
		pv := func() (r any) {
			defer func() { r = recover() }()
			par.Scope(func(g *par.Group) {
				for k := range 20 {
					g.Go(func(*par.Group) {
						ran.Add(1)
						if !inBody && k == 7 {
							panic(boom)
						}
					})
				}
				if inBody {
					panic(boom)
				}
			})
			return nil
		}()
		p, ok := pv.(*runtime.Panic)
		if !ok || !errors.Is(p, boom) {
			t.Fatalf("inBody=%v: recovered %T %v, want a *runtime.Panic of boom", inBody, pv, pv)
		}
		if ran.Load() != 20 {
			t.Fatalf("inBody=%v: %d of 20 tasks ran", inBody, ran.Load())
		}
	}
}

// TestGroupNestsInLoops: JoinAll and Scope inside a ForEach callback, with
// a ForEach inside their tasks, on the default pool and (in a child process)
// on a one-worker default pool, where any wait that ran nothing would hang.
func TestGroupNestsInLoops(t *testing.T) {
	n := 64
	if race.Enabled {
		n = 16
	}
	var total atomic.Uint64
	par.Range(0, n).ForEach(func(i int) {
		var a, b uint64
		par.JoinAll(
			func() { a = par.Sum(par.Map(par.Range(0, 1<<12), mixInt)) },
			func() {
				par.Scope(func(g *par.Group) {
					g.Go(func(*par.Group) { b = par.Sum(par.Map(par.Range(0, 1<<12), mixInt)) })
				})
			},
			func() {},
		)
		total.Add(a + b)
	})
	if want := uint64(2*n) * seqSum(0, 1<<12); total.Load() != want {
		t.Fatalf("nested total %d, want %d", total.Load(), want)
	}
	if os.Getenv("GOPAR_TEST_CHILD") == "group" {
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGroupNestsInLoops$", "-test.v")
	cmd.Env = append(os.Environ(), "GOPAR_TEST_CHILD=group", "GOPAR_WORKERS=1")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("child with GOPAR_WORKERS=1 failed: %v\n%s", err, out)
	}
}

// TestGroupGoFromAnyGoroutine: Go on a *Group captured from an enclosing
// function, called from other goroutines while the scope is open (from the
// tasks the Group started, from a ForEach in the body, from plain
// goroutines the body waits for, and from tasks that run after the body
// returned), starts every task exactly once. Run in child processes at
// GOPAR_WORKERS=4 and 8 too, and under -race.
func TestGroupGoFromAnyGoroutine(t *testing.T) {
	const (
		tasks      = 16
		leaves     = 8
		items      = 64
		goroutines = 4
		total      = tasks + tasks*leaves + items + goroutines
	)
	rounds := 40 / race.Scale
	for round := range rounds {
		var ran [total]atomic.Int32
		work := func() { par.Sum(par.Map(par.Range(0, 256), mixInt)) }
		par.Scope(func(outer *par.Group) {
			for k := range tasks {
				outer.Go(func(*par.Group) {
					ran[k].Add(1)
					for l := range leaves {
						// The enclosing function's Group, from a task.
						outer.Go(func(*par.Group) { work(); ran[tasks+k*leaves+l].Add(1) })
					}
				})
			}
			par.Range(0, items).ForEach(func(i int) {
				work()
				outer.Go(func(*par.Group) { ran[tasks+tasks*leaves+i].Add(1) })
			})
			var wg sync.WaitGroup
			for k := range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					outer.Go(func(*par.Group) { ran[total-goroutines+k].Add(1) })
				}()
			}
			wg.Wait()
		})
		for id := range ran {
			if c := ran[id].Load(); c != 1 {
				t.Fatalf("round %d: task %d of %d ran %d times before Scope returned", round, id, total, c)
			}
		}
	}
	if os.Getenv("GOPAR_TEST_CHILD") == "anygoroutine" {
		return
	}
	for _, workers := range []string{"4", "8"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestGroupGoFromAnyGoroutine$", "-test.v")
		cmd.Env = append(os.Environ(), "GOPAR_TEST_CHILD=anygoroutine", "GOPAR_WORKERS="+workers)
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "PASS") {
			t.Fatalf("child with GOPAR_WORKERS=%s failed: %v\n%s", workers, err, out)
		}
	}
}

// chainLeft counts the tasks that chainTask still has to start.
var chainLeft atomic.Int64

// chainTask starts the next task of a chain until chainLeft runs out. It
// is a plain function, not a closure, so that Go allocates nothing for it.
func chainTask(g *par.Group) {
	if chainLeft.Add(-1) > 0 {
		g.Go(chainTask)
	}
}

// TestGroupGoAllocatesNothing: a task whose function is not a closure
// allocates nothing of gopar's: the tasks a worker runs in a scope share
// one *Group, and the task's record is reused. A Group allocated per task
// makes a chain of n tasks cost n allocations.
func TestGroupGoAllocatesNothing(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector allocates")
	}
	if !identityKnown {
		t.Skip("without goroutine identity every Go hands its task over, which allocates")
	}
	const n = 1000
	allocs := testing.AllocsPerRun(20, func() {
		chainLeft.Store(n)
		par.Scope(func(g *par.Group) { g.Go(chainTask) })
		if left := chainLeft.Load(); left != 0 {
			t.Fatalf("the chain stopped with %d tasks left", left)
		}
	})
	if allocs > n/10 {
		t.Errorf("a chain of %d tasks allocated %.0f objects per run, want at most %d", n, allocs, n/10)
	}
}

// TestGroupOfANestedScope: a task of an inner Scope receives the inner
// scope's Group, even on a worker whose last tasks ran in the outer scope
// (they share a Group there): the inner tasks' own tasks are the inner
// scope's, so the inner Scope returns only after them. A Group kept per
// worker without its scope would start them in the outer scope, which does
// not wait for them in the inner Scope's place.
func TestGroupOfANestedScope(t *testing.T) {
	const outer, inner = 32, 16
	rounds := 20 / race.Scale
	for range rounds {
		par.Scope(func(g *par.Group) {
			for range outer {
				g.Go(func(*par.Group) {
					var ran atomic.Int32
					par.Scope(func(g *par.Group) {
						for range inner {
							g.Go(func(g *par.Group) {
								g.Go(func(*par.Group) { ran.Add(1) })
							})
						}
					})
					if n := ran.Load(); n != inner {
						t.Errorf("the inner Scope returned with %d of its %d tasks' tasks run", n, inner)
					}
				})
			}
		})
	}
}
