package par_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gopar-dev/gopar/par"
)

// expandRef is the reference expansion: item i gives i%4 items i*10+k.
func expandRef(i int) []int {
	out := make([]int, i%4)
	for k := range out {
		out[k] = i*10 + k
	}
	return out
}

// TestFlatMap checks every terminal operation on a FlatMap against the
// sequential expansion, on several pools, and that every source item is
// expanded exactly once.
func TestFlatMap(t *testing.T) {
	const n = 100_000
	var want []int
	for i := range n {
		want = append(want, expandRef(i)...)
	}
	for _, workers := range []int{1, 2, 5} {
		pool := newPool(t, workers)
		src := par.Range(0, n).WithPool(pool)
		var calls atomic.Int64
		flat := par.FlatMap(src, func(i int) []int { calls.Add(1); return expandRef(i) })
		if diff := cmp.Diff(want, flat.Collect()); diff != "" {
			t.Errorf("%d workers: Collect (-want +got):\n%s", workers, diff)
		}
		if c := calls.Load(); c != n {
			t.Errorf("%d workers: f ran %d times for %d items", workers, c, n)
		}
		if got := flat.Count(); got != len(want) {
			t.Errorf("%d workers: Count = %d, want %d", workers, got, len(want))
		}
		wantSum := 0
		for _, v := range want {
			wantSum += v
		}
		if got := par.Sum(flat); got != wantSum {
			t.Errorf("%d workers: Sum = %d, want %d", workers, got, wantSum)
		}
		seen := make([]atomic.Int32, n*10)
		flat.ForEach(func(v int) { seen[v].Add(1) })
		for _, v := range want {
			if c := seen[v].Load(); c != 1 {
				t.Fatalf("%d workers: ForEach ran item %d %d times", workers, v, c)
			}
		}
		// Order: the first item whose k is 2 and i is above 5000, and a
		// Reduce that keeps the order (the maximum of a left-to-right
		// "is sorted" fold).
		if v, ok := flat.FindFirst(func(v int) bool { return v%10 == 2 && v > 50_000 }); !ok || v != 50_032 {
			t.Errorf("%d workers: FindFirst = %d, %v, want 50032", workers, v, ok)
		}
		if v, ok := flat.Find(func(v int) bool { return v == 777_792 }); !ok || v != 777_792 {
			t.Errorf("%d workers: Find = %d, %v", workers, v, ok)
		}
		if flat.Any(func(v int) bool { return v%10 == 3 }) {
			t.Errorf("%d workers: Any found an item with k = 3", workers)
		}
		if !flat.Every(func(v int) bool { return v%10 < 3 }) {
			t.Errorf("%d workers: All(k < 3) = false", workers)
		}
		sorted := flat.Filter(func(v int) bool { return v%10 == 1 }).Map(func(v int) int { return v / 10 }).Collect()
		if !slices.IsSorted(sorted) || len(sorted) != n/2 {
			t.Errorf("%d workers: Filter and Map after FlatMap: %d items, sorted %v", workers, len(sorted), slices.IsSorted(sorted))
		}
		// Reduce keeps the order: a fold of "ascending runs" stays one run.
		type run struct {
			lo, hi int
			sorted bool
		}
		runs := par.Map(flat, func(v int) run { return run{v, v, true} })
		r := runs.Reduce(func() run { return run{-1, -1, true} }, func(a, b run) run {
			switch {
			case a.lo < 0:
				return b
			case b.lo < 0:
				return a
			}
			return run{a.lo, b.hi, a.sorted && b.sorted && a.hi < b.lo}
		})
		if !r.sorted || r.lo != want[0] || r.hi != want[len(want)-1] {
			t.Errorf("%d workers: Reduce after FlatMap does not keep the order: %+v", workers, r)
		}
		got, err := par.TryMap(flat, func(v int) (int, error) { return -v, nil })
		if err != nil || len(got) != len(want) || got[len(got)-1] != -want[len(want)-1] {
			t.Errorf("%d workers: TryMap after FlatMap: %d items, err %v", workers, len(got), err)
		}
		stop := errors.New("stop")
		if err := flat.TryForEach(func(v int) error {
			if v == 60_032 {
				return stop
			}
			return nil
		}); err != stop {
			t.Errorf("%d workers: TryForEach after FlatMap = %v, want stop", workers, err)
		}
	}
}

// TestFlatMapForms: FlatMap after each kind of source and adapter, nested,
// over a seq and in the blocking mode; Len is -1; nil and empty results.
func TestFlatMapForms(t *testing.T) {
	xs := []string{"a b", "", "c", "d e f"}
	want := []string{"a", "b", "c", "d", "e", "f"}
	check := func(name string, got []string) {
		t.Helper()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	check("Slice", par.FlatMap(par.Slice(xs), strings.Fields).Collect())
	check("FromSeq", par.FlatMap(par.FromSeq(slices.Values(xs)), strings.Fields).Collect())
	check("Blocking", par.FlatMap(par.Slice(xs).Blocking(2), strings.Fields).Collect())
	check("after Filter", par.FlatMap(par.Slice(xs).Filter(func(s string) bool { return s != "" }), strings.Fields).Collect())
	check("after Map", par.FlatMap(par.Slice(xs).Map(strings.ToUpper), func(s string) []string { return strings.Fields(strings.ToLower(s)) }).Collect())
	nested := par.FlatMap(par.FlatMap(par.Slice(xs), strings.Fields), func(s string) []string { return []string{s} })
	check("nested", nested.Collect())
	check("FilterMap after", par.FilterMap(par.FlatMap(par.Slice(xs), strings.Fields), func(s string) (string, bool) { return s, true }).Collect())
	if n := par.FlatMap(par.Slice(xs), strings.Fields).Len(); n != -1 {
		t.Errorf("Len after FlatMap = %d, want -1", n)
	}
	if got := par.FlatMap(par.Range(0, 1000), func(int) []int { return nil }).Collect(); got == nil || len(got) != 0 {
		t.Errorf("FlatMap to nil slices: Collect = %#v, want an empty slice", got)
	}
	if got := par.FlatMap(par.Slice([]string(nil)), strings.Fields).Count(); got != 0 {
		t.Errorf("FlatMap over nil: Count = %d", got)
	}
	mustPanicWith(t, "FlatMap", func() { par.FlatMap[int, int](par.Range(0, 1), nil) })
}

func ExampleFlatMap() {
	lines := []string{"the quick brown", "", "fox jumps"}
	fmt.Println(par.FlatMap(par.Slice(lines), strings.Fields).Collect())
	// Output: [the quick brown fox jumps]
}
