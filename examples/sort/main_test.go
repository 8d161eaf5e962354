package main

import (
	"slices"
	"testing"
)

// TestSmoke runs the example's comparisons on inputs small enough for a
// test, one of them large enough to take the parallel path (8192 elements
// or more), and checks that par's results equal the plain ones.
func TestSmoke(t *testing.T) {
	for _, n := range []int{0, 1, 5000, 8192, 100_000} {
		ints, recs := inputs(n, uint64(n))
		if r := compareSort(ints); !r.sameResults {
			t.Errorf("n=%d: par.Sort differs from slices.Sort", n)
		}
		if r := compareStable(recs); !r.sameResults {
			t.Errorf("n=%d: par.SortStableFunc differs from slices.SortStableFunc", n)
		}
	}
	// Both sorts run on copies: the input is left as it was.
	ints, _ := inputs(10, 2)
	before := slices.Clone(ints)
	compareSort(ints)
	if !slices.Equal(ints, before) {
		t.Fatalf("compareSort changed its input")
	}
}
