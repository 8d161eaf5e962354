package par_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	goruntime "runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/long"
	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// mustPanicWith runs f and fails unless it panics with a message containing
// want.
func mustPanicWith(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		v := recover()
		if v == nil {
			t.Fatalf("no panic, want one containing %q", want)
		}
		if s := fmt.Sprint(v); !strings.Contains(s, want) {
			t.Fatalf("panicked with %v, want %q", v, want)
		}
	}()
	f()
}

// TestTerminalsAtTheBounds runs every terminal operation on ranges that end
// at math.MaxInt or start at math.MinInt, long enough to go parallel, and
// checks each against a loop.
func TestTerminalsAtTheBounds(t *testing.T) {
	const n = 300_000
	pool := newPool(t, 3)
	for _, lo := range []int{math.MaxInt - n, math.MinInt} {
		hi := lo + n
		it := par.Range(lo, hi).WithPool(pool)
		var seen = make([]atomic.Int32, n)
		it.ForEach(func(i int) { seen[i-lo].Add(1) })
		for k := range seen {
			if c := seen[k].Load(); c != 1 {
				t.Fatalf("[%d, %d): ForEach ran item %d %d times", lo, hi, lo+k, c)
			}
		}
		var want int
		for i := lo; i < hi; i++ {
			want += i // wraps as Sum does
		}
		if got := it.Sum(); got != want {
			t.Errorf("[%d, %d): Sum = %d, want %d", lo, hi, got, want)
		}
		if got := it.Reduce(func() int { return 0 }, func(a, b int) int { return a + b }); got != want {
			t.Errorf("[%d, %d): Reduce = %d, want %d", lo, hi, got, want)
		}
		if got := it.Len(); got != n {
			t.Errorf("[%d, %d): Len = %d", lo, hi, got)
		}
		even := it.Filter(func(i int) bool { return i%2 == 0 })
		if got := even.Count(); got != n/2 {
			t.Errorf("[%d, %d): Count of evens = %d", lo, hi, got)
		}
		xs := even.Collect()
		if len(xs) != n/2 || xs[0] != lo+((lo%2+2)%2) || xs[len(xs)-1] != hi-1-((hi-1)%2+2)%2 {
			t.Errorf("[%d, %d): Collect of evens: %d items from %d to %d", lo, hi, len(xs), xs[0], xs[len(xs)-1])
		}
		if all := it.Collect(); len(all) != n || all[0] != lo || all[n-1] != hi-1 {
			t.Errorf("[%d, %d): Collect wrong", lo, hi)
		}
		last := hi - 1
		if v, ok := it.Find(func(i int) bool { return i == last }); !ok || v != last {
			t.Errorf("[%d, %d): Find(last) = %d, %v", lo, hi, v, ok)
		}
		if v, ok := it.FindFirst(func(i int) bool { return i >= last-5 }); !ok || v != last-5 {
			t.Errorf("[%d, %d): FindFirst = %d, %v", lo, hi, v, ok)
		}
		if !it.Any(func(i int) bool { return i == lo }) || it.Every(func(i int) bool { return i != last }) {
			t.Errorf("[%d, %d): Any/Every wrong at the ends", lo, hi)
		}
		if got := par.Fold(it, func() int { return 0 }, func(a, i int) int { return a + i }, func(a, b int) int { return a + b }); got != want {
			t.Errorf("[%d, %d): Fold = %d, want %d", lo, hi, got, want)
		}
		if v, ok := par.Min(it); !ok || v != lo {
			t.Errorf("[%d, %d): Min = %d, %v", lo, hi, v, ok)
		}
		if v, ok := par.Max(it); !ok || v != last {
			t.Errorf("[%d, %d): Max = %d, %v", lo, hi, v, ok)
		}
		if ys, err := par.TryMap(it, func(i int) (int, error) { return i, nil }); err != nil || len(ys) != n || ys[0] != lo || ys[n-1] != last {
			t.Errorf("[%d, %d): TryMap: %d results, %v", lo, hi, len(ys), err)
		}
		if ys := par.FilterMap(it, func(i int) (int, bool) { return i, i == last }).Collect(); len(ys) != 1 || ys[0] != last {
			t.Errorf("[%d, %d): FilterMap = %v", lo, hi, ys)
		}
		errLast := errors.New("last")
		if err := it.TryForEach(func(i int) error {
			if i == last {
				return errLast
			}
			return nil
		}); err != errLast {
			t.Errorf("[%d, %d): TryForEach = %v", lo, hi, err)
		}
		if v, ok := it.FindFirst(func(i int) bool { return i == last }); !ok || v != last {
			t.Errorf("[%d, %d): FindFirst(last) = %d, %v", lo, hi, v, ok)
		}
		if _, ok := it.FindFirst(func(i int) bool { return i < lo }); ok {
			t.Errorf("[%d, %d): FindFirst without a match found one", lo, hi)
		}
		byValue := func(a, b int) int { return cmp.Compare(a, b) }
		if v, ok := par.MinFunc(it.Iter, byValue); !ok || v != lo {
			t.Errorf("[%d, %d): MinFunc = %d, %v", lo, hi, v, ok)
		}
		if v, ok := par.MaxFunc(it.Iter, byValue); !ok || v != last {
			t.Errorf("[%d, %d): MaxFunc = %d, %v", lo, hi, v, ok)
		}
		// Exact in float64: every partial sum is an integer below 2^53.
		if got, want := par.Sum(par.Map(it, func(i int) float64 { return float64(i - lo) })), float64(n)*(n-1)/2; got != want {
			t.Errorf("[%d, %d): float Sum = %v, want %v", lo, hi, got, want)
		}
		for k := range seen {
			seen[k].Store(0)
		}
		it.Blocks(func(a, b int) {
			if a < lo || b > hi || a >= b {
				t.Errorf("[%d, %d): block [%d, %d)", lo, hi, a, b)
				return
			}
			for i := a; i < b; i++ {
				seen[i-lo].Add(1)
			}
		})
		for k := range seen {
			if c := seen[k].Load(); c != 1 {
				t.Fatalf("[%d, %d): Blocks ran item %d %d times", lo, hi, lo+k, c)
			}
		}
		if got := par.ReduceBlocks(it, func(a, b int) int {
			s := 0
			for i := a; i < b; i++ {
				s += i
			}
			return s
		}, func(a, b int) int { return a + b }); got != want {
			t.Errorf("[%d, %d): ReduceBlocks = %d, want %d", lo, hi, got, want)
		}
		if ys := par.FlatMap(it, func(i int) []int {
			if i >= last-1 {
				return []int{i, -i}
			}
			return nil
		}).Collect(); len(ys) != 4 || ys[0] != last-1 || ys[2] != last || ys[3] != -last {
			t.Errorf("[%d, %d): FlatMap Collect = %v", lo, hi, ys)
		}
		var final [2]int
		if got := it.WithProgress(func(d, total int) { final = [2]int{d, total} }).Sum(); got != want || final != [2]int{n, n} {
			t.Errorf("[%d, %d): Sum with progress = %d, last report %v", lo, hi, got, final)
		}
		// The I/O mode, over the first and last 2000 items.
		for _, part := range [][2]int{{lo, lo + 2000}, {hi - 2000, hi}} {
			b := par.Range(part[0], part[1]).Blocking(8)
			if xs := b.Collect(); len(xs) != 2000 || xs[0] != part[0] || xs[1999] != part[1]-1 {
				t.Errorf("[%d, %d): Blocking Collect wrong", part[0], part[1])
			}
			if v, ok := b.FindFirst(func(i int) bool { return i >= part[1]-3 }); !ok || v != part[1]-3 {
				t.Errorf("[%d, %d): Blocking FindFirst = %d, %v", part[0], part[1], v, ok)
			}
		}
	}
}

// within runs f and fails the test if it has not returned after limit: a
// loop that does not stop would otherwise hang the test until its timeout.
// (f keeps running in the background then.)
func within(t *testing.T, limit time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		f()
	}()
	select {
	case v := <-done:
		if v != nil {
			t.Fatalf("%s panicked: %v", what, v)
		}
	case <-time.After(limit):
		t.Fatalf("%s has not returned after %v", what, limit)
	}
}

// poolForWithin is newPool for tests that use within: if the test failed,
// a loop that did not stop may still hold the workers, and Close would wait
// for it, so the pool is left open then.
func poolForWithin(t *testing.T, workers int) *runtime.Pool {
	t.Helper()
	pool, err := runtime.New(workers)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			pool.Close()
		}
	})
	return pool
}

// longRanges are the two longest ranges a user writes: every int, and
// "search [0, MaxInt) until found".
var longRanges = [][2]int{{math.MinInt, math.MaxInt}, {0, math.MaxInt}}

// TestWholeIntRange: [math.MinInt, math.MaxInt) holds 2^64-1 items. Len,
// Count and Collect cannot count them and panic; [0, math.MaxInt) holds
// math.MaxInt items, which Len and Count give without running anything, and
// which Collect and TryMap cannot allocate (they panic as make does, before
// any item runs). Searches and early exits run as on any range.
func TestWholeIntRange(t *testing.T) {
	pool := poolForWithin(t, 3)
	all := par.Range(math.MinInt, math.MaxInt).WithPool(pool)
	mustPanicWith(t, "gopar: Len: the range [-9223372036854775808, 9223372036854775807) holds 18446744073709551615 items", func() { all.Len() })
	mustPanicWith(t, "gopar: Count:", func() { all.Count() })
	mustPanicWith(t, "gopar: Collect:", func() { all.Collect() })
	mustPanicWith(t, "gopar: Len:", func() { all.Filter(func(int) bool { return true }).Len() })
	mustPanicWith(t, "gopar: Count:", func() { par.Map(all, func(i int) string { return "" }).Count() })
	mustPanicWith(t, "gopar: TryMap:", func() { par.TryMap(all, func(i int) (int, error) { return i, nil }) })
	mustPanicWith(t, "gopar: Partition:", func() { all.Partition(func(int) bool { panic("ran") }) })
	// [MinInt, 0) has 2^63 items, one more than MaxInt.
	mustPanicWith(t, "gopar: Len:", func() { par.Range(math.MinInt, 0).Len() })
	if n := par.Range(math.MinInt, -1).Len(); n != math.MaxInt {
		t.Errorf("Range(MinInt, -1).Len() = %d, want MaxInt", n)
	}
	upTo := par.Range(0, math.MaxInt).WithPool(pool)
	if n, c := upTo.Len(), par.Map(upTo, func(int) int { panic("ran") }).Count(); n != math.MaxInt || c != math.MaxInt {
		t.Errorf("Range(0, MaxInt): Len %d, Count %d, want MaxInt", n, c)
	}
	// Lengths an int holds but no slice can: the message names the
	// operation, the range and its length, not only Go's makeslice.
	for _, hi := range []int{1 << 60, math.MaxInt} {
		r := par.Range(0, hi).WithPool(pool)
		want := fmt.Sprintf("the range [0, %d) holds %d items, more than a slice of int can hold", hi, hi)
		mustPanicWith(t, "gopar: Collect: "+want, func() { par.Map(r, func(int) int { panic("ran") }).Collect() })
		mustPanicWith(t, "gopar: Collect: "+want, func() { r.Collect() })
		mustPanicWith(t, "gopar: Partition: the range", func() { r.Partition(func(int) bool { panic("ran") }) })
		mustPanicWith(t, "gopar: TryMap: "+want, func() { par.TryMap(r, func(int) (int, error) { panic("ran") }) })
		mustPanicWith(t, "gopar: TryMapContext: "+want, func() {
			par.TryMapContext(r, func(context.Context, int) (int, error) { panic("ran") })
		})
	}

	// Well into the parallel phase, also under the race detector, where 3*10^6
	// items per search took most of the 20 s limit on a loaded CI machine.
	far := long.Pick(3_000_000, 300_000) / race.Scale
	for _, r := range longRanges {
		it := par.Range(r[0], r[1]).WithPool(pool)
		at := r[0] + far
		errAt := errors.New("at")
		failAt := func(i int) error {
			if i == at {
				return errAt
			}
			return nil
		}
		within(t, 20*time.Second, fmt.Sprintf("searches over [%d, %d)", r[0], r[1]), func() {
			if v, ok := it.FindFirst(func(i int) bool { return i >= at }); !ok || v != at {
				t.Errorf("[%d, %d): FindFirst = %d, %v, want %d", r[0], r[1], v, ok, at)
			}
			if v, ok := it.Filter(func(i int) bool { return i%3 == 0 }).FindFirst(func(i int) bool { return i >= at }); !ok || v < at || v > at+2 {
				t.Errorf("[%d, %d): filtered FindFirst = %d, %v", r[0], r[1], v, ok)
			}
			if v, ok := it.Find(func(i int) bool { return i == at }); !ok || v != at {
				t.Errorf("[%d, %d): Find = %d, %v", r[0], r[1], v, ok)
			}
			if !it.Any(func(i int) bool { return i == at }) || it.Every(func(i int) bool { return i < at }) {
				t.Errorf("[%d, %d): Any/Every wrong", r[0], r[1])
			}
			if err := it.TryForEach(failAt); err != errAt {
				t.Errorf("[%d, %d): TryForEach = %v", r[0], r[1], err)
			}
			// Filtered, TryMap collects as it goes, so any length works.
			if _, err := par.TryMap(it.Filter(func(int) bool { return true }), func(i int) (int, error) { return i, failAt(i) }); err != errAt {
				t.Errorf("[%d, %d): filtered TryMap = %v", r[0], r[1], err)
			}
			if v, ok := par.FlatMap(it, func(i int) []int { return []int{i, i} }).FindFirst(func(i int) bool { return i >= at }); !ok || v != at {
				t.Errorf("[%d, %d): FlatMap FindFirst = %d, %v", r[0], r[1], v, ok)
			}
			// The I/O mode hands out one item at a time from lo.
			if v, ok := it.Blocking(4).FindFirst(func(i int) bool { return i >= r[0]+1000 }); !ok || v != r[0]+1000 {
				t.Errorf("[%d, %d): Blocking FindFirst = %d, %v", r[0], r[1], v, ok)
			}
		})
	}
	// Progress over 2^64-1 items: the total an int can give.
	ctx, cancel := context.WithCancel(context.Background())
	var reports atomic.Int64
	var final [2]int
	all.WithContext(ctx).WithProgress(func(d, total int) {
		if total != math.MaxInt {
			t.Errorf("progress total %d, want MaxInt", total)
		}
		final = [2]int{d, total}
	}).ForEach(func(int) {
		if reports.Add(1) == int64(far) {
			cancel()
		}
	})
	if final != [2]int{math.MaxInt, math.MaxInt} {
		t.Errorf("last progress report %v, want (MaxInt, MaxInt)", final)
	}
	// The idiom of the issue, and a long Find.
	if v, ok := par.Range(0, 1<<50).WithPool(pool).Find(func(i int) bool { return i == 1e6 }); !ok || v != 1e6 {
		t.Errorf("Range(0, 2^50).Find = %d, %v", v, ok)
	}
}

// TestEveryTerminalStopsOnLongRanges: every terminal operation that would
// run every item of [math.MinInt, math.MaxInt) or [0, math.MaxInt) returns
// promptly once its context is cancelled, whatever the pipeline: each is
// cancelled after far items and must return within a few seconds (they
// take milliseconds). A float Sum once cut such ranges into blocks of up to
// 2^44 items that a cancel could not interrupt.
func TestEveryTerminalStopsOnLongRanges(t *testing.T) {
	pool := poolForWithin(t, 3)
	far := int64(1_000_000 / race.Scale)
	sum := func(a, b int) int { return a + b }
	ops := []struct {
		name string
		run  func(it par.Ints, tick func(int))
	}{
		{"ForEach", func(it par.Ints, tick func(int)) { it.ForEach(tick) }},
		{"Sum", func(it par.Ints, tick func(int)) { it.Map(func(i int) int { tick(1); return i }).Sum() }},
		{"float Sum", func(it par.Ints, tick func(int)) {
			par.Sum(par.Map(it, func(i int) float64 { tick(1); return 1 }))
		}},
		{"complex Sum with a Filter", func(it par.Ints, tick func(int)) {
			par.Sum(par.Map(it.Filter(func(int) bool { tick(1); return true }), func(i int) complex64 { return 1 }))
		}},
		{"Reduce", func(it par.Ints, tick func(int)) {
			it.Map(func(i int) int { tick(1); return i }).Reduce(func() int { return 0 }, sum)
		}},
		{"Count with a Filter", func(it par.Ints, tick func(int)) { it.Filter(func(int) bool { tick(1); return true }).Count() }},
		{"Collect with a Filter", func(it par.Ints, tick func(int)) { it.Filter(func(int) bool { tick(1); return false }).Collect() }},
		{"FilterMap Collect", func(it par.Ints, tick func(int)) {
			par.FilterMap(it, func(i int) (int, bool) { tick(1); return i, false }).Collect()
		}},
		{"FlatMap Count", func(it par.Ints, tick func(int)) { par.FlatMap(it, func(i int) []int { tick(1); return nil }).Count() }},
		{"Fold", func(it par.Ints, tick func(int)) {
			par.Fold(it, func() int { return 0 }, func(a, i int) int { tick(1); return a + 1 }, sum)
		}},
		{"Min", func(it par.Ints, tick func(int)) { par.Min(it.Map(func(i int) int { tick(1); return i })) }},
		{"Max", func(it par.Ints, tick func(int)) { par.Max(it.Map(func(i int) int { tick(1); return i })) }},
		{"MinFunc", func(it par.Ints, tick func(int)) {
			par.MinFunc(it.Iter, func(a, b int) int { tick(1); return cmp.Compare(a, b) })
		}},
		{"MaxFunc", func(it par.Ints, tick func(int)) {
			par.MaxFunc(it.Iter, func(a, b int) int { tick(1); return cmp.Compare(a, b) })
		}},
		{"FindFirst without a match", func(it par.Ints, tick func(int)) { it.FindFirst(func(int) bool { tick(1); return false }) }},
		{"Any without a match", func(it par.Ints, tick func(int)) { it.Any(func(int) bool { tick(1); return false }) }},
		{"Every true", func(it par.Ints, tick func(int)) { it.Every(func(int) bool { tick(1); return true }) }},
		{"TryForEach", func(it par.Ints, tick func(int)) { it.TryForEach(func(int) error { tick(1); return nil }) }},
		{"TryMap with a Filter", func(it par.Ints, tick func(int)) {
			par.TryMap(it.Filter(func(int) bool { return true }), func(i int) (int, error) { tick(1); return i, nil })
		}},
		{"Blocks", func(it par.Ints, tick func(int)) { it.Blocks(func(lo, hi int) { tick(hi - lo) }) }},
		{"ReduceBlocks", func(it par.Ints, tick func(int)) {
			par.ReduceBlocks(it, func(lo, hi int) int { tick(hi - lo); return hi - lo }, sum)
		}},
		{"WithProgress ForEach", func(it par.Ints, tick func(int)) { it.WithProgress(func(int, int) {}).ForEach(tick) }},
		{"WithProgress float Sum", func(it par.Ints, tick func(int)) {
			par.Sum(par.Map(it.WithProgress(func(int, int) {}), func(i int) float64 { tick(1); return 1 }))
		}},
		{"WithBlockSize(0, 1) ForEach", func(it par.Ints, tick func(int)) { it.WithBlockSize(0, 1).ForEach(tick) }},
		{"Blocking ForEach", func(it par.Ints, tick func(int)) { it.Blocking(8).ForEach(func(int) { tick(1000) }) }},
	}
	for _, r := range longRanges {
		for _, op := range ops {
			ctx, cancel := context.WithCancel(context.Background())
			var ran atomic.Int64
			tick := func(n int) {
				if ran.Add(int64(n)) >= far {
					cancel()
				}
			}
			it := par.Range(r[0], r[1]).WithPool(pool).WithContext(ctx)
			within(t, 10*time.Second, fmt.Sprintf("%s over [%d, %d) cancelled after %d items", op.name, r[0], r[1], far), func() {
				op.run(it, tick)
			})
			if ctx.Err() == nil {
				t.Errorf("%s over [%d, %d) returned after %d items without a cancel", op.name, r[0], r[1], ran.Load())
			}
			cancel()
		}
	}
}

// TestEmptyAtTheBounds: empty and reversed ranges at the ends of int run
// nothing and give every terminal operation its empty result.
func TestEmptyAtTheBounds(t *testing.T) {
	never := func(int) bool { t.Error("a callback ran on an empty range"); return true }
	for _, r := range [][2]int{{math.MaxInt, math.MaxInt}, {math.MinInt, math.MinInt}, {math.MaxInt, math.MinInt}, {0, math.MinInt}} {
		it := par.Range(r[0], r[1])
		if it.Len() != 0 || it.Count() != 0 || it.Sum() != 0 || len(it.Collect()) != 0 {
			t.Errorf("[%d, %d): not empty", r[0], r[1])
		}
		if _, ok := it.FindFirst(never); ok {
			t.Errorf("[%d, %d): FindFirst found", r[0], r[1])
		}
		if _, ok := it.Find(never); ok || it.Any(never) || !it.Every(never) {
			t.Errorf("[%d, %d): Find/Any/Every wrong", r[0], r[1])
		}
		if _, ok := par.Min(it); ok {
			t.Errorf("[%d, %d): Min found an item", r[0], r[1])
		}
		if s := par.Sum(par.Map(it, func(int) float64 { return 1 })); s != 0 {
			t.Errorf("[%d, %d): float Sum = %v", r[0], r[1], s)
		}
		if err := it.TryForEach(func(int) error { never(0); return nil }); err != nil {
			t.Errorf("[%d, %d): TryForEach = %v", r[0], r[1], err)
		}
		if ys, err := par.TryMap(it, func(i int) (int, error) { never(0); return i, nil }); err != nil || len(ys) != 0 {
			t.Errorf("[%d, %d): TryMap = %v, %v", r[0], r[1], ys, err)
		}
		it.Blocks(func(lo, hi int) { never(0) })
		it.Blocking(2).ForEach(func(int) { never(0) })
		var calls [][2]int
		it.WithProgress(func(d, n int) { calls = append(calls, [2]int{d, n}) }).ForEach(func(int) { never(0) })
		if len(calls) != 1 || calls[0] != [2]int{0, 0} {
			t.Errorf("[%d, %d): progress calls %v, want one (0, 0)", r[0], r[1], calls)
		}
	}
}

// decision records what ran around a decision at item m.
type decision struct {
	m         int
	aboveOnly bool // FindFirst: the items below m must run, only those above count
	decided   atomic.Bool
	after     atomic.Int64 // items started after the decision (above m only, for FindFirst)
	above     atomic.Int64 // items above m, whenever they ran
	// Before the decision, an item ran above m (FindFirst) or above 2m
	// (the others): a helper held work there that only the cut can drop.
	helped atomic.Bool
}

func (d *decision) visit(i int) {
	if spin(uint64(i), 16) == 0 { // about 40 ns, so that the helpers join in
		panic("spin")
	}
	if i > d.m {
		d.above.Add(1)
	}
	if d.decided.Load() {
		if !d.aboveOnly || i > d.m {
			d.after.Add(1)
		}
	} else if d.aboveOnly && i > d.m || i > 2*d.m {
		d.helped.Store(true)
	}
}

// TestWorkAfterTheDecision counts the items that start after a callback
// decided an operation (a match, an error, a cancel) and checks the bound
// of pipe.Run: once the cut reaches the partitioner, only the block each
// participant holds still runs (partition's TestLoopCutBound checks that
// exactly); between the callback's decision and the cut, which follows as
// soon as the deciding block returns, each participant may take one more.
// With blocks of at most maxBlock items, at most 2*workers*maxBlock items
// start after the decision. For FindFirst the items below the match must
// still run, so only those above it count.
//
// An attempt measures something only if, before the decision, a helper
// ran items above it (above m for FindFirst, above 2m for the others),
// that is, held work there that only the cut can take away; an attempt
// where the others were idle, or all below the match, would pass whatever
// the cut does. And a deciding goroutine that the OS deschedules between
// its callback and the cut lets the others run on meanwhile: so each figure
// is the best of the attempts that measured. Checked by breaking the cut:
// with owners that ignore it, FindFirst at 10^6 ran 1-5*10^5 items after the
// match in every attempt that measured, and Find over [0, MaxInt), whose
// owners then drain partitions of 2^32 items, did not return (within
// reports it); with partitions claimed above the cut, or no cut from
// FindFirst at all, FindFirst does not return.
func TestWorkAfterTheDecision(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	const workers, maxBlock, attempts = 4, 64, 20
	pool := poolForWithin(t, workers)
	bound := int64(2 * workers * maxBlock)
	long := par.Range(0, math.MaxInt).WithPool(pool).WithBlockSize(0, maxBlock)
	measuredOps := map[string]int{} // the values of m at which each op measured
	for _, m := range []int{30_000, 1_000_000 / race.Scale} {
		// Items above the match may run before it is found, in the
		// partitions the other participants claimed meanwhile: their sizes
		// grow with the index, so the total stays within a few times m.
		aboveLimit := 16 * int64(m)
		ops := []struct {
			name      string
			aboveOnly bool
			run       func(d *decision)
		}{
			{"FindFirst", true, func(d *decision) {
				if v, ok := long.FindFirst(func(i int) bool {
					d.visit(i)
					if i == m {
						d.decided.Store(true)
					}
					return i == m
				}); !ok || v != m {
					t.Errorf("FindFirst at %d: got %d, %v", m, v, ok)
				}
			}},
			{"Find", false, func(d *decision) {
				long.Find(func(i int) bool {
					d.visit(i)
					if i == m {
						d.decided.Store(true)
					}
					return i == m
				})
			}},
			{"TryForEach", false, func(d *decision) {
				long.TryForEach(func(i int) error {
					d.visit(i)
					if i == m {
						d.decided.Store(true)
						return errors.New("stop")
					}
					return nil
				})
			}},
			{"ForEach cancelled", false, func(d *decision) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var ran atomic.Int64
				long.WithContext(ctx).ForEach(func(i int) {
					d.visit(i)
					if ran.Add(1) == int64(m) {
						d.decided.Store(true)
						cancel()
					}
				})
			}},
		}
		for _, op := range ops {
			best, bestAbove, measured := int64(math.MaxInt64), int64(math.MaxInt64), 0
			for range attempts {
				d := &decision{m: m, aboveOnly: op.aboveOnly}
				within(t, 30*time.Second, fmt.Sprintf("%s deciding at %d over [0, MaxInt)", op.name, m), func() { op.run(d) })
				if !d.helped.Load() {
					continue // no helper held work above: nothing to measure
				}
				measured++
				best, bestAbove = min(best, d.after.Load()), min(bestAbove, d.above.Load())
				if best <= bound && (!op.aboveOnly || bestAbove <= aboveLimit) {
					break
				}
			}
			switch {
			case measured == 0:
				// On a loaded machine the helpers may not join before a
				// small m; the larger m must still measure (below).
				t.Logf("%s deciding at %d: the helpers never took part in %d attempts, nothing measured", op.name, m, attempts)
				continue
			case best > bound:
				t.Errorf("%s deciding at %d: %d items started after the decision (bound %d; best of %d attempts)", op.name, m, best, bound, measured)
			case op.aboveOnly && bestAbove > aboveLimit:
				t.Errorf("%s at %d: %d items above the match ran in all (limit %d)", op.name, m, bestAbove, aboveLimit)
			}
			t.Logf("%s deciding at %d: %d items after the decision (bound %d), %d attempts measured", op.name, m, best, bound, measured)
			measuredOps[op.name]++
		}
	}
	for _, op := range []string{"FindFirst", "Find", "TryForEach", "ForEach cancelled"} {
		if measuredOps[op] == 0 {
			t.Errorf("%s: the helpers never took part at any m: the bound was not checked", op)
		}
	}
}

// TestNestedFindFirst: a FindFirst over [0, 1e9) whose predicate runs
// another FindFirst over 1e9 items; both cut their work off, so this returns
// in under 100 ms, and under 2 s with the race detector, where each take
// costs more (the bars; it takes about 3 ms and 40 ms). The figure is
// the best of three runs, so that one run slowed by a busy machine does not
// fail it; a hang fails within's limit.
func TestNestedFindFirst(t *testing.T) {
	const outerMatch = 2000
	limit := 100 * time.Millisecond
	if race.Enabled {
		limit = 2 * time.Second
	}
	best := time.Duration(math.MaxInt64)
	for range 3 {
		start := time.Now()
		within(t, 60*time.Second, "the nested FindFirst", func() {
			v, ok := par.Range(0, 1e9).FindFirst(func(i int) bool {
				j, found := par.Range(0, 1e9).FindFirst(func(j int) bool { return j >= 500+i%7 })
				return found && j == 500+outerMatch%7 && i >= outerMatch
			})
			if !ok || v != outerMatch {
				t.Errorf("nested FindFirst = %d, %v, want %d", v, ok, outerMatch)
			}
		})
		if best = min(best, time.Since(start)); best < limit {
			break
		}
	}
	if best >= limit {
		t.Errorf("the nested FindFirst took %v at best (bound %v)", best, limit)
	}
	t.Logf("nested FindFirst: %v (bound %v)", best, limit)
}

// FuzzFindFirst searches random ranges with random matches (so the loop is
// cut off at random indexes), on 1-4 workers and random block bounds, at 0
// or at either end of int: FindFirst must return the lowest match, every
// item below it must run exactly once, and none above it twice.
func FuzzFindFirst(f *testing.F) {
	f.Add(uint32(1000), uint64(1), uint8(2), uint8(0), uint16(500), uint8(0))
	f.Add(uint32(200_000), uint64(2), uint8(4), uint8(16), uint16(3), uint8(1))
	f.Add(uint32(0), uint64(3), uint8(1), uint8(1), uint16(0), uint8(2))
	f.Add(uint32(70_000), uint64(4), uint8(3), uint8(0), uint16(0), uint8(2))
	f.Add(uint32(300_000), uint64(5), uint8(2), uint8(64), uint16(1), uint8(1))
	f.Fuzz(func(t *testing.T, n uint32, seed uint64, workers, maxBlock uint8, density uint16, at uint8) {
		n %= 1 << 20
		pool, err := runtime.New(int(workers%4) + 1)
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		lo := [3]int{0, math.MinInt, math.MaxInt - int(n)}[at%3]
		// Matches: items whose hash falls under density/65536 (none for 0).
		match := func(k int) bool {
			h := uint64(k)*0x9E3779B97F4A7C15 + seed
			h ^= h >> 29
			return uint16(h*0xBF58476D1CE4E5B9>>48) < density
		}
		want := -1
		for k := range int(n) {
			if match(k) {
				want = k
				break
			}
		}
		runs := make([]atomic.Int32, n)
		v, ok := par.Range(lo, lo+int(n)).WithPool(pool).WithBlockSize(0, int(maxBlock)).FindFirst(func(i int) bool {
			runs[i-lo].Add(1)
			return match(i - lo)
		})
		if ok != (want >= 0) || ok && v != lo+want {
			t.Fatalf("[%d, %d): FindFirst = %d, %v, want offset %d", lo, lo+int(n), v, ok, want)
		}
		end := int(n)
		if ok {
			end = want + 1
		}
		for k := range runs {
			if c := runs[k].Load(); c > 1 || k < end && c != 1 {
				t.Fatalf("[%d, %d): item %d ran %d times (match at offset %d)", lo, lo+int(n), lo+k, c, want)
			}
		}
	})
}

// newPool returns a pool of the given size, closed when the test ends.
func newPool(t testing.TB, workers int) *runtime.Pool {
	t.Helper()
	pool, err := runtime.New(workers)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return pool
}
