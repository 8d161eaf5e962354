package pipe

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// formSpecs returns a Spec of every form, each also behind a MapInit stage
// (bind), over items that are small ints.
func formSpecs() map[string]Spec[int] {
	xs := []int{5, 3, 8, 3, 9, 1, 8, 2}
	double := func(v int) int { return 2 * v }
	specs := map[string]Spec[int]{
		"ints":           Ints(-3, 5),
		"slice":          Slice(xs),
		"at":             Ints(-3, 5).Map(double),
		"gen":            Slice(xs).Filter(func(v int) bool { return v > 2 }),
		"gen of map":     Slice(xs).Filter(func(v int) bool { return v > 2 }).Map(double),
		"at filtered":    Slice(xs).Map(double).Filter(func(v int) bool { return v > 6 }),
		"ints filtered":  Ints(0, 8).Filter(func(v int) bool { return v%3 != 0 }),
		"flat slices":    FlatMapSpec(Slice(xs), func(v int) []int { return []int{v, v + 1, -v}[:v%3+1] }),
		"flat":           FlatMapSpec(Slice(xs), func(v int) []int { return []int{v, -v} }).Filter(func(v int) bool { return v != 3 }),
		"flat of filter": FlatMapSpec(Ints(0, 9).Filter(func(v int) bool { return v%2 == 0 }), func(v int) []int { return []int{v, v} }),
	}
	for name, s := range specs {
		specs[name+" bound"] = MapInitSpec(s, func() int { return 1 }, func(k, v int) int { return k * v })
	}
	return specs
}

// blockItems is the reference: the items of each index of [lo, hi), through
// flatOf and Item, which the entry points do not use.
func blockItems(s *Spec[int], lo, hi int) (is, vs []int) {
	t, release := s.bound()
	defer release()
	flat := flatOf(&t)
	for i := lo; i < hi; i++ {
		flat(i, func(v int) bool { is, vs = append(is, i), append(vs, v); return true })
	}
	return is, vs
}

// TestBlockEntryPoints checks every block entry point against the
// reference on every form, bound or not, for every block of each Spec.
func TestBlockEntryPoints(t *testing.T) {
	for name, s := range formSpecs() {
		for lo := s.Lo; lo <= s.Hi; lo++ {
			for hi := lo; hi <= s.Hi; hi++ {
				is, vs := blockItems(&s, lo, hi)
				where := fmt.Sprintf("%s [%d, %d)", name, lo, hi)
				checkEntryPoints(t, where, &s, lo, hi, is, vs)
			}
		}
	}
}

func checkEntryPoints(t *testing.T, where string, s *Spec[int], lo, hi int, is, vs []int) {
	t.Helper()
	var got, gotIs []int
	s.Each(lo, hi, func(v int) { got = append(got, v) })
	if !slices.Equal(got, vs) {
		t.Fatalf("%s: Each gives %v, want %v", where, got, vs)
	}
	got = nil
	s.EachIndex(lo, hi, func(i, v int) { gotIs, got = append(gotIs, i), append(got, v) })
	if !slices.Equal(got, vs) || !slices.Equal(gotIs, is) {
		t.Fatalf("%s: EachIndex gives %v at %v, want %v at %v", where, got, gotIs, vs, is)
	}
	for n := range len(vs) + 1 {
		got = nil
		all := s.EachUntil(lo, hi, func(v int) bool { got = append(got, v); return len(got) < n })
		if want := vs[:min(max(n, 1), len(vs))]; !slices.Equal(got, want) || all != (len(vs) < max(n, 1)) {
			t.Fatalf("%s: EachUntil stopping at item %d gives %v (whole: %v), want %v", where, n, got, all, want)
		}
	}
	sum := 0
	for _, v := range vs {
		sum += v
	}
	if g := SumBlock(s, lo, hi); g != sum {
		t.Fatalf("%s: SumBlock = %d, want %d", where, g, sum)
	}
	if g := FoldBlock(s, []int{}, lo, hi, func(acc []int, v int) []int { return append(acc, v) }); !slices.Equal(g, vs) {
		t.Fatalf("%s: FoldBlock gives %v, want %v", where, g, vs)
	}
	if g := FoldSlices(s, []int{}, lo, hi, func(acc, xs []int) []int { return append(acc, xs...) }); !slices.Equal(g, vs) {
		t.Fatalf("%s: FoldSlices gives %v, want %v", where, g, vs)
	}
	odd := func(v int) bool { return v%2 != 0 }
	yes, no := SplitBlock(s, lo, hi, odd, nil, nil)
	wantYes, wantNo := []int{}, []int{}
	for _, v := range vs {
		if odd(v) {
			wantYes = append(wantYes, v)
		} else {
			wantNo = append(wantNo, v)
		}
	}
	if !slices.Equal(yes, wantYes) || !slices.Equal(no, wantNo) {
		t.Fatalf("%s: SplitBlock gives %v and %v, want %v and %v", where, yes, no, wantYes, wantNo)
	}
	for _, want := range vs {
		i, v, ok := SearchBlock(s, lo, hi, func(v int) bool { return v == want })
		k := slices.Index(vs, want)
		if !ok || v != want || i != is[k] {
			t.Fatalf("%s: SearchBlock for %d = %d, %d, %v, want %d, %d, true", where, want, i, v, ok, is[k], want)
		}
	}
	if _, _, ok := SearchBlock(s, lo, hi, func(int) bool { return false }); ok {
		t.Fatalf("%s: SearchBlock for nothing found something", where)
	}
	checkFills(t, where, s, lo, hi, vs)
}

// checkFills checks Fill and TryFill: on an unfiltered Spec they store the
// items; on another they refuse with a panic that names them.
func checkFills(t *testing.T, where string, s *Spec[int], lo, hi int, vs []int) {
	t.Helper()
	if Filtered(s) {
		for name, fill := range map[string]func(){
			"Fill":    func() { Fill(s, make([]int, s.Hi-s.Lo), lo, hi) },
			"TryFill": func() { _ = TryFill(s, make([]int, hi-lo), lo, hi, func(v int) (int, error) { return v, nil }) },
		} {
			if lo == hi {
				continue
			}
			msg := func() (msg any) {
				defer func() { msg = recover() }()
				fill()
				return nil
			}()
			if m, ok := msg.(string); !ok || !strings.Contains(m, name+" on a filtered or flat Spec") {
				t.Fatalf("%s: %s on a filtered Spec panics with %v", where, name, msg)
			}
		}
		return
	}
	dst := make([]int, s.Hi-s.Lo)
	Fill(s, dst, lo, hi)
	if got := dst[lo-s.Lo : hi-s.Lo]; !slices.Equal(got, vs) {
		t.Fatalf("%s: Fill stores %v, want %v", where, got, vs)
	}
	out := make([]int, hi-lo)
	if err := TryFill(s, out, lo, hi, func(v int) (int, error) { return v + 1, nil }); err != nil {
		t.Fatalf("%s: TryFill: %v", where, err)
	}
	for k, v := range vs {
		if out[k] != v+1 {
			t.Fatalf("%s: TryFill stores %v, want each of %v plus 1", where, out, vs)
		}
	}
	bad := errors.New("bad item")
	for k := range vs {
		calls := 0
		err := TryFill(s, out, lo, hi, func(v int) (int, error) {
			if calls++; calls > k {
				return 0, bad
			}
			return v, nil
		})
		if err != bad || calls != k+1 {
			t.Fatalf("%s: TryFill failing at item %d returns %v after %d calls", where, k, err, calls)
		}
	}
}
