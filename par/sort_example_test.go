package par_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/gopar-dev/gopar/par"
)

func ExampleSort() {
	// A million random numbers; inputs of a few thousand or fewer are
	// sorted by slices.Sort on the calling goroutine.
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]int, 1_000_000)
	for i := range xs {
		xs[i] = rng.IntN(1000)
	}
	par.Sort(xs)
	fmt.Println(slices.IsSorted(xs), xs[0], xs[len(xs)-1])
	// Output: true 0 999
}

func ExampleSortFunc() {
	type file struct {
		name string
		size int
	}
	files := []file{{"b.txt", 30}, {"a.txt", 120}, {"c.txt", 7}}
	// Largest first.
	par.SortFunc(files, func(a, b file) int { return cmp.Compare(b.size, a.size) })
	fmt.Println(files)
	// Output: [{a.txt 120} {b.txt 30} {c.txt 7}]
}

func ExampleSortStableFunc() {
	// Words ordered by length; words of the same length keep their order.
	words := strings.Fields("the quick brown fox jumps over the lazy dog")
	par.SortStableFunc(words, func(a, b string) int { return cmp.Compare(len(a), len(b)) })
	fmt.Println(words)
	// Output: [the fox the dog over lazy quick brown jumps]
}
