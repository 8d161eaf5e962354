package par_test

import (
	"errors"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// indexed collects what ForEachIndex hands out, as (index, item) pairs
// sorted by index and then item.
func indexed[T any](it par.Iter[T], key func(T) int) [][2]int {
	var mu sync.Mutex
	var got [][2]int
	it.ForEachIndex(func(i int, x T) {
		mu.Lock()
		got = append(got, [2]int{i, key(x)})
		mu.Unlock()
	})
	slices.SortFunc(got, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return got
}

// TestForEachIndex checks the index of every form of source and adapter
// against a loop over slices.All of the same items.
func TestForEachIndex(t *testing.T) {
	id := func(x int) int { return x }
	for _, n := range sizes {
		xs := make([]int, n)
		for i := range xs {
			xs[i] = int(mixInt(i) % 1000)
		}
		want := func(keep func(i, x int) bool, times int, f func(x int) int) [][2]int {
			var out [][2]int
			for i, x := range slices.All(xs) {
				if keep(i, x) {
					for range times {
						out = append(out, [2]int{i, f(x)})
					}
				}
			}
			return out
		}
		all := func(int, int) bool { return true }
		even := func(_, x int) bool { return x%2 == 0 }
		double := func(x int) int { return 2 * x }
		cases := []struct {
			name string
			got  [][2]int
			want [][2]int
		}{
			{"Slice", indexed(par.Slice(xs), id), want(all, 1, id)},
			{"Slice.Map", indexed(par.Slice(xs).Map(double), id), want(all, 1, double)},
			{"Slice.Filter", indexed(par.Slice(xs).Filter(func(x int) bool { return x%2 == 0 }), id), want(even, 1, id)},
			{"FlatMap", indexed(par.FlatMap(par.Slice(xs), func(x int) []int { return []int{x, x} }), id), want(all, 2, id)},
			{"FromSeq", indexed(par.FromSeq(slices.Values(xs)), id), want(all, 1, id)},
			{"Range", indexed(par.Range(-7, n-7).Map(func(i int) int { return xs[i+7] }).Iter, id), want(all, 1, id)},
			{"Range items", indexed(par.Range(-7, n-7).Iter, func(i int) int { return xs[i+7] }), want(all, 1, id)},
			{"Blocking", indexed(par.Slice(xs).Blocking(4), id), want(all, 1, id)},
		}
		for _, c := range cases {
			if !slices.Equal(c.got, c.want) {
				t.Fatalf("n=%d %s: ForEachIndex gave %d pairs, want %d (first difference somewhere in %v...)", n, c.name, len(c.got), len(c.want), c.got[:min(len(c.got), 5)])
			}
		}
	}
}

func TestForEachPtr(t *testing.T) {
	for _, n := range sizes {
		xs := make([]uint64, n)
		par.ForEachPtr(xs, func(i int, p *uint64) { *p += mixInt(i) })
		for i, x := range xs {
			if x != mixInt(i) {
				t.Fatalf("n=%d: xs[%d] = %d after one update, want %d", n, i, x, mixInt(i))
			}
		}
	}
	type point struct{ x, y float64 }
	ps := []point{{1, 2}, {3, 4}}
	par.ForEachPtr(ps, func(i int, p *point) { p.x, p.y = p.y, p.x+float64(i) })
	if want := []point{{2, 1}, {4, 4}}; !slices.Equal(ps, want) {
		t.Fatalf("points %v, want %v", ps, want)
	}
	par.ForEachPtr([]int(nil), func(int, *int) { t.Fatal("called on a nil slice") })
}

func TestIndexFormsBadInput(t *testing.T) {
	mustPanicWith(t, "par.ForEachIndex was given a nil function", func() { par.Slice([]int{1}).ForEachIndex(nil) })
	mustPanicWith(t, "par.ForEachPtr was given a nil function", func() { par.ForEachPtr([]int{1}, nil) })
	mustPanicWith(t, "more than an int can count", func() {
		par.Range(math.MinInt, math.MaxInt).ForEachIndex(func(int, int) { t.Error("an item ran") })
	})
	par.Range(5, 0).ForEachIndex(func(int, int) { t.Fatal("called on an empty range") })
	boom := errors.New("boom")
	for _, n := range []int{10, 1 << 20} {
		for name, run := range map[string]func(){
			"ForEachIndex": func() {
				par.Range(0, n).ForEachIndex(func(i, _ int) {
					if i == n-1 {
						panic(boom)
					}
				})
			},
			"ForEachPtr": func() {
				par.ForEachPtr(make([]int, n), func(i int, _ *int) {
					if i == n-1 {
						panic(boom)
					}
				})
			},
		} {
			pv := func() (r any) {
				defer func() { r = recover() }()
				run()
				return nil
			}()
			if p, ok := pv.(*runtime.Panic); !ok || !errors.Is(p, boom) {
				t.Fatalf("%s n=%d: recovered %T %v, want a *runtime.Panic of boom", name, n, pv, pv)
			}
		}
	}
}
