package par_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// The rules of a done context, of errors and of Values that Iter.WithContext,
// Iter.TryForEach, Iter.Values and FromSeq state, each checked here on every
// source kind where it applies, on 1, 2, 3 and 8 workers.

// cancelSources are the sources of the items 0, 1, ..., n-1: a range, a
// slice, a mapped range (written by Fill) and a sequence.
func cancelSources(n int) map[string]func() par.Iter[int] {
	xs := make([]int, n)
	for i := range xs {
		xs[i] = i
	}
	return map[string]func() par.Iter[int]{
		"Range":   func() par.Iter[int] { return par.Range(0, n).Iter },
		"Slice":   func() par.Iter[int] { return par.Slice(xs) },
		"Map":     func() par.Iter[int] { return par.Map(par.Range(0, n), func(i int) int { return i }) },
		"FromSeq": func() par.Iter[int] { return par.FromSeq(slices.Values(xs)) },
	}
}

// TestCancelledResultIsAPrefix: a context cancelled by the callback of
// item k stops Collect, Sum, Reduce and Partition with the result of a
// prefix of the items, every one of which ran: never a zero-valued hole,
// never an item after a hole. On the code that combined every run that ran,
// Collect over a range returned holes.
func TestCancelledResultIsAPrefix(t *testing.T) {
	n := 100_000 / race.Scale
	for name, src := range cancelSources(n) {
		for _, p := range scanPools() {
			for _, k := range []int{0, n / 3, n - 1} {
				where := fmt.Sprintf("%s on %d workers, cancelled at %d", name, p.Workers(), k)
				// run runs op over the source with a context that item k
				// cancels, and returns how many items the callback saw.
				run := func(op func(it par.Iter[int])) []bool {
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					ran := make([]bool, n)
					op(par.Map(src().WithPool(p).WithContext(ctx), func(i int) int {
						ran[i] = true
						if i == k {
							cancel()
						}
						return i
					}))
					return ran
				}
				// prefixRan checks that items [0, m) ran.
				prefixRan := func(op string, ran []bool, m int) {
					t.Helper()
					if m > n {
						t.Fatalf("%s: %s covers %d items of %d", where, op, m, n)
					}
					if i := slices.Index(ran[:m], false); i >= 0 {
						t.Fatalf("%s: %s holds a prefix of %d items, but item %d did not run", where, op, m, i)
					}
				}
				var got []int
				ran := run(func(it par.Iter[int]) { got = it.Collect() })
				for i, v := range got {
					if v != i {
						t.Fatalf("%s: Collect[%d] = %d: a hole or a misplaced item", where, i, v)
					}
				}
				prefixRan("Collect", ran, len(got))

				var sum int
				ran = run(func(it par.Iter[int]) { sum = par.Sum(it) })
				m := int((math.Sqrt(8*float64(sum)+1) + 1) / 2) // sum = m(m-1)/2
				if m*(m-1)/2 != sum {
					t.Fatalf("%s: Sum = %d, not the sum of a prefix", where, sum)
				}
				prefixRan("Sum", ran, m)

				var cat []int
				ran = run(func(it par.Iter[int]) {
					cat = par.Fold(it, func() []int { return nil },
						func(a []int, x int) []int { return append(a, x) },
						func(a, b []int) []int { return append(a, b...) })
				})
				for i, v := range cat {
					if v != i {
						t.Fatalf("%s: Fold[%d] = %d: not a prefix", where, i, v)
					}
				}
				prefixRan("Fold", ran, len(cat))

				var yes, no []int
				ran = run(func(it par.Iter[int]) { yes, no = it.Partition(func(i int) bool { return i%3 == 0 }) })
				m = len(yes) + len(no)
				if wy, wn := loopPartition(slices.Collect(func(yield func(int) bool) {
					for i := range m {
						if !yield(i) {
							return
						}
					}
				}), func(i int) bool { return i%3 == 0 }); !slices.Equal(yes, wy) || !slices.Equal(no, wn) {
					t.Fatalf("%s: Partition's parts are not those of the first %d items", where, m)
				}
				prefixRan("Partition", ran, m)
			}
		}
	}
}

// TestCancelledFloatSumIsAPrefix: the reproducible float Sum, which adds
// fixed blocks, gives the sum of whole blocks from the start when
// cancelled.
func TestCancelledFloatSumIsAPrefix(t *testing.T) {
	n := 1 << 18 / race.Scale
	for _, p := range scanPools() {
		ctx, cancel := context.WithCancel(context.Background())
		got := par.Sum(par.Map(par.Range(0, n).WithPool(p).WithContext(ctx), func(i int) float64 {
			if i == n/2 {
				cancel()
			}
			return 1
		}))
		cancel()
		if got != math.Trunc(got) || got > float64(n) || int(got)%4096 != 0 {
			t.Fatalf("%d workers: a cancelled float Sum of ones is %v, not a prefix of whole blocks", p.Workers(), got)
		}
	}
}

// TestDoneContextRunsNothing: a context done before the operation runs no
// callback, and gives the empty prefix: an empty non-nil Collect, a zero
// Sum, Find's false; the Try forms return the cause over a non-empty input
// and nil over an empty one (nothing was left out), TryMap with an empty
// non-nil slice.
func TestDoneContextRunsNothing(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("the cause")
	cancel(cause)
	for name, src := range cancelSources(5) {
		var calls atomic.Int64
		it := par.Map(src().WithContext(ctx), func(i int) int { calls.Add(1); return i })
		if got := it.Collect(); got == nil || len(got) != 0 {
			t.Errorf("%s: Collect = %#v, want an empty non-nil slice", name, got)
		}
		if got := par.Sum(it); got != 0 {
			t.Errorf("%s: Sum = %d, want 0", name, got)
		}
		if _, ok := it.Find(func(int) bool { return true }); ok {
			t.Errorf("%s: Find found an item", name)
		}
		if err := it.TryForEach(func(int) error { return nil }); err != cause {
			t.Errorf("%s: TryForEach = %v, want the cause", name, err)
		}
		if out, err := par.TryMap(it, func(i int) (int, error) { return i, nil }); out != nil || err != cause {
			t.Errorf("%s: TryMap = %v, %v, want nil and the cause", name, out, err)
		}
		if out, err := par.TryMapContext(it, func(_ context.Context, i int) (int, error) { return i, nil }); out != nil || err != cause {
			t.Errorf("%s: TryMapContext = %v, %v, want nil and the cause", name, out, err)
		}
		if c := calls.Load(); c != 0 {
			t.Errorf("%s: a done context ran %d callbacks", name, c)
		}
	}
	for name, src := range cancelSources(0) {
		it := src().WithContext(ctx)
		if err := it.TryForEach(func(int) error { return nil }); err != nil {
			t.Errorf("%s, empty: TryForEach = %v, want nil: nothing was left out", name, err)
		}
		if out, err := par.TryMap(it, func(i int) (int, error) { return i, nil }); out == nil || err != nil {
			t.Errorf("%s, empty: TryMap = %#v, %v, want an empty non-nil slice and nil", name, out, err)
		}
		if err := it.TryForEachContext(func(context.Context, int) error { return nil }); err != nil {
			t.Errorf("%s, empty: TryForEachContext = %v, want nil", name, err)
		}
	}
}

// TestTryCancelledDuringTheLastItem: a context cancelled in the callback of
// the last item leaves nothing out: the Try forms return nil (TryMap every
// result), over a sequence as over a slice. Over a sequence the loop cannot
// see the end coming, and returned the cause.
func TestTryCancelledDuringTheLastItem(t *testing.T) {
	for _, n := range []int{1, 2, 5, 64, 1000} {
		for name, src := range cancelSources(n) {
			for _, p := range scanPools() {
				where := fmt.Sprintf("%s of %d on %d workers", name, n, p.Workers())
				ctx, cancel := context.WithCancel(context.Background())
				err := src().WithPool(p).WithContext(ctx).TryForEach(func(i int) error {
					if i == n-1 {
						cancel()
					}
					return nil
				})
				if err != nil && !errors.Is(err, context.Canceled) {
					t.Fatalf("%s: TryForEach = %v", where, err)
				}
				// The last item may run before others: only when it ran
				// last is nothing left out. One worker runs in order.
				if p.Workers() == 1 && err != nil {
					t.Fatalf("%s: TryForEach = %v, want nil: nothing was left out", where, err)
				}
				ctx, cancel = context.WithCancel(context.Background())
				out, err := par.TryMapContext(src().WithPool(p).WithContext(ctx), func(_ context.Context, i int) (int, error) {
					if i == n-1 {
						cancel()
					}
					return 2 * i, nil
				})
				if p.Workers() == 1 && (err != nil || len(out) != n) {
					t.Fatalf("%s: TryMapContext = %d results, %v, want %d and nil", where, len(out), err, n)
				}
				for i, v := range out {
					if v != 2*i {
						t.Fatalf("%s: TryMapContext[%d] = %d", where, i, v)
					}
				}
			}
		}
	}
}

// TestTryErrorWinsOverTheContext: a call that cancels the context and
// returns an error makes the Try forms return that error, not the cause.
func TestTryErrorWinsOverTheContext(t *testing.T) {
	n := 10_000 / race.Scale
	boom := errors.New("boom")
	for name, src := range cancelSources(n) {
		for _, p := range scanPools() {
			ctx, cancel := context.WithCancel(context.Background())
			err := src().WithPool(p).WithContext(ctx).TryForEach(func(i int) error {
				if i == n/2 {
					cancel()
					return boom
				}
				return nil
			})
			if err != boom {
				t.Fatalf("%s on %d workers: TryForEach = %v, want the call's error", name, p.Workers(), err)
			}
			ctx, cancel = context.WithCancel(context.Background())
			out, err := par.TryMap(src().WithPool(p).WithContext(ctx), func(i int) (int, error) {
				if i == n/2 {
					cancel()
					return 0, boom
				}
				return i, nil
			})
			if out != nil || err != boom {
				t.Fatalf("%s on %d workers: TryMap = %d results, %v, want nil and the call's error", name, p.Workers(), len(out), err)
			}
		}
	}
}

// TestValuesPassesOnPanicsAfterABreak: a panic of a callback that ran in a
// batch computed ahead is re-raised by the range statement even when the
// loop body broke first; so is the panic of a sequence that yields again
// after yield returned false. They used to be dropped.
func TestValuesPassesOnPanicsAfterABreak(t *testing.T) {
	for _, p := range scanPools() {
		// Item 1 panics; the body breaks at item 0, which comes in the
		// first batch of one item. The second batch is computed while
		// the body runs, so it has started by the time the body breaks:
		// item 1's batch is waited for before the range ends.
		started := make(chan struct{})
		it := par.Map(par.Range(0, 100).WithPool(p).WithBuffer(2), func(i int) int {
			if i == 1 {
				close(started)
				panic("item 1")
			}
			return i
		})
		mustPanicWith(t, "item 1", func() {
			for range it.Values() {
				<-started
				break
			}
		})
	}
	// A sequence that ignores yield's false.
	bad := func(yield func(int) bool) {
		for i := 0; i < 10; i++ {
			yield(i) // keeps going after false
		}
	}
	mustPanicWith(t, "yield again", func() {
		for range par.FromSeq(bad).WithBuffer(1).Values() {
			break
		}
	})
}

// TestSecondOperationWithDoneContextPanics: a second terminal operation on
// a FromSeq iterator that is running one panics, also when its context is
// done (it used to return early, as if the iterator were free).
func TestSecondOperationWithDoneContextPanics(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var it par.Iter[int]
	it = par.FromSeq(func(yield func(int) bool) {
		mustPanicWith(t, "one terminal operation at a time", func() { it.WithContext(ctx).Count() })
		yield(1)
	})
	if got := it.Count(); got != 1 {
		t.Fatalf("Count = %d, want 1", got)
	}
}

// TestCountRunsWhatCanChangeTheCount: Count runs no function of a pipeline
// whose steps cannot change the number of items (Map's f is not called),
// and runs the pipeline otherwise: Filter, FilterMap, FlatMap and FromSeq.
func TestCountRunsWhatCanChangeTheCount(t *testing.T) {
	var calls atomic.Int64
	f := func(i int) int { calls.Add(1); return i }
	xs := []int{1, 2, 3, 4}
	if got := par.Map(par.Slice(xs), f).Count(); got != 4 || calls.Load() != 0 {
		t.Fatalf("Map then Count: %d items, %d calls of f, want 4 and 0", got, calls.Load())
	}
	for name, it := range map[string]par.Iter[int]{
		"Filter":    par.Map(par.Slice(xs), f).Filter(func(int) bool { return true }),
		"FilterMap": par.FilterMap(par.Map(par.Slice(xs), f), func(i int) (int, bool) { return i, true }),
		"FlatMap":   par.FlatMap(par.Map(par.Slice(xs), f), func(i int) []int { return []int{i} }),
		"FromSeq":   par.Map(par.FromSeq(slices.Values(xs)), f),
	} {
		calls.Store(0)
		if got := it.Count(); got != 4 || calls.Load() != 4 {
			t.Fatalf("%s then Count: %d items, %d calls of f, want 4 and 4", name, got, calls.Load())
		}
	}
}

// TestFloatSumBitsArePerPipeline: a float Sum after a Filter has the same
// bits on every pool and over FromSeq as over Slice with the same Filter:
// the blocks are of source positions (Nums.Sum).
func TestFloatSumBitsArePerPipeline(t *testing.T) {
	n := 50_000
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 1 / float64(i+1)
	}
	keep := func(x float64) bool { return math.Float64bits(x)%3 != 0 }
	var want float64
	for k, p := range scanPools() {
		got := par.Numbers(xs).WithPool(p).Filter(keep).Sum()
		seq := par.Sum(par.FromSeq(slices.Values(xs)).WithPool(p).Filter(keep))
		if k == 0 {
			want = got
		}
		if math.Float64bits(got) != math.Float64bits(want) || math.Float64bits(seq) != math.Float64bits(want) {
			t.Fatalf("%d workers: Slice %v, FromSeq %v, want the bits of %v", p.Workers(), got, seq, want)
		}
	}
}

// TestCutBehindARestream: a context done while the steps before an index
// adapter wait for room in its buffer leaves items out, and Results and
// TryMap say so. Taken for the end of the items, the operation's stop made
// Results end with no error after one pair of 998.
func TestCutBehindARestream(t *testing.T) {
	for round := range 100 {
		ctx, cancel := context.WithCancel(context.Background())
		it := par.Range(0, 1000).Filter(func(int) bool { return true }).Skip(1).WithBuffer(1).WithContext(ctx)
		stop := func(x int) (int, error) {
			if x == 5 {
				cancel()
			}
			return x, nil
		}
		n, last := 0, error(nil)
		for _, err := range par.Results(it, stop) {
			n, last = n+1, err
		}
		var u *par.Unfinished
		if n < 999 && (!errors.As(last, &u) || u.Cause != context.Canceled) {
			t.Fatalf("round %d: Results cancelled at item 5 of 999 gave %d pairs, the last with %v; want an *Unfinished of context.Canceled last", round, n, last)
		}
		ctx, cancel = context.WithCancel(context.Background())
		it = it.WithContext(ctx)
		if got, err := par.TryMap(it, stop); !errors.Is(err, context.Canceled) || got != nil {
			t.Fatalf("round %d: TryMap cancelled at item 5 of 999 returned %d results and %v; want none and context.Canceled", round, len(got), err)
		}
		cancel()
	}
}
