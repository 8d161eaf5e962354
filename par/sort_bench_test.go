package par_test

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gopar-dev/gopar/par"
)

// The sort benchmarks run par's sorts and their slices counterparts side by
// side on the same input (benchstat: compare par= with slices= rows, e.g.
// go test -run '^$' -bench 'Sort' -count 8 ./par | benchstat -col /impl -).

// sortBenchN is the input size of issue 9's target: 2^24 random ints.
const sortBenchN = 1 << 24

func randomInts(n int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 1))
	xs := make([]int, n)
	for i := range xs {
		xs[i] = rng.Int()
	}
	return xs
}

// benchSort times sort on a fresh copy of input per iteration; the copy is
// not timed.
func benchSort(b *testing.B, input []int, sort func([]int)) {
	xs := make([]int, len(input))
	b.SetBytes(int64(len(input)) * 8)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		copy(xs, input)
		b.StartTimer()
		sort(xs)
	}
}

func cmpInt(a, b int) int { return cmp.Compare(a, b) }

func BenchmarkSort(b *testing.B) {
	input := randomInts(sortBenchN, 1)
	b.Run("impl=par", func(b *testing.B) { benchSort(b, input, par.Sort[[]int]) })
	b.Run("impl=slices", func(b *testing.B) { benchSort(b, input, slices.Sort[[]int]) })
}

func BenchmarkSortFunc(b *testing.B) {
	input := randomInts(sortBenchN, 2)
	b.Run("impl=par", func(b *testing.B) {
		benchSort(b, input, func(xs []int) { par.SortFunc(xs, cmpInt) })
	})
	b.Run("impl=slices", func(b *testing.B) {
		benchSort(b, input, func(xs []int) { slices.SortFunc(xs, cmpInt) })
	})
}

func BenchmarkSortStableFunc(b *testing.B) {
	input := randomInts(sortBenchN, 3)
	b.Run("impl=par", func(b *testing.B) {
		benchSort(b, input, func(xs []int) { par.SortStableFunc(xs, cmpInt) })
	})
	b.Run("impl=slices", func(b *testing.B) {
		benchSort(b, input, func(xs []int) { slices.SortStableFunc(xs, cmpInt) })
	})
}

// BenchmarkSortSmall is the cost of the inline path: 1,000 ints, where
// par.Sort must cost about what slices.Sort does.
func BenchmarkSortSmall(b *testing.B) {
	input := randomInts(1000, 4)
	b.Run("impl=par", func(b *testing.B) { benchSort(b, input, par.Sort[[]int]) })
	b.Run("impl=slices", func(b *testing.B) { benchSort(b, input, slices.Sort[[]int]) })
}
