package par_test

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/gopar-dev/gopar/par"
)

// Three different tasks, possibly in parallel: the sync.WaitGroup over a
// few closures.
func ExampleJoinAll() {
	var evens, odds, squares int
	par.JoinAll(
		func() { evens = par.Range(0, 100).Filter(func(i int) bool { return i%2 == 0 }).Count() },
		func() { odds = par.Range(0, 100).Filter(func(i int) bool { return i%2 == 1 }).Count() },
		func() { squares = par.Range(0, 10).Map(func(i int) int { return i * i }).Sum() },
	)
	fmt.Println(evens, odds, squares)
	// Output: 50 50 285
}

// Tasks found as the work goes on: each node of a tree starts a task per
// child, through the *Group its own task was given.
func ExampleScope() {
	type node struct {
		size     int
		children []*node
	}
	root := &node{1, []*node{{2, nil}, {3, []*node{{4, nil}, {5, nil}}}}}
	var total atomic.Int64
	var visit func(g *par.Group, n *node)
	visit = func(g *par.Group, n *node) {
		total.Add(int64(n.size))
		for _, c := range n.children {
			g.Go(func(g *par.Group) { visit(g, c) })
		}
	}
	par.Scope(func(g *par.Group) { visit(g, root) })
	fmt.Println(total.Load())
	// Output: 15
}

// Updating a slice in place: f gets the index and a pointer to the element.
func ExampleForEachPtr() {
	prices := []float64{10, 20, 30}
	par.ForEachPtr(prices, func(i int, p *float64) { *p *= 1.5 })
	fmt.Println(prices)
	// Output: [15 30 45]
}

// Reading an element with its index, as ranging over slices.All does; the
// index is the position in the source, also after a Filter.
func ExampleIter_ForEachIndex() {
	words := []string{"a", "bb", "ccc", "dd"}
	lengths := make([]int, len(words))
	par.Slice(words).Filter(func(w string) bool { return len(w) > 1 }).ForEachIndex(func(i int, w string) {
		lengths[i] = len(w)
	})
	fmt.Println(lengths)
	// Output: [0 2 3 2]
}

// Offsets of variable-sized parts laid end to end: an exclusive scan of
// their sizes, in place.
func ExampleScanSumExclusive() {
	sizes := []int{3, 1, 4, 1, 5}
	total := par.ScanSumExclusive(sizes, sizes)
	fmt.Println(sizes, total)
	// Output: [0 3 4 8 9] 14
}

// Any associative operation with its identity: here the running maximum,
// and string concatenation, which is not commutative.
func ExampleScanInclusive() {
	temps := []int{3, 7, 2, 9, 4}
	highs := make([]int, len(temps))
	par.ScanInclusive(highs, temps, math.MinInt, func(a, b int) int { return max(a, b) })
	fmt.Println(highs)

	words := []string{"a", "b", "c"}
	prefixes := make([]string, len(words))
	par.ScanInclusive(prefixes, words, "", func(a, b string) string { return a + b })
	fmt.Println(prefixes)
	// Output:
	// [3 7 7 9 9]
	// [a ab abc]
}

// Splitting items in one pass, both parts in source order.
func ExampleIter_Partition() {
	evens, odds := par.Range(0, 10).Partition(func(i int) bool { return i%2 == 0 })
	fmt.Println(evens, odds)
	// Output: [0 2 4 6 8] [1 3 5 7 9]
}
