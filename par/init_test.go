package par_test

import (
	"errors"
	"fmt"
	goruntime "runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// scratch is a per-goroutine state whose field is written without
// synchronisation: two goroutines using one at once is a race the detector
// reports.
type scratch struct {
	uses int
	buf  []int
}

// initCounter makes scratch values and counts them.
type initCounter struct{ made atomic.Int64 }

func (c *initCounter) init() *scratch {
	c.made.Add(1)
	return &scratch{buf: make([]int, 0, 16)}
}

// use is a call of f that works on the state: the result depends on x
// only, the state being scratch space.
func use(s *scratch, x int) int {
	s.uses++
	s.buf = append(s.buf[:0], x, x)
	return s.buf[0] + s.buf[1]
}

// TestMapInitCalls: init is called at most once per participant, whatever
// the number of items, blocks, batches and operations, where Rayon's
// map_init calls it per split (its issue 718: about 2,000 times for 4,000
// items). Without the free list (init per block) this fails at once.
func TestMapInitCalls(t *testing.T) {
	n := 1 << 20
	if race.Enabled {
		n = 1 << 16
	}
	for _, workers := range []int{1, 2, 4, 8} {
		pool := newPool(t, workers)
		for _, items := range []int{4000, n} {
			c := &initCounter{}
			it := par.MapInit(par.Range(0, items).WithPool(pool), c.init, use)
			want := items * (items - 1) // the sum of 2x
			for range 3 {
				if got := par.Sum(it); got != want {
					t.Fatalf("Sum %d, want %d", got, want)
				}
			}
			if m := c.made.Load(); m < 1 || m > int64(workers) {
				t.Fatalf("%d workers, %d items: init called %d times", workers, items, m)
			}
		}
		// Over FromSeq: a loop per batch, the values reused by all.
		c := &initCounter{}
		it := par.MapInit(par.FromSeq((&counted{n: n}).seq).WithPool(pool), c.init, use)
		if got := par.Sum(it); got != n*(n-1) {
			t.Fatalf("FromSeq Sum %d", got)
		}
		if m := c.made.Load(); m > int64(workers) {
			t.Fatalf("%d workers, FromSeq: init called %d times", workers, m)
		}
	}
	// Blocking: at most the limit.
	c := &initCounter{}
	par.ForEachInit(par.Range(0, 2000).Blocking(8), c.init, func(s *scratch, x int) { use(s, x) })
	if m := c.made.Load(); m < 1 || m > 8 {
		t.Fatalf("Blocking(8): init called %d times", m)
	}
}

// TestMapInitEveryOperation: a MapInit stage gives the same results as
// the same Map through every terminal operation and the adapters after
// it, with each state used by one goroutine at a time (run with -race).
func TestMapInitEveryOperation(t *testing.T) {
	n := 200_000
	if race.Enabled {
		n = 20_000
	}
	plain := par.Map(par.Range(0, n), func(x int) int { return 2 * x })
	c := &initCounter{}
	withInit := par.MapInit(par.Range(0, n), c.init, use)
	odd := func(x int) bool { return x%4 == 2 }
	ops := map[string]func(it par.Iter[int]) string{
		"collect": func(it par.Iter[int]) string { return fmt.Sprint(len(it.Collect()), it.Collect()[n/2]) },
		"filter":  func(it par.Iter[int]) string { return fmt.Sprint(it.Filter(odd).Collect()[:10]) },
		"count":   func(it par.Iter[int]) string { return fmt.Sprint(it.Filter(odd).Count()) },
		"sum":     func(it par.Iter[int]) string { return fmt.Sprint(par.Sum(it)) },
		"map-sum": func(it par.Iter[int]) string { return fmt.Sprint(par.Sum(it.Map(func(x int) int { return x + 1 }))) },
		"first": func(it par.Iter[int]) string {
			v, ok := it.FindFirst(func(x int) bool { return x > n })
			return fmt.Sprint(v, ok)
		},
		"every": func(it par.Iter[int]) string { return fmt.Sprint(it.Every(func(x int) bool { return x%2 == 0 })) },
		"max":   func(it par.Iter[int]) string { v, ok := par.Max(it); return fmt.Sprint(v, ok) },
		"fold": func(it par.Iter[int]) string {
			return fmt.Sprint(par.Fold(it, func() int { return 0 }, func(a, x int) int { return a ^ x }, func(a, b int) int { return a ^ b }))
		},
		"trymap": func(it par.Iter[int]) string {
			out, err := par.TryMap(it, func(x int) (int, error) { return x / 2, nil })
			return fmt.Sprint(len(out), out[n-1], err)
		},
		"filtermap": func(it par.Iter[int]) string {
			return fmt.Sprint(par.FilterMap(it, func(x int) (int, bool) { return x, odd(x) }).Collect()[:5])
		},
		"flatmap": func(it par.Iter[int]) string {
			return fmt.Sprint(par.Sum(par.FlatMap(it, func(x int) []int { return []int{x, 1} })))
		},
		"values": func(it par.Iter[int]) string { return fmt.Sprint(slices.Collect(it.Values())[n-1]) },
		"partition": func(it par.Iter[int]) string {
			yes, no := it.Partition(odd)
			return fmt.Sprint(len(yes), len(no), yes[:3], no[:3])
		},
		"foreachindex": func(it par.Iter[int]) string {
			var sum atomic.Int64
			it.ForEachIndex(func(i, x int) { sum.Add(int64(i ^ x)) })
			return fmt.Sprint(sum.Load())
		},
		"nested": func(it par.Iter[int]) string {
			c2 := &initCounter{}
			return fmt.Sprint(par.Sum(par.MapInit(it, c2.init, use)))
		},
	}
	for name, op := range ops {
		if got, want := op(withInit), op(plain); got != want {
			t.Errorf("%s: %s with MapInit, %s with Map", name, got, want)
		}
	}
	if m := c.made.Load(); m > int64(par.DefaultPool().Workers()) {
		t.Errorf("init called %d times over %d operations", m, len(ops))
	}
}

// TestMapInitBadInput: nil functions are refused where the pipeline is
// built; an empty input never calls init; a panic in init or f reaches the
// caller as a *par.Panic, and the pipeline still works afterwards.
func TestMapInitBadInput(t *testing.T) {
	for name, build := range map[string]func(){
		"MapInit (init)":     func() { par.MapInit(par.Range(0, 1), nil, use) },
		"MapInit":            func() { par.MapInit[int, *scratch, int](par.Range(0, 1), (&initCounter{}).init, nil) },
		"ForEachInit (init)": func() { par.ForEachInit[int, *scratch](par.Range(0, 1), nil, func(*scratch, int) {}) },
		"ForEachInit":        func() { par.ForEachInit[int, *scratch](par.Range(0, 1), (&initCounter{}).init, nil) },
	} {
		func() {
			defer func() {
				if msg := fmt.Sprint(recover()); !strings.Contains(msg, "par."+name+" was given a nil function") {
					t.Errorf("%s: panic %q", name, msg)
				}
			}()
			build()
		}()
	}

	c := &initCounter{}
	par.ForEachInit(par.Range(0, 0), c.init, func(*scratch, int) { t.Error("an item of an empty range") })
	par.ForEachInit(par.Range(3, -3), c.init, func(*scratch, int) { t.Error("an item of a reversed range") })
	if m := c.made.Load(); m != 0 {
		t.Errorf("init called %d times on empty input", m)
	}

	errInit, errF := errors.New("init failed"), errors.New("f failed")
	for name, it := range map[string]par.Iter[int]{
		"init": par.MapInit(par.Range(0, 1000), func() *scratch { panic(errInit) }, use),
		"f": par.MapInit(par.Range(0, 100_000), (&initCounter{}).init, func(s *scratch, x int) int {
			if x == 77_777 {
				panic(errF)
			}
			return use(s, x)
		}),
	} {
		func() {
			defer func() {
				v := recover()
				var p *par.Panic
				if e, ok := v.(error); !ok || !errors.As(e, &p) || !(errors.Is(e, errInit) || errors.Is(e, errF)) {
					t.Errorf("%s panicked: recovered %v", name, v)
				}
			}()
			par.Sum(it)
		}()
	}
	c = &initCounter{}
	it := par.MapInit(par.Range(0, 100), c.init, use)
	if par.Sum(it) != 9900 || par.Sum(it) != 9900 {
		t.Error("wrong sum")
	}
}

// TestForEachInitGoexit: runtime.Goexit in f (t.Fatal) on the caller's
// goroutine, with a one-worker pool that runs every item there, ends the
// caller's goroutine.
func TestForEachInitGoexit(t *testing.T) {
	pool := newPool(t, 1)
	after := false
	if !goexitOf(func() {
		par.ForEachInit(par.Range(0, 100).WithPool(pool), (&initCounter{}).init, func(s *scratch, x int) {
			if x == 50 {
				goruntime.Goexit()
			}
		})
		after = true
	}) || after {
		t.Fatal("Goexit in f did not end the caller's goroutine")
	}
}
