package par_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/par"
)

// TestClosedPool: an operation on a closed pool panics with ErrClosed
// before any item runs, whatever the size of the input (a small input that
// would finish inline must not slip through, nor an empty one) and whatever
// the operation and mode.
func TestClosedPool(t *testing.T) {
	pool, err := par.NewPool(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	add := func(a, b int) int { return a + b }
	for _, n := range []int{0, 1, 10, 20, 1 << 16} {
		var ran atomic.Int64
		count := func(i int) int { ran.Add(1); return i }
		r := par.Range(0, n).WithPool(pool)
		for _, c := range []struct {
			name string
			run  func()
		}{
			{"ForEach", func() { r.ForEach(func(i int) { count(i) }) }},
			{"Sum", func() { r.Map(count).Sum() }},
			{"float Sum", func() { par.Sum(par.Map(r, func(i int) float64 { return float64(count(i)) })) }},
			{"Collect", func() { r.Map(count).Collect() }},
			{"Reduce", func() { r.Reduce(func() int { return 0 }, func(a, b int) int { count(0); return a + b }) }},
			{"TryForEach", func() { _ = r.TryForEach(func(i int) error { count(i); return nil }) }},
			{"TryMap", func() { par.TryMap(r, func(i int) (int, error) { return count(i), nil }) }},
			{"Blocking", func() { r.Blocking(4).ForEach(func(i int) { count(i) }) }},
			{"with a context", func() { r.WithContext(context.Background()).ForEach(func(i int) { count(i) }) }},
			{"Blocks", func() { r.Blocks(func(lo, hi int) { count(lo) }) }},
			{"ReduceBlocks", func() { par.ReduceBlocks(r, func(lo, hi int) int { return count(lo) }, add) }},
			{"Chunks", func() { par.Chunks(make([]int, n), 7).WithPool(pool).ForEach(func([]int) { count(0) }) }},
			{"FromSeq", func() { par.FromSeq(slices.Values(make([]int, n))).WithPool(pool).ForEach(func(i int) { count(i) }) }},
		} {
			func() {
				defer func() {
					if v := recover(); v != par.ErrClosed {
						t.Errorf("n=%d: %s panicked with %v, want ErrClosed", n, c.name, v)
					}
				}()
				c.run()
			}()
			if k := ran.Swap(0); k != 0 {
				t.Errorf("n=%d: %s ran %d items on a closed pool", n, c.name, k)
			}
		}
	}
}

// TestClosedPoolMessage: the panic of a closed pool tells a par user what
// to call: par.NewPool, not the runtime package's New.
func TestClosedPoolMessage(t *testing.T) {
	pool, err := par.NewPool(1)
	if err != nil {
		t.Fatal(err)
	}
	pool.Close()
	mustPanicWith(t, "par.NewPool", func() { par.Range(0, 10).WithPool(pool).Sum() })
}
