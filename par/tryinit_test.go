package par_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	goruntime "runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// tryInitMode is a source of the items 0..n-1 and the most goroutines that
// run its loop at once: init may be called that many times. On a pool of
// w workers that is w+1: while the caller runs its first block, a worker
// may take the rest of the loop and run it with w-1 helpers.
type tryInitMode struct {
	name string
	src  func(n int) par.Iter[int]
	most int
}

func tryInitModes(t *testing.T) []tryInitMode {
	var modes []tryInitMode
	for _, w := range []int{1, 2, 3, 8} {
		pool := newPool(t, w)
		modes = append(modes, tryInitMode{fmt.Sprintf("pool of %d", w), func(n int) par.Iter[int] {
			return par.Range(0, n).WithPool(pool).Iter
		}, w + 1})
	}
	pool := newPool(t, 3)
	return append(modes,
		tryInitMode{"Filter", func(n int) par.Iter[int] {
			return par.Range(0, 2*n).WithPool(pool).Filter(func(i int) bool { return i < n }).Iter
		}, 4},
		tryInitMode{"Blocking(4)", func(n int) par.Iter[int] { return par.Range(0, n).Blocking(4).Iter }, 4},
		tryInitMode{"FromSeq", func(n int) par.Iter[int] { return par.FromSeq(slices.Values(errsItems(n))).WithPool(pool) }, 4},
		tryInitMode{"FromSeq Blocking(3)", func(n int) par.Iter[int] { return par.FromSeq(slices.Values(errsItems(n))).Blocking(3) }, 3},
	)
}

// stateChecker makes per-goroutine states and checks that no two calls use
// one at once.
type stateChecker struct {
	made atomic.Int64
	bad  atomic.Int64
}

type tryState struct {
	busy atomic.Bool
	s    scratch // written without synchronisation: the race detector sees sharing
}

func (c *stateChecker) init() *tryState {
	c.made.Add(1)
	return &tryState{}
}

// use marks st busy for the call of f, and returns f's result on st.
func (c *stateChecker) use(st *tryState, x int) int {
	if !st.busy.CompareAndSwap(false, true) {
		c.bad.Add(1)
		return use(&st.s, x)
	}
	defer st.busy.Store(false)
	return use(&st.s, x)
}

func (c *stateChecker) check(t *testing.T, what string, most int) {
	t.Helper()
	if b := c.bad.Load(); b > 0 {
		t.Errorf("%s: a state was used by two calls at once, %d times", what, b)
	}
	if m := c.made.Load(); m < 1 || m > int64(most) {
		t.Errorf("%s: init called %d times, want 1 to %d", what, m, most)
	}
}

// TestTryMapInitResults: with no error, every result in source order,
// every item run once, init called at most once per goroutine running the
// loop, each state used by one call at a time.
func TestTryMapInitResults(t *testing.T) {
	for _, mode := range tryInitModes(t) {
		n := errsCount(mode.name) * 5
		calls := make([]atomic.Int32, n)
		c := &stateChecker{}
		got, err := par.TryMapInit(mode.src(n), c.init, func(st *tryState, x int) (int, error) {
			calls[x].Add(1)
			return c.use(st, x), nil
		})
		if err != nil || len(got) != n {
			t.Fatalf("%s: %d results, %v", mode.name, len(got), err)
		}
		for i, v := range got {
			if v != 2*i || calls[i].Load() != 1 {
				t.Fatalf("%s: result %d is %d after %d calls", mode.name, i, v, calls[i].Load())
			}
		}
		c.check(t, mode.name, mode.most)

		c = &stateChecker{}
		var sum atomic.Int64
		err = par.TryForEachInit(mode.src(n), c.init, func(st *tryState, x int) error {
			sum.Add(int64(c.use(st, x)))
			return nil
		})
		if err != nil || sum.Load() != int64(n)*int64(n-1) {
			t.Fatalf("%s: TryForEachInit: sum %d, %v", mode.name, sum.Load(), err)
		}
		c.check(t, mode.name+", TryForEachInit", mode.most)
	}
}

// TestTryMapInitInitCount: init's calls do not grow with the number of
// items: at most one per goroutine running the loop at once (see
// tryInitMode).
func TestTryMapInitInitCount(t *testing.T) {
	n := 1 << 20 / race.Scale
	for _, w := range []int{1, 2, 4, 8} {
		pool := newPool(t, w)
		for _, items := range []int{4000, n} {
			c := &initCounter{}
			if _, err := par.TryMapInit(par.Range(0, items).WithPool(pool), c.init, func(s *scratch, x int) (int, error) {
				return use(s, x), nil
			}); err != nil {
				t.Fatal(err)
			}
			if m := c.made.Load(); m < 1 || m > int64(w+1) {
				t.Errorf("%d workers, %d items: init called %d times", w, items, m)
			}
		}
	}
}

// TestTryMapInitFirstError: the error of the lowest-index failing call
// that ran, a nil slice, no item run twice, and the loop stops early.
func TestTryMapInitFirstError(t *testing.T) {
	for _, mode := range tryInitModes(t) {
		n := errsCount(mode.name) * 5
		for _, from := range []int{0, 1, n / 3, n - 1} {
			for _, op := range []string{"TryMapInit", "TryForEachInit"} {
				calls := make([]atomic.Int32, n)
				var total atomic.Int64
				var lowest atomic.Int64
				lowest.Store(math.MaxInt64)
				c := &stateChecker{}
				f := func(st *tryState, i int) (int, error) {
					calls[i].Add(1)
					total.Add(1)
					c.use(st, i)
					if i >= from && i%97 == from%97 || i == n-1 {
						for l := lowest.Load(); int64(i) < l && !lowest.CompareAndSwap(l, int64(i)); l = lowest.Load() {
						}
						return 0, failAt(i)
					}
					return i, nil
				}
				var got []int
				var err error
				if op == "TryMapInit" {
					got, err = par.TryMapInit(mode.src(n), c.init, f)
				} else {
					err = par.TryForEachInit(mode.src(n), c.init, func(st *tryState, i int) error { _, err := f(st, i); return err })
				}
				what := fmt.Sprintf("%s, %s, failing from %d", mode.name, op, from)
				var at failAt
				if got != nil || !errors.As(err, &at) || int64(at) != lowest.Load() {
					t.Fatalf("%s: %d results, %v; the lowest failing call that ran was %d", what, len(got), err, lowest.Load())
				}
				for i := range calls {
					if calls[i].Load() > 1 {
						t.Fatalf("%s: item %d ran %d times", what, i, calls[i].Load())
					}
				}
				if from == 0 && total.Load() > int64(n/2) {
					t.Errorf("%s: %d calls of %d items after item 0 failed", what, total.Load(), n)
				}
				c.check(t, what, mode.most)
			}
		}
	}
}

// TestTryMapInitContext: a context done before the start runs nothing,
// not even init; one done during the loop gives its cause and a nil slice
// if it left an item out, and changes nothing if every item ran; an error
// wins over the context.
func TestTryMapInitContext(t *testing.T) {
	cause := errors.New("stopped")
	done, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	c := &stateChecker{}
	got, err := par.TryMapInit(par.Range(0, 1000).WithContext(done), c.init, func(st *tryState, x int) (int, error) {
		t.Error("a call under a context done before the start")
		return x, nil
	})
	if got != nil || err != cause || c.made.Load() != 0 {
		t.Errorf("done before the start: %d results, %v, init called %d times; want nil, the cause, 0", len(got), err, c.made.Load())
	}
	err = par.TryForEachInit(par.FromSeq(slices.Values(errsItems(10))).WithContext(done), c.init, func(*tryState, int) error { return nil })
	if err != cause {
		t.Errorf("TryForEachInit over FromSeq, done before the start: %v", err)
	}
	got, err = par.TryMapInit(par.Range(0, 0).WithContext(done), c.init, func(st *tryState, x int) (int, error) { return x, nil })
	if got == nil || len(got) != 0 || err != nil {
		t.Errorf("no items, done context: %#v, %v; want an empty non-nil slice, nil", got, err)
	}

	for name, src := range map[string]func(context.Context, int) par.Iter[int]{
		"Blocking(1)": func(ctx context.Context, n int) par.Iter[int] {
			return par.Range(0, n).Blocking(1).WithContext(ctx).Iter
		},
		"FromSeq Blocking(1)": func(ctx context.Context, n int) par.Iter[int] {
			return par.FromSeq(slices.Values(errsItems(n))).Blocking(1).WithContext(ctx)
		},
		"pool of 1": func(ctx context.Context, n int) par.Iter[int] {
			return par.Range(0, n).WithPool(newPool(t, 1)).WithBlockSize(1, 1).WithContext(ctx).Iter
		},
	} {
		// Cancelled at item 40 of 1000, then at the last item of 10.
		for _, n := range []int{1000, 10} {
			at := min(40, n-1)
			ctx, cancel := context.WithCancelCause(context.Background())
			var ran atomic.Int64
			got, err := par.TryMapInit(src(ctx, n), (&stateChecker{}).init, func(st *tryState, x int) (int, error) {
				ran.Add(1)
				if x == at {
					cancel(cause)
				}
				return x, nil
			})
			if n > at+1 && (got != nil || err != cause || ran.Load() != int64(at+1)) {
				t.Errorf("%s: cancelled at item %d of %d: %d results, %v after %d calls; want nil and the cause after %d", name, at, n, len(got), err, ran.Load(), at+1)
			}
			if n == at+1 && (len(got) != n || err != nil) {
				t.Errorf("%s: cancelled during the last item: %d results, %v; want all and nil", name, len(got), err)
			}
		}
		// An error wins over the context.
		ctx, cancel := context.WithCancelCause(context.Background())
		err := par.TryForEachInit(src(ctx, 100), (&stateChecker{}).init, func(st *tryState, x int) error {
			if x == 5 {
				cancel(cause)
				return failAt(x)
			}
			return nil
		})
		if err != failAt(5) {
			t.Errorf("%s: an item cancelled and failed: %v, want its error", name, err)
		}
	}
}

// TestTryMapInitPanicAndGoexit: a panic in init or f is re-raised as a
// *par.Panic, a runtime.Goexit in f ends the caller's goroutine, and the
// pool works afterwards.
func TestTryMapInitPanicAndGoexit(t *testing.T) {
	for _, mode := range tryInitModes(t) {
		for _, how := range []string{"panic in f", "panic in init", "Goexit"} {
			for _, op := range []string{"TryMapInit", "TryForEachInit"} {
				init := func() *scratch {
					if how == "panic in init" {
						panic("boom")
					}
					return &scratch{}
				}
				f := func(s *scratch, x int) (int, error) {
					if x == 377 {
						if how == "Goexit" {
							goruntime.Goexit()
						}
						panic("boom")
					}
					return use(s, x), nil
				}
				it := mode.src(1000)
				e := endOf(t, func() {
					if op == "TryMapInit" {
						par.TryMapInit(it, init, f)
					} else {
						par.TryForEachInit(it, init, func(s *scratch, x int) error { _, err := f(s, x); return err })
					}
				})
				what := fmt.Sprintf("%s, %s, %s", mode.name, op, how)
				if how == "Goexit" {
					if !e.Goexited {
						t.Errorf("%s: %v, want Goexit", what, e)
					}
					continue
				}
				if p, ok := e.Panicked.(*par.Panic); !ok || p.Value != "boom" {
					t.Errorf("%s: %v, want the *par.Panic", what, e)
				}
			}
		}
		c := &stateChecker{}
		if got, err := par.TryMapInit(mode.src(1000), c.init, func(st *tryState, x int) (int, error) { return c.use(st, x), nil }); len(got) != 1000 || err != nil {
			t.Errorf("%s: %d results, %v after the failures", mode.name, len(got), err)
		}
	}
}

// TestTryMapInitOverMapInit: the Try forms compose with a MapInit stage
// before them, each stage with its own states.
func TestTryMapInitOverMapInit(t *testing.T) {
	const n = 50_000
	first, second := &initCounter{}, &stateChecker{}
	it := par.MapInit(par.Range(0, n).WithPool(newPool(t, 3)), first.init, use)
	got, err := par.TryMapInit(it, second.init, func(st *tryState, x int) (int, error) { return second.use(st, x), nil })
	if err != nil || len(got) != n || got[n-1] != 4*(n-1) {
		t.Fatalf("%d results, %v", len(got), err)
	}
	second.check(t, "TryMapInit after MapInit", 4)
	if m := first.made.Load(); m < 1 || m > 4 {
		t.Errorf("the MapInit stage's init called %d times", m)
	}
}

func TestTryMapInitNilFunc(t *testing.T) {
	c := &initCounter{}
	f := func(s *scratch, x int) (int, error) { return x, nil }
	g := func(s *scratch, x int) error { return nil }
	mustPanicWith(t, "par.TryMapInit (init) was given a nil function", func() { par.TryMapInit(par.Range(0, 1), nil, f) })
	mustPanicWith(t, "par.TryMapInit was given a nil function", func() { par.TryMapInit[int, *scratch, int](par.Range(0, 1), c.init, nil) })
	mustPanicWith(t, "par.TryForEachInit (init) was given a nil function", func() { par.TryForEachInit(par.Range(0, 1), nil, g) })
	mustPanicWith(t, "par.TryForEachInit was given a nil function", func() { par.TryForEachInit[int, *scratch](par.Range(0, 1), c.init, nil) })
	got, err := par.TryMapInit(par.Range(0, 0), c.init, f)
	if got == nil || len(got) != 0 || err != nil || c.made.Load() != 0 {
		t.Errorf("no items: %#v, %v, init called %d times; want an empty non-nil slice, nil, 0", got, err, c.made.Load())
	}
}
