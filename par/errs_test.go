package par_test

import (
	"context"
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

// errItemFailed is the error the failing calls of these tests wrap.
var errItemFailed = errors.New("boom")

// errsMode is a way to run an operation over the items 0..n-1, each item
// equal to its position.
type errsMode struct {
	name string
	src  func(n int) par.Iter[int]
}

// errsModes are the pools of 1, 2, 3 and 8 workers, Blocking mode, and
// FromSeq on a pool and in Blocking mode.
func errsModes(t *testing.T) []errsMode {
	var modes []errsMode
	for _, w := range []int{1, 2, 3, 8} {
		pool := newPool(t, w)
		modes = append(modes, errsMode{fmt.Sprintf("pool of %d", w), func(n int) par.Iter[int] {
			return par.Range(0, n).WithPool(pool).Iter
		}})
	}
	pool := newPool(t, 3)
	return append(modes,
		errsMode{"Slice", func(n int) par.Iter[int] { return par.Slice(errsItems(n)).WithPool(pool) }},
		errsMode{"Blocking(4)", func(n int) par.Iter[int] { return par.Slice(errsItems(n)).Blocking(4) }},
		errsMode{"FromSeq", func(n int) par.Iter[int] { return par.FromSeq(slices.Values(errsItems(n))).WithPool(pool) }},
		errsMode{"FromSeq Blocking(3)", func(n int) par.Iter[int] { return par.FromSeq(slices.Values(errsItems(n))).Blocking(3) }},
	)
}

func errsItems(n int) []int {
	xs := make([]int, n)
	for i := range xs {
		xs[i] = i
	}
	return xs
}

// errsCount is how many items the tests run: fewer in Blocking mode, where
// each item starts a hand-off between goroutines, and under the race
// detector.
func errsCount(mode string) int {
	n := 20_000
	if strings.Contains(mode, "Blocking") {
		n = 2_000
	}
	return n / race.Scale
}

// joined returns the errors that err joins, failing the test if it joins
// none.
func joined(t *testing.T, err error) []error {
	t.Helper()
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("%T %v is not a joined error", err, err)
	}
	return j.Unwrap()
}

// checkItemErrors checks that errs are one *ItemError per index of want, in
// that order, each holding the error that item's call returned.
func checkItemErrors(t *testing.T, what string, errs []error, want []int) {
	t.Helper()
	if len(errs) != len(want) {
		t.Fatalf("%s: %d errors, want %d (items %v)", what, len(errs), len(want), want[:min(len(want), 10)])
	}
	for k, e := range errs {
		ie, ok := e.(*par.ItemError)
		if !ok {
			t.Fatalf("%s: error %d is %T %v, want a *par.ItemError", what, k, e, e)
		}
		if ie.Index != want[k] || !errors.Is(ie, errItemFailed) || ie.Err.Error() != fmt.Sprintf("value %d: boom", want[k]) {
			t.Fatalf("%s: error %d is %v (index %d), want item %d's", what, k, e, ie.Index, want[k])
		}
	}
}

// fails says which items fail in these tests: the first, the last, and
// every 97th from 5.
func fails(i, n int) bool { return i == 0 || i == n-1 || i%97 == 5 }

func failing(n int) []int {
	var out []int
	for i := range n {
		if fails(i, n) {
			out = append(out, i)
		}
	}
	return out
}

// TestForEachErrEveryFailure: every item runs once, errors or not, and
// every failure comes back with its index, in index order, on every pool,
// in Blocking mode and over FromSeq.
func TestForEachErrEveryFailure(t *testing.T) {
	for _, mode := range errsModes(t) {
		n := errsCount(mode.name)
		calls := make([]atomic.Int32, n)
		err := mode.src(n).ForEachErr(func(v int) error {
			calls[v].Add(1)
			if fails(v, n) {
				return fmt.Errorf("value %d: %w", v, errItemFailed)
			}
			return nil
		})
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Fatalf("%s: item %d ran %d times", mode.name, i, c)
			}
		}
		if !errors.Is(err, errItemFailed) {
			t.Fatalf("%s: errors.Is(%v, errItemFailed) is false", mode.name, err)
		}
		var ie *par.ItemError
		if !errors.As(err, &ie) || ie.Index != 0 {
			t.Fatalf("%s: errors.As found %v, want item 0's ItemError", mode.name, ie)
		}
		checkItemErrors(t, mode.name, joined(t, err), failing(n))

		if err := mode.src(n).ForEachErr(func(int) error { return nil }); err != nil {
			t.Fatalf("%s: no call failed, and ForEachErr returned %v", mode.name, err)
		}
	}
}

// TestMapErrEveryFailure: every result in source order, a failed item's
// slot holding what f returned, and every failure with its index.
func TestMapErrEveryFailure(t *testing.T) {
	for _, mode := range errsModes(t) {
		n := errsCount(mode.name)
		calls := make([]atomic.Int32, n)
		got, err := par.MapErr(mode.src(n), func(v int) (string, error) {
			calls[v].Add(1)
			if fails(v, n) {
				return fmt.Sprint("failed ", v), fmt.Errorf("value %d: %w", v, errItemFailed)
			}
			return fmt.Sprint(v), nil
		})
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Fatalf("%s: item %d ran %d times", mode.name, i, c)
			}
		}
		if len(got) != n {
			t.Fatalf("%s: %d results, want %d", mode.name, len(got), n)
		}
		for i, s := range got {
			want := fmt.Sprint(i)
			if fails(i, n) {
				want = fmt.Sprint("failed ", i)
			}
			if s != want {
				t.Fatalf("%s: result %d is %q, want %q", mode.name, i, s, want)
			}
		}
		checkItemErrors(t, mode.name, joined(t, err), failing(n))

		ints, err := par.MapErr(mode.src(n), func(v int) (int, error) { return 2 * v, nil })
		if err != nil || len(ints) != n || ints[n-1] != 2*(n-1) {
			t.Fatalf("%s: no call failed, and MapErr returned %d results and %v", mode.name, len(ints), err)
		}
	}
}

// TestMapErrAdapters: after a Filter, the results are those of the items
// kept, in order, and the failures carry their source positions; after a
// FlatMap, the items made from one source item share its position.
func TestMapErrAdapters(t *testing.T) {
	const n = 10_000
	pool := newPool(t, 3)
	odd := par.Range(0, n).WithPool(pool).Filter(func(i int) bool { return i%2 == 1 })
	got, err := par.MapErr(odd, func(v int) (int, error) {
		if v%10 == 3 {
			return -v, fmt.Errorf("value %d: %w", v, errItemFailed)
		}
		return v, nil
	})
	var want []int
	for i := 3; i < n; i += 10 {
		want = append(want, i)
	}
	checkItemErrors(t, "Filter", joined(t, err), want)
	if len(got) != n/2 || got[0] != 1 || got[1] != -3 || got[n/2-1] != n-1 {
		t.Fatalf("Filter: %d results, from %v", len(got), got[:min(len(got), 4)])
	}

	// Range(100, ...): positions count from the source's start.
	twice := par.FlatMap(par.Range(100, 100+n).WithPool(pool), func(i int) []int { return []int{i, i} })
	err = twice.ForEachErr(func(v int) error {
		if v%1000 == 107 {
			return fmt.Errorf("value %d: %w", v-100, errItemFailed)
		}
		return nil
	})
	want = nil
	for i := 7; i < n; i += 1000 {
		want = append(want, i, i)
	}
	checkItemErrors(t, "FlatMap", joined(t, err), want)
}

// TestErrEmpty: no items give an empty, non-nil slice and nil, with or
// without a done context.
func TestErrEmpty(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for name, it := range map[string]par.Iter[int]{
		"Range":                 par.Range(0, 0).Iter,
		"reversed Range":        par.Range(5, -5).Iter,
		"Slice(nil)":            par.Slice[int](nil),
		"FromSeq":               par.FromSeq(slices.Values([]int{})),
		"Filter":                par.Range(0, 100).Filter(func(int) bool { return false }).Iter,
		"Range, done context":   par.Range(0, 0).WithContext(done).Iter,
		"FromSeq, done context": par.FromSeq(slices.Values([]int{})).WithContext(done),
		"Blocking":              par.Range(0, 0).Blocking(2).Iter,
	} {
		got, err := par.MapErr(it, func(v int) (int, error) { return v, errItemFailed })
		if got == nil || len(got) != 0 || err != nil {
			t.Errorf("%s: MapErr gave %#v, %v; want an empty non-nil slice and nil", name, got, err)
		}
		if err := it.ForEachErr(func(int) error { return errItemFailed }); err != nil {
			t.Errorf("%s: ForEachErr gave %v", name, err)
		}
	}
}

// leftOf returns the positions that u says did not run, nil for a nil u
// or none.
func leftOf(u *par.Unfinished) []int {
	if u == nil {
		return nil
	}
	return slices.Collect(u.Left())
}

// TestErrContext: a done context starts no more items; if it left an item
// out, the results are nil and the error joins the failures of the items
// that ran, then the context's cause; if every item ran, it changes
// nothing.
func TestErrContext(t *testing.T) {
	cause := errors.New("stopped")
	boom := func(v int) error { return fmt.Errorf("value %d: %w", v, errItemFailed) }

	t.Run("done before", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(cause)
		for name, it := range map[string]par.Iter[int]{
			"Range":    par.Range(0, 1000).WithContext(ctx).Iter,
			"Blocking": par.Range(0, 1000).Blocking(4).WithContext(ctx).Iter,
			"FromSeq":  par.FromSeq(slices.Values(errsItems(1000))).WithContext(ctx),
		} {
			var calls atomic.Int32
			got, err := par.MapErr(it, func(v int) (int, error) { calls.Add(1); return v, boom(v) })
			errs := joined(t, err)
			u, _ := errs[len(errs)-1].(*par.Unfinished)
			switch {
			case calls.Load() != 0:
				t.Errorf("%s: %d calls under a context done before the start", name, calls.Load())
			case len(errs) != 1 || u == nil || u.Cause != cause || !errors.Is(err, cause):
				t.Errorf("%s: %v, want an *Unfinished of the cause alone", name, err)
			case name == "FromSeq" && (got == nil || len(got) != 0 || leftOf(u) != nil || u.Rest != 0):
				t.Errorf("%s: %d results and %+v; want no results, nothing left and Rest 0", name, len(got), u)
			case name != "FromSeq" && (len(got) != 1000 || slices.ContainsFunc(got, func(v int) bool { return v != 0 }) ||
				len(leftOf(u)) != 1000 || leftOf(u)[999] != 999 || u.Rest != -1):
				t.Errorf("%s: %d results and %d left, Rest %d; want 1000 zero slots, every item left and Rest -1", name, len(got), len(leftOf(u)), u.Rest)
			}
		}
	})

	// One item at a time on one goroutine: the item that cancels is the
	// last to run.
	t.Run("during", func(t *testing.T) {
		for name, it := range map[string]func(context.Context) par.Iter[int]{
			"Blocking(1)": func(ctx context.Context) par.Iter[int] {
				return par.Range(0, 1000).Blocking(1).WithContext(ctx).Iter
			},
			"FromSeq Blocking(1)": func(ctx context.Context) par.Iter[int] {
				return par.FromSeq(slices.Values(errsItems(1000))).Blocking(1).WithContext(ctx)
			},
			"pool of 1": func(ctx context.Context) par.Iter[int] {
				return par.Range(0, 1000).WithPool(newPool(t, 1)).WithBlockSize(1, 1).WithContext(ctx).Iter
			},
		} {
			ctx, cancel := context.WithCancelCause(context.Background())
			calls := make([]atomic.Int32, 1000)
			got, err := par.MapErr(it(ctx), func(v int) (int, error) {
				calls[v].Add(1)
				if v == 40 {
					cancel(cause)
				}
				if v == 3 || v == 40 {
					return v, boom(v)
				}
				return v + 1, nil
			})
			for i := range calls {
				if c := calls[i].Load(); i <= 40 && c != 1 || i > 40 && c != 0 {
					t.Fatalf("%s: item %d ran %d times, the context was done after item 40", name, i, c)
				}
			}
			errs := joined(t, err)
			u, _ := errs[len(errs)-1].(*par.Unfinished)
			if len(errs) != 3 || u == nil || u.Cause != cause {
				t.Fatalf("%s: %v; want items 3's and 40's errors then an *Unfinished of the cause", name, err)
			}
			checkItemErrors(t, name, errs[:2], []int{3, 40})
			want := make([]int, 41)
			for i := range want {
				want[i] = i + 1
			}
			want[3], want[40] = 3, 40
			if seq := strings.HasPrefix(name, "FromSeq"); seq && (!slices.Equal(got, want) || leftOf(u) != nil || u.Rest != 41) ||
				!seq && (len(got) != 1000 || !slices.Equal(got[:41], want) || slices.ContainsFunc(got[41:], func(v int) bool { return v != 0 }) ||
					len(leftOf(u)) != 959 || leftOf(u)[0] != 41 || u.Rest != -1) {
				t.Fatalf("%s: %d results (%v...) and %d left (Rest %d); want the 41 that ran, %v, and the others left", name, len(got), got[:min(len(got), 45)], len(leftOf(u)), u.Rest, want)
			}
		}
	})

	// The context is done during the last call: every item ran.
	t.Run("at the end", func(t *testing.T) {
		for name, it := range map[string]func(context.Context) par.Iter[int]{
			"Blocking(1)": func(ctx context.Context) par.Iter[int] { return par.Range(0, 10).Blocking(1).WithContext(ctx).Iter },
			"FromSeq Blocking(1)": func(ctx context.Context) par.Iter[int] {
				return par.FromSeq(slices.Values(errsItems(10))).Blocking(1).WithContext(ctx)
			},
			"pool of 1": func(ctx context.Context) par.Iter[int] {
				return par.Range(0, 10).WithPool(newPool(t, 1)).WithContext(ctx).Iter
			},
		} {
			ctx, cancel := context.WithCancelCause(context.Background())
			got, err := par.MapErr(it(ctx), func(v int) (int, error) {
				if v == 9 {
					cancel(cause)
				}
				if v == 2 {
					return v, boom(v)
				}
				return v, nil
			})
			if len(got) != 10 || got[9] != 9 {
				t.Errorf("%s: %v, want every result", name, got)
			}
			checkItemErrors(t, name, joined(t, err), []int{2})
			ctx, cancel = context.WithCancelCause(context.Background())
			err = it(ctx).ForEachErr(func(v int) error {
				if v == 9 {
					cancel(cause)
				}
				return nil
			})
			if err != nil {
				t.Errorf("%s: ForEachErr gave %v, and every item ran with no error", name, err)
			}
		}
	})

	// On a pool: every failure of an item that ran is returned, with the
	// cause last, and no item runs twice.
	t.Run("pool", func(t *testing.T) {
		n := 200_000 / race.Scale
		for _, w := range []int{2, 3, 8} {
			ctx, cancel := context.WithCancelCause(context.Background())
			calls := make([]atomic.Int32, n)
			var ran atomic.Int64
			err := par.Range(0, n).WithPool(newPool(t, w)).WithContext(ctx).ForEachErr(func(v int) error {
				calls[v].Add(1)
				if ran.Add(1) == int64(n/4) {
					cancel(cause)
				}
				if v%1000 == 7 {
					return boom(v)
				}
				return nil
			})
			var want []int
			left := false
			for i := range calls {
				switch calls[i].Load() {
				case 0:
					left = true
				case 1:
					if i%1000 == 7 {
						want = append(want, i)
					}
				default:
					t.Fatalf("%d workers: item %d ran %d times", w, i, calls[i].Load())
				}
			}
			if !left {
				t.Logf("%d workers: every item ran before the cancellation took effect", w)
				continue
			}
			errs := joined(t, err)
			u, _ := errs[len(errs)-1].(*par.Unfinished)
			if u == nil || u.Cause != cause {
				t.Fatalf("%d workers: %v, want an *Unfinished of the cause last", w, err)
			}
			checkItemErrors(t, fmt.Sprint(w, " workers"), errs[:len(errs)-1], want)
			positions := leftOf(u)
			for i := range calls {
				if _, in := slices.BinarySearch(positions, i); in != (calls[i].Load() == 0) {
					t.Fatalf("%d workers: item %d ran %d times, and Left names it: %v", w, i, calls[i].Load(), in)
				}
			}
		}
	})
}

// TestErrPanicAndGoexit: a panic in f is re-raised as a *par.Panic, a
// runtime.Goexit ends the caller's goroutine, and the pool works
// afterwards.
func TestErrPanicAndGoexit(t *testing.T) {
	for _, mode := range errsModes(t) {
		for _, op := range []string{"ForEachErr", "MapErr"} {
			for _, goexit := range []bool{false, true} {
				it := mode.src(1000)
				f := func(v int) (int, error) {
					if v == 377 {
						if goexit {
							goruntime.Goexit()
						}
						panic("boom")
					}
					return v, errItemFailed
				}
				e := endOf(t, func() {
					if op == "MapErr" {
						par.MapErr(it, f)
					} else {
						it.ForEachErr(func(v int) error { _, err := f(v); return err })
					}
				})
				what := fmt.Sprintf("%s, %s, Goexit %v", mode.name, op, goexit)
				if goexit {
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
		if got, _ := par.MapErr(mode.src(1000), func(v int) (int, error) { return v, nil }); len(got) != 1000 {
			t.Errorf("%s: %d results after the failures", mode.name, len(got))
		}
	}
}

func TestErrNilFunc(t *testing.T) {
	mustPanicWith(t, "par.ForEachErr was given a nil function", func() { par.Range(0, 1).ForEachErr(nil) })
	mustPanicWith(t, "par.MapErr was given a nil function", func() { par.MapErr[int, int](par.Range(0, 1), nil) })
}

// TestItemError: the message names the index, and errors.Is and errors.As
// see through the ItemError.
func TestItemError(t *testing.T) {
	inner := &failAtErr{at: 7}
	e := &par.ItemError{Index: 12, Err: fmt.Errorf("reading: %w", inner)}
	if got, want := e.Error(), "gopar: item 12: reading: failed at 7"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var fa *failAtErr
	if !errors.As(e, &fa) || fa != inner || !errors.Is(e, inner) {
		t.Errorf("errors.As and errors.Is do not see %v through the ItemError", inner)
	}
	if errors.Unwrap(e) != e.Err {
		t.Error("Unwrap does not return Err")
	}
	if got := (&par.ItemError{Index: 3}).Error(); got != "gopar: item 3: <nil>" {
		t.Errorf("with no Err: %q", got)
	}
}

type failAtErr struct{ at int }

func (e *failAtErr) Error() string { return fmt.Sprint("failed at ", e.at) }

// TestDeadlineKeepsWhatRan is the I/O fan-out under a deadline: 20,000
// calls, 16 at a time, and a context that ends once 1,000 have returned.
// MapErr keeps the result of every call that ran, in its slot, and names
// every item that did not; Results, unordered, gives every finished call's
// pair and then the *Unfinished. Before, MapErr returned no result at all
// and Results ended with no error.
func TestDeadlineKeepsWhatRan(t *testing.T) {
	n := 20_000 / race.Scale
	paths := errsItems(n)
	digest := func(v int) string { return fmt.Sprint("digest ", v) }
	for _, results := range []bool{false, true} {
		ctx, cancel := context.WithCancelCause(context.Background())
		var returned atomic.Int64
		calls := make([]atomic.Int32, n)
		hash := func(v int) (string, error) {
			calls[v].Add(1)
			if returned.Add(1) == int64(n/20) {
				cancel(context.DeadlineExceeded)
			}
			return digest(v), nil
		}
		it := par.Slice(paths).Blocking(16).WithContext(ctx)
		var got []string
		var err error
		if results {
			got = make([]string, n)
			for d, e := range par.Results(it.Unordered(), hash) {
				if e != nil {
					err = e
					continue
				}
				var v int
				fmt.Sscanf(d, "digest %d", &v)
				got[v] = d
			}
		} else {
			got, err = par.MapErr(it, hash)
			if errs := joined(t, err); len(errs) != 1 {
				t.Fatalf("MapErr: %v, want the *Unfinished alone", err)
			}
		}
		var u *par.Unfinished
		if !errors.As(err, &u) || !errors.Is(err, context.DeadlineExceeded) || u.Rest != -1 {
			t.Fatalf("results %v: %v, want an *Unfinished of the deadline", results, err)
		}
		kept, ran, left := 0, 0, leftOf(u)
		for i := range n {
			switch c := calls[i].Load(); {
			case c > 1:
				t.Fatalf("results %v: item %d ran %d times", results, i, c)
			case c == 1:
				ran++
				if got[i] == digest(i) {
					kept++
				}
			case got[i] != "":
				t.Fatalf("results %v: item %d did not run, and its slot holds %q", results, i, got[i])
			}
			if _, in := slices.BinarySearch(left, i); !results && in != (calls[i].Load() == 0) {
				t.Fatalf("MapErr: item %d ran %d times, and Left names it: %v", i, calls[i].Load(), in)
			}
		}
		if kept != ran || ran >= n {
			t.Fatalf("results %v: %d of the %d calls that ran kept (of %d items)", results, kept, ran, n)
		}
		cancel(nil)
	}
}

// TestUnfinishedOfAHugeRange: what did not run is held as ranges of
// positions, so a Range of 2^40 items under a context done from the start
// returns at once, naming them all, rather than asking for a slice of 2^40
// positions.
func TestUnfinishedOfAHugeRange(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	const n = 1 << 40
	err := par.Range(0, n).WithContext(ctx).ForEachErr(func(int) error { return nil })
	var u *par.Unfinished
	if !errors.As(err, &u) || u.LeftCount() != n || u.Rest != -1 {
		t.Fatalf("ForEachErr over Range(0, 2^40) under a done context: %v", err)
	}
	k := 0
	for i := range u.Left() {
		if i != k {
			t.Fatalf("Left gave %d at %d", i, k)
		}
		if k++; k == 1000 {
			break
		}
	}
	if err.Error() != "gopar: 1099511627776 items did not run: context canceled" {
		t.Fatalf("Error() = %q", err.Error())
	}
}
