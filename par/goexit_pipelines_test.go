package par_test

import (
	"fmt"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// TestGoexitPipelines: runtime.Goexit (t.Fatal) in the callback of each
// operation of issue 24's parts 3 to 6, at the first, a middle and the last
// item, ends the calling goroutine with Goexit once every callback that was
// running has returned, and leaves the default pool whole.
func TestGoexitPipelines(t *testing.T) {
	n := 30_000 / race.Scale
	ops := []struct {
		name string
		run  func(f func(i int))
	}{
		{"ForEachIndex", func(f func(int)) { par.Range(0, n).ForEachIndex(func(i, _ int) { f(i) }) }},
		{"ForEachPtr", func(f func(int)) { par.ForEachPtr(make([]int, n), func(i int, _ *int) { f(i) }) }},
		{"Partition", func(f func(int)) { par.Range(0, n).Partition(func(i int) bool { f(i); return i%2 == 0 }) }},
		{"ScanInclusive", func(f func(int)) {
			xs := make([]int, n)
			for i := range xs {
				xs[i] = i
			}
			// op sees item i as its right operand.
			par.ScanInclusive(xs, xs, 0, func(a, b int) int { f(b); return a + b })
		}},
		{"ScanExclusive", func(f func(int)) {
			xs := make([]int, n)
			for i := range xs {
				xs[i] = i
			}
			par.ScanExclusive(make([]int, n), xs, 0, func(a, b int) int { f(b); return a + b })
		}},
		{"JoinAll", func(f func(int)) {
			fns := make([]func(), 16)
			for k := range fns {
				fns[k] = func() {
					for i := k * n / 16; i < (k+1)*n/16; i++ {
						f(i)
					}
				}
			}
			par.JoinAll(fns...)
		}},
		// The index adapters: over a stream, the steps before them run on
		// a goroutine of the adapter's (restream); over a range, they are
		// index arithmetic.
		{"FromSeq.Filter.Take", func(f func(int)) {
			seq := func(yield func(int) bool) {
				for i := 0; i < n && yield(i); i++ {
				}
			}
			par.FromSeq(seq).Filter(func(i int) bool { f(i); return true }).Take(n).ForEach(func(int) {})
		}},
		{"Chain.Skip", func(f func(int)) {
			par.Range(0, n/2).Chain(par.Range(n/2, n)).Skip(0).ForEach(f)
		}},
		{"Enumerate", func(f func(int)) {
			par.Enumerate(par.Range(0, n)).ForEach(func(p par.Pair[int, int]) { f(p.Value) })
		}},
		{"Scope", func(f func(int)) {
			par.Scope(func(g *par.Group) {
				for k := range 16 {
					g.Go(func(*par.Group) {
						for i := k * n / 16; i < (k+1)*n/16; i++ {
							f(i)
						}
					})
				}
			})
		}},
	}
	for _, op := range ops {
		for _, at := range []int{0, n / 2, n - 1} {
			if op.name == "ScanInclusive" && at == 0 {
				continue // an inclusive scan starts from item 0 and never calls op on it
			}
			what := fmt.Sprintf("%s, Goexit at item %d of %d", op.name, at, n)
			checkGoexitAt(t, what, at, op.run)
		}
	}
	checkWhole(t, par.DefaultPool())
}
