package par_test

import (
	"slices"
	"testing"

	"github.com/gopar-dev/gopar/par"
)

// TestFoldEveryForm folds every form of source and adapter (each takes its
// own loop in pipe.FoldBlock) into an order-sensitive accumulator and
// checks it against a loop over the same items.
func TestFoldEveryForm(t *testing.T) {
	for _, n := range sizes {
		xs := make([]int, n)
		for i := range xs {
			xs[i] = int(mixInt(i) % 1000)
		}
		// appendInts keeps the order: any item folded out of place or
		// twice shows in the result.
		fold := func(it par.Iter[int]) []int {
			return par.Fold(it,
				func() []int { return nil },
				func(acc []int, x int) []int { return append(acc, x) },
				func(a, b []int) []int { return append(a, b...) })
		}
		var odd, twice []int
		for _, x := range xs {
			if x%2 == 1 {
				odd = append(odd, x)
			}
			twice = append(twice, x, x)
		}
		ints := make([]int, n)
		for i := range ints {
			ints[i] = i - 3
		}
		for name, c := range map[string]struct {
			it   par.Iter[int]
			want []int
		}{
			"Slice":   {par.Slice(xs), xs},
			"Range":   {par.Range(-3, n-3).Iter, ints},
			"Map":     {par.Range(0, n).Map(func(i int) int { return xs[i] }).Iter, xs},
			"Filter":  {par.Slice(xs).Filter(func(x int) bool { return x%2 == 1 }), odd},
			"FlatMap": {par.FlatMap(par.Slice(xs), func(x int) []int { return []int{x, x} }), twice},
		} {
			if got := fold(c.it); !slices.Equal(got, c.want) {
				t.Fatalf("n=%d %s: Fold gave %d items, want %d in source order", n, name, len(got), len(c.want))
			}
		}
	}
}
