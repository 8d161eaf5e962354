package pipe

import (
	"slices"
	"testing"
)

// TestFoldSlices checks FoldSlices against the items through Each, on
// every form a Spec takes, for every block of a small range and for a block
// longer than a chunk: the slices fold gets hold the block's surviving
// items in order, none is empty, and outside a slice source none is
// longer than the block's items, and after a FlatMap straight over a
// source each is the slice its function returned.
func TestFoldSlices(t *testing.T) {
	xs := []int{5, 3, 8, 3, 9, 1, 8, 2}
	double := func(v int) int { return 2 * v }
	big := func(v int) bool { return v > 2 }
	pairs := func(v int) []int { return []int{v, -v} }
	specs := map[string]Spec[int]{
		"ints":          Ints(-3, 5),
		"slice":         Slice(xs),
		"at":            Ints(-3, 5).Map(double),
		"gen":           Slice(xs).Filter(big).Map(double),
		"ints filtered": Ints(0, 8).Filter(func(v int) bool { return v%3 != 0 }),
		"flat":          FlatMapSpec(Slice(xs), pairs),
		"flat filtered": FlatMapSpec(Slice(xs), pairs).Filter(big),
		"bound": MapInitSpec(Slice(xs), func() *int { return new(int) },
			func(n *int, v int) int { *n++; return v + *n - *n }),
		"flat mapped":   MapSpec(FlatMapSpec(Slice(xs), pairs), double),
		"flat of flat":  FlatMapSpec(FlatMapSpec(Ints(0, 5), pairs), pairs),
		"flat over gen": FlatMapSpec(Slice(xs).Filter(big), pairs),
		"flat of bound": FlatMapSpec(MapInitSpec(Slice(xs), func() *int { return new(int) },
			func(n *int, v int) int { *n++; return v + *n - *n }), pairs),
	}
	for name, s := range specs {
		for lo := s.Lo; lo <= s.Hi; lo++ {
			for hi := lo; hi <= s.Hi; hi++ {
				var want []int
				s.Each(lo, hi, func(v int) { want = append(want, v) })
				got := FoldSlices(&s, []int(nil), lo, hi, func(acc, chunk []int) []int {
					if len(chunk) == 0 {
						t.Fatalf("%s: FoldSlices(%d, %d) passed an empty slice", name, lo, hi)
					}
					if len(chunk) > hi-lo && s.slices == nil {
						t.Fatalf("%s: FoldSlices(%d, %d) passed %d items at once", name, lo, hi, len(chunk))
					}
					if s.slices != nil && len(chunk) != 2 {
						t.Fatalf("%s: FoldSlices(%d, %d) passed %d items at once, not the 2 of FlatMap's function", name, lo, hi, len(chunk))
					}
					return append(acc, chunk...)
				})
				if !slices.Equal(got, want) {
					t.Fatalf("%s: FoldSlices(%d, %d) folded %v, want %v", name, lo, hi, got, want)
				}
			}
		}
	}
}
