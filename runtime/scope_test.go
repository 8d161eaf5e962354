package runtime

import (
	"errors"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
)

// TestScopeRunsEverySpawnOnce spawns a tree of tasks in which tasks spawn
// more, and checks each ran exactly once before Scope returned.
func TestScopeRunsEverySpawnOnce(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	for _, workers := range []int{1, 4} {
		p := newPool(t, workers)
		const depth = 12
		counts := make([]atomic.Int32, 1<<depth)
		var spawn func(s Scope, node, level int)
		spawn = func(s Scope, node, level int) {
			if level == depth {
				counts[node-(1<<depth)].Add(1)
				return
			}
			s.Spawn(func(s Scope) { spawn(s, 2*node, level+1) })
			s.Spawn(func(s Scope) { spawn(s, 2*node+1, level+1) })
		}
		p.Scope(func(s Scope) { spawn(s, 1, 0) })
		if diff := onceDiff(counts); diff != "" {
			t.Fatalf("workers=%d: leaves not run exactly once (-want +got, runs by index):\n%s", workers, diff)
		}
	}
}

func TestScopePanicsAfterTheRestFinished(t *testing.T) {
	p := newPool(t, 2)
	boom := errors.New("boom")
	var finished atomic.Int32
	r := func() (r any) {
		defer func() { r = recover() }()
		p.Scope(func(s Scope) {
			for i := range 100 {
				s.Spawn(func(Scope) {
					if i == 50 {
						panic(boom)
					}
					finished.Add(1)
				})
			}
		})
		return nil
	}()
	pe, ok := r.(*Panic)
	if !ok || !errors.Is(pe, boom) {
		t.Fatalf("recovered %v, want *Panic of boom", r)
	}
	if finished.Load() != 99 {
		t.Fatalf("%d of the 99 other tasks finished before Scope re-panicked", finished.Load())
	}
}

func TestScopeOnNilWorker(t *testing.T) {
	var w *Worker
	n := 0
	w.Scope(func(s Scope) {
		s.Spawn(func(s Scope) { n++; s.Spawn(func(Scope) { n++ }) })
	})
	if n != 2 {
		t.Fatalf("nil-worker scope ran %d tasks, want 2", n)
	}
}

func TestGoRunsOnAWorker(t *testing.T) {
	p := newPool(t, 2)
	// The caller blocks on a channel (it does not help), so only a worker
	// can run the job.
	onPool := make(chan bool)
	p.Go(func(w *Worker) { onPool <- w.isPool })
	if !<-onPool {
		t.Fatal("Pool.Go ran its function off the pool's workers")
	}
}

// TestScopeSpawnFromAnyGoroutine: Spawn on a Scope captured from an
// enclosing function, called from other goroutines while the scope is open
// (from the tasks it spawned, from the b of a Join in the body, which
// another worker may steal, and from plain goroutines the body waits for),
// runs every task exactly once, on pools of 1 to 8 workers.
func TestScopeSpawnFromAnyGoroutine(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	const (
		tasks      = 16
		leaves     = 8
		joins      = 16
		goroutines = 4
		total      = tasks + tasks*leaves + 2*joins + goroutines
	)
	rounds := 100 / race.Scale
	for _, workers := range []int{1, 2, 4, 8} {
		p := newPool(t, workers)
		for round := range rounds {
			counts := make([]atomic.Int32, total)
			p.Scope(func(outer Scope) {
				for k := range tasks {
					outer.Spawn(func(Scope) {
						counts[k].Add(1)
						for l := range leaves {
							// The enclosing function's Scope, from a task.
							outer.Spawn(func(Scope) { counts[tasks+k*leaves+l].Add(1) })
						}
					})
				}
				for k := range joins {
					outer.Worker().Join(
						func(*Worker) { outer.Spawn(func(Scope) { counts[tasks+tasks*leaves+2*k].Add(1) }) },
						func(*Worker) { outer.Spawn(func(Scope) { counts[tasks+tasks*leaves+2*k+1].Add(1) }) },
					)
				}
				var wg sync.WaitGroup
				for k := range goroutines {
					wg.Add(1)
					go func() {
						defer wg.Done()
						outer.Spawn(func(Scope) { counts[total-goroutines+k].Add(1) })
					}()
				}
				wg.Wait()
			})
			if diff := onceDiff(counts); diff != "" {
				t.Fatalf("workers=%d round %d: tasks not run exactly once (-want +got, runs by index):\n%s", workers, round, diff)
			}
		}
	}
}

// chainTask spawns the next task of a chain, until the last: a task that
// spawns a task, and nothing else.
type chainTask struct {
	next *chainTask
	ran  int
}

func (c *chainTask) Run(s Scope) {
	c.ran++
	if c.next != nil {
		spawnTask(s, c.next)
	}
}

// TestScopeTasksAreRecycled: a task's children are the scope's (their
// parent is the scope's frame, not the task that spawned them), so a task
// that spawns tasks leaves its job for reuse, and a chain of n tasks that
// each spawn the next allocates far fewer than n jobs. With the spawning
// task as their parent, each job would be kept for its child: n
// allocations per run.
func TestScopeTasksAreRecycled(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector allocates")
	}
	p := newPool(t, 2)
	if !useCurG.Load() {
		t.Skip("without goroutine identity every spawn is a foreign one, which allocates its hand-over")
	}
	const n = 1000
	chain := make([]chainTask, n)
	for i := range n - 1 {
		chain[i].next = &chain[i+1]
	}
	runs := 0
	allocs := testing.AllocsPerRun(20, func() {
		runs++
		p.Scope(func(s Scope) { spawnTask(s, &chain[0]) })
	})
	for i := range chain {
		if chain[i].ran != runs {
			t.Fatalf("task %d ran %d times in %d runs", i, chain[i].ran, runs)
		}
	}
	if allocs > n/10 {
		t.Errorf("a chain of %d tasks allocated %.0f objects per run, want at most %d", n, allocs, n/10)
	}
}

// TestRegionKeepsItsJob: a task that enters a region (here a nested Scope,
// whose body spawns into the outer one) keeps its job from reuse, since
// the spawned task, which outlives both, has the region and the job in its
// chain of parents. A reused job there would put a stranger's frame in the
// chain, or close it into a cycle that a wait's test walks for ever
// (FuzzScope hung so).
func TestRegionKeepsItsJob(t *testing.T) {
	p := newPool(t, 1)
	kept := make(chan bool, 1)
	ran := make(chan struct{}, 1)
	p.Scope(func(s Scope) {
		s.Spawn(func(s Scope) {
			w := s.Worker()
			w.Scope(func(Scope) { s.Spawn(func(Scope) { ran <- struct{}{} }) })
			kept <- w.at.forked
		})
	})
	<-ran
	if !<-kept {
		t.Error("a task that entered a nested Scope may have its job reused")
	}
}
