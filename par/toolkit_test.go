package par_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

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
// pattern with a map per block).
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
		if n, bound := inits.Load(), int64(2*workers*bits.Len(uint(len(ws)))); n > bound {
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
	// A cancelled context.
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int64
	nums, err := par.TryMap(it.WithContext(ctx), func(i int) (int, error) {
		if ran.Add(1) == 1000 {
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
}
