package par_test

import (
	"math"
	"math/rand/v2"
	"testing"

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
