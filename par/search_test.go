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
	if par.Range(0, n).Every(func(i int) bool { return i != 5 }) {
		t.Fatal("All missed a counter-example")
	}
	if !par.Range(0, 0).Every(func(int) bool { return false }) || par.Range(0, 0).Any(func(int) bool { return true }) {
		t.Fatal("Any/Every on an empty range")
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
