package par

import (
	"cmp"

	"github.com/gopar-dev/gopar/runtime"
)

// Sort, SortFunc and SortStableFunc on a given pool, so that the tests can
// run them with 1, 2, 3 and 8 workers; the exported ones use the default
// pool.

func SortOn[E cmp.Ordered](p *runtime.Pool, xs []E) { sortOrderedOn(p, xs) }

func SortFuncOn[E any](p *runtime.Pool, xs []E, cmp func(a, b E) int) { sortFuncOn(p, xs, cmp) }

func SortStableFuncOn[E any](p *runtime.Pool, xs []E, cmp func(a, b E) int) {
	sortStableFuncOn(p, xs, cmp)
}
