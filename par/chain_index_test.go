//go:build go1.27

package par_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gopar-dev/gopar/par"
)

// TestChainZipWith: the method ZipWith (chain_index.go) gives what the
// function gives, chains, and numbers items with a Range as Enumerate does.
func TestChainZipWith(t *testing.T) {
	xs := []int{5, 1, 4, 1, 5, 9, 2, 6}
	sub := func(x, y int) int { return x - y }
	got := par.Slice(xs).ZipWith(par.Range(0, 5), sub).Filter(func(d int) bool { return d > 0 }).Collect()
	want := par.ZipWith(par.Slice(xs), par.Range(0, 5), sub).Filter(func(d int) bool { return d > 0 }).Collect()
	if !slices.Equal(got, want) || !slices.Equal(got, []int{5, 2, 1}) {
		t.Errorf("Slice.ZipWith(Range(0, 5), sub).Filter = %v, the function gives %v; want [5 2 1]", got, want)
	}
	type numbered struct{ i, x int }
	even := par.Slice(xs).Filter(func(x int) bool { return x%2 == 0 })
	pairs := even.ZipWith(par.Range(0, math.MaxInt), func(x, i int) numbered { return numbered{i, x} }).Collect()
	for k, p := range par.Enumerate(even).Collect() {
		if pairs[k] != (numbered{p.Key, p.Value}) {
			t.Errorf("ZipWith(Range) after a Filter gave %v at %d, Enumerate %v", pairs[k], k, p)
		}
	}
}

// The method form of ZipWith numbers the items of a chain with a Range,
// where Enumerate, a function, would wrap it.
func ExampleIter_ZipWith() {
	names := []string{"ada", "alan", "grace"}
	lines := par.Slice(names).ZipWith(par.Range(1, math.MaxInt), func(name string, i int) string {
		return fmt.Sprintf("%d. %s", i, name)
	}).Collect()
	fmt.Println(lines)
	// Output: [1. ada 2. alan 3. grace]
}
