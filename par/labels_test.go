package par_test

import (
	"context"
	"fmt"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/labels"
	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// labelForms are the ways a callback reaches a goroutine other than its
// caller's: every driver (pool loops, Blocking, streams and their
// feeders, restreams, Join, JoinFunc, Scope, TryScope). Each calls
// check in its callbacks, about n times in all.
var labelForms = map[string]func(ctx context.Context, n int, check func()){
	"Range.Map.Sum": func(_ context.Context, n int, check func()) {
		par.Range(0, n).Map(func(i int) int { check(); return int(burnItem(i)) }).Sum()
	},
	"Slice.ForEach": func(_ context.Context, n int, check func()) {
		par.Slice(make([]int, n)).ForEach(func(int) { check(); burn(1) })
	},
	"Fold": func(_ context.Context, n int, check func()) {
		par.Fold(par.Range(0, n), func() int { return 0 },
			func(a, i int) int { check(); return a + int(burnItem(i)) },
			func(a, b int) int { return a + b })
	},
	"WithContext.Sum": func(ctx context.Context, n int, check func()) {
		par.Range(0, n).WithContext(ctx).Map(func(i int) int { check(); return int(burnItem(i)) }).Sum()
	},
	"Blocking": func(_ context.Context, n int, check func()) {
		par.Range(0, n).Blocking(4).ForEach(func(i int) { check(); burn(uint64(i)) })
	},
	"FromSeq.Values": func(_ context.Context, n int, check func()) {
		for range par.Map(par.FromSeq(slices.Values(make([]int, n))), func(i int) int {
			check()
			return int(burnItem(i))
		}).Values() {
			check()
		}
	},
	"FromSeq.ForEach": func(_ context.Context, n int, check func()) {
		par.FromSeq(slices.Values(make([]int, n))).ForEach(func(i int) { check(); burn(uint64(i)) })
	},
	"FromSeq.Filter.Take": func(_ context.Context, n int, check func()) {
		par.FromSeq(slices.Values(make([]int, 2*n))).
			Filter(func(i int) bool { check(); burn(uint64(i)); return true }).
			Take(n).ForEach(func(int) { check() })
	},
	"FromChan": func(_ context.Context, n int, check func()) {
		ch := make(chan int)
		go func() {
			defer close(ch)
			for i := range n {
				ch <- i
			}
		}()
		par.FromChan(ch).ForEach(func(i int) { check(); burn(uint64(i)) })
	},
	"Join": func(_ context.Context, n int, check func()) {
		var rec func(lo, hi int)
		rec = func(lo, hi int) {
			if hi-lo <= 8 {
				for i := lo; i < hi; i++ {
					check()
					burn(uint64(i))
				}
				return
			}
			mid := (lo + hi) / 2
			par.Join(func() { rec(lo, mid) }, func() { rec(mid, hi) })
		}
		rec(0, n)
	},
	"JoinFunc": func(_ context.Context, n int, check func()) {
		var rec func(r [2]int) int
		rec = func(r [2]int) int {
			if r[1]-r[0] <= 8 {
				for i := r[0]; i < r[1]; i++ {
					check()
					burn(uint64(i))
				}
				return 0
			}
			mid := (r[0] + r[1]) / 2
			a, b := par.JoinFunc(rec, [2]int{r[0], mid}, [2]int{mid, r[1]})
			return a + b
		}
		rec([2]int{0, n})
	},
	"Scope": func(_ context.Context, n int, check func()) {
		par.Scope(func(g *par.Group) {
			for i := 0; i < n; i += 16 {
				g.Go(func(*par.Group) {
					for j := i; j < min(i+16, n); j++ {
						check()
						burn(uint64(j))
					}
				})
			}
		})
	},
	"TryScope": func(ctx context.Context, n int, check func()) {
		_ = par.TryScope(ctx, 4, func(ctx context.Context, g *par.TryGroup) error {
			for i := 0; i < n; i += 16 {
				g.Go(func(context.Context, *par.TryGroup) error {
					for j := i; j < min(i+16, n); j++ {
						check()
						burn(uint64(j))
					}
					return nil
				})
			}
			return nil
		})
	},
}

// TestCallbacksWearTheirCallersLabels: callers under different pprof
// labels share the pool, and every callback of every form, on whichever
// goroutine runs it, wears its own caller's labels, as it would on a
// goroutine the caller started with go. A worker that ran a job without
// taking its maker's labels on shows the labels it had (none, or another
// caller's), and the test counts both.
func TestCallbacksWearTheirCallersLabels(t *testing.T) {
	if !labels.Carried {
		t.Skip("built with gopar_nolabels: no labels are carried")
	}
	n := 4096 / race.Scale
	for _, callers := range []int{2, 8} {
		for name, form := range labelForms {
			t.Run(fmt.Sprintf("%s/%d", name, callers), func(t *testing.T) {
				var total, none, other atomic.Int64
				var wg sync.WaitGroup
				for c := range callers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						pprof.Do(context.Background(), pprof.Labels("caller", fmt.Sprint(c)), func(ctx context.Context) {
							mine := labels.Current()
							form(ctx, n, func() {
								total.Add(1)
								switch labels.Current() {
								case mine:
								case labels.Set{}:
									none.Add(1)
								default:
									other.Add(1)
								}
							})
						})
					}()
				}
				wg.Wait()
				if none.Load()+other.Load() > 0 {
					t.Errorf("of %d callbacks, %d wore no labels and %d another caller's", total.Load(), none.Load(), other.Load())
				}
			})
		}
	}
}

// TestWorkersWearNoLabelsWhenIdle: a worker takes off the labels of the
// work it ran, and one that a labelled caller started does not keep that
// caller's: an unlabelled caller's callbacks, wherever they run, wear no
// labels after labelled work has run on every worker.
func TestWorkersWearNoLabelsWhenIdle(t *testing.T) {
	if !labels.Carried {
		t.Skip("built with gopar_nolabels: no labels are carried")
	}
	pool, err := par.NewPool(4)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	pprof.Do(context.Background(), pprof.Labels("caller", "labelled"), func(context.Context) {
		par.Range(0, 4096).WithPool(pool).ForEach(func(i int) { burn(uint64(i)) })
	})
	var labelled atomic.Int64
	par.Range(0, 4096).WithPool(pool).ForEach(func(i int) {
		if labels.Current() != (labels.Set{}) {
			labelled.Add(1)
		}
		burn(uint64(i))
	})
	if labelled.Load() > 0 {
		t.Errorf("%d callbacks of an unlabelled caller wore labels", labelled.Load())
	}
}
