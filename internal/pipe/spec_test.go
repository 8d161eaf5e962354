package pipe

import (
	"slices"
	"testing"
	"unsafe"
)

// TestSearchBlock checks SearchBlock against a search through the
// reference items (blockItems), on every form a Spec takes, for every
// block of each Spec and a few predicates.
func TestSearchBlock(t *testing.T) {
	even := func(v int) bool { return v%2 == 0 }
	for name, s := range formSpecs() {
		for _, pred := range []func(int) bool{even, func(v int) bool { return v > 7 }, func(int) bool { return false }} {
			for lo := s.Lo; lo <= s.Hi; lo++ {
				for hi := lo; hi <= s.Hi; hi++ {
					wi, wv, wok := 0, 0, false
					is, vs := blockItems(&s, lo, hi)
					if k := slices.IndexFunc(vs, pred); k >= 0 {
						wi, wv, wok = is[k], vs[k], true
					}
					i, v, ok := SearchBlock(&s, lo, hi, pred)
					if ok != wok || ok && (i != wi || v != wv) {
						t.Fatalf("%s: SearchBlock(%d, %d) = %d, %d, %v, want %d, %d, %v", name, lo, hi, i, v, ok, wi, wv, wok)
					}
				}
			}
		}
	}
}

// TestCopiesInWholeWords: Config and Spec are copied by value at every
// stage of a pipeline (par.Range, Map, Sum, Run, drive), and Go's amd64
// code copies a struct in 16-byte moves, the last one overlapping the one
// before when the size is not a multiple of 16. A copy of a copy then loads
// 16 bytes that two stores wrote, which the processor cannot forward from
// its store buffer: each copy stalls until the stores reach the cache. At
// 184 bytes, those stalls are a third of what
// par.Sum(par.Map(par.Range(0, 0), f)) costs. Config's padding keeps both
// sizes whole.
func TestCopiesInWholeWords(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes differ on 32-bit platforms; the padding is sized for 64-bit ones")
	}
	for _, c := range []struct {
		name string
		size uintptr
	}{
		{"Config", unsafe.Sizeof(Config{})},
		{"Spec[uint64]", unsafe.Sizeof(Spec[uint64]{})},
		{"Spec[int8]", unsafe.Sizeof(Spec[int8]{})},
	} {
		if c.size%16 != 0 {
			t.Errorf("%s is %d bytes, not a multiple of 16: adjust Config's padding", c.name, c.size)
		}
	}
}

// TestSumAtCallsEachItemOnceInOrder checks sumAt's unrolled loop on every
// block length around its four calls a turn, at both ends of int (where
// i+3 or hi-4 would wrap) and on reversed blocks: each item is called
// once, in order, and a float sum adds left to right as a plain loop does.
func TestSumAtCallsEachItemOnceInOrder(t *testing.T) {
	const maxInt, minInt = int(^uint(0) >> 1), -int(^uint(0)>>1) - 1
	for _, base := range []int{0, -5, minInt, maxInt - 12} {
		for n := 0; n <= 12; n++ {
			for _, cut := range []int{0, 1, 2, 3} { // a block that starts inside the range
				lo, hi := base+min(cut, n), base+n
				var got []int
				sum := sumAt(func(i int) int {
					if got = append(got, i); len(got) > n {
						t.Fatalf("[%d, %d): calls %v, past the block", lo, hi, got)
					}
					return i - base
				}, lo, hi)
				want := 0
				for k, i := 0, lo; i < hi; k, i = k+1, i+1 {
					if k >= len(got) || got[k] != i {
						t.Fatalf("[%d, %d): calls %v, want each index in order", lo, hi, got)
					}
					want += i - base
				}
				if len(got) != max(hi-lo, 0) || sum != want {
					t.Fatalf("[%d, %d): %d calls, sum %d; want %d calls, sum %d", lo, hi, len(got), sum, max(hi-lo, 0), want)
				}
			}
		}
	}
	for _, r := range [][2]int{{5, 2}, {maxInt, minInt}, {maxInt - 2, minInt + 1}} {
		calls := 0
		item := func(i int) int {
			if calls++; calls > 4 {
				t.Fatalf("reversed block [%d, %d): called item %d and more", r[0], r[1], i)
			}
			return 1
		}
		if s := sumAt(item, r[0], r[1]); s != 0 || calls != 0 {
			t.Fatalf("reversed block [%d, %d): sum %d after %d calls, want 0 and none", r[0], r[1], s, calls)
		}
	}
	// Left to right: 1e16 + 1 + 1 rounds each 1 away; (1 + 1) first would not.
	xs := []float64{1e16, 1, 1, 1, 1, 1, 1, 1, 1, -1e16, 0.5, 1, 3}
	for n := range len(xs) + 1 {
		var want float64
		for _, x := range xs[:n] {
			want += x
		}
		if got := sumAt(func(i int) float64 { return xs[i] }, 0, n); got != want {
			t.Fatalf("float sum of %v = %v, want %v (left to right)", xs[:n], got, want)
		}
	}
}

// TestSumCombineFromTable checks that Sum's Combine for a predeclared
// number type comes from adds without an allocation, and that every type,
// a defined one too, gets a + b.
func TestSumCombineFromTable(t *testing.T) {
	type celsius float64
	checkSumCombine(t, int8(100), 27, true)
	checkSumCombine(t, uint(7), 1<<20, true)
	checkSumCombine(t, uintptr(3), 4, true)
	checkSumCombine(t, 0.5, 0.25, true)
	checkSumCombine(t, complex64(1+2i), 3i, true)
	checkSumCombine(t, int64(-9), 9, true)
	checkSumCombine(t, celsius(1.5), 2, false)
}

func checkSumCombine[T Number](t *testing.T, a, b T, fromTable bool) {
	t.Helper()
	var f func(a, b T) T
	allocs := testing.AllocsPerRun(10, func() { f = sumCombine[T]() })
	if got := f(a, b); got != a+b {
		t.Errorf("%T: sumCombine()(%v, %v) = %v, want %v", a, a, b, got, a+b)
	}
	if fromTable && allocs != 0 {
		t.Errorf("%T: sumCombine allocates %v times, want 0 (from adds)", a, allocs)
	}
}

// TestSumAtFoldReused: sumAtLoop's Fold comes from a pool and goes back
// once Run returns. A Sum nested in another's items, of the same type and
// of another, takes a Fold of its own; one whose item panics leaves its
// Fold out of the pool; and every sum is still right. Putting a Fold back
// while its loop runs (or clearing its at early) gives the outer sums
// another loop's items, or a nil call.
func TestSumAtFoldReused(t *testing.T) {
	const n = 300
	inner := func(i int) int { return Sum(MapSpec(Ints(0, i%7), func(j int) int { return j + 1 })) }
	wantInner := 0
	for i := range n {
		k := i % 7
		wantInner += k * (k + 1) / 2
	}
	for round := range 50 {
		if got := Sum(MapSpec(Ints(0, n), inner)); got != wantInner {
			t.Fatalf("round %d: nested int sums give %d, want %d", round, got, wantInner)
		}
		mixed := Sum(MapSpec(Ints(0, n), func(i int) uint8 { return uint8(inner(i)) }))
		if want := uint8(wantInner); mixed != want {
			t.Fatalf("round %d: uint8 sum over nested int sums gives %d, want %d", round, mixed, want)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("round %d: the panicking sum returned", round)
				}
			}()
			Sum(MapSpec(Ints(0, n), func(i int) int {
				if i == n-1 {
					panic("last item")
				}
				return i
			}))
		}()
	}
}
