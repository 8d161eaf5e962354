package par_test

import (
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/par"
)

// A closed pool panics with ErrClosed before running any item, for every
// terminal operation and whatever the input size: a small input that would
// finish inline must not slip through.
func TestClosedPoolPanicsBeforeAnyItem(t *testing.T) {
	pool, err := par.NewPool(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 10, 20, 1 << 16} {
		var ran atomic.Int64
		count := func(int) { ran.Add(1) }
		ops := map[string]func(){
			"ForEach": func() { par.Range(0, n).WithPool(pool).ForEach(count) },
			"Sum":     func() { par.Range(0, n).WithPool(pool).Map(func(i int) int { count(i); return i }).Sum() },
			"Collect": func() { par.Range(0, n).WithPool(pool).Map(func(i int) int { count(i); return i }).Collect() },
			"Reduce": func() {
				par.Range(0, n).WithPool(pool).Reduce(func() int { return 0 }, func(a, b int) int { count(0); return a + b })
			},
			"TryForEach": func() {
				_ = par.Range(0, n).WithPool(pool).TryForEach(func(int) error { count(0); return nil })
			},
		}
		for name, op := range ops {
			func() {
				defer func() {
					if r := recover(); r != par.ErrClosed {
						t.Errorf("n=%d: %s on a closed pool recovered %v, want par.ErrClosed", n, name, r)
					}
				}()
				op()
			}()
			if c := ran.Load(); c != 0 {
				t.Errorf("n=%d: %s on a closed pool ran %d items, want 0", n, name, c)
			}
		}
	}
}
