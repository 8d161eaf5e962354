package par_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gopar-dev/gopar/internal/long"
	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// TestFloatSumReproducible: the same float items give the same bits on 1,
// 2, 3 and 8 workers, run after run, with and without adapters, and the
// result is as accurate as a pairwise sum.
func TestFloatSumReproducible(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 1<<21 + 12345 // a last block that is not full
	xs := make([]float64, n)
	for i := range xs {
		// Magnitudes from 1e-8 to 1e8 and both signs, so that the order of
		// additions shows in the last bits.
		xs[i] = (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(17)-8))
	}
	sums := map[string]func(*par.Pool) float64{
		"Slice": func(p *par.Pool) float64 { return par.Numbers(xs).WithPool(p).Sum() },
		"Map": func(p *par.Pool) float64 {
			return par.Sum(par.Map(par.Range(0, n).WithPool(p), func(i int) float64 { return xs[i] * 3 }))
		},
		"Filter": func(p *par.Pool) float64 {
			return par.Numbers(xs).WithPool(p).Filter(func(x float64) bool { return x > 0 }).Sum()
		},
		"float32": func(p *par.Pool) float64 {
			return float64(par.Sum(par.Map(par.Slice(xs).WithPool(p), func(x float64) float32 { return float32(x) })))
		},
		"FlatMap": func(p *par.Pool) float64 {
			return par.Sum(par.FlatMap(par.Range(0, n/2).WithPool(p), func(i int) []float64 { return xs[2*i : 2*i+2] }))
		},
		"Blocking": func(p *par.Pool) float64 {
			return par.Numbers(xs[:1<<15+77]).WithPool(p).Blocking(4).WithBlockSize(100, 0).Sum()
		},
	}
	for name, sum := range sums {
		var first float64
		for k, workers := range []int{1, 2, 3, 8} {
			pool := newPool(t, workers)
			for run := range 3 {
				got := sum(pool)
				if k == 0 && run == 0 {
					first = got
					continue
				}
				if math.Float64bits(got) != math.Float64bits(first) {
					t.Fatalf("%s: %d workers, run %d: %v (%#x), first was %v (%#x)", name, workers, run, got, math.Float64bits(got), first, math.Float64bits(first))
				}
			}
		}
	}
	// Accuracy: close to a compensated (Kahan-Babuska) sequential sum.
	var s, c float64
	for _, x := range xs {
		t := s + x
		if math.Abs(s) >= math.Abs(x) {
			c += (s - t) + x
		} else {
			c += (x - t) + s
		}
		s = t
	}
	if got, want := par.Numbers(xs).Sum(), s+c; math.Abs(got-want) > 1e-9*math.Abs(want)+1e-6 {
		t.Errorf("Sum = %v, compensated sum %v", got, want)
	}
}

// TestFloatSumFromSeq: over FromSeq, whose batches and runs fall where
// timing puts them, a float Sum gives the same bits on 1, 2, 3 and 8
// workers and in every run, and the same bits as over a slice of the same
// items. Tiny blocks (WithBlockSize) and the blocking mode cut the blocks
// of the sum between runs as often as possible.
func TestFloatSumFromSeq(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := long.Pick(1<<19, 1<<16) + 4321
	if race.Enabled {
		n = 1<<15 + 4321
	}
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(17)-8))
	}
	want := par.Numbers(xs).Sum()
	odd := func(x float64) bool { return math.Float64bits(x)%2 == 1 }
	wantOdd := par.Numbers(xs).Filter(odd).Sum()
	for _, workers := range []int{1, 2, 3, 8} {
		pool := newPool(t, workers)
		for name, c := range map[string]struct {
			sum  func() float64
			want float64
		}{
			"plain":        {func() float64 { return par.Sum(par.FromSeq(slices.Values(xs)).WithPool(pool)) }, want},
			"tiny blocks":  {func() float64 { return par.Sum(par.FromSeq(slices.Values(xs)).WithPool(pool).WithBlockSize(1, 7)) }, want},
			"Filter":       {func() float64 { return par.Sum(par.FromSeq(slices.Values(xs)).WithPool(pool).Filter(odd)) }, wantOdd},
			"Blocking(16)": {func() float64 { return par.Sum(par.FromSeq(slices.Values(xs[:n/8])).Blocking(16)) }, par.Numbers(xs[:n/8]).Sum()},
		} {
			for run := range 3 {
				if got := c.sum(); math.Float64bits(got) != math.Float64bits(c.want) {
					t.Fatalf("%s, %d workers, run %d: %v (%#x), over a slice %v (%#x)",
						name, workers, run, got, math.Float64bits(got), c.want, math.Float64bits(c.want))
				}
			}
		}
	}
	for _, m := range []int{0, 1, 4095, 4096, 4097} {
		if got, want := par.Sum(par.FromSeq(slices.Values(xs[:m]))), par.Numbers(xs[:m]).Sum(); got != want {
			t.Errorf("%d items: Sum over FromSeq %v, over a slice %v", m, got, want)
		}
	}
}

// A float Sum gives the same bits on any number of workers and in every
// run, over a slice as over a sequence of the same items: the blocks it adds
// in order and the tree that combines them do not depend on the schedule.
func ExampleNums_Sum_reproducible() {
	xs := make([]float64, 1_000_000)
	for i := range xs {
		xs[i] = 1 / float64(i+1) // terms of very different sizes
	}
	var sums []float64
	for _, workers := range []int{1, 2, 3, 8} {
		pool, err := par.NewPool(workers)
		if err != nil {
			panic(err)
		}
		sums = append(sums, par.Numbers(xs).WithPool(pool).Sum())
		sums = append(sums, par.Sum(par.FromSeq(slices.Values(xs)).WithPool(pool)))
		pool.Close()
	}
	fmt.Println(len(slices.Compact(sums)), "distinct result:", sums[0])
	// Output: 1 distinct result: 14.392726722865692
}
