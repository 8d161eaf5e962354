package par_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// words returns n words from a vocabulary of vocab, deterministically.
func words(n, vocab int) []string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = "w" + strconv.Itoa(int(uint64(i)*0x9E3779B97F4A7C15>>40)%vocab)
	}
	return ws
}

// wordCounts counts ws with a plain loop.
func wordCounts(ws []string) map[string]int {
	m := map[string]int{}
	for _, w := range ws {
		m[w]++
	}
	return m
}

// mergeCounts adds b's counts into a and returns a.
func mergeCounts(a, b map[string]int) map[string]int {
	for w, n := range b {
		a[w] += n
	}
	return a
}

// TestFoldWordCount: a word count with one map per run. init runs once per
// run, O(workers + steals) times, which stays within 2*workers*log2(n) even
// with more workers than cores (TestReduceBlocksCostlyBody checks the same
// pattern with a map per block), and up to three times for a run whose map
// would share a cache line with another's (pipe.Apart).
func TestFoldWordCount(t *testing.T) {
	ws := words(300_000, 5000)
	want := wordCounts(ws)
	for _, workers := range []int{1, 2, 4} {
		pool := newPool(t, workers)
		var inits atomic.Int64
		got := par.Fold(par.Slice(ws).WithPool(pool),
			func() map[string]int { inits.Add(1); return map[string]int{} },
			func(m map[string]int, w string) map[string]int { m[w]++; return m },
			mergeCounts)
		if len(got) != len(want) {
			t.Fatalf("%d workers: %d words, want %d", workers, len(got), len(want))
		}
		for w, n := range want {
			if got[w] != n {
				t.Fatalf("%d workers: %q counted %d times, want %d", workers, w, got[w], n)
			}
		}
		// O(workers x log n).
		if n, bound := inits.Load(), int64(3*2*workers*bits.Len(uint(len(ws)))); n > bound {
			t.Errorf("%d workers: init ran %d times for %d words (bound %d)", workers, n, len(ws), bound)
		}
	}
}

// TestFoldOrder: runs are combined in index order, so a non-commutative
// combine (concatenation) gives the sequential result.
func TestFoldOrder(t *testing.T) {
	pool := newPool(t, 3)
	const n = 200_000
	got := par.Fold(par.Range(0, n).WithPool(pool),
		func() []int { return nil },
		func(acc []int, i int) []int { return append(acc, i) },
		func(a, b []int) []int { return append(a, b...) })
	if len(got) != n {
		t.Fatalf("%d items, want %d", len(got), n)
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("item %d is %d", i, v)
		}
	}
	if got := par.Fold(par.Range(5, 5), func() int { return 42 }, func(a, i int) int { return a + i }, func(a, b int) int { return a + b }); got != 42 {
		t.Errorf("Fold of nothing = %d, want init() = 42", got)
	}
}

func TestMinMax(t *testing.T) {
	pool := newPool(t, 3)
	const n = 300_000
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64((uint64(i)*0x9E3779B97F4A7C15)>>20) / 1e6
	}
	for _, c := range []struct {
		name string
		xs   []float64
	}{
		{"random", xs},
		{"NaN in the middle", append(append(slices.Clone(xs[:n/2]), math.NaN()), xs[n/2:]...)},
		{"NaN at the end", append(slices.Clone(xs), math.NaN())},
		{"signed zeros", []float64{0, math.Copysign(0, -1), 0}},
		{"one", []float64{7}},
	} {
		it := par.Slice(c.xs).WithPool(pool)
		gotMin, ok1 := par.Min(it)
		gotMax, ok2 := par.Max(it)
		wantMin, wantMax := slices.Min(c.xs), slices.Max(c.xs)
		same := func(a, b float64) bool {
			return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
		}
		if !ok1 || !ok2 || !same(gotMin, wantMin) || !same(gotMax, wantMax) {
			t.Errorf("%s: Min, Max = %v, %v, want %v, %v (slices)", c.name, gotMin, gotMax, wantMin, wantMax)
		}
	}
	if _, ok := par.Min(par.Slice([]int(nil))); ok {
		t.Error("Min of nothing reported an item")
	}
	if _, ok := par.MaxFunc(par.Range(3, 3), func(a, b int) int { return a - b }); ok {
		t.Error("MaxFunc of nothing reported an item")
	}
}

// TestMinMaxFuncTies: among equal items, the first in index order wins, as
// in slices.MinFunc and slices.MaxFunc.
func TestMinMaxFuncTies(t *testing.T) {
	pool := newPool(t, 4)
	type item struct{ key, at int }
	const n = 300_000
	xs := make([]item, n)
	for i := range xs {
		xs[i] = item{int(uint64(i)*0x9E3779B97F4A7C15>>50) % 100, i}
	}
	byKey := func(a, b item) int { return a.key - b.key }
	it := par.Slice(xs).WithPool(pool)
	if got, _ := par.MinFunc(it, byKey); got != slices.MinFunc(xs, byKey) {
		t.Errorf("MinFunc = %v, want %v", got, slices.MinFunc(xs, byKey))
	}
	if got, _ := par.MaxFunc(it, byKey); got != slices.MaxFunc(xs, byKey) {
		t.Errorf("MaxFunc = %v, want %v", got, slices.MaxFunc(xs, byKey))
	}
}

func TestTryMap(t *testing.T) {
	pool := newPool(t, 3)
	const n = 200_000
	it := par.Range(0, n).WithPool(pool)
	got, err := par.TryMap(it, func(i int) (string, error) { return strconv.Itoa(i), nil })
	if err != nil || len(got) != n || got[0] != "0" || got[n-1] != strconv.Itoa(n-1) {
		t.Fatalf("TryMap: %d results, %v", len(got), err)
	}
	for i, s := range got {
		if s != strconv.Itoa(i) {
			t.Fatalf("result %d is %q", i, s)
		}
	}
	// Filtered sources keep source order too.
	odd, err := par.TryMap(it.Filter(func(i int) bool { return i%2 == 1 }), func(i int) (int, error) { return i, nil })
	if err != nil || len(odd) != n/2 || odd[0] != 1 || odd[len(odd)-1] != n-1 {
		t.Fatalf("TryMap after Filter: %d results, %v", len(odd), err)
	}
	// Errors: the lowest failing index among those that ran, and a nil slice.
	bad := errors.New("bad")
	for _, at := range []int{0, 10, n / 2, n - 1} {
		got, err := par.TryMap(it, func(i int) (int, error) {
			if i >= at && i%1000 == at%1000 {
				return 0, fmt.Errorf("item %d: %w", i, bad)
			}
			return i, nil
		})
		if got != nil || !errors.Is(err, bad) {
			t.Fatalf("failing from %d: %d results, %v", at, len(got), err)
		}
		if at == 0 && err.Error() != "item 0: bad" {
			t.Errorf("failing everywhere from 0: %v, want item 0's error", err)
		}
	}
	// A context cancelled by the first call, while every block in flight
	// is still small: cancelled later, the loop may have handed out every
	// item in blocks already running, and then it has finished them all.
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int64
	nums, err := par.TryMap(it.WithContext(ctx), func(i int) (int, error) {
		if ran.Add(1) == 1 {
			cancel()
		}
		return i, nil
	})
	if nums != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled TryMap: %d results, %v", len(nums), err)
	}
	if got, err := par.TryMap(par.Slice([]int{}), func(i int) (int, error) { return i, nil }); err != nil || got == nil || len(got) != 0 {
		t.Errorf("TryMap of nothing = %v, %v; want an empty slice", got, err)
	}
}

func TestFilterMap(t *testing.T) {
	pool := newPool(t, 3)
	const n = 200_000
	lines := make([]string, n)
	for i := range lines {
		if i%3 == 0 {
			lines[i] = "x" + strconv.Itoa(i)
		} else {
			lines[i] = strconv.Itoa(i)
		}
	}
	got := par.FilterMap(par.Slice(lines).WithPool(pool), func(s string) (int, bool) {
		v, err := strconv.Atoi(s)
		return v, err == nil
	}).Collect()
	var want []int
	for i := range n {
		if i%3 != 0 {
			want = append(want, i)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("FilterMap: %d items, want %d", len(got), len(want))
	}
	if c := par.FilterMap(par.Range(0, n), func(i int) (int, bool) { return i, i%7 == 0 }).Count(); c != (n+6)/7 {
		t.Errorf("FilterMap Count = %d", c)
	}
}

// TestToolkitNilFuncs: a nil function panics at once, naming the function.
func TestToolkitNilFuncs(t *testing.T) {
	it := par.Range(0, 10)
	id := func() int { return 0 }
	add := func(a, b int) int { return a + b }
	mustPanicWith(t, "par.Fold (init) was given a nil function", func() { par.Fold(it, nil, add, add) })
	mustPanicWith(t, "par.Fold (fold) was given a nil function", func() { par.Fold[int, int](it, id, nil, add) })
	mustPanicWith(t, "par.Fold (combine) was given a nil function", func() { par.Fold(it, id, add, nil) })
	mustPanicWith(t, "par.MinFunc was given a nil function", func() { par.MinFunc(it, nil) })
	mustPanicWith(t, "par.MaxFunc was given a nil function", func() { par.MaxFunc(it, nil) })
	mustPanicWith(t, "par.TryMap was given a nil function", func() { par.TryMap[int, int](it, nil) })
	mustPanicWith(t, "par.FilterMap was given a nil function", func() { par.FilterMap[int, int](it, nil) })
	mustPanicWith(t, "par.FlatMap was given a nil function", func() { par.FlatMap[int, int](it, nil) })
}

// TestMinMaxMatchSlices: Min, Max, MinFunc and MaxFunc give what their
// slices namesakes give, on random inputs with many ties, at sizes on both
// sides of the inline phase and on 1, 2, 3 and 8 workers. Items carry
// their index, so a tie resolved to another item than the first shows.
func TestMinMaxMatchSlices(t *testing.T) {
	type item struct{ key, at int }
	byKey := func(a, b item) int { return cmp.Compare(a.key, b.key) }
	rng := rand.New(rand.NewPCG(9, 9))
	sizes := []int{1, 2, 7, 1000, 50_000, 300_000}
	if race.Enabled {
		sizes = sizes[:5]
	}
	for _, workers := range []int{1, 2, 3, 8} {
		pool := newPool(t, workers)
		for _, n := range sizes {
			for _, keys := range []int{1, 3, 1000} {
				xs := make([]item, n)
				for i := range xs {
					xs[i] = item{rng.IntN(keys), i}
				}
				it := par.Slice(xs).WithPool(pool)
				if got, _ := par.MinFunc(it, byKey); got != slices.MinFunc(xs, byKey) {
					t.Fatalf("%d workers, n=%d, %d keys: MinFunc = %v, slices.MinFunc %v", workers, n, keys, got, slices.MinFunc(xs, byKey))
				}
				if got, _ := par.MaxFunc(it, byKey); got != slices.MaxFunc(xs, byKey) {
					t.Fatalf("%d workers, n=%d, %d keys: MaxFunc = %v, slices.MaxFunc %v", workers, n, keys, got, slices.MaxFunc(xs, byKey))
				}
				ks := make([]int, n)
				for i, x := range xs {
					ks[i] = x.key
				}
				lo, ok1 := par.Min(par.Slice(ks).WithPool(pool))
				hi, ok2 := par.Max(par.Slice(ks).WithPool(pool))
				if !ok1 || !ok2 || lo != slices.Min(ks) || hi != slices.Max(ks) {
					t.Fatalf("%d workers, n=%d: Min, Max = %d, %d; slices %d, %d", workers, n, lo, hi, slices.Min(ks), slices.Max(ks))
				}
			}
		}
	}
}

// TestMinMaxNaN: a NaN anywhere, one or several, gives NaN, as slices.Min
// and slices.Max do, for float64 and float32; -0.0 and 0.0 as in slices.
func TestMinMaxNaN(t *testing.T) {
	pool := newPool(t, 3)
	const n = 100_000
	base := make([]float64, n)
	for i := range base {
		base[i] = float64(int(uint64(i)*0x9E3779B97F4A7C15>>44)) - 5000
	}
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
	}
	for _, at := range [][]int{{0}, {1}, {4095}, {n / 2}, {n - 2}, {n - 1}, {3, n - 1}, {0, n / 3, 2 * n / 3}} {
		xs := slices.Clone(base)
		for _, i := range at {
			xs[i] = math.NaN()
		}
		lo, _ := par.Min(par.Slice(xs).WithPool(pool))
		hi, _ := par.Max(par.Slice(xs).WithPool(pool))
		if !same(lo, slices.Min(xs)) || !same(hi, slices.Max(xs)) {
			t.Errorf("NaN at %v: Min, Max = %v, %v; slices %v, %v", at, lo, hi, slices.Min(xs), slices.Max(xs))
		}
		xs32 := make([]float32, n)
		for i, x := range xs {
			xs32[i] = float32(x)
		}
		lo32, _ := par.Min(par.Slice(xs32).WithPool(pool))
		hi32, _ := par.Max(par.Slice(xs32).WithPool(pool))
		if !math.IsNaN(float64(lo32)) || !math.IsNaN(float64(hi32)) {
			t.Errorf("float32, NaN at %v: Min, Max = %v, %v, want NaN", at, lo32, hi32)
		}
	}
	negZero := math.Copysign(0, -1)
	for _, xs := range [][]float64{{0, negZero}, {negZero, 0}, {0, 0, negZero, 0}, {math.Inf(1), math.Inf(-1)}} {
		lo, _ := par.Min(par.Slice(xs))
		hi, _ := par.Max(par.Slice(xs))
		if !same(lo, slices.Min(xs)) || !same(hi, slices.Max(xs)) {
			t.Errorf("%v: Min, Max = %v, %v; slices %v, %v", xs, lo, hi, slices.Min(xs), slices.Max(xs))
		}
	}
}

// TestMinMaxFuncBadCmp: a cmp that is not a strict weak order gives some
// item of the input, on every pool, and returns; one that always answers
// -1 (or 1) gives what slices.MinFunc (MaxFunc) gives: the last item.
func TestMinMaxFuncBadCmp(t *testing.T) {
	n := 200_000
	if race.Enabled {
		n = 20_000
	}
	xs := shuffled(n, 11)
	bad := map[string]func(a, b int) int{
		"always -1": func(a, b int) int { return -1 },
		"always 1":  func(a, b int) int { return 1 },
		"random": func(a, b int) int {
			h := uint64(a)*0x9E3779B97F4A7C15 ^ uint64(b)*0xBF58476D1CE4E5B9
			return int((h^h>>29)%3) - 1
		},
		"coin": func(a, b int) int { return rand.IntN(3) - 1 },
	}
	for _, workers := range []int{1, 2, 3, 8} {
		pool := newPool(t, workers)
		for name, c := range bad {
			for op, f := range map[string]func(par.Iterator[int], func(a, b int) int) (int, bool){
				"MinFunc": par.MinFunc[int], "MaxFunc": par.MaxFunc[int],
			} {
				got, ok := f(par.Slice(xs).WithPool(pool), c)
				if !ok || got < 0 || got >= n {
					t.Fatalf("%d workers, %s, %s: %d, %v: not an item", workers, op, name, got, ok)
				}
				if name == "random" || name == "coin" {
					continue
				}
				want := slices.MinFunc(xs, c)
				if op == "MaxFunc" {
					want = slices.MaxFunc(xs, c)
				}
				if got != want {
					t.Errorf("%d workers, %s, %s: %d, slices gives %d", workers, op, name, got, want)
				}
			}
		}
	}
}

// TestToolkitEmptyInputs: nil and empty slices, empty ranges and nil and
// empty sequences give each operation's empty result.
func TestToolkitEmptyInputs(t *testing.T) {
	sources := map[string]func() par.Iter[int]{
		"nil slice":   func() par.Iter[int] { return par.Slice([]int(nil)) },
		"empty slice": func() par.Iter[int] { return par.Slice([]int{}) },
		"empty range": func() par.Iter[int] { return par.Range(7, 7).Iter },
		"nil seq":     func() par.Iter[int] { return par.FromSeq[int](nil) },
		"empty seq":   func() par.Iter[int] { return par.FromSeq(func(func(int) bool) {}) },
		"all filtered": func() par.Iter[int] {
			return par.Range(0, 1000).Filter(func(int) bool { return false }).Iter
		},
	}
	for name, src := range sources {
		// init() marks each accumulator: no items gives exactly one, init()
		// itself. (Items that are all filtered out still run, in runs of
		// their own: each starts at init().)
		got := par.Fold(src(), func() []int { return []int{42} }, func(a []int, x int) []int { return append(a, x) },
			func(a, b []int) []int { return append(a, b...) })
		if name == "all filtered" {
			got = slices.Compact(got)
		}
		if !slices.Equal(got, []int{42}) {
			t.Errorf("%s: Fold = %v, want init()", name, got)
		}
		for op, f := range map[string]func() (int, bool){
			"Min":     func() (int, bool) { return par.Min(src()) },
			"Max":     func() (int, bool) { return par.Max(src()) },
			"MinFunc": func() (int, bool) { return par.MinFunc(src(), cmp.Compare[int]) },
			"MaxFunc": func() (int, bool) { return par.MaxFunc(src(), cmp.Compare[int]) },
		} {
			if v, ok := f(); ok || v != 0 {
				t.Errorf("%s: %s = %d, %v; want 0, false", name, op, v, ok)
			}
		}
		if got, err := par.TryMap(src(), func(int) (int, error) { return 0, errors.New("never called") }); err != nil || got == nil || len(got) != 0 {
			t.Errorf("%s: TryMap = %#v, %v; want an empty slice, nil", name, got, err)
		}
		if got := par.FilterMap(src(), func(x int) (int, bool) { return x, true }).Collect(); got == nil || len(got) != 0 {
			t.Errorf("%s: FilterMap.Collect = %#v, want an empty slice", name, got)
		}
		if got := par.FlatMap(src(), func(x int) []int { return []int{x} }).Collect(); got == nil || len(got) != 0 {
			t.Errorf("%s: FlatMap.Collect = %#v, want an empty slice", name, got)
		}
		if got := par.Sum(par.Map(src(), func(x int) float64 { return 1 })); got != 0 {
			t.Errorf("%s: float Sum = %v", name, got)
		}
	}
}

// TestTryMapLowestErrorThatRan: with errors from many items, TryMap
// returns the error of the lowest-index failing item among those whose call
// ran, on every pool and source form, and stops handing out items.
func TestTryMapLowestErrorThatRan(t *testing.T) {
	n := 200_000
	if race.Enabled {
		n = 20_000
	}
	for _, workers := range []int{1, 2, 3, 8} {
		pool := newPool(t, workers)
		for name, src := range map[string]par.Iter[int]{
			"Range":   par.Range(0, n).WithPool(pool).Iter,
			"Filter":  par.Range(0, n).WithPool(pool).Filter(func(i int) bool { return i%3 != 0 }).Iter,
			"FromSeq": par.Map(par.FromSeq(gen(n)).WithPool(pool), func(v uint64) int { return int(v) }),
		} {
			for _, from := range []int{0, 1, n / 3, n - 1} {
				var calls atomic.Int64
				lowest := atomic.Int64{}
				lowest.Store(math.MaxInt64)
				got, err := par.TryMap(src, func(i int) (int, error) {
					calls.Add(1)
					if i >= from && i%97 == 5 || i == n-1 {
						for {
							l := lowest.Load()
							if int64(i) >= l || lowest.CompareAndSwap(l, int64(i)) {
								break
							}
						}
						return 0, failAt(i)
					}
					return i, nil
				})
				var at failAt
				if got != nil || !errors.As(err, &at) || int64(at) != lowest.Load() {
					t.Fatalf("%d workers, %s, failing from %d: %d results, %v; the lowest failing call that ran was %d",
						workers, name, from, len(got), err, lowest.Load())
				}
				if from == 0 && calls.Load() > int64(n/2) {
					t.Errorf("%d workers, %s, failing from the start: %d calls of %d items", workers, name, calls.Load(), n)
				}
			}
		}
	}
}
