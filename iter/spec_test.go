package iter

import "testing"

// TestSearchBlock checks SearchBlock against a search through Item, on every
// form a Spec takes, for every block of a small range.
func TestSearchBlock(t *testing.T) {
	xs := []int{5, 3, 8, 3, 9, 1, 8, 2}
	even := func(v int) bool { return v%2 == 0 }
	double := func(v int) int { return 2 * v }
	specs := map[string]Spec[int]{
		"ints":           Ints(-3, 5),
		"slice":          Slice(xs),
		"at":             Ints(-3, 5).Map(double),
		"slice filtered": Slice(xs).Filter(func(v int) bool { return v > 2 }),
		"gen":            Slice(xs).Filter(func(v int) bool { return v > 2 }).Map(double),
		"at filtered":    Slice(xs).Map(double).Filter(func(v int) bool { return v > 6 }),
		"ints filtered":  Ints(0, 8).Filter(func(v int) bool { return v%3 != 0 }),
	}
	for name, s := range specs {
		for _, pred := range []func(int) bool{even, func(v int) bool { return v > 7 }, func(int) bool { return false }} {
			for lo := s.Lo; lo <= s.Hi; lo++ {
				for hi := lo; hi <= s.Hi; hi++ {
					wi, wv, wok := 0, 0, false
					for i := lo; i < hi; i++ {
						if v, ok := s.Item(i); ok && pred(v) {
							wi, wv, wok = i, v, true
							break
						}
					}
					i, v, ok := s.SearchBlock(lo, hi, pred)
					if ok != wok || ok && (i != wi || v != wv) {
						t.Fatalf("%s: SearchBlock(%d, %d) = %d, %d, %v, want %d, %d, %v", name, lo, hi, i, v, ok, wi, wv, wok)
					}
				}
			}
		}
	}
}
