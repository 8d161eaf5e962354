package par_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gopar-dev/gopar/par"
)

// TestTryFoldMergeChecksTheJoin: a bound that every run keeps in fold but
// the runs together pass fails TryFoldMerge on any number of workers and
// whatever the split, as the loop's check fails (TryFold, whose combine
// cannot fail, passes it wherever two runs are joined); a total within
// the bound comes back.
func TestTryFoldMergeChecksTheJoin(t *testing.T) {
	errOver := errors.New("over budget")
	const n, bound = 110_000, 549_999 // the items sum to 550,000
	check := func(total int) (int, error) {
		if total > bound {
			return 0, errOver
		}
		return total, nil
	}
	fold := func(total, i int) (int, error) { return check(total + i%11) }
	for _, p := range scanPools() {
		for _, minBlock := range []int{0, 1, 1000} {
			what := fmt.Sprintf("%d workers, blocks of at least %d", p.Workers(), minBlock)
			it := par.Range(0, n).WithPool(p).WithBlockSize(minBlock, 0)
			got, err := par.TryFoldMerge(it, func() int { return 0 }, fold, func(a, b int) (int, error) { return check(a + b) })
			if !errors.Is(err, errOver) || got != 0 {
				t.Fatalf("%s: TryFoldMerge = %d, %v; want 0 and the budget's error", what, got, err)
			}
			if got, err := par.TryFoldMerge(par.Range(0, n/2).WithPool(p).WithBlockSize(minBlock, 0), func() int { return 0 },
				fold, func(a, b int) (int, error) { return check(a + b) }); err != nil || got != 275_000 {
				t.Fatalf("%s: TryFoldMerge over half = %d, %v; want 275000 and no error", what, got, err)
			}
		}
	}
	mustPanicWith(t, "par.TryFoldMerge (merge) was given a nil function", func() {
		par.TryFoldMerge[int, int](par.Range(0, 1), func() int { return 0 }, func(a, i int) (int, error) { return a, nil }, nil)
	})
}
