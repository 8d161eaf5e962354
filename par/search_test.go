package par_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/par"
)

func TestFindFirstIsLowest(t *testing.T) {
	for _, n := range []int{0, 1, 100, 1 << 20} {
		for _, target := range []int{0, n / 3, n - 1, n} {
			pred := func(i int) bool { return i >= target && i%7 == target%7 }
			got, ok := par.Range(0, n).FindFirst(pred)
			want, wantOK := -1, false
			for i := 0; i < n; i++ {
				if pred(i) {
					want, wantOK = i, true
					break
				}
			}
			if ok != wantOK || (ok && got != want) {
				t.Fatalf("n=%d target=%d: FindFirst = %d, %v; want %d, %v", n, target, got, ok, want, wantOK)
			}
			if v, ok := par.Range(0, n).Find(pred); ok != wantOK || (ok && !pred(v)) {
				t.Fatalf("n=%d target=%d: Find = %d, %v", n, target, v, ok)
			}
		}
	}
}

func TestAnyAllStopEarly(t *testing.T) {
	const n = 1 << 22
	var calls atomic.Int64
	if !par.Range(0, n).Any(func(i int) bool { calls.Add(1); return i == 1000 }) {
		t.Fatal("Any missed a match")
	}
	if c := calls.Load(); c >= n {
		t.Fatalf("Any tested all %d items; it should stop early", c)
	}
	if par.Range(0, n).All(func(i int) bool { return i != 5 }) {
		t.Fatal("All missed a counter-example")
	}
	if !par.Range(0, 0).All(func(int) bool { return false }) || par.Range(0, 0).Any(func(int) bool { return true }) {
		t.Fatal("Any/All on an empty range")
	}
}

func TestTryForEachReturnsErrorAndStops(t *testing.T) {
	const n = 1 << 22
	bad := errors.New("bad item")
	var calls atomic.Int64
	err := par.Range(0, n).TryForEach(func(i int) error {
		calls.Add(1)
		if i == 3000 {
			return fmt.Errorf("item %d: %w", i, bad)
		}
		return nil
	})
	if !errors.Is(err, bad) {
		t.Fatalf("TryForEach returned %v", err)
	}
	if c := calls.Load(); c >= n {
		t.Fatalf("TryForEach ran all %d items after an error", c)
	}
	if err := par.Range(0, 1000).TryForEach(func(int) error { return nil }); err != nil {
		t.Fatalf("no error expected, got %v", err)
	}
}

func ExampleIter_Any() {
	fmt.Println(par.Range(0, 1_000_000).Any(func(i int) bool { return i*i == 49 }))
	// Output: true
}

func ExampleIter_All() {
	fmt.Println(par.Range(1, 1000).All(func(i int) bool { return i > 0 }))
	// Output: true
}

func ExampleIter_Find() {
	v, ok := par.Slice([]string{"a", "bb", "ccc"}).Find(func(s string) bool { return len(s) == 2 })
	fmt.Println(v, ok)
	// Output: bb true
}

func ExampleIter_FindFirst() {
	v, ok := par.Range(0, 1_000_000).FindFirst(func(i int) bool { return i%1234 == 1233 })
	fmt.Println(v, ok)
	// Output: 1233 true
}

func ExampleIter_TryForEach() {
	err := par.Range(0, 100).TryForEach(func(i int) error {
		if i == 13 {
			return errors.New("unlucky")
		}
		return nil
	})
	fmt.Println(err)
	// Output: unlucky
}
