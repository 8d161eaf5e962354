package par_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/par"
)

// scopeTreeDepth: BenchmarkScope's tree has 2^13-1 tasks of 64 mixes each
// (about 0.1 us), small enough that the cost of starting a task shows.
const scopeTreeDepth = 12

// scopeSum keeps the tasks' work alive; both forms pay its atomic add.
var scopeSum atomic.Uint64

func mixWork() uint64 {
	var s uint64
	for i := range 64 {
		s += mix(uint64(i))
	}
	return s
}

// BenchmarkScope starts a binary tree of small tasks: each task starts its
// two children through its own *Group (the common path), against a
// goroutine per task with a WaitGroup. ns/task is the time per task.
func BenchmarkScope(b *testing.B) {
	tasks := float64(int(1)<<(scopeTreeDepth+1) - 1)
	perTask := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/tasks, "ns/task")
	}
	b.Run("group", func(b *testing.B) {
		var node func(g *par.Group, level int)
		node = func(g *par.Group, level int) {
			scopeSum.Add(mixWork())
			if level == scopeTreeDepth {
				return
			}
			g.Go(func(g *par.Group) { node(g, level+1) })
			g.Go(func(g *par.Group) { node(g, level+1) })
		}
		for range b.N {
			par.Scope(func(g *par.Group) { node(g, 0) })
		}
		perTask(b)
	})
	b.Run("goroutine", func(b *testing.B) {
		var node func(wg *sync.WaitGroup, level int)
		node = func(wg *sync.WaitGroup, level int) {
			defer wg.Done()
			scopeSum.Add(mixWork())
			if level == scopeTreeDepth {
				return
			}
			wg.Add(2)
			go node(wg, level+1)
			go node(wg, level+1)
		}
		for range b.N {
			var wg sync.WaitGroup
			wg.Add(1)
			node(&wg, 0)
			wg.Wait()
		}
		perTask(b)
	})
}
