package par_test

import (
	"context"
	"errors"
	"math"
	goruntime "runtime"
	"strings"
	"sync/atomic"
	"testing"

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
		if s, _ := v.(string); !strings.Contains(s, want) {
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
		if !it.Any(func(i int) bool { return i == lo }) || it.All(func(i int) bool { return i != last }) {
			t.Errorf("[%d, %d): Any/All wrong at the ends", lo, hi)
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
	}
}

// TestWholeIntRange: [math.MinInt, math.MaxInt) holds 2^64-1 items. Len,
// Count and Collect cannot count them and panic; searches and cancelled
// loops run as on any range.
func TestWholeIntRange(t *testing.T) {
	pool := newPool(t, 3)
	all := par.Range(math.MinInt, math.MaxInt).WithPool(pool)
	mustPanicWith(t, "gopar: Len: the range [-9223372036854775808, 9223372036854775807) holds 18446744073709551615 items", func() { all.Len() })
	mustPanicWith(t, "gopar: Count:", func() { all.Count() })
	mustPanicWith(t, "gopar: Collect:", func() { all.Collect() })
	// [MinInt, 0) has 2^63 items, one more than MaxInt.
	mustPanicWith(t, "gopar: Len:", func() { par.Range(math.MinInt, 0).Len() })
	if n := par.Range(math.MinInt, -1).Len(); n != math.MaxInt {
		t.Errorf("Range(MinInt, -1).Len() = %d, want MaxInt", n)
	}

	const far = 3_000_000 // well into the parallel phase
	at := math.MinInt + far
	if v, ok := all.FindFirst(func(i int) bool { return i >= at }); !ok || v != at {
		t.Errorf("FindFirst = %d, %v, want %d", v, ok, at)
	}
	if v, ok := all.Find(func(i int) bool { return i == at }); !ok || v != at {
		t.Errorf("Find = %d, %v", v, ok)
	}
	if !all.Any(func(i int) bool { return i == at }) || all.All(func(i int) bool { return i < at }) {
		t.Error("Any/All wrong")
	}
	errAt := errors.New("at")
	if err := all.TryForEach(func(i int) error {
		if i == at {
			return errAt
		}
		return nil
	}); err != errAt {
		t.Errorf("TryForEach = %v", err)
	}
	mustPanicWith(t, "gopar: TryMap:", func() { par.TryMap(all, func(i int) (int, error) { return i, nil }) })
	// The operations that would run every item stop when their context is
	// cancelled.
	cancelAfter := func(k int64) (context.Context, func()) {
		ctx, cancel := context.WithCancel(context.Background())
		var ran atomic.Int64
		return ctx, func() {
			if ran.Add(1) == k {
				cancel()
			}
		}
	}
	ctx, tick := cancelAfter(far)
	all.WithContext(ctx).ForEach(func(int) { tick() })
	ctx, tick = cancelAfter(far)
	all.WithContext(ctx).Map(func(i int) int { tick(); return 1 }).Sum()
	ctx, tick = cancelAfter(far)
	all.WithContext(ctx).Filter(func(int) bool { tick(); return true }).Count()
	ctx, tick = cancelAfter(far)
	par.Fold(all.WithContext(ctx), func() int { return 0 }, func(a, i int) int { tick(); return a + 1 }, func(a, b int) int { return a + b })
	ctx, tick = cancelAfter(far)
	par.Max(par.Map(all.WithContext(ctx), func(i int) int { tick(); return i }))
	ctx, tick = cancelAfter(far)
	if err := all.WithContext(ctx).TryForEach(func(int) error { tick(); return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled TryForEach = %v", err)
	}

	// The idioms: search [0, MaxInt) until found, and a long Find.
	if v, ok := par.Range(0, math.MaxInt).WithPool(pool).FindFirst(func(i int) bool { return i >= far }); !ok || v != far {
		t.Errorf("Range(0, MaxInt).FindFirst = %d, %v", v, ok)
	}
	if v, ok := par.Range(0, 1<<50).WithPool(pool).Find(func(i int) bool { return i == 1e6 }); !ok || v != 1e6 {
		t.Errorf("Range(0, 2^50).Find = %d, %v", v, ok)
	}
}

// TestWorkAfterTheDecision counts the items that start after a callback
// decided an operation (a match, an error, a cancel) and checks the bound
// of iter.Run: once the cut reaches the partitioner, only the block each
// participant holds still runs (partition's TestLoopCutBound checks that
// exactly); between the callback's decision and the cut, which follows as
// soon as the deciding block returns, each participant may take one more.
// With blocks of at most maxBlock items, at most 2*workers*maxBlock items
// start after the decision. A deciding goroutine that the OS deschedules
// between its callback and the cut lets the others run on meanwhile, so each
// figure is the best of a few attempts: a cut that does not work fails all
// of them by far.
func TestWorkAfterTheDecision(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	const workers, maxBlock, attempts = 4, 64, 8
	pool := newPool(t, workers)
	bound := int64(2 * workers * maxBlock)
	long := par.Range(0, math.MaxInt).WithPool(pool).WithBlockSize(0, maxBlock)
	// best runs measure up to attempts times and returns the smallest count.
	best := func(measure func() int64) int64 {
		b := int64(math.MaxInt64)
		for range attempts {
			if b = min(b, measure()); b <= bound {
				break
			}
		}
		return b
	}
	for _, m := range []int{30_000, 1_000_000} {
		// FindFirst: nothing above the match is needed once it is found.
		// (Items above it may run before: the participants work side by
		// side near the bottom of the range.)
		// Items above the match may run before it is found, in the
		// partitions the other participants claimed meanwhile: their sizes
		// grow with the index, so the total stays within a few times m
		// unless the OS deschedules the match's owner; hence best-of too.
		aboveLimit := 16 * int64(m)
		var after, totalAbove int64 = math.MaxInt64, math.MaxInt64
		for range attempts {
			var found atomic.Bool
			var above, aboveAfter atomic.Int64
			v, ok := long.FindFirst(func(i int) bool {
				if i > m {
					above.Add(1)
					if found.Load() {
						aboveAfter.Add(1)
					}
				}
				if i == m {
					found.Store(true)
				}
				return i == m
			})
			if !ok || v != m {
				t.Fatalf("FindFirst at %d: got %d, %v", m, v, ok)
			}
			after, totalAbove = min(after, aboveAfter.Load()), min(totalAbove, above.Load())
			if after <= bound && totalAbove <= aboveLimit {
				break
			}
		}
		if after > bound {
			t.Errorf("FindFirst at %d: %d items above the match ran after it (bound %d)", m, after, bound)
		}
		if totalAbove > aboveLimit {
			t.Errorf("FindFirst at %d: %d items above the match ran in all (limit %d)", m, totalAbove, aboveLimit)
		}

		// Find, TryForEach and a cancelled context: nothing is needed once
		// decided, so count the items that start afterwards.
		counting := func(run func(decide func(), count func())) int64 {
			var decided atomic.Bool
			var n atomic.Int64
			run(func() { decided.Store(true) }, func() {
				if decided.Load() {
					n.Add(1)
				}
			})
			return n.Load()
		}
		if n := best(func() int64 {
			return counting(func(decide, count func()) {
				long.Find(func(i int) bool {
					count()
					if i == m {
						decide()
						return true
					}
					return false
				})
			})
		}); n > bound {
			t.Errorf("Find at %d: %d items ran after the match (bound %d)", m, n, bound)
		}
		if n := best(func() int64 {
			return counting(func(decide, count func()) {
				long.TryForEach(func(i int) error {
					count()
					if i == m {
						decide()
						return errors.New("stop")
					}
					return nil
				})
			})
		}); n > bound {
			t.Errorf("TryForEach failing at %d: %d items ran after the error (bound %d)", m, n, bound)
		}
		if n := best(func() int64 {
			return counting(func(decide, count func()) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var ran atomic.Int64
				long.WithContext(ctx).ForEach(func(int) {
					count()
					if ran.Add(1) == int64(m) {
						decide()
						cancel()
					}
				})
			})
		}); n > bound {
			t.Errorf("ForEach cancelled after %d items: %d ran after the cancel (bound %d)", m, n, bound)
		}
	}
}

// TestNestedFindFirst: a FindFirst whose predicate runs another FindFirst
// over a long range; both cut their work off, so this returns promptly,
// also under the race detector, where each take costs more.
func TestNestedFindFirst(t *testing.T) {
	const outerMatch = 2000
	v, ok := par.Range(0, 1e9).FindFirst(func(i int) bool {
		j, found := par.Range(0, 1e9).FindFirst(func(j int) bool { return j >= 500+i%7 })
		return found && j == 500+outerMatch%7 && i >= outerMatch
	})
	if !ok || v != outerMatch {
		t.Fatalf("nested FindFirst = %d, %v, want %d", v, ok, outerMatch)
	}
}

// FuzzFindFirst searches random ranges with random matches, on 1-4 workers
// and random block bounds: FindFirst must return the lowest match, every
// item below it must run exactly once, and none above it twice.
func FuzzFindFirst(f *testing.F) {
	f.Add(uint32(1000), uint64(1), uint8(2), uint8(0), uint16(500))
	f.Add(uint32(200_000), uint64(2), uint8(4), uint8(16), uint16(3))
	f.Add(uint32(0), uint64(3), uint8(1), uint8(1), uint16(0))
	f.Add(uint32(70_000), uint64(4), uint8(3), uint8(0), uint16(0))
	f.Fuzz(func(t *testing.T, n uint32, seed uint64, workers, maxBlock uint8, density uint16) {
		n %= 1 << 20
		pool, err := runtime.New(int(workers%4) + 1)
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		// Matches: items whose hash falls under density/65536 (none for 0).
		match := func(i int) bool {
			h := uint64(i)*0x9E3779B97F4A7C15 + seed
			h ^= h >> 29
			return uint16(h*0xBF58476D1CE4E5B9>>48) < density
		}
		want := -1
		for i := range int(n) {
			if match(i) {
				want = i
				break
			}
		}
		runs := make([]atomic.Int32, n)
		v, ok := par.Range(0, int(n)).WithPool(pool).WithBlockSize(0, int(maxBlock)).FindFirst(func(i int) bool {
			runs[i].Add(1)
			return match(i)
		})
		if ok != (want >= 0) || ok && v != want {
			t.Fatalf("FindFirst = %d, %v, want %d", v, ok, want)
		}
		end := int(n)
		if ok {
			end = want + 1
		}
		for i := range runs {
			if c := runs[i].Load(); c > 1 || i < end && c != 1 {
				t.Fatalf("item %d ran %d times (match at %d)", i, c, want)
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
