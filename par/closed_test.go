package par_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/par"
)

// TestClosedPool: an operation on a closed pool panics with ErrClosed
// before any item runs, whatever the size of the input and the mode.
func TestClosedPool(t *testing.T) {
	pool, err := par.NewPool(2)
	if err != nil {
		t.Fatal(err)
	}
	pool.Close()
	var ran atomic.Int64
	count := func(i int) int { ran.Add(1); return i }
	for _, c := range []struct {
		name string
		run  func()
	}{
		{"Sum of 10", func() { par.Range(0, 10).WithPool(pool).Map(count).Sum() }},
		{"Sum of 10^6", func() { par.Range(0, 1e6).WithPool(pool).Map(count).Sum() }},
		{"ForEach", func() { par.Range(0, 100).WithPool(pool).ForEach(func(i int) { count(i) }) }},
		{"TryMap", func() {
			par.TryMap(par.Range(0, 100).WithPool(pool), func(i int) (int, error) { return count(i), nil })
		}},
		{"Blocking", func() { par.Range(0, 100).WithPool(pool).Blocking(4).ForEach(func(i int) { count(i) }) }},
		{"float Sum of nothing", func() { par.Numbers([]float64{}).WithPool(pool).Sum() }},
		{"Fold", func() {
			par.Fold(par.Range(0, 100).WithPool(pool), func() int { return 0 },
				func(a, i int) int { return a + count(i) }, func(a, b int) int { return a + b })
		}},
		{"Min", func() { par.Min(par.Map(par.Range(0, 100).WithPool(pool), count)) }},
		{"FilterMap", func() {
			par.FilterMap(par.Range(0, 100).WithPool(pool), func(i int) (int, bool) { return count(i), true }).Collect()
		}},
		{"FromSeq", func() {
			par.FromSeq(func(yield func(int) bool) { yield(count(0)) }).WithPool(pool).ForEach(func(int) {})
		}},
		{"with a context", func() {
			par.Range(0, 100).WithPool(pool).WithContext(context.Background()).ForEach(func(i int) { count(i) })
		}},
	} {
		func() {
			defer func() {
				if v := recover(); v != par.ErrClosed {
					t.Errorf("%s: panicked with %v, want ErrClosed", c.name, v)
				}
			}()
			c.run()
		}()
	}
	if ran.Load() != 0 {
		t.Errorf("%d items ran on a closed pool", ran.Load())
	}
}
