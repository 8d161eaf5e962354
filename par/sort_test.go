package par_test

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"

	"github.com/gopar-dev/gopar/internal/long"
	"github.com/gopar-dev/gopar/internal/race"
)

// sortSizes reach the inline path (up to 4096), the sample sort with one
// bucket (up to 8191), with two, and with 8 and 64 buckets (300_007 only
// in the long runs, GOPAR_TEST_LONG=1, without the race detector).
func sortSizes() []int {
	sizes := []int{0, 1, 2, 3, 17, 4095, 4096, 4097, 5000, 8193, 1<<15 + 3}
	if !race.Enabled && long.Enabled() {
		sizes = append(sizes, 300_007)
	}
	return sizes
}

// sortPools returns pools of 1, 2, 3 and 8 workers, closed at the end of t.
func sortPools(t *testing.T) []*runtime.Pool {
	var pools []*runtime.Pool
	for _, n := range []int{1, 2, 3, 8} {
		p, err := runtime.New(n)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		pools = append(pools, p)
	}
	return pools
}

// sortInputs returns inputs of n ints of several shapes, each with values
// in [0, n) or fewer distinct ones.
func sortInputs(n int, seed uint64) map[string][]int {
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	in := map[string][]int{}
	fill := func(name string, f func(i int) int) {
		xs := make([]int, n)
		for i := range xs {
			xs[i] = f(i)
		}
		in[name] = xs
	}
	fill("random", func(int) int { return rng.IntN(n + 1) })
	fill("sorted", func(i int) int { return i })
	fill("reversed", func(i int) int { return n - i })
	fill("equal", func(int) int { return 7 })
	fill("few-distinct", func(int) int { return rng.IntN(4) })
	fill("sawtooth", func(i int) int { return i % 1000 })
	return in
}

func TestSortMatchesSlices(t *testing.T) {
	for _, p := range sortPools(t) {
		for _, n := range sortSizes() {
			for shape, input := range sortInputs(n, 1) {
				want := slices.Clone(input)
				slices.Sort(want)

				got := slices.Clone(input)
				par.SortOn(p, got)
				if !slices.Equal(got, want) {
					t.Fatalf("%d workers, n=%d, %s: Sort differs from slices.Sort", p.Workers(), n, shape)
				}
				got = slices.Clone(input)
				par.SortFuncOn(p, got, cmp.Compare[int])
				if !slices.Equal(got, want) {
					t.Fatalf("%d workers, n=%d, %s: SortFunc differs from slices.Sort", p.Workers(), n, shape)
				}
			}
		}
	}
}

// TestSortDefaultPool runs the exported functions themselves, on a named
// slice type as slices allows.
func TestSortDefaultPool(t *testing.T) {
	type ints []int
	input := ints(sortInputs(100_000, 2)["random"])
	want := slices.Clone(input)
	slices.Sort(want)
	for name, sort := range map[string]func(ints){
		"Sort":           par.Sort[ints],
		"SortFunc":       func(xs ints) { par.SortFunc(xs, cmp.Compare[int]) },
		"SortStableFunc": func(xs ints) { par.SortStableFunc(xs, cmp.Compare[int]) },
	} {
		got := slices.Clone(input)
		sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s differs from slices.Sort", name)
		}
	}
}

// TestSortFloats: NaNs first, as slices.Sort puts them; -0 and +0 are equal.
func TestSortFloats(t *testing.T) {
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), math.MaxFloat64, -math.SmallestNonzeroFloat64}
	for _, p := range sortPools(t) {
		for _, n := range []int{50, 20_000} {
			rng := rand.New(rand.NewPCG(3, uint64(n)))
			input := make([]float64, n)
			for i := range input {
				if rng.IntN(10) == 0 {
					input[i] = specials[rng.IntN(len(specials))]
				} else {
					input[i] = rng.NormFloat64()
				}
			}
			want := slices.Clone(input)
			slices.Sort(want)
			got := slices.Clone(input)
			par.SortOn(p, got)
			// Compare, not ==: NaN equals NaN there, and -0 equals +0.
			if slices.CompareFunc(got, want, cmp.Compare[float64]) != 0 {
				t.Fatalf("%d workers, n=%d: float Sort differs from slices.Sort", p.Workers(), n)
			}
		}
	}
}

// TestSortSameOnEveryPool: Sort's buckets depend only on the input, so
// elements that compare equal but differ in their bits (+0 and -0, NaNs
// with different payloads) end in the same order on every pool.
func TestSortSameOnEveryPool(t *testing.T) {
	n := 200_000
	if race.Enabled {
		n = 30_000
	}
	rng := rand.New(rand.NewPCG(5, 6))
	equalButDistinct := []float64{0, math.Copysign(0, -1), math.NaN(), math.Float64frombits(0x7ff8000000000042)}
	input := make([]float64, n)
	for i := range input {
		if rng.IntN(4) == 0 {
			input[i] = equalButDistinct[rng.IntN(len(equalButDistinct))]
		} else {
			input[i] = float64(rng.IntN(1000)) // many ties
		}
	}
	var first []float64
	for _, p := range sortPools(t) {
		got := slices.Clone(input)
		par.SortOn(p, got)
		if !slices.IsSortedFunc(got, cmp.Compare[float64]) {
			t.Fatalf("%d workers: not sorted", p.Workers())
		}
		if first == nil {
			first = got
			continue
		}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(first[i]) {
				t.Fatalf("%d workers: element %d is %x, on 1 worker %x", p.Workers(), i, math.Float64bits(got[i]), math.Float64bits(first[i]))
			}
		}
	}
}

type keyed struct{ key, payload int }

func byKey(a, b keyed) int { return cmp.Compare(a.key, b.key) }

// TestSortStableFunc: many equal keys, each with its original index as a
// payload; a stable sort has one right answer, slices.SortStableFunc's.
func TestSortStableFunc(t *testing.T) {
	for _, p := range sortPools(t) {
		for _, n := range sortSizes() {
			for _, distinct := range []int{1, 3, n/50 + 1} {
				rng := rand.New(rand.NewPCG(4, uint64(n)))
				input := make([]keyed, n)
				for i := range input {
					input[i] = keyed{key: rng.IntN(distinct), payload: i}
				}
				want := slices.Clone(input)
				slices.SortStableFunc(want, byKey)
				got := slices.Clone(input)
				par.SortStableFuncOn(p, got, byKey)
				if !slices.Equal(got, want) {
					t.Fatalf("%d workers, n=%d, %d keys: SortStableFunc is not stable", p.Workers(), n, distinct)
				}
			}
		}
	}
}

// TestSortFuncRepeatable: where the pieces fall does not depend on timing,
// so an unstable sort puts equal elements in the same order on every run
// on the same pool.
func TestSortFuncRepeatable(t *testing.T) {
	n := 100_000
	if race.Enabled {
		n = 20_000
	}
	rng := rand.New(rand.NewPCG(11, 0))
	input := make([]keyed, n)
	for i := range input {
		input[i] = keyed{key: rng.IntN(100), payload: i}
	}
	for _, p := range sortPools(t) {
		first := slices.Clone(input)
		par.SortFuncOn(p, first, byKey)
		for run := range 3 {
			again := slices.Clone(input)
			par.SortFuncOn(p, again, byKey)
			if !slices.Equal(again, first) {
				t.Fatalf("%d workers: run %d put equal keys in another order", p.Workers(), run+2)
			}
		}
	}
}

func TestSortNilAndEmpty(t *testing.T) {
	par.Sort([]int(nil))
	par.Sort([]int{})
	par.SortFunc([]string(nil), strings.Compare)
	par.SortStableFunc([]string{}, strings.Compare)
	one := []int{5}
	par.Sort(one)
	if one[0] != 5 {
		t.Fatalf("Sort changed a one-element slice: %v", one)
	}
}

func TestSortNilCmpPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"SortFunc":       func() { par.SortFunc([]int{2, 1}, nil) },
		"SortStableFunc": func() { par.SortStableFunc([]int(nil), nil) },
	} {
		func() {
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.Contains(msg, "par."+name+" ") || !strings.Contains(msg, "nil function") {
					t.Errorf("%s with a nil cmp: recovered %q, want a message naming par.%s and a nil function", name, msg, name)
				}
			}()
			f()
		}()
	}
}

// isPermutation reports whether xs holds each of 0..len(xs)-1 exactly once
// (it sorts a copy).
func isPermutation(xs []int) bool {
	s := slices.Clone(xs)
	slices.Sort(s)
	for i, x := range s {
		if x != i {
			return false
		}
	}
	return true
}

// shuffled returns 0..n-1 in random order.
func shuffled(n int, seed uint64) []int {
	xs := make([]int, n)
	for i := range xs {
		xs[i] = i
	}
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	rng.Shuffle(n, func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	return xs
}

// TestSortBadCmp: comparisons that are not a strict weak ordering. The
// sorts must return, and keep every element exactly once.
func TestSortBadCmp(t *testing.T) {
	bad := map[string]func(a, b int) int{
		"always-less":    func(a, b int) int { return -1 },
		"always-greater": func(a, b int) int { return 1 },
		// A pure function of (a, b), so safe from several goroutines, but
		// neither antisymmetric nor transitive.
		"random": func(a, b int) int {
			h := uint64(a)*0x9E3779B97F4A7C15 ^ uint64(b)*0xBF58476D1CE4E5B9
			return int((h^h>>29)%3) - 1
		},
		// Not even a function of (a, b): each call answers at random.
		"coin": func(a, b int) int { return rand.IntN(3) - 1 },
	}
	for _, p := range sortPools(t) {
		for _, n := range sortSizes() {
			for name, c := range bad {
				xs := shuffled(n, 5)
				par.SortFuncOn(p, xs, c)
				if !isPermutation(xs) {
					t.Fatalf("%d workers, n=%d, %s: SortFunc lost or duplicated elements", p.Workers(), n, name)
				}
				xs = shuffled(n, 6)
				par.SortStableFuncOn(p, xs, c)
				if !isPermutation(xs) {
					t.Fatalf("%d workers, n=%d, %s: SortStableFunc lost or duplicated elements", p.Workers(), n, name)
				}
			}
		}
	}
}

// TestSortPanickingCmp: cmp panics on its k-th call, for k spread over the
// whole sort: while the sample is sorted, in the counting pass, and while
// the buckets are sorted (most of the calls). The panic must come back as a *runtime.Panic with the
// value, and xs must still hold every element exactly once.
func TestSortPanickingCmp(t *testing.T) {
	type sortFn func(p *runtime.Pool, xs []int, c func(a, b int) int)
	sorts := map[string]sortFn{"SortFunc": par.SortFuncOn[int], "SortStableFunc": par.SortStableFuncOn[int]}
	sizes := []int{3000, 20_000}
	if !race.Enabled && long.Enabled() {
		sizes = append(sizes, 200_000)
	}
	for _, p := range sortPools(t) {
		for _, n := range sizes {
			for name, sort := range sorts {
				// How many calls does a full sort make?
				var calls atomic.Int64
				sort(p, shuffled(n, 7), func(a, b int) int { calls.Add(1); return cmp.Compare(a, b) })
				total := calls.Load()
				for _, k := range []int64{1, total / 3, total / 2, total * 3 / 4, total * 9 / 10, total - 2} {
					calls.Store(0)
					xs := shuffled(n, 7)
					r := func() (r any) {
						defer func() { r = recover() }()
						sort(p, xs, func(a, b int) int {
							if calls.Add(1) == k {
								panic("cmp failed")
							}
							return cmp.Compare(a, b)
						})
						return nil
					}()
					if calls.Load() < k {
						continue // this run made fewer calls: nothing panicked
					}
					if pe, ok := r.(*runtime.Panic); !ok || pe.Value != "cmp failed" {
						t.Fatalf("%d workers, n=%d, %s, panic at call %d of %d: recovered %T %v, want *runtime.Panic(cmp failed)",
							p.Workers(), n, name, k, total, r, r)
					}
					if !isPermutation(xs) {
						t.Fatalf("%d workers, n=%d, %s, panic at call %d of %d: the slice lost or duplicated elements",
							p.Workers(), n, name, k, total)
					}
				}
			}
		}
		// The pool still works.
		xs := shuffled(100_000, 8)
		par.SortOn(p, xs)
		if !slices.IsSorted(xs) {
			t.Fatalf("%d workers: Sort after panics is wrong", p.Workers())
		}
	}
}

// TestSortNested: sorts inside a parallel loop, and a cmp that itself runs
// a parallel operation, on a one-worker pool too.
func TestSortNested(t *testing.T) {
	n := 20_000
	if race.Enabled {
		n = 6_000
	}
	for _, p := range sortPools(t)[:2] {
		inputs := make([][]int, 4)
		for i := range inputs {
			inputs[i] = shuffled(n, uint64(i))
		}
		par.Range(0, len(inputs)).WithPool(p).ForEach(func(i int) { par.SortOn(p, inputs[i]) })
		for i, xs := range inputs {
			if !slices.IsSorted(xs) || !isPermutation(xs) {
				t.Fatalf("%d workers: nested sort %d is wrong", p.Workers(), i)
			}
		}
		xs := shuffled(n/4, 9)
		var nestedCalls atomic.Int64
		par.SortFuncOn(p, xs, func(a, b int) int {
			if nestedCalls.Add(1)%1000 == 0 {
				par.Range(0, 100).WithPool(p).Sum()
			}
			return cmp.Compare(a, b)
		})
		if !slices.IsSorted(xs) {
			t.Fatalf("%d workers: sort with a nested parallel cmp is wrong", p.Workers())
		}
	}
}

func TestSortAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	defer settleForAllocs(t)()
	input := sortInputs(1<<20, 10)["random"]
	xs := make([]int, len(input))
	allocs := func(n int, sort func([]int)) float64 {
		return testing.AllocsPerRun(3, func() {
			copy(xs, input[:n])
			sort(xs[:n])
		})
	}
	sortFunc := func(xs []int) { par.SortFunc(xs, cmp.Compare[int]) }
	small, smallFunc, large := allocs(1000, par.Sort[[]int]), allocs(1000, sortFunc), allocs(1<<20, par.Sort[[]int])
	t.Logf("allocations per Sort: n=1000: %.1f, n=2^20: %.1f; per SortFunc, n=1000: %.1f", small, large, smallFunc)
	if small > 0 || smallFunc > 1 {
		t.Errorf("the inline path allocates: %.1f times per Sort, %.1f per SortFunc", small, smallFunc)
	}
	// The buffer, the bucket numbers, the sample and the counts, and the
	// three parallel loops' own (O(workers + steals), which depends on
	// timing): nothing per element.
	if large > 1000 {
		t.Errorf("n=2^20 allocates %.1f times per call", large)
	}
}

// FuzzSort sorts inputs of n elements drawn from [0, span) (a small span
// makes many ties) on 1 to 4 workers, and checks each sort against its
// slices counterpart: Sort and SortFunc give the same slice as slices.Sort,
// SortStableFunc the same records as slices.SortStableFunc, and a cmp that
// is not a strict weak ordering leaves every element exactly once.
func FuzzSort(f *testing.F) {
	f.Add(uint64(1), uint32(5000), uint32(1<<20), uint8(2), uint8(0))
	f.Add(uint64(2), uint32(70_000), uint32(3), uint8(3), uint8(2))
	f.Add(uint64(3), uint32(9000), uint32(1), uint8(1), uint8(1))
	f.Add(uint64(4), uint32(40_000), uint32(100), uint8(4), uint8(3))
	pools := map[int]*runtime.Pool{}
	f.Cleanup(func() {
		for _, p := range pools {
			p.Close()
		}
	})
	f.Fuzz(func(t *testing.T, seed uint64, n, span uint32, workers, mode uint8) {
		n %= 100_000
		span = max(span, 1)
		w := int(workers%4) + 1
		p := pools[w]
		if p == nil {
			var err error
			if p, err = runtime.New(w); err != nil {
				t.Fatal(err)
			}
			pools[w] = p
		}
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		recs := make([]keyed, n)
		for i := range recs {
			recs[i] = keyed{key: int(rng.Uint32N(span)), payload: i}
		}
		keys := make([]int, n)
		for i, r := range recs {
			keys[i] = r.key
		}
		switch mode % 4 {
		case 0, 1:
			want := slices.Clone(keys)
			slices.Sort(want)
			got := slices.Clone(keys)
			if mode%4 == 0 {
				par.SortOn(p, got)
			} else {
				par.SortFuncOn(p, got, cmp.Compare[int])
			}
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d span=%d workers=%d mode=%d: differs from slices.Sort", n, span, w, mode%4)
			}
		case 2:
			want := slices.Clone(recs)
			slices.SortStableFunc(want, byKey)
			got := slices.Clone(recs)
			par.SortStableFuncOn(p, got, byKey)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d span=%d workers=%d: SortStableFunc differs from slices.SortStableFunc", n, span, w)
			}
		case 3:
			// Answers that depend on the seed and the pair only, not
			// on any order.
			bad := func(a, b int) int {
				h := (uint64(a)*0x9E3779B97F4A7C15 ^ uint64(b)*0xBF58476D1CE4E5B9) + seed
				return int((h^h>>29)%3) - 1
			}
			got := slices.Clone(keys)
			par.SortFuncOn(p, got, bad)
			want := slices.Clone(keys)
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d span=%d workers=%d seed=%d: a bad cmp lost or duplicated elements", n, span, w, seed)
			}
		}
	})
}

// TestSortClosedPool: a sort that needs the pool panics with ErrClosed
// itself, not wrapped in a *Panic, and leaves xs as it was.
func TestSortClosedPool(t *testing.T) {
	p, err := runtime.New(2)
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	input := shuffled(20_000, 11)
	for name, sort := range map[string]func([]int){
		"Sort":           func(xs []int) { par.SortOn(p, xs) },
		"SortFunc":       func(xs []int) { par.SortFuncOn(p, xs, cmp.Compare[int]) },
		"SortStableFunc": func(xs []int) { par.SortStableFuncOn(p, xs, cmp.Compare[int]) },
	} {
		xs := slices.Clone(input)
		func() {
			defer func() {
				if v := recover(); v != runtime.ErrClosed {
					t.Errorf("%s on a closed pool panicked with %v, want ErrClosed", name, v)
				}
			}()
			sort(xs)
		}()
		if !slices.Equal(xs, input) {
			t.Errorf("%s on a closed pool changed the slice", name)
		}
	}
}
