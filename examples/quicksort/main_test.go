package main

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gopar-dev/gopar/runtime"
)

// TestSmoke sorts inputs below and well above the cutoff, with
// duplicates and without, and checks the result against slices.Sort.
func TestSmoke(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, cutoff, 50_000} {
		for _, values := range []int{1000, n + 1} {
			input := make([]int, n)
			for i := range input {
				input[i] = rng.IntN(values)
			}
			want := slices.Clone(input)
			slices.Sort(want)
			got := slices.Clone(input)
			runtime.Default().Do(func(w *runtime.Worker) { quicksort(w, got) })
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d, %d distinct values: quicksort differs from slices.Sort", n, values)
			}
		}
	}
}
